// Compiles every shipped CPU reference exactly as candidates are compiled, runs it on each
// correctness shape (plus the CPU timing shape) and compares it with an expectation computed
// here, independently, in long double. It also checks the tolerance design: a plain fp32
// computation in naive order passes, an fp16 computation fails.
#include "tasks/taskloader.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <dlfcn.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <vector>

using namespace kiln;

namespace {

using Buffers = std::map<QString, std::vector<float>>;

// What a variant computes for one shape: the outputs, keyed by parameter name.
using Variant = std::function<Buffers(const Buffers &inputs, const ShapeConfig &shape)>;

struct Expectation
{
    std::vector<long double> value;
    std::vector<long double> scale; // the reference on |inputs| (for the `scaled` term)
};

qint64 size(const ShapeConfig &shape, const char *name)
{
    return shape.sizes.value(QString::fromLatin1(name));
}

// Rounds to the nearest IEEE half (11 significant bits; overflow to inf, subnormals kept).
float toHalf(float value)
{
    if (value == 0.0f || !std::isfinite(value))
        return value;
    int exponent = 0;
    std::frexp(value, &exponent);
    const int quantumExponent = std::max(exponent - 11, -24);
    const double quantum = std::ldexp(1.0, quantumExponent);
    const double rounded = std::nearbyint(double(value) / quantum) * quantum;
    return std::fabs(rounded) > 65504.0 ? std::copysign(INFINITY, value) : float(rounded);
}

std::vector<float> halved(const std::vector<float> &values)
{
    std::vector<float> result(values.size());
    for (size_t i = 0; i < values.size(); ++i)
        result[i] = toHalf(values[i]);
    return result;
}

// Independent expectations, long double, written from the mathematical definition.
Expectation expect(const QString &task, const Buffers &in, const ShapeConfig &shape)
{
    Expectation e;
    if (task == QLatin1String("vector_add")) {
        const auto &a = in.at(QStringLiteral("a"));
        const auto &b = in.at(QStringLiteral("b"));
        for (size_t i = 0; i < a.size(); ++i) {
            e.value.push_back((long double)a[i] + b[i]);
            e.scale.push_back(std::fabs((long double)a[i]) + std::fabs((long double)b[i]));
        }
    } else if (task == QLatin1String("reduce_sum")) {
        long double sum = 0, absSum = 0;
        for (float v : in.at(QStringLiteral("x"))) {
            sum += v;
            absSum += std::fabs((long double)v);
        }
        e.value = {sum};
        e.scale = {absSum};
    } else if (task == QLatin1String("softmax")) {
        const auto &x = in.at(QStringLiteral("x"));
        const qint64 rows = size(shape, "rows"), cols = size(shape, "cols");
        for (qint64 r = 0; r < rows; ++r) {
            // exp(x - max) / sum: algebraically identical to exp(x)/sum exp(x), kept finite.
            long double m = -INFINITY;
            for (qint64 c = 0; c < cols; ++c)
                m = std::max(m, (long double)x[r * cols + c]);
            long double denominator = 0;
            for (qint64 c = 0; c < cols; ++c)
                denominator += std::exp((long double)x[r * cols + c] - m);
            for (qint64 c = 0; c < cols; ++c) {
                e.value.push_back(std::exp((long double)x[r * cols + c] - m) / denominator);
                e.scale.push_back(0);
            }
        }
    } else if (task == QLatin1String("layernorm")) {
        const auto &x = in.at(QStringLiteral("x"));
        const auto &gamma = in.at(QStringLiteral("gamma"));
        const auto &beta = in.at(QStringLiteral("beta"));
        const qint64 rows = size(shape, "rows"), cols = size(shape, "cols");
        for (qint64 r = 0; r < rows; ++r) {
            long double mean = 0;
            for (qint64 c = 0; c < cols; ++c)
                mean += x[r * cols + c];
            mean /= cols;
            long double variance = 0;
            for (qint64 c = 0; c < cols; ++c)
                variance += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
            variance /= cols;
            for (qint64 c = 0; c < cols; ++c) {
                e.value.push_back(
                    (x[r * cols + c] - mean) / std::sqrt(variance + 1e-5L) * gamma[c] + beta[c]);
                e.scale.push_back(0);
            }
        }
    } else if (task == QLatin1String("matmul")) {
        const auto &A = in.at(QStringLiteral("A"));
        const auto &B = in.at(QStringLiteral("B"));
        const qint64 M = size(shape, "M"), N = size(shape, "N"), K = size(shape, "K");
        for (qint64 i = 0; i < M; ++i) {
            for (qint64 j = 0; j < N; ++j) {
                long double sum = 0, absSum = 0;
                for (qint64 k = 0; k < K; ++k) {
                    const long double product = (long double)A[i * K + k] * B[k * N + j];
                    sum += product;
                    absSum += std::fabs(product);
                }
                e.value.push_back(sum);
                e.scale.push_back(absSum);
            }
        }
    } else if (task == QLatin1String("transpose")) {
        const auto &x = in.at(QStringLiteral("x"));
        const qint64 rows = size(shape, "rows"), cols = size(shape, "cols");
        e.value.resize(size_t(rows * cols));
        e.scale.resize(size_t(rows * cols));
        for (qint64 r = 0; r < rows; ++r)
            for (qint64 c = 0; c < cols; ++c)
                e.value[size_t(c * rows + r)] = x[r * cols + c];
    }
    return e;
}

// Calls a compiled entry with the task's ABI.
Buffers callEntry(const QString &task, void *symbol, const Buffers &in, const ShapeConfig &shape,
                  qint64 outputCount)
{
    std::vector<float> out(size_t(outputCount), NAN); // NaN: an unwritten element fails
    auto p = [&](const char *name) { return in.at(QString::fromLatin1(name)).data(); };
    const int s0 = int(shape.sizes.first());
    if (task == QLatin1String("vector_add")) {
        reinterpret_cast<void (*)(const float *, const float *, float *, int)>(symbol)(
            p("a"), p("b"), out.data(), int(size(shape, "n")));
    } else if (task == QLatin1String("reduce_sum")) {
        reinterpret_cast<void (*)(const float *, float *, int)>(symbol)(p("x"), out.data(),
                                                                        int(size(shape, "n")));
    } else if (task == QLatin1String("softmax") || task == QLatin1String("transpose")) {
        reinterpret_cast<void (*)(const float *, float *, int, int)>(symbol)(
            p("x"), out.data(), int(size(shape, "rows")), int(size(shape, "cols")));
    } else if (task == QLatin1String("layernorm")) {
        reinterpret_cast<void (*)(const float *, const float *, const float *, float *, int, int,
                                  float)>(symbol)(p("x"), p("gamma"), p("beta"), out.data(),
                                                  int(size(shape, "rows")),
                                                  int(size(shape, "cols")), 1e-5f);
    } else if (task == QLatin1String("matmul")) {
        reinterpret_cast<void (*)(const float *, const float *, float *, int, int, int)>(symbol)(
            p("A"), p("B"), out.data(), int(size(shape, "M")), int(size(shape, "N")),
            int(size(shape, "K")));
    }
    Q_UNUSED(s0);
    return {{QStringLiteral("out"), out}};
}

// A plain fp32 computation in the naive order (float accumulators, sequential): the least
// accurate thing an honest candidate writes. `half` rounds inputs and every intermediate to
// fp16 instead (fp16 arithmetic; for matmul, fp16 operands with an fp32 accumulator as tensor
// cores do).
std::vector<float> plainVariant(const QString &task, const Buffers &in, const ShapeConfig &shape,
                                bool half)
{
    auto load = [&](const char *name) {
        const auto &v = in.at(QString::fromLatin1(name));
        return half ? halved(v) : v;
    };
    auto r = [half](float v) { return half ? toHalf(v) : v; };
    std::vector<float> out;
    if (task == QLatin1String("vector_add")) {
        const auto a = load("a"), b = load("b");
        for (size_t i = 0; i < a.size(); ++i)
            out.push_back(r(a[i] + b[i]));
    } else if (task == QLatin1String("reduce_sum")) {
        float sum = 0;
        for (float v : load("x"))
            sum = r(sum + v);
        out = {sum};
    } else if (task == QLatin1String("softmax")) {
        const auto x = load("x");
        const qint64 rows = size(shape, "rows"), cols = size(shape, "cols");
        for (qint64 row = 0; row < rows; ++row) {
            float m = -INFINITY;
            for (qint64 c = 0; c < cols; ++c)
                m = std::max(m, x[row * cols + c]);
            float sum = 0;
            for (qint64 c = 0; c < cols; ++c)
                sum = r(sum + r(std::exp(r(x[row * cols + c] - m))));
            for (qint64 c = 0; c < cols; ++c)
                out.push_back(r(r(std::exp(r(x[row * cols + c] - m))) / sum));
        }
    } else if (task == QLatin1String("layernorm")) {
        const auto x = load("x"), gamma = load("gamma"), beta = load("beta");
        const qint64 rows = size(shape, "rows"), cols = size(shape, "cols");
        for (qint64 row = 0; row < rows; ++row) {
            float mean = 0;
            for (qint64 c = 0; c < cols; ++c)
                mean = r(mean + x[row * cols + c]);
            mean = r(mean / cols);
            float variance = 0;
            for (qint64 c = 0; c < cols; ++c) {
                const float d = r(x[row * cols + c] - mean);
                variance = r(variance + r(d * d));
            }
            variance = r(variance / cols);
            const float inverse = r(1.0f / std::sqrt(r(variance + 1e-5f)));
            for (qint64 c = 0; c < cols; ++c)
                out.push_back(r(r(r(r(x[row * cols + c] - mean) * inverse) * gamma[c]) + beta[c]));
        }
    } else if (task == QLatin1String("matmul")) {
        const auto A = load("A"), B = load("B");
        const qint64 M = size(shape, "M"), N = size(shape, "N"), K = size(shape, "K");
        for (qint64 i = 0; i < M; ++i) {
            for (qint64 j = 0; j < N; ++j) {
                float sum = 0;
                for (qint64 k = 0; k < K; ++k)
                    sum += A[i * K + k] * B[k * N + j];
                out.push_back(sum);
            }
        }
    } else if (task == QLatin1String("transpose")) {
        const auto x = load("x");
        const qint64 rows = size(shape, "rows"), cols = size(shape, "cols");
        out.resize(size_t(rows * cols));
        for (qint64 row = 0; row < rows; ++row)
            for (qint64 c = 0; c < cols; ++c)
                out[size_t(c * rows + row)] = x[row * cols + c];
    }
    return out;
}

struct Comparison
{
    bool ok = true;
    qint64 firstBad = -1;
    double worstRatio = 0; // max over elements of error / allowed
    QString detail;
};

Comparison compare(const std::vector<float> &got, const Expectation &e, const Tolerance &t)
{
    Comparison result;
    if (got.size() != e.value.size()) {
        result.ok = false;
        result.detail = QStringLiteral("size %1 != %2").arg(got.size()).arg(e.value.size());
        return result;
    }
    for (size_t i = 0; i < got.size(); ++i) {
        const long double error = std::fabs((long double)got[i] - e.value[i]);
        const long double allowed = t.abs + t.rel * std::fabs(e.value[i]) + t.scaled * e.scale[i];
        const double ratio = allowed > 0 ? double(error / allowed) : (error > 0 ? INFINITY : 0);
        if (!std::isfinite(got[i]) || error > allowed) {
            if (result.ok) {
                result.firstBad = qint64(i);
                result.detail = QStringLiteral("element %1: got %2, expected %3, allowed %4")
                                    .arg(i)
                                    .arg(double(got[i]), 0, 'g', 9)
                                    .arg(double(e.value[i]), 0, 'g', 12)
                                    .arg(double(allowed), 0, 'g', 3);
            }
            result.ok = false;
        }
        if (std::isfinite(ratio))
            result.worstRatio = std::max(result.worstRatio, ratio);
        else
            result.worstRatio = INFINITY;
    }
    return result;
}

double draw(const ValueDistribution &d, std::mt19937_64 &rng)
{
    switch (d.kind) {
    case ValueDistribution::Kind::Normal:
        return std::normal_distribution<double>(d.a, d.b)(rng) + d.offset;
    case ValueDistribution::Kind::Uniform:
        return std::uniform_real_distribution<double>(d.a, d.b)(rng) + d.offset;
    case ValueDistribution::Kind::StudentT:
        return std::student_t_distribution<double>(d.a)(rng) * d.b + d.offset;
    }
    return 0;
}

} // namespace

