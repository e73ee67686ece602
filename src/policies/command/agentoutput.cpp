#include "policies/command/agentoutput.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>

namespace kiln {

namespace {

qint64 number(const QJsonObject &object, const char *key)
{
    return qint64(object.value(QLatin1String(key)).toDouble());
}

// Claude Code: {"type":"result","subtype":...,"is_error":...,"result":"...","usage":{...},
// "total_cost_usd":...}.
AgentOutput fromClaudeCode(const QJsonObject &result)
{
    AgentOutput out;
    out.format = QStringLiteral("claude-code");
    out.text = result.value(QStringLiteral("result")).toString();
    if (result.value(QStringLiteral("is_error")).toBool())
        out.error = QStringLiteral("the agent ended with an error (%1)")
                        .arg(result.value(QStringLiteral("subtype")).toString());
    const QJsonObject usage = result.value(QStringLiteral("usage")).toObject();
    if (!usage.isEmpty()) {
        out.usageReported = true;
        out.cachedInputTokens = number(usage, "cache_read_input_tokens");
        out.inputTokens = number(usage, "input_tokens") + out.cachedInputTokens +
                          number(usage, "cache_creation_input_tokens");
        out.outputTokens = number(usage, "output_tokens");
    }
    if (result.contains(QStringLiteral("total_cost_usd")))
        out.costUsd = result.value(QStringLiteral("total_cost_usd")).toDouble();
    return out;
}

// Gemini CLI: {"response":"...","stats":{"models":{NAME:{"tokens":{"prompt":..,"candidates":..,
// "cached":..}}}},"error":{...}}.
AgentOutput fromGeminiCli(const QJsonObject &result)
{
    AgentOutput out;
    out.format = QStringLiteral("gemini-cli");
    out.text = result.value(QStringLiteral("response")).toString();
    const QJsonObject error = result.value(QStringLiteral("error")).toObject();
    if (!error.isEmpty())
        out.error = error.value(QStringLiteral("message")).toString();
    const QJsonObject models =
        result.value(QStringLiteral("stats")).toObject().value(QStringLiteral("models")).toObject();
    for (const QJsonValue &model : models) {
        const QJsonObject tokens = model.toObject().value(QStringLiteral("tokens")).toObject();
        if (tokens.isEmpty())
            continue;
        out.usageReported = true;
        out.inputTokens += number(tokens, "prompt");
        out.outputTokens += number(tokens, "candidates") + number(tokens, "thoughts");
        out.cachedInputTokens += number(tokens, "cached");
    }
    return out;
}

// Codex: one event per line; the last agent message is the answer, every turn adds its usage.
std::optional<AgentOutput> fromCodexEvents(const QList<QJsonObject> &events)
{
    AgentOutput out;
    out.format = QStringLiteral("codex");
    bool codex = false;
    for (const QJsonObject &event : events) {
        const QString type = event.value(QStringLiteral("type")).toString();
        codex = codex || type.startsWith(QLatin1String("thread.")) ||
                type.startsWith(QLatin1String("turn.")) || type.startsWith(QLatin1String("item."));
        if (type == QLatin1String("item.completed")) {
            const QJsonObject item = event.value(QStringLiteral("item")).toObject();
            if (item.value(QStringLiteral("type")).toString() == QLatin1String("agent_message"))
                out.text = item.value(QStringLiteral("text")).toString();
        } else if (type == QLatin1String("turn.completed")) {
            const QJsonObject usage = event.value(QStringLiteral("usage")).toObject();
            out.usageReported = out.usageReported || !usage.isEmpty();
            out.inputTokens += number(usage, "input_tokens");
            out.cachedInputTokens += number(usage, "cached_input_tokens");
            out.outputTokens += number(usage, "output_tokens");
        } else if (type == QLatin1String("turn.failed") || type == QLatin1String("error")) {
            const QJsonValue error = event.value(QStringLiteral("error"));
            out.error = error.isObject()
                            ? error.toObject().value(QStringLiteral("message")).toString()
                            : event.value(QStringLiteral("message")).toString();
        }
    }
    if (!codex)
        return std::nullopt;
    return out;
}

AgentOutput asText(const QByteArray &standardOutput, const QString &format)
{
    AgentOutput out;
    out.format = format;
    out.text = QString::fromUtf8(standardOutput);
    return out;
}

} // namespace

// Claude Code's result among a list of messages (`--verbose`, `stream-json`): the last one.
static std::optional<AgentOutput> fromEvents(const QList<QJsonObject> &events)
{
    for (auto it = events.crbegin(); it != events.crend(); ++it)
        if (it->value(QStringLiteral("type")).toString() == QLatin1String("result"))
            return fromClaudeCode(*it);
    return fromCodexEvents(events);
}

AgentOutput AgentOutput::parse(const QByteArray &standardOutput)
{
    const QByteArray trimmed = standardOutput.trimmed();
    if (!trimmed.startsWith('{') && !trimmed.startsWith('['))
        return asText(standardOutput, QStringLiteral("text"));
    QJsonParseError error;
    const QJsonDocument whole = QJsonDocument::fromJson(trimmed, &error);
    QList<QJsonObject> events;
    if (error.error == QJsonParseError::NoError && whole.isObject()) {
        const QJsonObject object = whole.object();
        if (object.value(QStringLiteral("type")).toString() == QLatin1String("result"))
            return fromClaudeCode(object);
        if (object.contains(QStringLiteral("response")) ||
            object.contains(QStringLiteral("stats")) || object.contains(QStringLiteral("error")))
            return fromGeminiCli(object);
        events.append(object);
    } else if (error.error == QJsonParseError::NoError && whole.isArray()) {
        for (const QJsonValue &value : whole.array())
            events.append(value.toObject());
    } else {
        // JSON Lines; a line that is not JSON (a warning printed between events) is skipped.
        for (const QByteArray &line : trimmed.split('\n')) {
            const QJsonDocument event = QJsonDocument::fromJson(line.trimmed(), &error);
            if (error.error == QJsonParseError::NoError && event.isObject())
                events.append(event.object());
        }
        if (events.isEmpty())
            return asText(standardOutput, QStringLiteral("malformed-json"));
    }
    if (std::optional<AgentOutput> known = fromEvents(events))
        return *known;
    return asText(standardOutput, QStringLiteral("text"));
}

} // namespace kiln
