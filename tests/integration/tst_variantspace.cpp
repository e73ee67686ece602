// The variant spaces of the offline policy compile and are correct: sampled knob combinations of
// every task compile with g++ (CPU) and nvcc -arch=sm_90 (CUDA, skipped without nvcc), the CUDA
// ones in the device-only form through NVRTC as the verifier compiles them, sampled CPU variants
// give the right numbers on odd shapes, and injected defects do what they claim.
// Many variants go into one translation unit (renamed entries, one namespace each) to keep the
// compiler invocations few; CPU variants run in forked children so a crash stays contained.
#include "policies/offline/counterrng.h"
#include "policies/offline/defectinjector.h"
#include "policies/offline/variantspace.h"
#include "tasks/launchgeometry.h"
#include "tasks/tasklibrary.h"
#include "verifier/cuda/cudacompiler.h"
#include "verifier/screen/native/staticscreen.h"

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <dlfcn.h>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;

namespace {

const QStringList kTasks{QStringLiteral("vector_add"), QStringLiteral("reduce_sum"),
                         QStringLiteral("softmax"),    QStringLiteral("layernorm"),
                         QStringLiteral("matmul"),     QStringLiteral("transpose")};

struct Variant
{
    QString label; // knobs or defect, for messages
    QString source;
    QString expect; // "correct", "wrong" (wrong result injected)
};

// Configurations that together use every value of every knob, the best point, then random ones.
QList<KnobConfig> sampleConfigs(const VariantSpace &space, int total, quint64 seed)
{
    QList<KnobConfig> configs{space.bestConfig()};
    qsizetype widest = 0;
    for (const Knob &k : space.knobs())
        widest = std::max(widest, k.values.size());
    for (qsizetype j = 0; j < widest; ++j) {
        KnobConfig config;
        qsizetype i = 0;
        for (const Knob &k : space.knobs())
            config.insert(k.name, k.values.at((j + i++) % k.values.size()));
        configs.append(config);
    }
    CounterRng rng(seed, 0);
    while (configs.size() < total)
        configs.append(space.configAt(
            static_cast<qint64>(rng.next() % static_cast<quint64>(space.combinationCount()))));
    return configs;
}

// One translation unit holding the variants of one or more tasks: includes hoisted to the top,
// each variant in its own namespace, the entry of variant i renamed to <entry>_v<i>.
QString translationUnit(const QList<QPair<QString, QList<Variant>>> &groups)
{
    QStringList includes;
    QString body;
    for (const auto &[entry, variants] : groups) {
        for (qsizetype i = 0; i < variants.size(); ++i) {
            // Device-only kernels are entries themselves, one name for all: NVRTC compiles them.
            QString error;
            if (LaunchGeometry::parse(variants.at(i).source, &error))
                continue;
            QStringList lines;
            for (const QString &line : variants.at(i).source.split(QLatin1Char('\n'))) {
                if (line.startsWith(QLatin1String("#include"))) {
                    if (!includes.contains(line))
                        includes.append(line);
                    continue;
                }
                lines.append(line);
            }
            QString code = lines.join(QLatin1Char('\n'));
            code.replace(QStringLiteral("extern \"C\" void %1(").arg(entry),
                         QStringLiteral("extern \"C\" void %1_v%2(").arg(entry).arg(i));
            body += QStringLiteral(
                        "namespace %1_variant%2 {\n// %3\n%4\n} // namespace %1_variant%2\n\n")
                        .arg(entry)
                        .arg(i)
                        .arg(variants.at(i).label, code);
        }
    }
    return includes.join(QLatin1Char('\n')) + QStringLiteral("\n\n") + body;
}

struct Job
{
    QString program;
    QStringList arguments;
    QString label;
    bool expectSuccess = true;
};

// Runs the jobs two at a time (the CI machine has two cores); returns failure messages.
QStringList runJobs(const QList<Job> &jobs, int timeoutMs)
{
    QStringList failures;
    qsizetype next = 0;
    QList<QPair<QProcess *, Job>> running;
    while (next < jobs.size() || !running.isEmpty()) {
        while (running.size() < 2 && next < jobs.size()) {
            auto *process = new QProcess;
            process->setProcessChannelMode(QProcess::MergedChannels);
            process->start(jobs.at(next).program, jobs.at(next).arguments);
            running.append({process, jobs.at(next)});
            ++next;
        }
        auto [process, job] = running.takeFirst();
        const bool finished = process->waitForFinished(timeoutMs);
        const bool ok =
            finished && process->exitStatus() == QProcess::NormalExit && process->exitCode() == 0;
        if (ok != job.expectSuccess)
            failures.append(
                QStringLiteral("%1: expected %2, got %3\n%4")
                    .arg(job.label,
                         job.expectSuccess ? QStringLiteral("success") : QStringLiteral("failure"),
                         finished ? QString::number(process->exitCode())
                                  : QStringLiteral("timeout"),
                         QString::fromUtf8(process->readAll().left(3000))));
        if (!finished)
            process->kill();
        process->waitForFinished(1000);
        delete process;
    }
    return failures;
}

// ---- numerics ------------------------------------------------------------------------------

using Vec = std::vector<float>;

Vec randomVector(size_t n, std::mt19937 &gen, float offset = 0.0f)
{
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Vec v(n + 64); // padding: an injected off-by-one read stays in bounds
    for (float &x : v)
        x = normal(gen) + offset;
    return v;
}

bool close(double got, double expected, double tolerance)
{
    return std::isfinite(got) && std::abs(got - expected) <= tolerance;
}

// Runs one variant of `task` on odd shapes; true when every element matches the reference.
bool checkVariant(const QString &task, void *symbol)
{
    std::mt19937 gen(1234);
    const float nan = std::nanf("");
    if (task == QLatin1String("vector_add")) {
        auto f = reinterpret_cast<void (*)(const float *, const float *, float *, int)>(symbol);
        for (int n : {1, 7, 1003, 65537}) {
            const Vec a = randomVector(n, gen), b = randomVector(n, gen);
            Vec c(n + 64, nan);
            f(a.data(), b.data(), c.data(), n);
            for (int i = 0; i < n; ++i)
                if (!close(c[i], double(a[i]) + b[i], 1e-6 * (1 + std::abs(a[i] + b[i]))))
                    return false;
        }
    } else if (task == QLatin1String("reduce_sum")) {
        auto f = reinterpret_cast<void (*)(const float *, float *, int)>(symbol);
        for (int n : {1, 5, 1001, 100003}) {
            const Vec x = randomVector(n, gen, 0.5f);
            Vec out(64, nan);
            f(x.data(), out.data(), n);
            double sum = 0.0, abs = 0.0;
            for (int i = 0; i < n; ++i) {
                sum += x[i];
                abs += std::abs(x[i]);
            }
            if (!close(out[0], sum, 1e-5 * abs + 1e-6))
                return false;
        }
    } else if (task == QLatin1String("softmax")) {
        auto f = reinterpret_cast<void (*)(const float *, float *, int, int)>(symbol);
        for (auto [rows, cols] : {std::pair{1, 1}, {3, 17}, {5, 1003}, {2, 4100}, {4, 64}}) {
            const Vec x = randomVector(size_t(rows) * cols, gen, 3.0f);
            Vec y(size_t(rows) * cols + 64, nan);
            f(x.data(), y.data(), rows, cols);
            for (int r = 0; r < rows; ++r) {
                double m = -INFINITY, s = 0.0;
                for (int c = 0; c < cols; ++c)
                    m = std::max(m, double(x[size_t(r) * cols + c]));
                for (int c = 0; c < cols; ++c)
                    s += std::exp(x[size_t(r) * cols + c] - m);
                for (int c = 0; c < cols; ++c) {
                    const double e = std::exp(x[size_t(r) * cols + c] - m) / s;
                    if (!close(y[size_t(r) * cols + c], e, 2e-5 * e + 1e-10))
                        return false;
                }
            }
        }
    } else if (task == QLatin1String("layernorm")) {
        auto f = reinterpret_cast<void (*)(const float *, const float *, const float *, float *,
                                           int, int, float)>(symbol);
        for (auto [rows, cols] : {std::pair{1, 1}, {3, 17}, {5, 1003}, {2, 4099}, {4, 64}}) {
            const Vec x = randomVector(size_t(rows) * cols, gen, 20.0f);
            const Vec g = randomVector(cols, gen, 1.0f), b = randomVector(cols, gen);
            Vec y(size_t(rows) * cols + 64, nan);
            f(x.data(), g.data(), b.data(), y.data(), rows, cols, 1e-5f);
            for (int r = 0; r < rows; ++r) {
                double mean = 0.0, var = 0.0;
                for (int c = 0; c < cols; ++c)
                    mean += x[size_t(r) * cols + c];
                mean /= cols;
                for (int c = 0; c < cols; ++c)
                    var += (x[size_t(r) * cols + c] - mean) * (x[size_t(r) * cols + c] - mean);
                var /= cols;
                for (int c = 0; c < cols; ++c) {
                    const double e =
                        (x[size_t(r) * cols + c] - mean) / std::sqrt(var + 1e-5) * g[c] + b[c];
                    if (!close(y[size_t(r) * cols + c], e, 1e-3 + 1e-4 * std::abs(e)))
                        return false;
                }
            }
        }
    } else if (task == QLatin1String("matmul")) {
        auto f = reinterpret_cast<void (*)(const float *, const float *, float *, int, int, int)>(
            symbol);
        for (auto [M, N, K] :
             {std::tuple{1, 1, 1}, {7, 13, 5}, {33, 17, 65}, {65, 70, 31}, {16, 16, 16}}) {
            const Vec A = randomVector(size_t(M) * K, gen), B = randomVector(size_t(K) * N, gen);
            Vec C(size_t(M) * N + 64, nan);
            f(A.data(), B.data(), C.data(), M, N, K);
            for (int i = 0; i < M; ++i)
                for (int j = 0; j < N; ++j) {
                    double s = 0.0, abs = 0.0;
                    for (int k = 0; k < K; ++k) {
                        s += double(A[size_t(i) * K + k]) * B[size_t(k) * N + j];
                        abs += std::abs(double(A[size_t(i) * K + k]) * B[size_t(k) * N + j]);
                    }
                    if (!close(C[size_t(i) * N + j], s, 3e-5 * abs + 1e-6))
                        return false;
                }
        }
    } else if (task == QLatin1String("transpose")) {
        auto f = reinterpret_cast<void (*)(const float *, float *, int, int)>(symbol);
        for (auto [rows, cols] : {std::pair{1, 1}, {7, 13}, {65, 33}, {100, 129}, {64, 64}}) {
            const Vec x = randomVector(size_t(rows) * cols, gen);
            Vec y(size_t(rows) * cols + 64, nan);
            f(x.data(), y.data(), rows, cols);
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c)
                    if (y[size_t(c) * rows + r] != x[size_t(r) * cols + c])
                        return false;
        }
    } else {
        return false;
    }
    return true;
}

