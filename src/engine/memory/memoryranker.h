#pragma once

#include "core/memoryentry.h"

#include <QList>
#include <QString>

namespace kiln {

// Which lessons of the optimisation memory a prompt carries. A lesson is only offered on the
// backend it was learnt on; among those, relevance decides (3 for the same task, 1 for the same
// timing shape, up to 1 for the words of the task name they share: "softmax" helps
// "online_softmax"), then the gain, then recency.
class MemoryRanker
{
public:
    static double relevance(const MemoryEntry &entry, const QString &task, const QString &shape);
    static QList<MemoryEntry> rank(const QList<MemoryEntry> &entries, const QString &task,
                                   const QString &backend, const QString &shape, int count);
};

} // namespace kiln
