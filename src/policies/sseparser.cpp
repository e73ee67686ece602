#include "sseparser.h"

namespace kiln {

QList<SseEvent> SseParser::feed(const QByteArray &chunk)
{
    QList<SseEvent> events;
    m_bytes += chunk.size();
    qsizetype start = 0;
    for (qsizetype i = 0; i < chunk.size(); ++i) {
        const char c = chunk.at(i);
        if (c != '\n' && c != '\r')
            continue;
        // A \r\n pair split across chunks: the \n only finishes the line the \r already ended.
        if (c == '\n' && i == 0 && m_pendingCr && m_buffer.isEmpty()) {
            m_pendingCr = false;
            start = 1;
            continue;
        }
        m_buffer.append(chunk.constData() + start, i - start);
        processLine(m_buffer, events);
        m_buffer.clear();
        if (c == '\r') {
            if (i + 1 < chunk.size()) {
                if (chunk.at(i + 1) == '\n')
                    ++i;
                m_pendingCr = false;
            } else {
                m_pendingCr = true;
            }
        } else {
            m_pendingCr = false;
        }
        start = i + 1;
    }
    if (start < chunk.size()) {
        m_buffer.append(chunk.constData() + start, chunk.size() - start);
        m_pendingCr = false;
    }
    return events;
}

bool SseParser::hasPartialEvent() const
{
    return m_inEvent || !m_buffer.isEmpty();
}

void SseParser::processLine(const QByteArray &rawLine, QList<SseEvent> &events)
{
    QByteArray line = rawLine;
    if (m_firstLine) {
        m_firstLine = false;
        if (line.startsWith("\xEF\xBB\xBF"))
            line.remove(0, 3);
    }
    if (line.isEmpty()) {
        if (m_hasData) {
            SseEvent e;
            e.event = m_event;
            e.data = m_data;
            e.id = m_id;
            events.append(e);
        }
        m_event.clear();
        m_data.clear();
        m_hasData = false;
        m_inEvent = false;
        return;
    }
    if (line.startsWith(':')) {
        ++m_comments;
        return;
    }
    m_inEvent = true;
    const qsizetype colon = line.indexOf(':');
    QByteArray field = colon < 0 ? line : line.left(colon);
    QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
    if (value.startsWith(' '))
        value.remove(0, 1);
    if (field == "data") {
        if (m_hasData)
            m_data += QLatin1Char('\n');
        m_data += QString::fromUtf8(value);
        m_hasData = true;
    } else if (field == "event") {
        m_event = QString::fromUtf8(value);
    } else if (field == "id") {
        m_id = QString::fromUtf8(value);
    }
    // "retry" and unknown fields are ignored, as the standard says.
}

} // namespace kiln
