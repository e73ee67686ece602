#include "descriptorgrid.h"

#include <QJsonValue>
#include <QStringList>
#include <cmath>

namespace kiln {

namespace {

// FNV-1a: stable across runs and Qt versions, unlike qHash.
quint32 stableHash(const QString &text)
{
    quint32 h = 2166136261u;
    const QByteArray bytes = text.toUtf8();
    for (char c : bytes) {
        h ^= quint8(c);
        h *= 16777619u;
    }
    return h;
}

QString labelOf(const QJsonValue &value)
{
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', 12);
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isString())
        return value.toString();
    if (value.isUndefined() || value.isNull())
        return QStringLiteral("-");
    return QStringLiteral("?");
}

} // namespace

void DescriptorGrid::setSpec(const QString &spec, QString *error)
{
    m_axes.clear();
    const QStringList entries = spec.split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString &entry : entries) {
        const QStringList parts = entry.trimmed().split(QLatin1Char(':'));
        Axis axis;
        axis.key = parts.value(0).trimmed();
        bool ok =
            !axis.key.isEmpty() && (parts.size() == 1 || parts.size() == 2 || parts.size() == 4);
        if (ok && parts.size() >= 2) {
            axis.bins = parts[1].trimmed().toInt(&ok);
            ok = ok && axis.bins >= 1;
        }
        if (ok && parts.size() == 4) {
            bool lowOk = false;
            bool highOk = false;
            axis.low = parts[2].trimmed().toDouble(&lowOk);
            axis.high = parts[3].trimmed().toDouble(&highOk);
            axis.numeric = true;
            ok = lowOk && highOk && axis.high > axis.low;
        }
        if (!ok) {
            if (error)
                *error = QStringLiteral("bad descriptor axis '%1'").arg(entry);
            continue;
        }
        m_axes.append(axis);
    }
}

QString DescriptorGrid::cell(const SearchNode &node) const
{
    QStringList labels;
    for (const Axis &axis : m_axes) {
        QJsonValue value = node.descriptors.value(axis.key);
        if (value.isUndefined() && axis.key == QLatin1String("reasoning_tokens"))
            value = double(node.reasoningTokens);
        if (value.isUndefined() && axis.key == QLatin1String("roofline_fraction"))
            value = node.rooflineFraction;

        QString label;
        if (value.isUndefined() || value.isNull()) {
            label = QStringLiteral("-");
        } else if (axis.numeric) {
            const double v = value.toDouble();
            const int bin = int(std::floor((v - axis.low) / (axis.high - axis.low) * axis.bins));
            label = QString::number(qBound(0, bin, axis.bins - 1));
        } else if (axis.bins > 0) {
            label = QString::number(stableHash(labelOf(value)) % quint32(axis.bins));
        } else {
            label = labelOf(value);
        }
        labels.append(axis.key + QLatin1Char('=') + label);
    }
    return labels.join(QLatin1Char('|'));
}

} // namespace kiln
