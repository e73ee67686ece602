#pragma once

#include "policies/apiflavour.h"
#include "policies/llmrequest.h"
#include "policies/llmresponse.h"
#include "policies/sseparser.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <memory>
#include <optional>

namespace kiln {

// Maps a request to one provider's wire format and its answers back. Stateless: a streaming
// answer accumulates in a StreamState the caller owns.
class ChatApi
{
public:
    struct StreamState
    {
        LlmResponse response;
        bool done = false;      // the stream's final event arrived
        bool failed = false;    // an error event arrived (error holds why)
        bool retryable = false; // that error is worth retrying (overloaded, rate limited)
        QString error;
        int events = 0;
        bool usageSeen = false;
        qint64 outputTokens = 0; // including reasoning, as reported
        std::optional<qint64> reportedReasoning;
    };

    struct ParseResult
    {
        bool ok = false;
        bool retryable = false;
        QString error;
        LlmResponse response;
    };

    virtual ~ChatApi() = default;
    virtual ApiFlavour flavour() const = 0;
    // The full request URL for a user-given endpoint (a base such as https://api.openai.com/v1, or
    // the complete path).
    virtual QString requestUrl(const QString &endpoint) const = 0;
    // Headers including authentication; an empty key sends none (local servers).
    virtual QList<QByteArray> headers(const QByteArray &apiKey, bool stream) const = 0;
    virtual QByteArray requestBody(const LlmRequest &request) const = 0;
    virtual ParseResult parseResponse(const QByteArray &body) const = 0;
    virtual void onStreamEvent(const SseEvent &event, StreamState &state) const = 0;

    // Turns the accumulated stream into final token counts (call once the stream ended).
    static void finishStream(StreamState &state);

    // A one-line explanation of an HTTP error body: the provider's error message when it is
    // JSON, the page title when it is HTML, the start of the text otherwise.
    static QString describeErrorBody(const QByteArray &body);
    // Why a body that should be JSON is not: "HTML page 'Bad Gateway'", "invalid JSON at ...".
    static QString describeNonJson(const QByteArray &body, const QString &parseError);

    static std::unique_ptr<ChatApi> create(ApiFlavour flavour);

protected:
    // The request's extra_body fields over the flavour's own (the user's word wins), as compact
    // JSON.
    static QByteArray finishBody(QJsonObject body, const LlmRequest &request);
    // The answer's top-level object; none, with result.error saying why, when it is not one.
    static std::optional<QJsonObject> responseObject(const QByteArray &body, ParseResult &result);
};

} // namespace kiln
