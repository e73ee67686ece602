#pragma once

// A workspace database with runs on KernelBench problems, written through RunStore's own
// writes, with known fast_p (the report and plot tests check against kExpected*).
//
//   run 1 (strict):  kb1_019_relu      pass 1.6x (compile 1.1x), flagged 30x: the flag never counts
//                    kb1_023_softmax   wrong
//   run 2 (strict):  kb1_023_softmax   pass 0.8x (compile 0.5x): the same problem as in run 1
//                    kb2_005_conv_relu pass 2.5x, no torch.compile timing; no task snapshot
//   run 3 (lenient): kb2_006_gemm      pass 5x: left out
//   run 4 (strict):  softmax (a Kiln task on the CPU) pass 3x: no KernelBench problem
//
// fast_p, level 1: 2 problems, eager 1, .5, .5, 0; torch.compile 1, .5, 0, 0 (2 measured).
//         level 2: 1 problem,  eager 1, 1, 1, 1;   torch.compile 1, 0, 0, 0 (0 measured).

#include "store/runstore.h"

#include <QJsonObject>
#include <optional>

namespace kiln::test {

inline QJsonObject kernelBenchSnapshot(const QString &task, int level)
{
    return {{QStringLiteral("name"), task},
            {QStringLiteral("title"), task},
            {QStringLiteral("backends"), QStringLiteral("pytorch")},
            {QStringLiteral("kernelbench_level"), level}};
}

inline qint64 addJudgedCandidate(RunStore &store, qint64 runId, const QString &task,
                                 Verdict verdict, double speedup,
                                 std::optional<double> compiled = std::nullopt,
                                 Backend backend = Backend::Torch)
{
    CandidateRecord c;
    c.runId = runId;
    c.task = task;
    c.policy = QStringLiteral("llm");
    c.source = QStringLiteral("class ModelNew(nn.Module):\n    pass\n");
    if (store.addCandidate(c) == 0)
        return 0;
    EvaluationResult e;
    e.backend = backend;
    e.verdict = verdict;
    e.correct = verdict == Verdict::Pass || verdict == Verdict::Flagged;
    e.speedup = speedup;
    e.candidateMs = 1.0 / speedup;
    e.baselineMs = 1.0;
    if (compiled) {
        e.compiledSpeedup = compiled;
        e.compiledBaselineMs = *compiled / speedup;
    }
    return store.addEvaluation(c.id, e) > 0 ? c.id : 0;
}

inline qint64 addKernelBenchRun(RunStore &store, const QStringList &tasks,
                                const QMap<QString, QJsonObject> &snapshots, bool lenient = false,
                                const QString &backend = QStringLiteral("pytorch"))
{
    RunRecord run;
    run.tasks = tasks;
    run.strategy = QStringLiteral("best-of-n");
    run.policy = QStringLiteral("llm");
    run.backend = backend;
    run.status = RunRecord::Status::Finished;
    run.config = {{QStringLiteral("verifier"),
                   lenient ? QStringLiteral("lenient") : QStringLiteral("strict")}};
    return store.createRun(run, snapshots);
}

// Writes the runs above into a new database at path; false when a write failed.
inline bool writeKernelBenchDatabase(const QString &path)
{
    const auto store = RunStore::open(path, RunStore::Mode::ReadWrite);
    if (!store)
        return false;
    const QString relu = QStringLiteral("kb1_019_relu");
    const QString softmax = QStringLiteral("kb1_023_softmax");
    const QString conv = QStringLiteral("kb2_005_conv_relu");
    const QString gemm = QStringLiteral("kb2_006_gemm");
    const qint64 one = addKernelBenchRun(
        *store, {relu, softmax},
        {{relu, kernelBenchSnapshot(relu, 1)}, {softmax, kernelBenchSnapshot(softmax, 1)}});
    const qint64 two =
        addKernelBenchRun(*store, {softmax, conv}, {{softmax, kernelBenchSnapshot(softmax, 1)}});
    const qint64 three =
        addKernelBenchRun(*store, {gemm}, {{gemm, kernelBenchSnapshot(gemm, 2)}}, true);
    const qint64 four =
        addKernelBenchRun(*store, {QStringLiteral("softmax")}, {}, false, QStringLiteral("cpu"));
    if (!one || !two || !three || !four)
        return false;
    return addJudgedCandidate(*store, one, relu, Verdict::Pass, 1.6, 1.1) &&
           addJudgedCandidate(*store, one, relu, Verdict::Flagged, 30.0, 20.0) &&
           addJudgedCandidate(*store, one, softmax, Verdict::Wrong, 4.0) &&
           addJudgedCandidate(*store, two, softmax, Verdict::Pass, 0.8, 0.5) &&
           addJudgedCandidate(*store, two, conv, Verdict::Pass, 2.5) &&
           addJudgedCandidate(*store, three, gemm, Verdict::Pass, 5.0, 4.0) &&
           addJudgedCandidate(*store, four, QStringLiteral("softmax"), Verdict::Pass, 3.0,
                              std::nullopt, Backend::Cpu);
}

} // namespace kiln::test
