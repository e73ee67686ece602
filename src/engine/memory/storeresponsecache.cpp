#include "engine/memory/storeresponsecache.h"

#include "store/runstore.h"

namespace kiln {

std::optional<CachedCompletion> StoreResponseCache::get(const QString &key)
{
    const std::optional<CachedResponse> row = m_store.cachedResponse(key);
    if (!row)
        return std::nullopt;
    return CachedCompletion{row->key,         row->endpoint, row->model, row->bodyHash,
                            row->sampleIndex, row->response, row->usage, row->createdAt};
}

void StoreResponseCache::put(const CachedCompletion &entry)
{
    m_store.putCachedResponse(CachedResponse{entry.key, entry.endpoint, entry.model, entry.bodyHash,
                                             int(entry.sampleIndex), entry.response, entry.usage,
                                             entry.createdAt});
}

} // namespace kiln
