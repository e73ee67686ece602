#include "parametervalues.h"

#include <QMetaType>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace kiln {

namespace {

enum class Kind
{
    Integer,
    Real,
    Boolean,
    String
};

Kind kindOf(const QVariant &defaultValue)
{
    switch (defaultValue.typeId()) {
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::LongLong:
    case QMetaType::ULongLong:
        return Kind::Integer;
    case QMetaType::Double:
    case QMetaType::Float:
        return Kind::Real;
    case QMetaType::Bool:
        return Kind::Boolean;
    default:
        return Kind::String;
    }
}

QString kindName(Kind kind)
{
    switch (kind) {
    case Kind::Integer:
        return QStringLiteral("an integer");
    case Kind::Real:
        return QStringLiteral("a number");
    case Kind::Boolean:
        return QStringLiteral("true or false");
    case Kind::String:
        return QStringLiteral("a string");
    }
    return {};
}

std::optional<qint64> toInteger(const QVariant &v)
{
    bool ok = false;
    if (v.typeId() == QMetaType::QString) {
        const qint64 i = v.toString().trimmed().toLongLong(&ok);
        return ok ? std::optional<qint64>(i) : std::nullopt;
    }
    if (v.typeId() == QMetaType::Double || v.typeId() == QMetaType::Float) {
        const double d = v.toDouble();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e18)
            return qint64(d);
        return std::nullopt;
    }
    if (v.typeId() == QMetaType::Bool)
        return std::nullopt;
    const qint64 i = v.toLongLong(&ok);
    return ok ? std::optional<qint64>(i) : std::nullopt;
}

std::optional<double> toReal(const QVariant &v)
{
    bool ok = false;
    double d = 0.0;
    if (v.typeId() == QMetaType::QString)
        d = v.toString().trimmed().toDouble(&ok);
    else if (v.typeId() != QMetaType::Bool)
        d = v.toDouble(&ok);
    if (!ok || !std::isfinite(d))
        return std::nullopt;
    return d;
}

std::optional<bool> toBoolean(const QVariant &v)
{
    if (v.typeId() == QMetaType::Bool)
        return v.toBool();
    if (v.typeId() == QMetaType::QString) {
        const QString s = v.toString().trimmed().toLower();
        if (s == QLatin1String("true") || s == QLatin1String("1") || s == QLatin1String("yes") ||
            s == QLatin1String("on"))
            return true;
        if (s == QLatin1String("false") || s == QLatin1String("0") || s == QLatin1String("no") ||
            s == QLatin1String("off"))
            return false;
        return std::nullopt;
    }
    if (const auto i = toInteger(v); i && (*i == 0 || *i == 1))
        return *i == 1;
    return std::nullopt;
}

const StrategyParameter *findDeclared(const QList<StrategyParameter> &declared, const QString &name)
{
    for (const StrategyParameter &p : declared) {
        if (p.name == name)
            return &p;
    }
    return nullptr;
}

} // namespace

ParameterValues::ParameterValues(const QList<StrategyParameter> &declared,
                                 const QVariantMap &values)
    : m_declared(declared), m_values(values)
{
}

QVariant ParameterValues::value(const QString &name) const
{
    const StrategyParameter *p = findDeclared(m_declared, name);
    const QVariant fallback = p ? p->defaultValue : QVariant();
    const auto it = m_values.constFind(name);
    return it == m_values.constEnd() || !it->isValid() ? fallback : *it;
}

qint64 ParameterValues::integer(const QString &name) const
{
    if (const auto i = toInteger(value(name)))
        return *i;
    const StrategyParameter *p = findDeclared(m_declared, name);
    return p ? p->defaultValue.toLongLong() : 0;
}

int ParameterValues::count(const QString &name) const
{
    return int(std::clamp<qint64>(integer(name), std::numeric_limits<int>::min(),
                                  std::numeric_limits<int>::max()));
}

double ParameterValues::real(const QString &name) const
{
    if (const auto d = toReal(value(name)))
        return *d;
    const StrategyParameter *p = findDeclared(m_declared, name);
    return p ? p->defaultValue.toDouble() : 0.0;
}

bool ParameterValues::boolean(const QString &name) const
{
    if (const auto b = toBoolean(value(name)))
        return *b;
    const StrategyParameter *p = findDeclared(m_declared, name);
    return p && p->defaultValue.toBool();
}

QString ParameterValues::string(const QString &name) const
{
    return value(name).toString().trimmed();
}

QString ParameterValues::validate(const QList<StrategyParameter> &declared,
                                  const QVariantMap &values, bool ignoreUnknown)
{
    for (auto it = values.constBegin(); it != values.constEnd(); ++it) {
        const StrategyParameter *p = findDeclared(declared, it.key());
        if (!p) {
            if (ignoreUnknown)
                continue;
            return QStringLiteral("unknown parameter '%1'").arg(it.key());
        }
        const Kind kind = kindOf(p->defaultValue);
        const QVariant &v = *it;
        bool typeOk = true;
        bool belowMin = false;
        bool aboveMax = false;
        switch (kind) {
        case Kind::Integer: {
            const auto i = toInteger(v);
            typeOk = i.has_value();
            if (typeOk && p->minimum.isValid())
                belowMin = *i < p->minimum.toLongLong();
            if (typeOk && p->maximum.isValid())
                aboveMax = *i > p->maximum.toLongLong();
            break;
        }
        case Kind::Real: {
            const auto d = toReal(v);
            typeOk = d.has_value();
            if (typeOk && p->minimum.isValid())
                belowMin = *d < p->minimum.toDouble();
            if (typeOk && p->maximum.isValid())
                aboveMax = *d > p->maximum.toDouble();
            break;
        }
        case Kind::Boolean:
            typeOk = toBoolean(v).has_value();
            break;
        case Kind::String:
            typeOk = v.canConvert<QString>();
            if (typeOk && !p->choices.isEmpty() && !p->choices.contains(v.toString().trimmed()))
                return QStringLiteral("parameter '%1' must be one of %2, got '%3'")
                    .arg(p->name, p->choices.join(QLatin1Char('|')), v.toString());
            break;
        }
        if (!typeOk)
            return QStringLiteral("parameter '%1' must be %2, got '%3'")
                .arg(p->name, kindName(kind), v.toString());
        if (belowMin)
            return QStringLiteral("parameter '%1' must be at least %2, got %3")
                .arg(p->name, p->minimum.toString(), v.toString());
        if (aboveMax)
            return QStringLiteral("parameter '%1' must be at most %2, got %3")
                .arg(p->name, p->maximum.toString(), v.toString());
    }
    return {};
}

} // namespace kiln
