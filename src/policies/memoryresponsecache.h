#pragma once

#include "policies/responsecache.h"

#include <QHash>
#include <mutex>

namespace kiln {

// A ResponseCache in memory (tests, and runs without a database).
class MemoryResponseCache : public ResponseCache
{
public:
    std::optional<CachedCompletion> get(const QString &key) override;
    void put(const CachedCompletion &entry) override;
    int size() const;
    int hits() const;

private:
    mutable std::mutex m_mutex;
    QHash<QString, CachedCompletion> m_entries;
    int m_hits = 0;
};

} // namespace kiln