class TstCpuReferences : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void referenceMatchesIndependentExpectation_data();
    void referenceMatchesIndependentExpectation();
    void toleranceRejectsBrokenOutputs();

private:
    QTemporaryDir m_build;
    std::map<QString, Task> m_tasks;
    std::map<QString, void *> m_handles;
    std::map<QString, void *> m_entries;
};

static const QStringList kTasks = {QStringLiteral("vector_add"), QStringLiteral("reduce_sum"),
                                   QStringLiteral("softmax"),    QStringLiteral("layernorm"),
                                   QStringLiteral("matmul"),     QStringLiteral("transpose")};

void TstCpuReferences::initTestCase()
{
    QVERIFY(m_build.isValid());
    for (const QString &name : kTasks) {
        const QString folder = QStringLiteral(KILN_SOURCE_DIR "/tasks/") + name;
        const auto result = TaskLoader::load(folder);
        QVERIFY2(result.ok(), qPrintable(result.errorStrings().join(QLatin1Char('\n'))));
        m_tasks[name] = *result.task;
        // The flags of verifier.md's candidate ABI.
        const QString library = m_build.filePath(name + QStringLiteral(".so"));
        QProcess compiler;
        compiler.setProcessChannelMode(QProcess::MergedChannels);
        compiler.start(QStringLiteral("g++"),
                       {QStringLiteral("-std=c++17"), QStringLiteral("-O3"),
                        QStringLiteral("-march=native"), QStringLiteral("-fopenmp"),
                        QStringLiteral("-fPIC"), QStringLiteral("-shared"), QStringLiteral("-Wall"),
                        QStringLiteral("-Werror"), folder + QStringLiteral("/reference.cpp"),
                        QStringLiteral("-o"), library});
        QVERIFY(compiler.waitForFinished(120000));
        QVERIFY2(compiler.exitCode() == 0, compiler.readAll().constData());
        void *handle = dlopen(library.toLocal8Bit().constData(), RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(handle, dlerror());
        m_handles[name] = handle;
        m_entries[name] = dlsym(handle, name.toLatin1().constData());
        QVERIFY2(m_entries[name], qPrintable(name));
    }
}

void TstCpuReferences::cleanupTestCase()
{
    for (auto &[name, handle] : m_handles)
        dlclose(handle);
}

void TstCpuReferences::referenceMatchesIndependentExpectation_data()
{
    QTest::addColumn<QString>("task");
    QTest::addColumn<int>("distribution");
    for (const QString &name : kTasks) {
        for (int d = 0; d < 4; ++d)
            QTest::newRow(qPrintable(QStringLiteral("%1/%2").arg(name).arg(d))) << name << d;
    }
}

void TstCpuReferences::referenceMatchesIndependentExpectation()
{
    QFETCH(QString, task);
    QFETCH(int, distribution);
    const Task &t = m_tasks.at(task);
    QVERIFY(distribution < t.distributions.size());
    const ValueDistribution &dist = t.distributions[distribution];
    const Tolerance tolerance = t.tolerance(QStringLiteral("f32"));
    QList<ShapeConfig> shapes = t.correctnessShapes;
    shapes.append(t.timingShapes.value(Backend::Cpu));

    std::mt19937_64 rng(0x6b696c6e + quint64(distribution) * 7919 + quint64(qHash(task)));
    bool halfFailedSomewhere = false;
    double worstPlain = 0;
    for (const ShapeConfig &shape : std::as_const(shapes)) {
        Buffers inputs;
        qint64 outputCount = 0;
        for (const TaskParameter &p : t.parameters) {
            if (p.role == TaskParameter::Role::Output)
                outputCount = t.elementCount(p, shape);
            if (p.role != TaskParameter::Role::Input)
                continue;
            std::vector<float> values(size_t(t.elementCount(p, shape)));
            const ValueDistribution &source = p.distribution ? *p.distribution : dist;
            for (float &v : values)
                v = float(draw(source, rng));
            inputs[p.name] = std::move(values);
        }
        const Buffers pristine = inputs;
        const Expectation expected = expect(task, inputs, shape);
        const auto got = callEntry(task, m_entries.at(task), inputs, shape, outputCount)
                             .at(QStringLiteral("out"));
        const QString where = t.shapeLabel(shape) + QStringLiteral(" ") + dist.name;

        const Comparison reference = compare(got, expected, tolerance);
        QVERIFY2(reference.ok,
                 qPrintable(QStringLiteral("reference, %1: %2").arg(where, reference.detail)));
        // The reference is far more accurate than the tolerance: a third of it at most.
        QVERIFY2(reference.worstRatio <= 0.34 || task == QLatin1String("vector_add") ||
                     task == QLatin1String("transpose"),
                 qPrintable(QStringLiteral("%1: reference uses %2 of the tolerance")
                                .arg(where)
                                .arg(reference.worstRatio)));
        QVERIFY2(inputs == pristine, "the reference modified its inputs");

        const Comparison plain =
            compare(plainVariant(task, inputs, shape, false), expected, tolerance);
        QVERIFY2(plain.ok,
                 qPrintable(QStringLiteral("naive fp32, %1: %2").arg(where, plain.detail)));
        worstPlain = std::max(worstPlain, plain.worstRatio);

        const Comparison half =
            compare(plainVariant(task, inputs, shape, true), expected, tolerance);
        halfFailedSomewhere = halfFailedSomewhere || !half.ok;
        if (qEnvironmentVariableIsSet("KILN_TASKS_VERBOSE"))
            qInfo("%s: naive fp32 %.3f, fp16 %.3g", qPrintable(where), plain.worstRatio,
                  half.worstRatio);
    }
    qInfo("%s/%s: naive fp32 uses at most %.3f of the tolerance", qPrintable(task),
          qPrintable(dist.name), worstPlain);
    QVERIFY2(halfFailedSomewhere,
             qPrintable(QStringLiteral("fp16 arithmetic passed every %1 shape").arg(dist.name)));
}

// The comparison used above must catch what matters: an unwritten element, an off-by-one
// transpose, and a result that is slightly but really wrong.
void TstCpuReferences::toleranceRejectsBrokenOutputs()
{
    const Task &matmul = m_tasks.at(QStringLiteral("matmul"));
    Expectation e{{10.0L, -2.0L}, {40.0L, 8.0L}};
    const Tolerance t = matmul.tolerance(QStringLiteral("f32"));
    QVERIFY(compare({10.0f, -2.0f}, e, t).ok);
    QVERIFY(!compare({10.0f, NAN}, e, t).ok);
    QVERIFY(!compare({10.0f + 0.01f, -2.0f}, e, t).ok);
    QVERIFY(!compare({10.0f}, e, t).ok);
    const Tolerance exact =
        m_tasks.at(QStringLiteral("transpose")).tolerance(QStringLiteral("f32"));
    QVERIFY(!compare({std::nextafter(10.0f, 11.0f), -2.0f}, e, exact).ok);
}

QTEST_GUILESS_MAIN(TstCpuReferences)
#include "tst_cpureferences.moc"
