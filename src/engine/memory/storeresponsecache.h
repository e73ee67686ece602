#pragma once

#include "policies/responsecache.h"

namespace kiln {

class RunStore;

// The LLM policy's response cache kept in the workspace database (llm_cache table), so a rerun
// or a resumed run does not pay for the same completion twice.
class StoreResponseCache : public ResponseCache
{
public:
    explicit StoreResponseCache(RunStore &store) : m_store(store) {}
    std::optional<CachedCompletion> get(const QString &key) override;
    void put(const CachedCompletion &entry) override;

private:
    RunStore &m_store;
};

} // namespace kiln
