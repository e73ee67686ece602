#pragma once

#include "strategy/strategy.h"

#include <QVariantMap>

namespace kiln {

// Declared parameters merged with user values. Values may arrive as strings (--param K=V), so
// every accessor converts; the parameter's default decides its type (integer, real, bool,
// string).
class ParameterValues
{
public:
    ParameterValues() = default;
    ParameterValues(const QList<StrategyParameter> &declared, const QVariantMap &values);

    qint64 integer(const QString &name) const;
    int count(const QString &name) const; // integer clamped to int
    double real(const QString &name) const;
    bool boolean(const QString &name) const;
    QString string(const QString &name) const;

    // An empty string when `values` fits `declared`; otherwise one line naming the problem.
    // Unknown names are errors unless ignoreUnknown (the engine may pass policy parameters
    // through the same --param list).
    static QString validate(const QList<StrategyParameter> &declared, const QVariantMap &values,
                            bool ignoreUnknown = false);

private:
    QVariant value(const QString &name) const;

    QList<StrategyParameter> m_declared;
    QVariantMap m_values;
};

} // namespace kiln
