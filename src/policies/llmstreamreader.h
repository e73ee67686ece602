#pragma once

#include "policies/chatapi.h"
#include "policies/httpclient.h"
#include "policies/sseparser.h"

#include <QByteArray>
#include <QMap>
#include <QString>

namespace kiln {

// Reads one streamed answer as it arrives: the event stream goes through the API flavour's
// parser into a StreamState; a body that is not an event stream is kept whole for the caller to
// parse as a plain response. The sink refers to this reader, so the reader must outlive the
// transfer and is never copied.
class LlmStreamReader
{
public:
    explicit LlmStreamReader(const ChatApi &api) : m_api(api) {}
    LlmStreamReader(const LlmStreamReader &) = delete;
    LlmStreamReader &operator=(const LlmStreamReader &) = delete;

    // The HttpClient sink that feeds this reader.
    HttpClient::Sink sink();
    // One chunk of the body; false (with the stream's error in *abortReason) to stop the transfer.
    bool feed(const QByteArray &chunk, const QMap<QByteArray, QByteArray> &headers,
              QString *abortReason);

    // False once the body turned out not to be an event stream.
    bool eventStream() const { return m_eventStream; }
    // The whole body when it was not an event stream; else the stream's start (for errors).
    const QByteArray &rawBody() const { return m_rawBody; }
    const ChatApi::StreamState &state() const { return m_state; }
    // The stream ended properly: its final event or a finish reason arrived.
    bool complete() const;
    // Why an incomplete stream is incomplete (no event, cut mid-event, no final event).
    QString incompleteError() const;
    // The response of a complete stream, with its final token counts.
    LlmResponse finish();

private:
    const ChatApi &m_api;
    SseParser m_parser;
    ChatApi::StreamState m_state;
    bool m_decided = false;
    bool m_eventStream = true;
    QByteArray m_rawBody;
};

} // namespace kiln
