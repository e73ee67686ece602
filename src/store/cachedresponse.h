#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>

namespace kiln {

// One cached LLM completion. The key identifies the request (endpoint, model, request body and
// sample index); RunStore::cacheKey() computes it.
struct CachedResponse
{
    QString key;
    QString endpoint;
    QString model;
    QString bodyHash;
    int sampleIndex = 0;
    QString response;  // the raw response body
    QJsonObject usage; // token counts as reported by the provider
    QDateTime createdAt;
};

} // namespace kiln