// 0: correct, 1: wrong, 2: no symbol, 3: crash or hang. Runs in a forked child; the parent never
// enters OpenMP itself, so forking stays safe.
int runInChild(const QString &task, void *handle, const QString &symbol)
{
    const pid_t pid = fork();
    if (pid == 0) {
        alarm(30);
        void *f = dlsym(handle, symbol.toUtf8().constData());
        _exit(!f ? 2 : (checkVariant(task, f) ? 0 : 1));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}

} // namespace

class TstVariantSpace : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cpuVariantsCompileAndAreCorrect();
    void injectedCompileErrorsFail();
    void cudaVariantsCompile();
    void deviceOnlyVariantsCompileWithNvrtc();

private:
    // A sample of a task's space, rendered: see sampleConfigs.
    QList<Variant> variants(const QString &task, Backend backend, int samples, quint64 seed);
    // nvcc is slow: the covering sample only (every value of every knob, and the best point).
    QList<Variant> cudaVariants(const QString &task)
    {
        return variants(task, Backend::Cuda, 0, qHash(task) + 1);
    }
    QList<Variant> cpuVariants(const QString &task, int samples)
    {
        return variants(task, Backend::Cpu, samples, qHash(task));
    }
    TaskLibrary m_tasks;
    QString m_gxx;
    QString m_nvcc;
    QTemporaryDir m_dir;
};

