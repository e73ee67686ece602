#include "models/notices.h"

namespace kiln {

void Notices::post(Kind kind, const QString &text)
{
    if (text.isEmpty())
        return;
    m_notices.append(Notice{kind, text, QDateTime::currentDateTime()});
    if (m_notices.size() > kKept)
        m_notices.remove(0, m_notices.size() - kKept);
    emit posted(m_notices.last());
}

QStringList Notices::recent(int count) const
{
    QStringList lines;
    for (qsizetype i = m_notices.size() - 1; i >= 0 && lines.size() < count; --i) {
        const Notice &n = m_notices.at(i);
        lines << n.at.toString(QStringLiteral("hh:mm:ss ")) +
                     (n.kind == Kind::Failure ? QStringLiteral("⚠ ") : QString()) + n.text;
    }
    return lines;
}

} // namespace kiln
