#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace kiln {

// One server-sent event: the "event:" name (empty: "message") and its data lines joined by '\n'.
struct SseEvent
{
    QString event;
    QString data;
    QString id;
};

// Incremental parser for text/event-stream (the WHATWG rules): bytes arrive in arbitrary chunks,
// so a line, an event or a UTF-8 character may be split anywhere. Lines end in \n, \r\n or \r;
// ':' starts a comment (keep-alives); several data: lines join with '\n'; an event ends at a blank
// line. Only complete lines are decoded, so a multi-byte character split across chunks decodes
// whole.
class SseParser
{
public:
    // Returns the events completed by this chunk.
    QList<SseEvent> feed(const QByteArray &chunk);
    // True when the stream so far ends inside an event (bytes or fields not yet closed by a blank
    // line): a stream that stops here was cut mid-event.
    bool hasPartialEvent() const;
    qint64 bytesFed() const { return m_bytes; }
    int commentCount() const { return m_comments; }

private:
    void processLine(const QByteArray &line, QList<SseEvent> &events);

    QByteArray m_buffer; // bytes after the last complete line
    bool m_pendingCr = false;
    bool m_firstLine = true;
    bool m_inEvent = false;
    QString m_event;
    QString m_data;
    QString m_id;
    bool m_hasData = false;
    qint64 m_bytes = 0;
    int m_comments = 0;
};

} // namespace kiln
