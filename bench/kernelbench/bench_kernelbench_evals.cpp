// Whole KernelBench evaluations whose build is cold, as a search makes them: the problem's
// reference process is warm (kept between candidates), every candidate source is new (docs/
// performance.md, "Inline-CUDA builds, split").
//   bench_kernelbench_evals --tasks DIR [--ways torch,kiln] [--language L] [--device cpu]
//                           [--repeats N] FILE...
// Each FILE names its problem in its first line (`# expect: task=...`). Per way (how inline
// extensions are built: --inline-build), one verifier; its first evaluation of each problem warms
// the reference (and, the first time, makes Kiln's headers) and is reported apart. Then, REPEATS
// times, every FILE is evaluated by every way, alternating, each time on a copy of the source
// that no build has seen. Prints one JSON line per evaluation, then the p50s.

#include "../../tests/candidateexpectation.h"
#include "../benchsupport.h"
#include "tasks/tasklibrary.h"
#include "verifier/verifier.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cstdio>
#include <map>
#include <memory>

using namespace kiln;
using kiln::bench::median;
using kiln::bench::readFile;

namespace {

QString option(const QStringList &args, const QString &name, const QString &fallback = {})
{
    const qsizetype at = args.indexOf(name);
    return at > 0 && at + 1 < args.size() ? args.at(at + 1) : fallback;
}

struct Sample
{
    double wallMs = 0;
    double compileMs = 0;
};

// One evaluation, printed as a JSON line; its wall and compile times.
Sample evaluate(Verifier &verifier, const Task &task, const QString &source, const QString &label,
                quint64 seed)
{
    QElapsedTimer timer;
    timer.start();
    const EvaluationResult result = verifier.evaluate(task, Backend::Torch, source, seed);
    Sample sample{timer.nsecsElapsed() / 1e6, 0.0};
    const StageResult *compile = result.stage(QStringLiteral("compile"));
    if (compile)
        sample.compileMs = compile->ms;
    // Where the time went, stage by stage (the timing stage's set-up and rounds beside it).
    QJsonObject stages;
    double staged = 0.0;
    for (const StageResult &stage : result.stages) {
        stages.insert(stage.name, qRound(stage.ms));
        staged += stage.ms;
    }
    stages.insert(QStringLiteral("outside_stages"), qRound(sample.wallMs - staged));
    if (const StageResult *audit = result.stage(QStringLiteral("audit")))
        stages.insert(QStringLiteral("audit_steps"), audit->data.value(QStringLiteral("steps_ms")));
    if (const StageResult *correctness = result.stage(QStringLiteral("correctness")))
        stages.insert(QStringLiteral("candidate_process"),
                      correctness->data.value(QStringLiteral("candidate_process")));
    if (const StageResult *timing = result.stage(QStringLiteral("timing")))
        for (const char *key : {"setup_ms", "rounds", "lock_wait_ms"})
            stages.insert(QStringLiteral("timing_") + QLatin1String(key),
                          timing->data.value(QLatin1String(key)));
    QJsonArray blocking; // an honest candidate flagged is a finding of the run, not noise
    for (const CheatFlag &flag : result.flags)
        if (flag.blocking)
            blocking.append(flag.id + QStringLiteral(": ") + flag.message.left(400));
    const QJsonObject line{
        {QStringLiteral("evaluation"), label},
        {QStringLiteral("blocking_flags"), blocking},
        {QStringLiteral("stages"), stages},
        {QStringLiteral("verdict"), verdictName(result.verdict)},
        {QStringLiteral("wall_ms"), sample.wallMs},
        {QStringLiteral("compile_ms"), sample.compileMs},
        {QStringLiteral("builds"),
         compile ? compile->data.value(QStringLiteral("builds")) : QJsonValue()}};
    std::printf("%s\n", QJsonDocument(line).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
    return sample;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    TaskLibrary tasks;
    if (tasks.loadDirectory(option(args, QStringLiteral("--tasks"))) == 0) {
        std::fprintf(stderr, "usage: bench_kernelbench_evals --tasks DIR [--ways torch,kiln] "
                             "[--language L] [--device cpu] [--repeats N] FILE...\n");
        return 2;
    }
    const QStringList ways =
        option(args, QStringLiteral("--ways"), QStringLiteral("torch,kiln")).split(u',');
    const int repeats = option(args, QStringLiteral("--repeats"), QStringLiteral("3")).toInt();
    QStringList files;
    for (qsizetype i = 1; i < args.size(); ++i) {
        if (args.at(i).startsWith(QStringLiteral("--")))
            ++i;
        else
            files << args.at(i);
    }
    QTemporaryDir cache;
    std::map<QString, std::unique_ptr<Verifier>> verifiers;
    for (const QString &way : ways) {
        VerifierOptions options = VerifierOptions::defaults();
        options.cacheDirectory = cache.filePath(way + QStringLiteral("/compile"));
        options.torchInlineBuild = way;
        options.torchLanguage = option(args, QStringLiteral("--language"), QStringLiteral("auto"));
        // torch's CPU device (the same pipeline, without a GPU; KILN_PYTHON names a python3
        // with torch).
        options.torchDevice = option(args, QStringLiteral("--device"), options.torchDevice);
        verifiers[way] = std::make_unique<Verifier>(options);
    }
    std::map<QString, std::vector<double>> walls, compiles;
    quint64 seed = 20261206;
    for (int round = 0; round <= repeats; ++round) {
        for (const QString &file : std::as_const(files)) {
            const Task *task = tasks.task(testing::readExpectation(file).task);
            if (!task) {
                std::fprintf(stderr, "%s: its task is not in --tasks\n", qPrintable(file));
                return 2;
            }
            for (const QString &way : ways) {
                // A source no build has seen: the extension folder is named by its hash.
                const QString label =
                    QStringLiteral("%1 %2 %3")
                        .arg(QFileInfo(file).fileName(), way)
                        .arg(round == 0 ? QStringLiteral("warm-up") : QString::number(round));
                const QString source =
                    readFile(file) + QStringLiteral("\n# bench copy: %1\n").arg(label);
                const Sample sample = evaluate(*verifiers[way], *task, source, label, ++seed);
                if (round > 0) {
                    walls[way].push_back(sample.wallMs);
                    compiles[way].push_back(sample.compileMs);
                }
            }
        }
    }
    for (const QString &way : ways)
        std::printf("%s: whole evaluation p50 %.1f s, compile stage p50 %.2f s (n=%lld)\n",
                    qPrintable(way), median(walls[way]) / 1000.0, median(compiles[way]) / 1000.0,
                    qint64(walls[way].size()));
    if (walls.count(QStringLiteral("torch")) && walls.count(QStringLiteral("kiln")))
        std::printf("compile stage p50 ratio torch/kiln: %.1fx; whole evaluation: %.1fx\n",
                    median(compiles[QStringLiteral("torch")]) /
                        median(compiles[QStringLiteral("kiln")]),
                    median(walls[QStringLiteral("torch")]) / median(walls[QStringLiteral("kiln")]));
    return 0;
}
