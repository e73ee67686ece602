#include "chatapi.h"

#include "anthropicmessagesapi.h"
#include "openaichatapi.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace kiln {

namespace {

QString oneLine(const QString &text, int maxChars)
{
    QString s = text.simplified();
    if (s.size() > maxChars)
        s = s.left(maxChars) + QStringLiteral("...");
    return s;
}

} // namespace

std::unique_ptr<ChatApi> ChatApi::create(ApiFlavour flavour)
{
    if (flavour == ApiFlavour::AnthropicMessages)
        return std::make_unique<AnthropicMessagesApi>();
    return std::make_unique<OpenAiChatApi>();
}

void ChatApi::finishStream(StreamState &state)
{
    state.response.usageReported = state.usageSeen;
    if (state.usageSeen)
        state.response.splitOutputTokens(state.outputTokens, state.reportedReasoning);
}

QByteArray ChatApi::finishBody(QJsonObject body, const LlmRequest &request)
{
    for (auto it = request.extraBody.begin(); it != request.extraBody.end(); ++it)
        body.insert(it.key(), it.value());
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

std::optional<QJsonObject> ChatApi::responseObject(const QByteArray &body, ParseResult &result)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (doc.isObject())
        return doc.object();
    result.error =
        QStringLiteral("the server sent ") + describeNonJson(body, parseError.errorString());
    return std::nullopt;
}

QString ChatApi::describeNonJson(const QByteArray &body, const QString &parseError)
{
    const QString text = QString::fromUtf8(body.left(4096));
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return QStringLiteral("empty response body");
    if (trimmed.startsWith(QLatin1Char('<'))) {
        static const QRegularExpression title(QStringLiteral("<title[^>]*>([^<]*)</title>"),
                                              QRegularExpression::CaseInsensitiveOption);
        const QRegularExpressionMatch m = title.match(text);
        return m.hasMatch() ? QStringLiteral("an HTML page ('%1') instead of JSON")
                                  .arg(oneLine(m.captured(1), 80))
                            : QStringLiteral("an HTML page instead of JSON");
    }
    return QStringLiteral("invalid JSON (%1): '%2'").arg(parseError, oneLine(trimmed, 80));
}

QString ChatApi::describeErrorBody(const QByteArray &body)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (doc.isObject()) {
        const QJsonObject root = doc.object();
        const QJsonValue error = root.value(QStringLiteral("error"));
        if (error.isObject()) {
            const QJsonObject e = error.toObject();
            QString type = e.value(QStringLiteral("type")).toString();
            if (type.isEmpty())
                type = e.value(QStringLiteral("code")).toVariant().toString();
            const QString message = e.value(QStringLiteral("message")).toString();
            return type.isEmpty() ? oneLine(message, 300)
                                  : QStringLiteral("%1: %2").arg(type, oneLine(message, 300));
        }
        if (error.isString())
            return oneLine(error.toString(), 300);
        if (root.contains(QStringLiteral("message")))
            return oneLine(root.value(QStringLiteral("message")).toString(), 300);
        if (root.contains(QStringLiteral("detail")))
            return oneLine(root.value(QStringLiteral("detail")).toVariant().toString(), 300);
        return oneLine(QString::fromUtf8(body), 200);
    }
    const QString trimmed = QString::fromUtf8(body.left(4096)).trimmed();
    if (trimmed.isEmpty())
        return QStringLiteral("no body");
    if (trimmed.startsWith(QLatin1Char('<')))
        return describeNonJson(body, QString());
    return oneLine(trimmed, 200);
}

} // namespace kiln
