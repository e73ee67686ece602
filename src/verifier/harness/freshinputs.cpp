#include "verifier/harness/freshinputs.h"

#include "sandbox/freshvalues.h"
#include "verifier/harness/inputgenerator.h"

#include <QMutex>

namespace kiln {

namespace {

// Shape indices of their own, so the tables share no values with correctness inputs.
constexpr int kTableShapeIndex = 5000;

} // namespace

FreshInputs::FreshInputs(const Task &task, quint64 secret) : m_secret(secret)
{
    const int distributions = std::max<int>(1, int(task.distributions.size()));
    m_tables = QList<QList<QByteArray>>(task.parameters.size());
    for (int d = 0; d < distributions; ++d)
        m_distributions << InputGenerator::distributionFor(task, d).name;
    for (int p = 0; p < task.parameters.size(); ++p) {
        const TaskParameter &parameter = task.parameters[p];
        if (parameter.role != TaskParameter::Role::Input)
            continue;
        for (int d = 0; d < distributions; ++d) {
            const ValueDistribution distribution =
                parameter.distribution.value_or(InputGenerator::distributionFor(task, d));
            m_tables[p].append(InputGenerator::generateForTiming(
                distribution, qint64(1) << fresh::kTableBits, parameter.dtype,
                InputGenerator::deriveSeed(secret, task.name, kTableShapeIndex + p, d)));
        }
    }
}

std::shared_ptr<const FreshInputs> FreshInputs::forRun(const Task &task, quint64 secret)
{
    constexpr int kKept = 8;
    static QMutex mutex;
    static QList<QPair<QString, std::shared_ptr<const FreshInputs>>> kept; // newest last
    const QString key = task.name + QLatin1Char('/') + QString::number(secret);
    QMutexLocker lock(&mutex);
    for (const auto &[k, inputs] : std::as_const(kept))
        if (k == key)
            return inputs;
    auto inputs = std::make_shared<const FreshInputs>(task, secret);
    kept.append({key, inputs});
    while (kept.size() > kKept)
        kept.removeFirst();
    return inputs;
}

QString FreshInputs::distribution(int call) const
{
    return m_distributions.value(call % m_distributions.size());
}

const QByteArray &FreshInputs::table(int parameter, int call) const
{
    const QList<QByteArray> &tables = m_tables[parameter];
    return tables[call % tables.size()];
}

quint64 FreshInputs::key(int parameter, int call) const
{
    return fresh::callKey(m_secret, quint64(call), quint64(parameter));
}

void FreshInputs::draw(int parameter, int call, char *out, qint64 elements, qint64 first) const
{
    const auto *values =
        reinterpret_cast<const std::uint32_t *>(table(parameter, call).constData());
    auto *words = reinterpret_cast<std::uint32_t *>(out);
    const std::uint64_t k = key(parameter, call);
    if (first == 0) {
        fresh::fill(words, std::uint64_t(elements), values, fresh::kTableBits, k);
        return;
    }
    for (qint64 i = 0; i < elements; ++i)
        words[i] = values[fresh::kilnFreshIndex(k, std::uint64_t(first + i), fresh::kTableBits)];
}

QByteArray FreshInputs::draw(int parameter, int call, qint64 elements) const
{
    QByteArray bytes(elements * 4, Qt::Uninitialized);
    draw(parameter, call, bytes.data(), elements);
    return bytes;
}

} // namespace kiln
