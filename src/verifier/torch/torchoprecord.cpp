#include "verifier/torch/torchoprecord.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <algorithm>
#include <optional>

using namespace Qt::StringLiterals;

namespace kiln {

namespace {

constexpr qsizetype kMaxEvidence = 8;

QStringList strings(const QJsonValue &value)
{
    QStringList list;
    for (const QJsonValue &item : value.toArray())
        list.append(item.toString());
    return list;
}

// uint8, int16, uint16: an honest forward makes them from booleans and integers (masks), not
// from floats.
bool isNarrowInteger(const QString &dtype)
{
    return dtype == u"uint8" || dtype == u"int16" || dtype == u"uint16";
}

} // namespace

TorchOpRecord::TorchOpRecord(const QJsonObject &reply)
{
    m_settings = strings(reply.value(u"settings"_s));
    if (!reply.contains(u"ops"_s)) {
        m_unavailable = reply.value(u"unavailable"_s).toString(u"no record"_s);
        return;
    }
    m_available = true;
    for (const QJsonValue &value : reply.value(u"ops"_s).toArray()) {
        const QJsonArray entry = value.toArray();
        m_ops.append(Op{entry.at(0).toString(), strings(entry.at(1)), strings(entry.at(2)),
                        entry.at(3).toInteger()});
    }
}

QSet<QString> TorchOpRecord::dtypes() const
{
    QSet<QString> all;
    for (const Op &op : m_ops) {
        for (const QString &dtype : op.in + op.out)
            all.insert(dtype);
    }
    return all;
}

QSet<QString> TorchOpRecord::families() const
{
    QSet<QString> all;
    for (const Op &op : m_ops) {
        const QString f = family(op.name);
        if (!f.isEmpty())
            all.insert(f);
    }
    return all;
}

QString TorchOpRecord::family(const QString &op)
{
    const QStringList parts = op.split(u'.');
    QString base = parts.size() >= 2 ? parts[1] : op;
    while (base.startsWith(u'_'))
        base.remove(0, 1);
    static const QSet<QString> products = {u"mm"_s,
                                           u"addmm"_s,
                                           u"bmm"_s,
                                           u"baddbmm"_s,
                                           u"addbmm"_s,
                                           u"matmul"_s,
                                           u"linear"_s,
                                           u"dot"_s,
                                           u"vdot"_s,
                                           u"mv"_s,
                                           u"addmv"_s,
                                           u"addr"_s,
                                           u"outer"_s,
                                           u"ger"_s,
                                           u"inner"_s,
                                           u"einsum"_s,
                                           u"tensordot"_s,
                                           u"chain_matmul"_s,
                                           u"int_mm"_s,
                                           u"scaled_mm"_s,
                                           u"bilinear"_s,
                                           u"trilinear"_s,
                                           u"addmm_activation"_s,
                                           u"linalg_multi_dot"_s,
                                           u"weight_int8pack_mm"_s,
                                           u"weight_int4pack_mm"_s,
                                           u"mixed_dtypes_linear"_s,
                                           u"scaled_grouped_mm"_s,
                                           u"grouped_mm"_s};
    if (products.contains(base))
        return u"matrix multiplication"_s;
    static const QRegularExpression convolution(
        QStringLiteral("convolution|^conv(_transpose)?[123]d$|^conv_tbc$|^conv_depthwise|"
                       "^slow_conv|^thnn_conv|^nnpack_spatial_convolution$"));
    if (convolution.match(base).hasMatch())
        return u"convolution"_s;
    if (base.contains(u"attention"_s) || base.startsWith(u"flash_attention"_s))
        return u"attention"_s;
    if (base.startsWith(u"fft_"_s))
        return u"FFT"_s;
    return {};
}

int TorchOpRecord::floatRank(const QString &dtype)
{
    if (dtype == u"float64" || dtype == u"complex128")
        return 3;
    if (dtype == u"float32" || dtype == u"complex64")
        return 2;
    if (dtype == u"float16" || dtype == u"bfloat16" || dtype == u"complex32")
        return 1;
    if (dtype.startsWith(u"float8"_s) || dtype.startsWith(u"float4"_s))
        return 0;
    return -1;
}

bool TorchOpRecord::isQuantised(const QString &dtype)
{
    static const QRegularExpression subByte(QStringLiteral("^u?int[1-7]$"));
    return dtype == u"int8" || dtype.startsWith(u"qint"_s) || dtype.startsWith(u"quint"_s) ||
           dtype.startsWith(u"bits"_s) || subByte.match(dtype).hasMatch();
}

QStringList TorchOpRecord::downgrades(const TorchOpRecord &reference,
                                      const TorchOpRecord &candidate)
{
    if (!reference.available())
        return {}; // nothing says what the problem allows
    const QSet<QString> allowed = reference.dtypes();
    std::optional<int> lowest; // the reference's lowest floating-point precision
    for (const QString &dtype : allowed) {
        if (const int rank = floatRank(dtype); rank >= 0)
            lowest = std::min(lowest.value_or(rank), rank);
    }
    QStringList evidence;
    const auto note = [&evidence](const QString &text) {
        if (!evidence.contains(text) && evidence.size() < kMaxEvidence)
            evidence.append(text);
    };
    for (const Op &op : candidate.ops()) {
        const bool fromFloats = std::any_of(op.in.cbegin(), op.in.cend(),
                                            [](const QString &d) { return floatRank(d) >= 0; });
        for (const QString &dtype : op.in + op.out) {
            if (allowed.contains(dtype))
                continue;
            const int rank = floatRank(dtype);
            if ((lowest && rank >= 0 && rank < *lowest) || isQuantised(dtype))
                note(op.name + u" on "_s + dtype);
            else if (isNarrowInteger(dtype) && fromFloats && op.out.contains(dtype))
                note(op.name + u" turns floats into "_s + dtype);
        }
    }
    // A problem whose own code switches TF32 on allows it.
    if (reference.settings().isEmpty()) {
        for (const QString &setting : candidate.settings())
            note(setting);
    }
    return evidence;
}

QStringList TorchOpRecord::substitutedFamilies(const TorchOpRecord &reference,
                                               const TorchOpRecord &candidate)
{
    if (!reference.available() || !candidate.available())
        return {};
    QStringList substituted = (candidate.families() - reference.families()).values();
    substituted.sort();
    return substituted;
}

} // namespace kiln
