#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace kiln {

// One cached completion. Field for field the store's llm_cache row (store/cachedresponse.h), so
// the engine's adapter is a copy; `response` holds LlmResponse::toJson() as compact JSON text.
struct CachedCompletion
{
    QString key;
    QString endpoint;
    QString model;
    QString bodyHash; // sha256 hex of the request body
    qint64 sampleIndex = 0;
    QString response;
    QJsonObject usage;
    QDateTime createdAt;
};

// Where LLM answers are kept so a rerun (or a resumed run) does not pay twice. The policies layer
// only sees this interface; the engine adapts the SQLite RunStore to it. Implementations must be
// safe to call from several threads.
class ResponseCache
{
public:
    virtual ~ResponseCache() = default;
    virtual std::optional<CachedCompletion> get(const QString &key) = 0;
    virtual void put(const CachedCompletion &entry) = 0;
};

} // namespace kiln