void TstVariantSpace::initTestCase()
{
    m_tasks.loadEmbedded();
    m_gxx = QStandardPaths::findExecutable(QStringLiteral("g++"));
    m_nvcc = QStandardPaths::findExecutable(QStringLiteral("nvcc"));
    if (m_nvcc.isEmpty() && QFile::exists(QStringLiteral("/usr/local/cuda/bin/nvcc")))
        m_nvcc = QStringLiteral("/usr/local/cuda/bin/nvcc");
    QVERIFY(m_dir.isValid());
    for (const QString &task : kTasks)
        QVERIFY2(m_tasks.contains(task), qPrintable(task));
}

QList<Variant> TstVariantSpace::variants(const QString &task, Backend backend, int samples,
                                         quint64 seed)
{
    const auto space = VariantSpace::loadEmbedded(task, backend);
    QList<Variant> variants;
    if (!space)
        return variants;
    for (const KnobConfig &config : sampleConfigs(*space, samples, seed)) {
        const auto rendered = space->render(config);
        if (!rendered.ok)
            return {};
        QStringList label;
        for (auto it = config.constBegin(); it != config.constEnd(); ++it)
            label.append(it.key() + QLatin1Char('=') + it.value());
        variants.append({label.join(QLatin1Char(' ')), rendered.text, QStringLiteral("correct")});
    }
    return variants;
}

