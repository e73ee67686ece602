#pragma once

#include <QJsonObject>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

namespace kiln {

// What one process's forward ran, as kiln_torch_worker.py's "dtypes" request records it: every
// ATen op (also those a C++ extension runs through the dispatcher) with the dtypes of its
// tensors, and the precision settings (TF32, the float32 matmul precision) the process found
// switched. Comparing the candidate's record with the reference's tells a precision downgrade
// and a library GEMM or convolution the problem does not ask for.
class TorchOpRecord
{
public:
    struct Op
    {
        QString name; // "aten.mm.default"
        QStringList in;
        QStringList out;
        qint64 count = 0;
    };

    explicit TorchOpRecord(const QJsonObject &reply = {});

    // False when the worker could not record (its reason in unavailable()) or never answered.
    bool available() const { return m_available; }
    QString unavailable() const { return m_unavailable; }
    const QList<Op> &ops() const { return m_ops; }
    const QStringList &settings() const { return m_settings; }
    QSet<QString> dtypes() const;
    // The compute families ("matrix multiplication", "convolution" ...) of its ops.
    QSet<QString> families() const;

    // "aten.convolution.default" -> "convolution"; empty for an op of no such family.
    static QString family(const QString &op);
    // 3 for 64-bit floats, 2 for 32-bit, 1 for half and bfloat16, 0 for fp8 and fp4; -1 for
    // anything that is not a floating-point (or complex) dtype.
    static int floatRank(const QString &dtype);
    // int8, int4, bits and the quantized dtypes: values that only quantisation makes.
    static bool isQuantised(const QString &dtype);

    // The candidate's ops that compute below the reference's precision ("aten._int_mm.default
    // on int8"), then settings it switched that the reference did not: empty when none.
    static QStringList downgrades(const TorchOpRecord &reference, const TorchOpRecord &candidate);
    // Compute families the candidate runs and the reference does not (a 1x1 convolution in a
    // matmul problem): a library doing the work under another op's name.
    static QStringList substitutedFamilies(const TorchOpRecord &reference,
                                           const TorchOpRecord &candidate);

private:
    bool m_available = false;
    QString m_unavailable;
    QList<Op> m_ops;
    QStringList m_settings;
};

} // namespace kiln
