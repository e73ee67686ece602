#include "verifier/screen/screenflags.h"

#include "verifier/screen/flagcatalog.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace kiln {

void ScreenFlags::add(const QString &id, int line, const QString &detail)
{
    Entry &entry = m_entries[id];
    if (line > 0 && !entry.lines.contains(line))
        entry.lines.append(line);
    if (!detail.isEmpty() && !entry.details.contains(detail))
        entry.details.append(detail);
    if (!m_order.contains(id))
        m_order.append(id);
}

void ScreenFlags::add(const QString &id, const QList<int> &lines, const QString &detail)
{
    if (lines.isEmpty())
        add(id, 0, detail);
    for (int line : lines)
        add(id, line, detail);
}

QString ScreenFlags::detailOf(const CheatFlag &flag)
{
    const FlagInfo *info = FlagCatalog::find(flag.id);
    if (info && flag.message.startsWith(info->message + u" ("_s) && flag.message.endsWith(u')'))
        return flag.message.mid(info->message.size() + 2).chopped(1);
    return {};
}

void ScreenFlags::merge(const CheatFlag &flag, const QString &id)
{
    add(id.isEmpty() ? flag.id : id, flag.lines, detailOf(flag));
}

QList<CheatFlag> ScreenFlags::flags() const
{
    QList<CheatFlag> result;
    for (const QString &id : m_order) {
        Entry entry = m_entries.value(id);
        std::sort(entry.lines.begin(), entry.lines.end());
        result.append(FlagCatalog::make(id, entry.lines, entry.details.mid(0, 4).join(u", "_s)));
    }
    return result;
}

} // namespace kiln