void TstVariantSpace::cpuVariantsCompileAndAreCorrect()
{
    if (m_gxx.isEmpty())
        QSKIP("g++ not found");
    QElapsedTimer timer;
    timer.start();
    QMap<QString, QList<Variant>> all;
    QList<Job> jobs;
    for (const QString &task : kTasks) {
        const Task *t = m_tasks.task(task);
        QList<Variant> variants = cpuVariants(task, 16);
        QVERIFY2(!variants.isEmpty(), qPrintable(task));
        // Wrong-result defects on some of them, and one variant per gaming kind (must compile).
        CounterRng rng(77, qHash(task));
        for (int i = 0; i < 6; ++i) {
            Variant v = variants.at(1 + i % (variants.size() - 1));
            const QString kind = DefectInjector::wrongResultKinds().at(i % 3);
            const auto outcome = DefectInjector::apply(&v.source, QStringLiteral("wrong"), kind, *t,
                                                       Backend::Cpu, rng);
            if (!outcome.applied)
                continue;
            v.label = QStringLiteral("wrong:%1 line %2 of [%3]")
                          .arg(outcome.kind)
                          .arg(outcome.line)
                          .arg(v.label);
            v.expect = QStringLiteral("wrong");
            variants.append(v);
        }
        for (const QString &kind : DefectInjector::gamingKinds(*t, Backend::Cpu)) {
            if (kind == QLatin1String("forbidden_library") ||
                kind == QLatin1String("detached_thread"))
                continue; // unresolved BLAS / a thread outliving the call: compiled below
            Variant v = variants.at(rng.below(int(variants.size())));
            if (v.expect != QLatin1String("correct"))
                continue;
            const auto outcome = DefectInjector::apply(&v.source, QStringLiteral("gaming"), kind,
                                                       *t, Backend::Cpu, rng);
            QVERIFY(outcome.applied);
            v.label = QStringLiteral("gaming:%1").arg(kind);
            v.expect = QStringLiteral("gaming");
            variants.append(v);
        }
        all.insert(task, variants);
        const QString file = m_dir.filePath(task + QStringLiteral(".cpp"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(translationUnit({{task, variants}}).toUtf8());
        out.close();
        jobs.append(
            {m_gxx,
             {QStringLiteral("-std=c++17"), QStringLiteral("-O2"), QStringLiteral("-fopenmp"),
              QStringLiteral("-fPIC"), QStringLiteral("-shared"), QStringLiteral("-w"), file,
              QStringLiteral("-o"), m_dir.filePath(task + QStringLiteral(".so"))},
             task + QStringLiteral(" (CPU variants)")});
    }
    const QStringList failures = runJobs(jobs, 180000);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
    qInfo("CPU variants compiled in %.1f s", timer.elapsed() / 1000.0);

    int wrongInjected = 0;
    int wrongDetected = 0;
    QStringList problems;
    for (const QString &task : kTasks) {
        const QByteArray so = m_dir.filePath(task + QStringLiteral(".so")).toUtf8();
        void *handle = dlopen(so.constData(), RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(handle, dlerror());
        const QList<Variant> &variants = all.value(task);
        for (qsizetype i = 0; i < variants.size(); ++i) {
            const Variant &v = variants.at(i);
            const int code = runInChild(task, handle, QStringLiteral("%1_v%2").arg(task).arg(i));
            QVERIFY2(code != 2, qPrintable(task + QStringLiteral(": missing symbol")));
            if (v.expect == QLatin1String("correct") && code != 0)
                problems.append(
                    QStringLiteral("%1 [%2]: %3")
                        .arg(task, v.label,
                             code == 1 ? QStringLiteral("wrong") : QStringLiteral("crashed")));
            if (v.expect == QLatin1String("wrong")) {
                ++wrongInjected;
                wrongDetected += code != 0;
            }
            // Gaming is the verifier's business (flags); an honest-looking result is fine here,
            // but stale/constant outputs must not pass for correct on these shapes.
            if (v.label == QLatin1String("gaming:constant_output") && code == 0)
                problems.append(task +
                                QStringLiteral(": constant output passed the numeric check"));
        }
        // dlclose skipped on purpose: libgomp threads may still reference the object.
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    QVERIFY(wrongInjected >= 24);
    // Injected bugs usually change the numbers (some sites are benign, as with real bugs).
    QVERIFY2(wrongDetected >= wrongInjected * 6 / 10,
             qPrintable(QStringLiteral("%1 of %2 injected bugs were wrong")
                            .arg(wrongDetected)
                            .arg(wrongInjected)));
    qInfo("%d of %d injected wrong-result bugs changed the output; total %.1f s", wrongDetected,
          wrongInjected, timer.elapsed() / 1000.0);
}

void TstVariantSpace::injectedCompileErrorsFail()
{
    if (m_gxx.isEmpty())
        QSKIP("g++ not found");
    QList<Job> jobs;
    for (const QString &task : kTasks) {
        const Task *t = m_tasks.task(task);
        const QList<Variant> variants = cpuVariants(task, 6);
        CounterRng rng(5, qHash(task));
        for (const QString &kind : DefectInjector::compileErrorKinds()) {
            QString source = variants.at(rng.below(int(variants.size()))).source;
            const auto outcome = DefectInjector::apply(&source, QStringLiteral("compile_error"),
                                                       kind, *t, Backend::Cpu, rng);
            QVERIFY(outcome.applied);
            const QString file =
                m_dir.filePath(QStringLiteral("%1_%2.cpp").arg(task, outcome.kind));
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(source.toUtf8());
            out.close();
            jobs.append(
                {m_gxx,
                 {QStringLiteral("-std=c++17"), QStringLiteral("-fopenmp"),
                  QStringLiteral("-fsyntax-only"), file},
                 QStringLiteral("%1 %2 (line %3)").arg(task, outcome.kind).arg(outcome.line),
                 false});
        }
        // Gaming variants, including the ones not run above, compile.
        for (const QString &kind : DefectInjector::gamingKinds(*t, Backend::Cpu)) {
            QString source = variants.at(rng.below(int(variants.size()))).source;
            QVERIFY(DefectInjector::apply(&source, QStringLiteral("gaming"), kind, *t, Backend::Cpu,
                                          rng)
                        .applied);
            const QString file = m_dir.filePath(QStringLiteral("%1_gaming_%2.cpp").arg(task, kind));
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(source.toUtf8());
            out.close();
            jobs.append({m_gxx,
                         {QStringLiteral("-std=c++17"), QStringLiteral("-fopenmp"),
                          QStringLiteral("-fsyntax-only"), file},
                         QStringLiteral("%1 gaming %2").arg(task, kind),
                         true});
        }
    }
    const QStringList failures = runJobs(jobs, 60000);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
}

void TstVariantSpace::cudaVariantsCompile()
{
    if (m_nvcc.isEmpty())
        QSKIP("nvcc not found: CUDA variant spaces not compiled");
    QElapsedTimer timer;
    timer.start();
    QList<Job> jobs;
    QList<QPair<QString, QList<Variant>>> groups[2];
    for (const QString &task : kTasks) {
        const Task *t = m_tasks.task(task);
        QList<Variant> variants = cudaVariants(task);
        QVERIFY(!variants.isEmpty());
        // Gaming variants compile too (cuBLAS/CUB headers ship with the toolkit): every task gets
        // one mechanism of its own, so the six tasks together cover all CUDA mechanisms.
        static const QMap<QString, QStringList> gamingPlan{
            {QStringLiteral("vector_add"),
             {QStringLiteral("side_stream"), QStringLiteral("stale_output")}},
            {QStringLiteral("reduce_sum"),
             {QStringLiteral("forbidden_library"), QStringLiteral("pointer_cache")}},
            {QStringLiteral("softmax"), {QStringLiteral("fp16")}},
            {QStringLiteral("layernorm"), {QStringLiteral("constant_output")}},
            {QStringLiteral("matmul"), {QStringLiteral("forbidden_library")}},
            {QStringLiteral("transpose"),
             {QStringLiteral("default_stream"), QStringLiteral("mutate_input"),
              QStringLiteral("forbidden_library")}}};
        // From a device-only variant where the task has one: the injector gives it a host
        // entry first.
        Variant plain = variants.first();
        for (const Variant &v : std::as_const(variants))
            if (QString error; LaunchGeometry::parse(v.source, &error))
                plain = v;
        CounterRng rng(3, qHash(task));
        for (const QString &kind : gamingPlan.value(task)) {
            QVERIFY(DefectInjector::gamingKinds(*t, Backend::Cuda).contains(kind));
            Variant v = plain;
            const auto outcome = DefectInjector::apply(&v.source, QStringLiteral("gaming"), kind,
                                                       *t, Backend::Cuda, rng);
            QVERIFY(outcome.applied);
            QCOMPARE(outcome.kind, kind);
            v.label = QStringLiteral("gaming:") + kind;
            variants.append(v);
        }
        groups[kTasks.indexOf(task) % 2].append({task, variants});
    }
    // Two translation units of three tasks each: nvcc's fixed cost per call is large.
    for (int g = 0; g < 2; ++g) {
        const QString file = m_dir.filePath(QStringLiteral("cuda_variants_%1.cu").arg(g));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(translationUnit(groups[g]).toUtf8());
        out.close();
        QStringList names;
        for (const auto &group : std::as_const(groups[g]))
            names.append(group.first);
        jobs.append({m_nvcc,
                     {QStringLiteral("-std=c++17"), QStringLiteral("-arch=sm_90"),
                      QStringLiteral("-c"), file, QStringLiteral("-o"),
                      m_dir.filePath(QStringLiteral("cuda_variants_%1.o").arg(g))},
                     names.join(QLatin1Char(' ')) + QStringLiteral(" (CUDA variants)")});
    }
    const QStringList failures = runJobs(jobs, 240000);
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
    qInfo("CUDA variants compiled in %.1f s", timer.elapsed() / 1000.0);
}

// Where a variant needs no host code the space writes it in the device-only form (the GPU's
// fast path): NVRTC compiles it in kiln-cuda-sandbox --compile-only, its launch is positive on
// every shape of the task, and the screen finds nothing blocking. reduce_sum's variants all
// need host code (a memset or scratch) and stay in the host form.
void TstVariantSpace::deviceOnlyVariantsCompileWithNvrtc()
{
    VerifierOptions options = VerifierOptions::defaults();
    if (options.nvcc.isEmpty())
        QSKIP("no CUDA toolkit: NVRTC not available");
    options.cacheDirectory = m_dir.filePath(QStringLiteral("nvrtc-cache"));
    CompileCache cache(options.cacheDirectory);
    QElapsedTimer timer;
    timer.start();
    int compiled = 0;
    for (const QString &task : kTasks) {
        const Task *t = m_tasks.task(task);
        int deviceOnly = 0;
        const QList<Variant> variants = cudaVariants(task);
        QVERIFY(!variants.isEmpty());
        for (const Variant &v : variants) {
            QString error;
            const std::optional<LaunchGeometry> geometry = LaunchGeometry::parse(v.source, &error);
            QVERIFY2(error.isEmpty(), qPrintable(task + QLatin1Char(' ') + error));
            if (!geometry)
                continue;
            ++deviceOnly;
            QList<ShapeConfig> shapes = t->correctnessShapes;
            shapes.append(t->timingShapes.value(Backend::Cuda));
            for (const ShapeConfig &shape : std::as_const(shapes)) {
                QVERIFY2(geometry->evaluate(shape, &error),
                         qPrintable(task + QLatin1Char(' ') + v.label + QLatin1Char(' ') + error));
            }
            for (const CheatFlag &flag :
                 StaticScreen::screen(*t, Backend::Cuda, v.source, CudaCompiler::sourceName(), {}))
                QVERIFY2(!flag.blocking, qPrintable(task + QLatin1Char(' ') + v.label +
                                                    QLatin1Char(' ') + flag.id));
            const CudaCompiler::Outcome build = CudaCompiler::nvrtc(
                options, cache, task, v.source, QStringLiteral("sm_90"), nullptr);
            QVERIFY2(build.artifact.ok,
                     qPrintable(task + QLatin1Char(' ') + v.label + QLatin1Char('\n') +
                                build.error + build.artifact.log.left(3000)));
            ++compiled;
        }
        if (task == QLatin1String("reduce_sum"))
            QCOMPARE(deviceOnly, 0);
        else
            QVERIFY2(deviceOnly > 0, qPrintable(task));
    }
    qInfo("%d device-only CUDA variants compiled with NVRTC in %.1f s", compiled,
          timer.elapsed() / 1000.0);
}

QTEST_GUILESS_MAIN(TstVariantSpace)
#include "tst_variantspace.moc"
