#pragma once

#include <QJsonObject>
#include <QMap>
#include <QString>
#include <optional>

namespace kiln {

// Per-model prices in currency units per million tokens.
struct ModelPrice
{
    double prompt = 0.0;
    double completion = 0.0;
    double reasoning = 0.0; // defaults to the completion price
};

// Model → price, from a JSON file {"currency":"USD","models":{"name-or-prefix*":{"prompt":..,
// "completion":..,"reasoning":..}}}. Lookup: exact name, then the longest matching '*' pattern
// (the name before '*' is a prefix). The embedded table holds examples only (see docs/llm.md).
class PriceTable
{
public:
    static PriceTable defaults(); // the embedded :/kiln/prices.json
    static std::optional<PriceTable> fromFile(const QString &path, QString *error = nullptr);
    static std::optional<PriceTable> fromJson(const QJsonObject &object, QString *error = nullptr);

    std::optional<ModelPrice> price(const QString &model) const;
    // Cost of one call; std::nullopt when the model is not in the table.
    std::optional<double> cost(const QString &model, qint64 promptTokens, qint64 completionTokens,
                               qint64 reasoningTokens) const;
    QString currency() const { return m_currency; }
    void setPrice(const QString &pattern, const ModelPrice &price)
    {
        m_prices.insert(pattern, price);
    }
    QJsonObject toJson() const;

private:
    QString m_currency = QStringLiteral("USD");
    QMap<QString, ModelPrice> m_prices;
};

} // namespace kiln
