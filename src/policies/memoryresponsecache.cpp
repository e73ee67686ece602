#include "memoryresponsecache.h"

namespace kiln {

std::optional<CachedCompletion> MemoryResponseCache::get(const QString &key)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_entries.constFind(key);
    if (it == m_entries.constEnd())
        return std::nullopt;
    ++m_hits;
    return it.value();
}

void MemoryResponseCache::put(const CachedCompletion &entry)
{
    std::lock_guard lock(m_mutex);
    m_entries.insert(entry.key, entry);
}

int MemoryResponseCache::size() const
{
    std::lock_guard lock(m_mutex);
    return int(m_entries.size());
}

int MemoryResponseCache::hits() const
{
    std::lock_guard lock(m_mutex);
    return m_hits;
}

} // namespace kiln
