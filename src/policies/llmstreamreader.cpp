#include "llmstreamreader.h"

namespace kiln {

HttpClient::Sink LlmStreamReader::sink()
{
    return [this](const QByteArray &chunk, const QMap<QByteArray, QByteArray> &headers,
                  QString *abortReason) { return feed(chunk, headers, abortReason); };
}

bool LlmStreamReader::feed(const QByteArray &chunk, const QMap<QByteArray, QByteArray> &headers,
                           QString *abortReason)
{
    if (!m_decided) {
        m_decided = true;
        // A server may ignore stream:true, or a proxy may answer with a page: anything
        // that is not an event stream is read whole and parsed as a plain response.
        const QByteArray type = headers.value("content-type").toLower();
        m_eventStream = type.isEmpty() || type.contains("event-stream");
    }
    if (!m_eventStream || m_rawBody.size() < 512)
        m_rawBody += chunk; // whole for a plain body; the start of a stream for errors
    if (!m_eventStream)
        return true;
    const QList<SseEvent> events = m_parser.feed(chunk);
    for (const SseEvent &event : events) {
        m_api.onStreamEvent(event, m_state);
        if (m_state.failed) {
            *abortReason = m_state.error;
            return false;
        }
    }
    return true;
}

bool LlmStreamReader::complete() const
{
    return m_state.done || !m_state.response.finishReason.isEmpty();
}

QString LlmStreamReader::incompleteError() const
{
    if (m_state.events == 0)
        return QStringLiteral("the stream ended without any event (%1 bytes: %2)")
            .arg(QString::number(m_parser.bytesFed()), ChatApi::describeErrorBody(m_rawBody));
    if (m_parser.hasPartialEvent())
        return QStringLiteral("the stream was cut mid-event after %1 bytes")
            .arg(m_parser.bytesFed());
    return QStringLiteral("the stream ended after %1 events without its final event")
        .arg(m_state.events);
}

LlmResponse LlmStreamReader::finish()
{
    ChatApi::finishStream(m_state);
    return m_state.response;
}

} // namespace kiln
