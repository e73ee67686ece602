// RunStore's LLM response cache: the llm_cache table, shared by all runs of the workspace.
#include "runstore.h"
#include "runstorequeries.h"

#include <QCryptographicHash>

namespace kiln {

namespace {

CachedResponse cachedFromRow(const SqliteStatement &s)
{
    CachedResponse entry;
    s.columns(0, entry.key, entry.endpoint, entry.model, entry.bodyHash, entry.sampleIndex,
              entry.response, entry.usage, entry.createdAt);
    return entry;
}

} // namespace

QString RunStore::cacheKey(const QString &endpoint, const QString &model, const QByteArray &body,
                           int sampleIndex)
{
    // Length-prefixed fields, so that no two different requests hash the same bytes.
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const QByteArray &field :
         {endpoint.toUtf8(), model.toUtf8(), QByteArray::number(sampleIndex), body}) {
        hash.addData(QByteArray::number(field.size()) + ':');
        hash.addData(field);
    }
    return QString::fromLatin1(hash.result().toHex());
}

std::optional<CachedResponse> RunStore::cachedResponse(const QString &key)
{
    return selectOne<CachedResponse>(
        "cachedResponse",
        "SELECT key, endpoint, model, body_hash, sample_index, "
        "response, usage_json, created_at FROM llm_cache WHERE key = ?1",
        cachedFromRow, key);
}

bool RunStore::putCachedResponse(const CachedResponse &entry)
{
    QMutexLocker lock(&m_mutex);
    if (!requireWritable("putCachedResponse"))
        return false;
    if (entry.key.isEmpty())
        return setError(QStringLiteral("putCachedResponse"), QStringLiteral("empty key"));
    SqliteStatement s(m_db, "INSERT OR REPLACE INTO llm_cache (key, endpoint, model, body_hash, "
                            "sample_index, response, usage_json, created_at) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    s.bindAll(entry.key, entry.endpoint, entry.model, entry.bodyHash, entry.sampleIndex,
              entry.response, entry.usage, entry.createdAt.isValid() ? entry.createdAt : nowUtc());
    return s.exec() || setError(QStringLiteral("putCachedResponse"), s.error());
}

} // namespace kiln
