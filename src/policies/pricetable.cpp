#include "pricetable.h"

#include <QFile>
#include <QJsonDocument>

namespace kiln {

PriceTable PriceTable::defaults()
{
    return fromFile(QStringLiteral(":/kiln/prices.json")).value_or(PriceTable());
}

std::optional<PriceTable> PriceTable::fromFile(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read price table %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!doc.isObject()) {
        if (error)
            *error = QStringLiteral("price table %1 is not a JSON object: %2")
                         .arg(path, parseError.errorString());
        return std::nullopt;
    }
    return fromJson(doc.object(), error);
}

std::optional<PriceTable> PriceTable::fromJson(const QJsonObject &object, QString *error)
{
    PriceTable table;
    if (object.contains(QStringLiteral("currency")))
        table.m_currency = object.value(QStringLiteral("currency")).toString();
    const QJsonValue models = object.value(QStringLiteral("models"));
    if (!models.isObject()) {
        if (error)
            *error = QStringLiteral("price table has no \"models\" object");
        return std::nullopt;
    }
    const QJsonObject m = models.toObject();
    for (auto it = m.begin(); it != m.end(); ++it) {
        const QJsonObject p = it.value().toObject();
        const QJsonValue prompt = p.value(QStringLiteral("prompt"));
        const QJsonValue completion = p.value(QStringLiteral("completion"));
        if (!prompt.isDouble() || !completion.isDouble() || prompt.toDouble() < 0 ||
            completion.toDouble() < 0) {
            if (error)
                *error = QStringLiteral("price table entry \"%1\" needs non-negative numbers "
                                        "\"prompt\" and \"completion\"")
                             .arg(it.key());
            return std::nullopt;
        }
        ModelPrice price;
        price.prompt = prompt.toDouble();
        price.completion = completion.toDouble();
        price.reasoning = p.value(QStringLiteral("reasoning")).toDouble(price.completion);
        table.m_prices.insert(it.key(), price);
    }
    return table;
}

std::optional<ModelPrice> PriceTable::price(const QString &model) const
{
    if (m_prices.contains(model))
        return m_prices.value(model);
    // Provider prefixes such as OpenRouter's "deepseek/deepseek-chat" match on the last part too.
    const QString bare = model.section(QLatin1Char('/'), -1);
    std::optional<ModelPrice> best;
    qsizetype bestLength = -1;
    for (auto it = m_prices.begin(); it != m_prices.end(); ++it) {
        const QString &pattern = it.key();
        if (pattern == bare && pattern.size() > bestLength) {
            best = it.value();
            bestLength = pattern.size();
            continue;
        }
        if (!pattern.endsWith(QLatin1Char('*')))
            continue;
        const QString prefix = pattern.chopped(1);
        if ((model.startsWith(prefix) || bare.startsWith(prefix)) && prefix.size() > bestLength) {
            best = it.value();
            bestLength = prefix.size();
        }
    }
    return best;
}

std::optional<double> PriceTable::cost(const QString &model, qint64 promptTokens,
                                       qint64 completionTokens, qint64 reasoningTokens) const
{
    const std::optional<ModelPrice> p = price(model);
    if (!p)
        return std::nullopt;
    return (p->prompt * double(promptTokens) + p->completion * double(completionTokens) +
            p->reasoning * double(reasoningTokens)) /
           1e6;
}

QJsonObject PriceTable::toJson() const
{
    QJsonObject models;
    for (auto it = m_prices.begin(); it != m_prices.end(); ++it)
        models.insert(it.key(), QJsonObject{{QStringLiteral("prompt"), it.value().prompt},
                                            {QStringLiteral("completion"), it.value().completion},
                                            {QStringLiteral("reasoning"), it.value().reasoning}});
    return {{QStringLiteral("currency"), m_currency}, {QStringLiteral("models"), models}};
}

} // namespace kiln
