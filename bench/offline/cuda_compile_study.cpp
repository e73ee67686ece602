// How often the offline policy's CUDA candidates fail to compile, and how often a refinement of
// one that failed compiles: the compile stage is the CUDA verifier's own (nvcc in kiln-sandbox,
// NVRTC in kiln-cuda-sandbox --compile-only), so this runs without a GPU. A candidate that does
// not compile is judged by CudaEvaluation, whose compile stage ends the evaluation before a GPU
// is needed, and that judgement is the feedback its refinement reads (the prompt an `llm` run
// would send, built by PromptBuilder).
//   bench_cuda_compile_study [samples-per-task] [turns] [seed] [preset]
// Prints one line per task: samples, compile errors by what the policy injected, the
// refinement turns on a compile error, how many of them the feedback guided (it pointed at the
// code the defect changed, as the simulated model reads it), and how many compiled.
#include "policies/offline/offlinepolicy.h"
#include "policies/offline/variantspace.h"
#include "tasks/launchgeometry.h"
#include "tasks/tasklibrary.h"
#include "verifier/cuda/cudacompiler.h"
#include "verifier/cuda/cudaevaluation.h"
#include "verifier/cuda/cudasandboxpool.h"
#include "verifier/harness/entryshim.h"
#include "verifier/harness/referencebank.h"

#include <QCoreApplication>
#include <QMap>
#include <QTemporaryDir>
#include <QTextStream>

using namespace kiln;

namespace {

struct Study
{
    VerifierOptions options;
    std::unique_ptr<CompileCache> cache;
    std::unique_ptr<ReferenceBank> references;
    std::unique_ptr<CudaSandboxPool> pool;
    std::atomic<bool> cancel{false};

    // The verifier's compile path for this source (NVRTC for the device-only form).
    bool compiles(const Task &task, const QString &source)
    {
        QString error;
        const CudaCompiler::Outcome build =
            LaunchGeometry::parse(source, &error)
                ? CudaCompiler::nvrtc(options, *cache, task.name, source, QStringLiteral("sm_90"),
                                      &cancel)
                : CudaCompiler::nvcc(options, *cache, task.name, source,
                                     EntryShim::cudaSource(task), QStringLiteral("sm_90"), {},
                                     &cancel);
        return error.isEmpty() && build.artifact.ok;
    }
    // The judgement of a candidate that does not compile: the evaluation stops at its compile
    // stage, as on a GPU machine.
    EvaluationResult judgeFailure(const Task &task, const QString &source)
    {
        return CudaEvaluation(options, *cache, *references, *pool, task, source, 1, cancel).run();
    }
};

GenerationRequest request(const Task &task, quint64 seed, qint64 index)
{
    GenerationRequest r;
    r.task = &task;
    r.backend = Backend::Cuda;
    r.seed = seed;
    r.sampleIndex = index;
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int samples = args.value(1, QStringLiteral("30")).toInt();
    const int turns = args.value(2, QStringLiteral("2")).toInt();
    const quint64 seed = args.value(3, QStringLiteral("1")).toULongLong();
    const QString preset = args.value(4, QStringLiteral("frontier"));
    const std::optional<OfflinePolicyOptions> policyOptions =
        OfflinePolicyOptions::fromPreset(preset);
    if (!policyOptions) {
        QTextStream(stderr) << "unknown preset " << preset << '\n';
        return 2;
    }
    TaskLibrary tasks;
    tasks.loadEmbedded();
    QTemporaryDir cacheDir;
    Study study;
    study.options = VerifierOptions::defaults();
    if (study.options.nvcc.isEmpty()) {
        QTextStream(stderr) << "no CUDA toolkit\n";
        return 2;
    }
    study.options.cacheDirectory = cacheDir.path();
    study.cache = std::make_unique<CompileCache>(study.options.cacheDirectory);
    study.references = std::make_unique<ReferenceBank>(study.options, *study.cache);
    // An H100 as the probe would report it: the evaluation compiles for sm_90 and never gets
    // further than its compile stage here.
    study.pool = std::make_unique<CudaSandboxPool>(
        study.options, CudaDevices::parse(QStringLiteral(
                           "device 0 9 0 132 52428800 85029158912 1980000 2619000 5120 H100\n")));
    OfflinePolicy policy(*policyOptions);
    QTextStream out(stdout);
    out << "task\tsamples\tcompile_errors\tby_injected\trefine_turns\tguided\tcompiled\n";
    qint64 next = 0;
    for (const QString &name : VariantSpace::availableTasks(Backend::Cuda)) {
        const Task *task = tasks.task(name);
        if (!task)
            continue;
        int failed = 0, refineTurns = 0, guided = 0, refinedCompiled = 0;
        QMap<QString, int> byInjected;
        for (int i = 0; i < samples; ++i) {
            GenerationResult sample = policy.generate(request(*task, seed, next++), study.cancel);
            if (!sample.ok || study.compiles(*task, sample.candidate.source))
                continue;
            ++failed;
            byInjected[sample.candidate.policyMeta.value(QStringLiteral("injected")).toString()]++;
            CandidateRecord parent = sample.candidate;
            for (int turn = 0; turn < turns; ++turn) {
                GenerationRequest refine = request(*task, seed, next++);
                refine.operation = Operation::Refine;
                refine.parents = {parent};
                refine.parentEvaluations = {study.judgeFailure(*task, parent.source)};
                const GenerationResult child = policy.generate(refine, study.cancel);
                if (!child.ok)
                    break;
                ++refineTurns;
                // The model's notes say whether the feedback showed it where (offlinepolicy.cpp).
                guided += child.candidate.reasoning.contains(
                              QLatin1String("the feedback does not say where"))
                              ? 0
                              : 1;
                if (study.compiles(*task, child.candidate.source)) {
                    ++refinedCompiled;
                    break;
                }
                parent = child.candidate;
            }
        }
        QStringList kinds;
        for (auto it = byInjected.cbegin(); it != byInjected.cend(); ++it)
            kinds << QStringLiteral("%1=%2").arg(it.key()).arg(it.value());
        out << name << '\t' << samples << '\t' << failed << '\t' << kinds.join(QLatin1Char(' '))
            << '\t' << refineTurns << '\t' << guided << '\t' << refinedCompiled << Qt::endl;
    }
    return 0;
}
