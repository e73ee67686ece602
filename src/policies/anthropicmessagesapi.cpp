#include "anthropicmessagesapi.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace kiln {

namespace {

qint64 inputTokens(const QJsonObject &usage)
{
    // Cached prompt parts are reported apart from input_tokens; all of them are prompt.
    return usage.value(QStringLiteral("input_tokens")).toInteger() +
           usage.value(QStringLiteral("cache_creation_input_tokens")).toInteger() +
           usage.value(QStringLiteral("cache_read_input_tokens")).toInteger();
}

bool isRetryableType(const QString &type)
{
    return type == QStringLiteral("overloaded_error") ||
           type == QStringLiteral("rate_limit_error") || type == QStringLiteral("api_error") ||
           type == QStringLiteral("timeout_error");
}

} // namespace

QString AnthropicMessagesApi::requestUrl(const QString &endpoint) const
{
    QString url = endpoint.trimmed();
    while (url.endsWith(QLatin1Char('/')))
        url.chop(1);
    if (url.endsWith(QStringLiteral("/messages")))
        return url;
    if (url.endsWith(QStringLiteral("/v1")))
        return url + QStringLiteral("/messages");
    return url + QStringLiteral("/v1/messages");
}

QList<QByteArray> AnthropicMessagesApi::headers(const QByteArray &apiKey, bool stream) const
{
    QList<QByteArray> h{
        "Content-Type: application/json", QByteArray("anthropic-version: ") + version,
        stream ? QByteArray("Accept: text/event-stream") : QByteArray("Accept: application/json")};
    if (!apiKey.isEmpty())
        h << QByteArray("x-api-key: ") + apiKey;
    return h;
}

QByteArray AnthropicMessagesApi::requestBody(const LlmRequest &request) const
{
    QJsonObject body{{QStringLiteral("model"), request.model},
                     {QStringLiteral("stream"), request.stream}};
    if (!request.system.isEmpty())
        body.insert(QStringLiteral("system"), request.system);
    body.insert(QStringLiteral("messages"),
                QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                       {QStringLiteral("content"), request.user}}});
    qint64 maxTokens = request.maxTokens > 0 ? request.maxTokens : 8192;
    if (request.thinkingBudget > 0) {
        const qint64 budget = std::max(request.thinkingBudget, minThinkingBudget);
        // max_tokens must exceed the thinking budget; the answer keeps its own allowance.
        if (maxTokens <= budget)
            maxTokens += budget;
        body.insert(QStringLiteral("thinking"),
                    QJsonObject{{QStringLiteral("type"), QStringLiteral("enabled")},
                                {QStringLiteral("budget_tokens"), budget}});
    } else {
        // Thinking only allows the default temperature.
        if (request.temperature)
            body.insert(QStringLiteral("temperature"), *request.temperature);
        if (request.topP)
            body.insert(QStringLiteral("top_p"), *request.topP);
    }
    body.insert(QStringLiteral("max_tokens"), maxTokens);
    return finishBody(body, request);
}

ChatApi::ParseResult AnthropicMessagesApi::parseResponse(const QByteArray &body) const
{
    ParseResult result;
    const std::optional<QJsonObject> object = responseObject(body, result);
    if (!object)
        return result;
    const QJsonObject &root = *object;
    if (root.value(QStringLiteral("type")).toString() == QStringLiteral("error") ||
        root.value(QStringLiteral("error")).isObject()) {
        result.retryable = isRetryableType(root.value(QStringLiteral("error"))
                                               .toObject()
                                               .value(QStringLiteral("type"))
                                               .toString());
        result.error = QStringLiteral("the server reported an error: ") + describeErrorBody(body);
        return result;
    }
    const QJsonValue content = root.value(QStringLiteral("content"));
    if (!content.isArray()) {
        result.error = QStringLiteral("the response has no content array");
        return result;
    }
    LlmResponse &r = result.response;
    for (const QJsonValue &blockValue : content.toArray()) {
        const QJsonObject block = blockValue.toObject();
        const QString type = block.value(QStringLiteral("type")).toString();
        if (type == QStringLiteral("text"))
            r.text += block.value(QStringLiteral("text")).toString();
        else if (type == QStringLiteral("thinking"))
            r.reasoning += block.value(QStringLiteral("thinking")).toString();
        else if (type == QStringLiteral("redacted_thinking"))
            r.reasoning += QStringLiteral("[redacted thinking]");
    }
    r.finishReason = root.value(QStringLiteral("stop_reason")).toString();
    r.model = root.value(QStringLiteral("model")).toString();
    const QJsonValue usage = root.value(QStringLiteral("usage"));
    if (usage.isObject()) {
        r.promptTokens = inputTokens(usage.toObject());
        r.usageReported = true;
        r.splitOutputTokens(usage.toObject().value(QStringLiteral("output_tokens")).toInteger(),
                            std::nullopt);
    }
    result.ok = true;
    return result;
}

