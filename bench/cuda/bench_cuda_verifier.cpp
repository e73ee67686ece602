// CUDA verifier figures (docs/performance.md, "CUDA verifier"), on the machine's GPUs:
//   bench_cuda_verifier [--copies N] [--repeats N] [--evals N] [--skip PARTS] [--out FILE]
// - compile: NVRTC (device-only form) vs nvcc (the same kernel with a host launcher), cold
//   cache, per candidate;
// - latency: one candidate end to end (screen, compile, correctness, timing), cold and warm cache;
// - throughput: evaluations per second through a VerifierPool (every GPU), cold and warm;
// - repeatability: the candidate median of one kernel over N separate evaluations (CV).
// Prints one JSON document.

#include "../benchsupport.h"
#include "policies/offline/hostlaunchwriter.h"
#include "tasks/tasklibrary.h"
#include "verifier/cuda/cudacompiler.h"
#include "verifier/cuda/cudasandboxslot.h"
#include "verifier/harness/cudadevices.h"
#include "verifier/harness/entryshim.h"
#include "verifier/verifierpool.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace kiln;
using kiln::bench::median;
using kiln::bench::readFile;

namespace {

int option(const QStringList &args, const QString &name, int fallback)
{
    const qsizetype at = args.indexOf(name);
    return at > 0 ? args.value(at + 1).toInt() : fallback;
}

// A unique copy: a comment defeats the compile cache without changing the kernel.
QString unique(const QString &source, int index)
{
    return source +
           QStringLiteral("\n// copy %1 %2\n").arg(index).arg(QDateTime::currentMSecsSinceEpoch());
}

// The nvcc form of a device-only candidate: the kernel renamed, plus a host launcher that
// launches it with the kiln-launch geometry on the harness's stream.
QString withHostLauncher(const Task &task, const QString &deviceOnly)
{
    QString source = deviceOnly;
    HostLaunchWriter::addHostEntry(&source, task);
    return source;
}

QJsonObject stageTimes(const EvaluationResult &result)
{
    QJsonObject stages;
    for (const StageResult &stage : result.stages)
        stages.insert(stage.name, stage.ms);
    return stages;
}

// The timing stage's data (trials, stop reason, device, loop phases); empty when not timed.
QJsonObject timingData(const EvaluationResult &result)
{
    for (const StageResult &stage : result.stages)
        if (stage.name.endsWith(QLatin1String("timing")))
            return stage.data;
    return {};
}

// One candidate's end-to-end latency, in the three states of the latency section.
QJsonObject latencyRow(Verifier &verifier, const Task &task, const QString &file,
                       const QString &text)
{
    QJsonObject row{{QStringLiteral("candidate"), file}};
    EvaluationResult last;
    const QString first = unique(text, 0), warm = unique(text, 1);
    for (const char *state : {"first", "warm", "cached"}) {
        // "cached" evaluates the warm copy again: its compile is a cache hit
        const QString &source = qstrcmp(state, "first") == 0 ? first : warm;
        QElapsedTimer timer;
        timer.start();
        last = verifier.evaluate(task, Backend::Cuda, source, 11);
        row.insert(QStringLiteral("%1_ms").arg(QLatin1String(state)), timer.nsecsElapsed() / 1e6);
        row.insert(QStringLiteral("%1_stages").arg(QLatin1String(state)), stageTimes(last));
    }
    row.insert(QStringLiteral("verdict"), verdictName(last.verdict));
    row.insert(QStringLiteral("summary"), last.summary);
    row.insert(QStringLiteral("speedup"), last.speedup.value_or(0));
    std::fprintf(stderr, "latency %s: %s first %.0f ms, warm %.0f ms, cached %.0f ms | %s\n",
                 qPrintable(file), qPrintable(verdictName(last.verdict)),
                 row.value(QStringLiteral("first_ms")).toDouble(),
                 row.value(QStringLiteral("warm_ms")).toDouble(),
                 row.value(QStringLiteral("cached_ms")).toDouble(),
                 qPrintable(last.summary.left(160)));
    return row;
}

// Every candidate of the latency section, and the p50 of the warm latency per compile path.
QJsonObject latencyRows(Verifier &verifier, const TaskLibrary &tasks, const QString &candidates)
{
    const QStringList nvcc{QStringLiteral("vector_add_naive.cu"),
                           QStringLiteral("softmax_online.cu"),
                           QStringLiteral("matmul_tiled.cu"),
                           QStringLiteral("layernorm_welford.cu"),
                           QStringLiteral("reduce_sum_warp_shuffle.cu"),
                           QStringLiteral("transpose_tiled.cu")};
    const QStringList nvrtc{QStringLiteral("vector_add_device_only.cu"),
                            QStringLiteral("softmax_device_only.cu"),
                            QStringLiteral("transpose_device_only.cu")};
    QJsonObject out;
    for (const auto &[path, files] :
         {std::pair{QStringLiteral("nvcc"), nvcc}, std::pair{QStringLiteral("nvrtc"), nvrtc}}) {
        QJsonArray rows;
        std::vector<double> warm;
        for (const QString &file : files) {
            const QString text = readFile(candidates + file);
            const QString taskName =
                text.section(QStringLiteral("task="), 1).section(QLatin1Char(' '), 0, 0);
            const QJsonObject row = latencyRow(verifier, *tasks.task(taskName), file, text);
            warm.push_back(row.value(QStringLiteral("warm_ms")).toDouble());
            rows.append(row);
        }
        out.insert(path, rows);
        out.insert(path + QStringLiteral("_warm_p50_ms"), median(warm));
        std::fprintf(stderr, "latency %s: warm p50 %.0f ms\n", qPrintable(path), median(warm));
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int copies = option(args, QStringLiteral("--copies"), 5);
    const int repeats = option(args, QStringLiteral("--repeats"), 10);
    const int evals = option(args, QStringLiteral("--evals"), 24);
    // --skip compile,latency,throughput,repeatability
    const qsizetype skipAt = args.indexOf(QStringLiteral("--skip"));
    const QStringList skip =
        skipAt > 0 ? args.value(skipAt + 1).split(QLatin1Char(',')) : QStringList();
    TaskLibrary tasks;
    tasks.loadDirectory(QStringLiteral(KILN_SOURCE_DIR "/tasks"));
    QTemporaryDir cacheDir;
    VerifierOptions options = VerifierOptions::defaults();
    options.cacheDirectory = cacheDir.path(); // cold at the start
    const CudaAvailability gpu = CudaDevices::probe(options);
    if (!gpu.usable) {
        std::fprintf(stderr, "bench_cuda_verifier: %s\n", qPrintable(gpu.reason));
        return 2;
    }
    QJsonObject report{{QStringLiteral("device"), gpu.devices.first().name},
                       {QStringLiteral("gpus"), int(gpu.devices.size())}};
    const QString arch = gpu.devices.first().architecture();
    const QString candidates = QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cuda/");
    const QStringList deviceOnly{QStringLiteral("vector_add"), QStringLiteral("softmax"),
                                 QStringLiteral("transpose")};

    // 1. Compile time per candidate, NVRTC vs nvcc, cold.
    if (!skip.contains(QStringLiteral("compile"))) {
        CompileCache cache(cacheDir.path() + QStringLiteral("/compile-bench"));
        QJsonArray rows;
        std::vector<double> allNvrtc, allNvcc;
        for (const QString &name : deviceOnly) {
            const Task &task = *tasks.task(name);
            const QString source = readFile(candidates + name + QStringLiteral("_device_only.cu"));
            std::vector<double> nvrtcMs, nvccMs;
            for (int i = 0; i < copies; ++i) {
                QElapsedTimer timer;
                timer.start();
                const auto a = CudaCompiler::nvrtc(options, cache, task.name, unique(source, i),
                                                   arch, nullptr);
                nvrtcMs.push_back(timer.nsecsElapsed() / 1e6);
                timer.restart();
                const auto b = CudaCompiler::nvcc(options, cache, task.name,
                                                  unique(withHostLauncher(task, source), i),
                                                  EntryShim::cudaSource(task), arch, {}, nullptr);
                nvccMs.push_back(timer.nsecsElapsed() / 1e6);
                if (!a.artifact.ok || !b.artifact.ok) {
                    std::fprintf(stderr, "%s: compile failed\n%s\n%s\n", qPrintable(name),
                                 qPrintable(a.artifact.log), qPrintable(b.artifact.log));
                    return 1;
                }
            }
            allNvrtc.insert(allNvrtc.end(), nvrtcMs.begin(), nvrtcMs.end());
            allNvcc.insert(allNvcc.end(), nvccMs.begin(), nvccMs.end());
            rows.append(QJsonObject{{QStringLiteral("task"), name},
                                    {QStringLiteral("nvrtc_ms"), median(nvrtcMs)},
                                    {QStringLiteral("nvcc_ms"), median(nvccMs)},
                                    {QStringLiteral("ratio"), median(nvccMs) / median(nvrtcMs)}});
        }
        std::fprintf(stderr, "compile: NVRTC %.0f ms, nvcc %.0f ms per candidate (medians)\n",
                     median(allNvrtc), median(allNvcc));
        report.insert(QStringLiteral("compile"),
                      QJsonObject{{QStringLiteral("per_task"), rows},
                                  {QStringLiteral("copies"), copies},
                                  {QStringLiteral("nvrtc_median_ms"), median(allNvrtc)},
                                  {QStringLiteral("nvcc_median_ms"), median(allNvcc)}});
    }

    VerifierPool pool(options, 2 * int(gpu.devices.size()));
    Verifier &verifier = pool.verifier();
    // 2. End-to-end latency per candidate: the task's first candidate (which also builds its
    // reference and baseline), then a new candidate with the verifier and the task warm (what a
    // search's candidates see: the "warm latency"), then the same source again (cached).
    if (!skip.contains(QStringLiteral("latency")))
        report.insert(QStringLiteral("latency"), latencyRows(verifier, tasks, candidates));

    // 3. Throughput through the pool (compilation overlaps other GPUs' and its own timing).
    if (!skip.contains(QStringLiteral("throughput"))) {
        QStringList files{QStringLiteral("vector_add_naive.cu"),
                          QStringLiteral("softmax_online.cu"),
                          QStringLiteral("matmul_tiled.cu"),
                          QStringLiteral("layernorm_welford.cu"),
                          QStringLiteral("reduce_sum_warp_shuffle.cu"),
                          QStringLiteral("transpose_tiled.cu")};
        QList<QPair<const Task *, QString>> work;
        for (int i = 0; i < evals; ++i) {
            const QString source = unique(readFile(candidates + files[i % files.size()]), 100 + i);
            const QString taskName =
                source.section(QStringLiteral("task="), 1).section(QLatin1Char(' '), 0, 0);
            work.append({tasks.task(taskName), source});
        }
        QJsonObject throughput;
        for (const char *phase : {"cold", "warm"}) {
            QElapsedTimer timer;
            timer.start();
            QList<QFuture<EvaluationResult>> futures;
            for (const auto &[task, source] : work)
                futures.append(pool.submit(*task, Backend::Cuda, source, 11));
            int passed = 0;
            QJsonObject perDevice; // device index -> evaluations timed there
            for (auto &future : futures) {
                const EvaluationResult result = future.result();
                passed += result.verdict == Verdict::Pass ? 1 : 0;
                const QJsonObject timing = timingData(result);
                if (!timing.isEmpty()) {
                    const QString device =
                        QString::number(timing.value(QStringLiteral("device_index")).toInt());
                    perDevice.insert(device, perDevice.value(device).toInt() + 1);
                }
            }
            const double seconds = timer.nsecsElapsed() / 1e9;
            throughput.insert(QString::fromLatin1(phase),
                              QJsonObject{{QStringLiteral("evaluations"), int(work.size())},
                                          {QStringLiteral("passed"), passed},
                                          {QStringLiteral("seconds"), seconds},
                                          {QStringLiteral("per_device"), perDevice},
                                          {QStringLiteral("per_second"), work.size() / seconds}});
            std::fprintf(stderr, "throughput %s: %.2f evals/s\n", phase, work.size() / seconds);
        }
        throughput.insert(QStringLiteral("threads"), pool.sandboxCount());
        report.insert(QStringLiteral("throughput"), throughput);
    }

    // 4. Repeatability: one kernel, separate evaluations (each its own adaptive timing loop).
    if (!skip.contains(QStringLiteral("repeatability"))) {
        QJsonArray rows;
        for (const QString &file :
             {QStringLiteral("vector_add_naive.cu"), QStringLiteral("softmax_online.cu"),
              QStringLiteral("matmul_tiled.cu"), QStringLiteral("transpose_tiled.cu")}) {
            const QString source = readFile(candidates + file);
            const QString taskName =
                source.section(QStringLiteral("task="), 1).section(QLatin1Char(' '), 0, 0);
            const Task &task = *tasks.task(taskName);
            std::vector<double> medians, references;
            QJsonArray loops; // per evaluation: trials, stop reason, loop phases
            for (int r = 0; r < repeats; ++r) {
                const EvaluationResult result = verifier.evaluate(task, Backend::Cuda, source, 11);
                const QJsonObject timing = timingData(result);
                loops.append(QJsonObject{
                    {QStringLiteral("trials"), timing.value(QStringLiteral("candidate"))
                                                   .toObject()
                                                   .value(QStringLiteral("n"))},
                    {QStringLiteral("stop"), timing.value(QStringLiteral("stop"))},
                    {QStringLiteral("iterations"), timing.value(QStringLiteral("iterations"))},
                    {QStringLiteral("loop_ms"), timing.value(QStringLiteral("loop_ms"))},
                    {QStringLiteral("upload_ms"), timing.value(QStringLiteral("upload_ms"))},
                    {QStringLiteral("device_index"),
                     timing.value(QStringLiteral("device_index"))}});
                if (result.candidateMs)
                    medians.push_back(*result.candidateMs);
                if (result.baselineMs)
                    references.push_back(*result.baselineMs);
            }
            auto cv = [](const std::vector<double> &v) {
                if (v.size() < 2)
                    return 0.0;
                double mean = 0.0, var = 0.0;
                for (double x : v)
                    mean += x / v.size();
                for (double x : v)
                    var += (x - mean) * (x - mean) / (v.size() - 1);
                return std::sqrt(var) / mean;
            };
            rows.append(QJsonObject{{QStringLiteral("candidate"), file},
                                    {QStringLiteral("n"), int(medians.size())},
                                    {QStringLiteral("median_ms"), median(medians)},
                                    {QStringLiteral("cv"), cv(medians)},
                                    {QStringLiteral("reference_cv"), cv(references)},
                                    {QStringLiteral("evaluations"), loops}});
            std::fprintf(stderr, "repeatability %s: median %.4f ms cv %.2f %%\n", qPrintable(file),
                         median(medians), 100 * cv(medians));
        }
        report.insert(QStringLiteral("repeatability"), rows);
    }
    const QByteArray json = QJsonDocument(report).toJson();
    std::fwrite(json.constData(), 1, size_t(json.size()), stdout);
    const qsizetype at = args.indexOf(QStringLiteral("--out"));
    if (at > 0) {
        QFile out(args.value(at + 1));
        if (out.open(QIODevice::WriteOnly))
            out.write(json);
    }
    return 0;
}
