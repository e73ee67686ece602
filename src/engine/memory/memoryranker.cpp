#include "engine/memory/memoryranker.h"

#include <QSet>
#include <algorithm>

namespace kiln {

namespace {

QSet<QString> nameWords(const QString &task)
{
    const QStringList words = task.split(QLatin1Char('_'), Qt::SkipEmptyParts);
    return QSet<QString>(words.cbegin(), words.cend());
}

} // namespace

double MemoryRanker::relevance(const MemoryEntry &entry, const QString &task, const QString &shape)
{
    double score = entry.task == task ? 3.0 : 0.0;
    if (!shape.isEmpty() && entry.shape == shape)
        score += 1.0;
    if (entry.task != task) {
        const QSet<QString> mine = nameWords(task);
        const QSet<QString> theirs = nameWords(entry.task);
        if (!mine.isEmpty())
            score += double(QSet<QString>(mine).intersect(theirs).size()) / double(mine.size());
    }
    return score;
}

QList<MemoryEntry> MemoryRanker::rank(const QList<MemoryEntry> &entries, const QString &task,
                                      const QString &backend, const QString &shape, int count)
{
    struct Scored
    {
        double relevance;
        const MemoryEntry *entry;
    };
    QList<Scored> scored;
    for (const MemoryEntry &entry : entries)
        if (entry.backend == backend)
            scored.append({relevance(entry, task, shape), &entry});
    std::stable_sort(scored.begin(), scored.end(), [](const Scored &a, const Scored &b) {
        if (a.relevance != b.relevance)
            return a.relevance > b.relevance;
        if (a.entry->gain() != b.entry->gain())
            return a.entry->gain() > b.entry->gain();
        if (a.entry->createdAt != b.entry->createdAt)
            return a.entry->createdAt > b.entry->createdAt;
        return a.entry->id > b.entry->id;
    });
    QList<MemoryEntry> chosen;
    for (qsizetype i = 0; i < scored.size() && chosen.size() < count; ++i)
        chosen.append(*scored[i].entry);
    return chosen;
}

} // namespace kiln