void AnthropicMessagesApi::onStreamEvent(const SseEvent &event, StreamState &state) const
{
    ++state.events;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(event.data.toUtf8(), &parseError);
    if (!doc.isObject()) {
        state.failed = true;
        state.error = QStringLiteral("a stream event is not valid JSON: ") +
                      describeNonJson(event.data.toUtf8(), parseError.errorString());
        return;
    }
    const QJsonObject root = doc.object();
    QString type = root.value(QStringLiteral("type")).toString();
    if (type.isEmpty())
        type = event.event;
    if (type == QStringLiteral("message_start")) {
        const QJsonObject message = root.value(QStringLiteral("message")).toObject();
        state.response.model = message.value(QStringLiteral("model")).toString();
        const QJsonObject usage = message.value(QStringLiteral("usage")).toObject();
        if (!usage.isEmpty()) {
            state.response.promptTokens = inputTokens(usage);
            state.outputTokens = usage.value(QStringLiteral("output_tokens")).toInteger();
            state.usageSeen = true;
        }
    } else if (type == QStringLiteral("content_block_start")) {
        const QJsonObject block = root.value(QStringLiteral("content_block")).toObject();
        const QString blockType = block.value(QStringLiteral("type")).toString();
        if (blockType == QStringLiteral("text"))
            state.response.text += block.value(QStringLiteral("text")).toString();
        else if (blockType == QStringLiteral("thinking"))
            state.response.reasoning += block.value(QStringLiteral("thinking")).toString();
        else if (blockType == QStringLiteral("redacted_thinking"))
            state.response.reasoning += QStringLiteral("[redacted thinking]");
    } else if (type == QStringLiteral("content_block_delta")) {
        const QJsonObject delta = root.value(QStringLiteral("delta")).toObject();
        const QString deltaType = delta.value(QStringLiteral("type")).toString();
        if (deltaType == QStringLiteral("text_delta"))
            state.response.text += delta.value(QStringLiteral("text")).toString();
        else if (deltaType == QStringLiteral("thinking_delta"))
            state.response.reasoning += delta.value(QStringLiteral("thinking")).toString();
    } else if (type == QStringLiteral("message_delta")) {
        const QJsonObject delta = root.value(QStringLiteral("delta")).toObject();
        const QJsonValue stop = delta.value(QStringLiteral("stop_reason"));
        if (stop.isString())
            state.response.finishReason = stop.toString();
        const QJsonObject usage = root.value(QStringLiteral("usage")).toObject();
        if (usage.contains(QStringLiteral("output_tokens"))) {
            // Cumulative, not an increment.
            state.outputTokens = usage.value(QStringLiteral("output_tokens")).toInteger();
            state.usageSeen = true;
        }
        if (usage.contains(QStringLiteral("input_tokens")))
            state.response.promptTokens = inputTokens(usage);
    } else if (type == QStringLiteral("message_stop")) {
        state.done = true;
    } else if (type == QStringLiteral("error")) {
        const QJsonObject error = root.value(QStringLiteral("error")).toObject();
        state.failed = true;
        state.retryable = isRetryableType(error.value(QStringLiteral("type")).toString());
        state.error = QStringLiteral("the server reported an error mid-stream: ") +
                      describeErrorBody(event.data.toUtf8());
    }
    // ping and content_block_stop carry nothing we need.
}

} // namespace kiln
