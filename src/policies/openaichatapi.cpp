#include "openaichatapi.h"

#include "policies/retrypolicy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kiln {

namespace {

// Message content is a string, null, or (some servers) an array of typed parts.
QString contentText(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    QString text;
    if (value.isArray()) {
        for (const QJsonValue &part : value.toArray()) {
            const QJsonObject p = part.toObject();
            if (p.value(QStringLiteral("type")).toString() == QStringLiteral("text"))
                text += p.value(QStringLiteral("text")).toString();
        }
    }
    return text;
}

QString reasoningText(const QJsonObject &message)
{
    const QJsonValue rc = message.value(QStringLiteral("reasoning_content"));
    if (rc.isString() && !rc.toString().isEmpty())
        return rc.toString();
    const QJsonValue r = message.value(QStringLiteral("reasoning"));
    return r.isString() ? r.toString() : QString();
}

void readUsage(const QJsonObject &usage, qint64 *prompt, qint64 *output,
               std::optional<qint64> *reasoning)
{
    *prompt = usage.value(QStringLiteral("prompt_tokens")).toInteger();
    *output = usage.value(QStringLiteral("completion_tokens")).toInteger();
    const QJsonValue details = usage.value(QStringLiteral("completion_tokens_details"));
    const QJsonValue r = details.toObject().value(QStringLiteral("reasoning_tokens"));
    if (r.isDouble())
        *reasoning = r.toInteger();
    else if (usage.value(QStringLiteral("reasoning_tokens")).isDouble())
        *reasoning = usage.value(QStringLiteral("reasoning_tokens")).toInteger();
}

// Errors some servers put in a 200 body or a stream event (OpenRouter does both).
bool readError(const QJsonObject &root, QString *message, bool *retryable)
{
    const QJsonValue error = root.value(QStringLiteral("error"));
    if (error.isUndefined() || error.isNull())
        return false;
    const QJsonObject e = error.toObject();
    const int code = e.value(QStringLiteral("code")).toInt();
    const QString type = e.value(QStringLiteral("type")).toString();
    *message = ChatApi::describeErrorBody(QJsonDocument(root).toJson(QJsonDocument::Compact));
    *retryable =
        RetryPolicy::isRetryableStatus(code) || type.contains(QStringLiteral("overload")) ||
        type.contains(QStringLiteral("rate_limit")) || type == QStringLiteral("server_error");
    return true;
}

} // namespace

QString OpenAiChatApi::requestUrl(const QString &endpoint) const
{
    QString url = endpoint.trimmed();
    while (url.endsWith(QLatin1Char('/')))
        url.chop(1);
    if (url.endsWith(QStringLiteral("/chat/completions")))
        return url;
    return url + QStringLiteral("/chat/completions");
}

QList<QByteArray> OpenAiChatApi::headers(const QByteArray &apiKey, bool stream) const
{
    QList<QByteArray> h{"Content-Type: application/json",
                        stream ? QByteArray("Accept: text/event-stream")
                               : QByteArray("Accept: application/json")};
    if (!apiKey.isEmpty())
        h << QByteArray("Authorization: Bearer ") + apiKey;
    return h;
}

QByteArray OpenAiChatApi::requestBody(const LlmRequest &request) const
{
    QJsonArray messages;
    if (!request.system.isEmpty())
        messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("system")},
                                    {QStringLiteral("content"), request.system}});
    messages.append(QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                {QStringLiteral("content"), request.user}});
    QJsonObject body{{QStringLiteral("model"), request.model},
                     {QStringLiteral("messages"), messages},
                     {QStringLiteral("stream"), request.stream}};
    if (request.maxTokens > 0)
        body.insert(request.maxTokensField.isEmpty() ? QStringLiteral("max_tokens")
                                                     : request.maxTokensField,
                    request.maxTokens);
    if (request.stream && request.streamUsage)
        body.insert(QStringLiteral("stream_options"),
                    QJsonObject{{QStringLiteral("include_usage"), true}});
    if (request.temperature)
        body.insert(QStringLiteral("temperature"), *request.temperature);
    if (request.topP)
        body.insert(QStringLiteral("top_p"), *request.topP);
    if (!request.reasoningEffort.isEmpty())
        body.insert(QStringLiteral("reasoning_effort"), request.reasoningEffort);
    if (request.seed)
        body.insert(QStringLiteral("seed"), *request.seed);
    return finishBody(body, request);
}

ChatApi::ParseResult OpenAiChatApi::parseResponse(const QByteArray &body) const
{
    ParseResult result;
    const std::optional<QJsonObject> object = responseObject(body, result);
    if (!object)
        return result;
    const QJsonObject &root = *object;
    if (readError(root, &result.error, &result.retryable)) {
        result.error = QStringLiteral("the server reported an error: ") + result.error;
        return result;
    }
    const QJsonArray choices = root.value(QStringLiteral("choices")).toArray();
    if (choices.isEmpty()) {
        result.error = QStringLiteral("the response has no choices");
        return result;
    }
    const QJsonObject choice = choices.first().toObject();
    const QJsonObject message = choice.value(QStringLiteral("message")).toObject();
    LlmResponse &r = result.response;
    r.text = contentText(message.value(QStringLiteral("content")));
    r.reasoning = reasoningText(message);
    r.finishReason = choice.value(QStringLiteral("finish_reason")).toString();
    r.model = root.value(QStringLiteral("model")).toString();
    const QJsonValue usage = root.value(QStringLiteral("usage"));
    if (usage.isObject()) {
        qint64 output = 0;
        std::optional<qint64> reasoning;
        readUsage(usage.toObject(), &r.promptTokens, &output, &reasoning);
        r.usageReported = true;
        r.splitOutputTokens(output, reasoning);
    }
    result.ok = true;
    return result;
}

void OpenAiChatApi::onStreamEvent(const SseEvent &event, StreamState &state) const
{
    ++state.events;
    const QString data = event.data.trimmed();
    if (data == QStringLiteral("[DONE]")) {
        state.done = true;
        return;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(data.toUtf8(), &parseError);
    if (!doc.isObject()) {
        state.failed = true;
        state.error = QStringLiteral("a stream event is not valid JSON: ") +
                      describeNonJson(data.toUtf8(), parseError.errorString());
        return;
    }
    const QJsonObject root = doc.object();
    QString message;
    bool retryable = false;
    if (readError(root, &message, &retryable)) {
        state.failed = true;
        state.retryable = retryable;
        state.error = QStringLiteral("the server reported an error mid-stream: ") + message;
        return;
    }
    if (state.response.model.isEmpty())
        state.response.model = root.value(QStringLiteral("model")).toString();
    const QJsonArray choices = root.value(QStringLiteral("choices")).toArray();
    if (!choices.isEmpty()) {
        const QJsonObject choice = choices.first().toObject();
        const QJsonObject delta = choice.value(QStringLiteral("delta")).toObject();
        state.response.text += contentText(delta.value(QStringLiteral("content")));
        state.response.reasoning += reasoningText(delta);
        const QJsonValue finish = choice.value(QStringLiteral("finish_reason"));
        if (finish.isString())
            state.response.finishReason = finish.toString();
    }
    const QJsonValue usage = root.value(QStringLiteral("usage"));
    if (usage.isObject()) {
        readUsage(usage.toObject(), &state.response.promptTokens, &state.outputTokens,
                  &state.reportedReasoning);
        state.usageSeen = true;
    }
}

} // namespace kiln
