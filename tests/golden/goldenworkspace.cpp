#include "goldenworkspace.h"

#include "store/runstore.h"

#include <QJsonArray>

#include <tuple>

namespace kiln::test {

namespace {

using Run = GoldenWorkspace::Run;

// Every date is a fixed offset from one fixed instant: the run curve's seconds and the export's
// created_at come out the same on every day.
QDateTime at(int minutes)
{
    return QDateTime::fromString(QStringLiteral("2025-03-14T09:00:00.000Z"), Qt::ISODateWithMs)
        .addSecs(60 * minutes);
}

StageResult stage(const char *name, bool ok, double ms, const QString &detail,
                  const QJsonObject &data = {})
{
    return StageResult{QString::fromLatin1(name), ok, ms, detail, data};
}

CandidateRecord candidate(const Run &run, const QString &task, Operation operation,
                          std::optional<qint64> parent = std::nullopt)
{
    CandidateRecord c;
    c.runId = run.record.id;
    c.task = task;
    c.operation = operation;
    c.parent = parent;
    c.policy = run.record.policy;
    return c;
}

// Appends a candidate under `id`, the id the store will give it (it numbers candidates across
// runs, from 1), with its judgement, if any.
void addTo(Run &run, qint64 id, CandidateRecord c,
           std::optional<EvaluationResult> evaluation = std::nullopt)
{
    c.id = id;
    c.sampleIndex = run.candidates.size();
    c.round = int(run.candidates.size() / 2);
    c.createdAt = at(int(id) * 3);
    if (evaluation)
        run.evaluations.insert(id, *evaluation);
    run.candidates.append(c);
}

const QString kSoftmaxSource = QStringLiteral(
    "#include <cuda_runtime.h>\n"
    "// Row-wise softmax: one block of 256 threads per row.\n"
    "__global__ void softmax_kernel(const float *x, float *y, int cols)\n"
    "{\n"
    "    // ...\n"
    "}\n"
    "extern \"C\" void softmax(const float *x, float *y, int rows, int cols, cudaStream_t s)\n"
    "{\n"
    "    softmax_kernel<<<rows, 256, 0, s>>>(x, y, cols);\n"
    "}\n");

void setConversation(CandidateRecord &c, const QString &prompt, const QString &reasoning,
                     qint64 reasoningTokens)
{
    c.source = kSoftmaxSource;
    c.prompt = prompt;
    c.reasoning = reasoning;
    c.response =
        QStringLiteral("Here is the kernel.\n```cuda\n") + c.source + QStringLiteral("```");
    c.promptTokens = 1234;
    c.completionTokens = 310;
    c.reasoningTokens = reasoningTokens;
    c.reasoningLength = 4096;
    c.policyMeta = {{QStringLiteral("model"), QStringLiteral("gpt-5-mini")},
                    {QStringLiteral("cost"), 0.0042}};
}

QJsonObject screenData(const QJsonArray &flags = {})
{
    return {{QStringLiteral("flags"), flags},
            {QStringLiteral("symbols_read"), true},
            {QStringLiteral("imports"), QJsonArray{QStringLiteral("cudaLaunchKernel"),
                                                   QStringLiteral("__cudaRegisterFatBinary")}}};
}

StageResult compiled(double ms)
{
    const QJsonArray kernels{QJsonObject{{QStringLiteral("name"), QStringLiteral("softmax_kernel")},
                                         {QStringLiteral("registers"), 32},
                                         {QStringLiteral("shared_bytes"), 1024},
                                         {QStringLiteral("spills"), 0}}};
    return stage("compile", true, ms, QStringLiteral("compiled in 912 ms"),
                 {{QStringLiteral("cached"), false},
                  {QStringLiteral("exit_code"), 0},
                  {QStringLiteral("kernels"), kernels}});
}

StageResult correct(double ms)
{
    return stage("correctness", true, ms,
                 QStringLiteral("12 calls on 4 shapes x 3 seeds within tolerance"),
                 {{QStringLiteral("calls"), 12},
                  {QStringLiteral("shapes"), 4},
                  {QStringLiteral("seeds"), 3},
                  {QStringLiteral("max_abs_error"), 3e-7}});
}

// A measured pass: the stages, the paired timings and the interval around `speedup`.
EvaluationResult timedPass(double speedup, double low, double high, bool confirmed)
{
    EvaluationResult e;
    e.verdict = Verdict::Pass;
    e.correct = true;
    e.backend = Backend::Cuda;
    e.speedup = speedup;
    e.speedupInterval = SpeedupInterval{speedup, low, high};
    e.confirmed = confirmed;
    e.baselineMs = 0.5822;
    e.candidateMs = 0.5822 / speedup;
    e.rooflineFraction = 0.27 * speedup;
    e.candidateTiming = TimingStats::fromSamples({0.41, 0.40, 0.42, 0.41, 0.43, 0.41});
    e.baselineTiming = TimingStats::fromSamples({0.58, 0.59, 0.57, 0.58, 0.60, 0.58});
    const QJsonObject timing{{QStringLiteral("candidate"), e.candidateTiming.toJson()},
                             {QStringLiteral("baseline"), e.baselineTiming.toJson()}};
    e.stages = {stage("screen", true, 2.5, QStringLiteral("no findings"), screenData()),
                compiled(912.0), correct(41.25),
                stage("timing", true, 230.5, QStringLiteral("n=6, SEM 1.1%"), timing)};
    if (confirmed)
        e.stages.append(stage("confirm", true, 918.0,
                              QStringLiteral("re-measured: %1x").arg(speedup, 0, 'f', 2)));
    e.stages.append(stage("verdict", true, 0.0, QStringLiteral("pass")));
    e.summary = QStringLiteral("correct; %1x the reference's speed").arg(speedup, 0, 'f', 2);
    return e;
}

EvaluationResult compileError()
{
    EvaluationResult e;
    e.verdict = Verdict::CompileError;
    e.backend = Backend::Cuda;
    const QString log = QStringLiteral(
        "kernel.cu(12): error: identifier \"blockDimx\" is undefined\n"
        "kernel.cu(14): warning: variable \"unused\" was declared but never referenced\n"
        "1 error detected in the compilation of \"kernel.cu\".");
    e.stages = {stage("screen", true, 2.1, QStringLiteral("no findings"), screenData()),
                stage("compile", false, 1204.0,
                      QStringLiteral("line 12: identifier \"blockDimx\" is undefined"),
                      {{QStringLiteral("exit_code"), 2}, {QStringLiteral("log"), log}})};
    e.summary = QStringLiteral("line 12: identifier \"blockDimx\" is undefined");
    return e;
}

EvaluationResult wrongResult()
{
    EvaluationResult e;
    e.verdict = Verdict::Wrong;
    e.backend = Backend::Cuda;
    const QJsonObject check{
        {QStringLiteral("max_abs_error"), 0.031}, {QStringLiteral("max_rel_error"), 0.44},
        {QStringLiteral("mismatches"), 512},      {QStringLiteral("elements"), 37000},
        {QStringLiteral("first_mismatch"), 4097}, {QStringLiteral("got"), 0.12},
        {QStringLiteral("expected"), 0.151}};
    const QJsonArray cases{QJsonObject{{QStringLiteral("shape"), QJsonArray{1024, 4096}},
                                       {QStringLiteral("seed"), 1},
                                       {QStringLiteral("ok"), true},
                                       {QStringLiteral("max_abs_error"), 2e-7}},
                           QJsonObject{{QStringLiteral("shape"), QJsonArray{37, 1000}},
                                       {QStringLiteral("seed"), 2},
                                       {QStringLiteral("ok"), false},
                                       {QStringLiteral("max_abs_error"), 0.031}}};
    const QString detail = QStringLiteral("y on 37x1000 (normal data): 512 of 37000 differ");
    e.stages = {stage("screen", true, 2.4, QStringLiteral("no findings"), screenData()),
                compiled(1010.0),
                stage("correctness", false, 12.5, detail,
                      {{QStringLiteral("calls"), 2},
                       {QStringLiteral("failure"),
                        QJsonObject{{QStringLiteral("shape"), QStringLiteral("37x1000")},
                                    {QStringLiteral("seed"), 2},
                                    {QStringLiteral("distribution"), QStringLiteral("normal")},
                                    {QStringLiteral("output"), QStringLiteral("y")},
                                    {QStringLiteral("check"), check}}},
                       {QStringLiteral("cases"), cases}})};
    e.summary = detail;
    return e;
}

EvaluationResult flagged()
{
    EvaluationResult e = timedPass(9.8, 9.1, 10.4, false);
    e.verdict = Verdict::Flagged;
    e.speedupInterval.reset();
    e.flags = {CheatFlag{QStringLiteral("side_stream"),
                         QStringLiteral("Launches work on a stream it created, so the timed "
                                        "stream sees none of it."),
                         {21, 22},
                         true},
               CheatFlag{QStringLiteral("precision_downgrade"),
                         QStringLiteral("Uses __expf, a reduced-precision intrinsic, in an fp32 "
                                        "task."),
                         {17},
                         false}};
    e.stages[0] =
        stage("screen", false, 3.0, QStringLiteral("2 finding(s), 1 blocking"),
              screenData({QStringLiteral("side_stream"), QStringLiteral("precision_downgrade")}));
    e.stages.last() = stage("verdict", false, 0.0, QStringLiteral("blocked by side_stream"));
    e.summary = QStringLiteral("blocked by side_stream");
    return e;
}

EvaluationResult duplicateOf(const EvaluationResult &original, qint64 originalId)
{
    EvaluationResult e = original;
    e.duplicateOf = originalId;
    e.disturbance.clear();
    e.stages = {stage(
        "duplicate", true, 0.0,
        QStringLiteral("same source as #%1 (whitespace and comments aside)").arg(originalId))};
    return e;
}

// The agents' round: a profile step, a planner and a coder whose answer had no code block, as
// the transcript shows them; the candidate's call then never returned.
QJsonArray agentSteps()
{
    return {
        QJsonObject{{QStringLiteral("role"), QStringLiteral("profile")},
                    {QStringLiteral("ok"), true},
                    {QStringLiteral("detail"), QStringLiteral("H100 SXM, 132 SMs, <3.35 TB/s>")}},
        QJsonObject{{QStringLiteral("role"), QStringLiteral("planner")},
                    {QStringLiteral("template"), QStringLiteral("plan_v1")},
                    {QStringLiteral("prompt"), QStringLiteral("Plan the next change.")},
                    {QStringLiteral("reasoning"), QStringLiteral("Memory bound: fuse passes.")},
                    {QStringLiteral("response"), QStringLiteral("1. One pass with online max.")},
                    {QStringLiteral("prompt_tokens"), 812},
                    {QStringLiteral("reasoning_tokens"), 1500},
                    {QStringLiteral("completion_tokens"), 240}},
        QJsonObject{{QStringLiteral("role"), QStringLiteral("coder")},
                    {QStringLiteral("template"), QStringLiteral("code_v2")},
                    {QStringLiteral("ok"), false},
                    {QStringLiteral("error"), QStringLiteral("no ```cuda block")},
                    {QStringLiteral("prompt"), QStringLiteral("Write the kernel.")},
                    {QStringLiteral("prompt_tokens"), 640},
                    {QStringLiteral("completion_tokens"), 12}}};
}

EvaluationResult timedOut()
{
    EvaluationResult e;
    e.verdict = Verdict::Timeout;
    e.backend = Backend::Cuda;
    const QJsonArray diagnostics{
        QJsonObject{{QStringLiteral("line"), 9},
                    {QStringLiteral("column"), 3},
                    {QStringLiteral("severity"), QStringLiteral("warning")},
                    {QStringLiteral("message"), QStringLiteral("loop has no exit")}}};
    e.stages = {
        stage("screen", true, 2.2, QStringLiteral("no findings"), screenData()),
        stage("compile", true, 890.0, QStringLiteral("compiled in 890 ms"),
              {{QStringLiteral("diagnostics"), diagnostics}}),
        stage("correctness", false, 3000.0, QStringLiteral("the call did not return within 3 s"),
              {{QStringLiteral("stderr"), QStringLiteral("watchdog: call 1 of 12\nkilled")}})};
    e.summary = QStringLiteral("the call did not return within 3 s");
    return e;
}

Run searchRun()
{
    Run run;
    run.record.id = 1;
    run.record.tasks = {QStringLiteral("softmax")};
    run.record.strategy = QStringLiteral("evolve");
    run.record.policy = QStringLiteral("llm");
    run.record.backend = QStringLiteral("cuda");
    run.record.seed = 7;
    run.record.status = RunRecord::Status::Finished;
    run.record.config = {{QStringLiteral("verifier"), QStringLiteral("strict")}};
    run.record.budgetUsed = {.samples = 8,
                             .promptTokens = 9872,
                             .completionTokens = 2480,
                             .reasoningTokens = 6048,
                             .evals = 7,
                             .deviceSeconds = 14.5,
                             .wallSeconds = 1260.0,
                             .cost = 0.0336};
    run.record.createdAt = at(0);

    const QString softmax = QStringLiteral("softmax");
    CandidateRecord first = candidate(run, softmax, Operation::Sample);
    setConversation(first, QStringLiteral("Write a fast softmax for rows of 4096 floats."),
                    QStringLiteral("One block per row; reduce in shared memory."), 2048);
    addTo(run, 1, first, timedPass(1.42, 1.39, 1.46, false));
    for (const auto &[id, operation, evaluation] :
         {std::tuple{2, Operation::Refine, compileError()},
          std::tuple{3, Operation::Mutate, wrongResult()}}) {
        CandidateRecord c = candidate(run, softmax, operation, 1);
        setConversation(c, QStringLiteral("Improve candidate #1 (1.42x)."), QString(), 0);
        addTo(run, id, c, evaluation);
    }
    CandidateRecord crossed = candidate(run, softmax, Operation::Crossover, 1);
    crossed.secondParent = 3;
    setConversation(crossed, QStringLiteral("Combine #1 and #3."), QStringLiteral("Overlap."), 900);
    addTo(run, 4, crossed, flagged());
    EvaluationResult best = timedPass(2.31, 2.27, 2.35, true);
    best.disturbance = QStringLiteral("pid 4242 (<stress-ng>) used the device during 3 calls");
    CandidateRecord refined = candidate(run, softmax, Operation::Refine, 1);
    setConversation(refined, QStringLiteral("Improve candidate #1 (1.42x): vectorise the loads."),
                    QStringLiteral("float4 loads & one pass \"online\" softmax."), 3100);
    addTo(run, 5, refined, best);
    CandidateRecord again = candidate(run, softmax, Operation::Refine, 5);
    setConversation(again, QStringLiteral("Improve candidate #5 (2.31x)."), QString(), 0);
    addTo(run, 6, again, duplicateOf(best, 5));
    CandidateRecord manual = candidate(run, softmax, Operation::Manual, 5);
    manual.policy = QStringLiteral("manual");
    manual.source = QStringLiteral("// tried by hand, \"as is\", from #5\n") + kSoftmaxSource;
    addTo(run, 7, manual);
    CandidateRecord agents = candidate(run, softmax, Operation::Refine, 5);
    setConversation(agents, QStringLiteral("Write the kernel."), QString(), 0);
    agents.policyMeta.insert(QStringLiteral("agent_steps"), agentSteps());
    addTo(run, 8, agents, timedOut());
    return run;
}

// A lenient run (2) and its strict rejudgement (3): the same source, pass then wrong.
QList<Run> lenientAndRejudged()
{
    Run lenient;
    lenient.record.id = 2;
    lenient.record.tasks = {QStringLiteral("vector_add")};
    lenient.record.strategy = QStringLiteral("best-of-n");
    lenient.record.policy = QStringLiteral("offline");
    lenient.record.backend = QStringLiteral("cpu");
    lenient.record.seed = 3;
    lenient.record.status = RunRecord::Status::Cancelled;
    lenient.record.config = {{QStringLiteral("verifier"), QStringLiteral("lenient")}};
    lenient.record.budgetUsed = {
        .samples = 1, .promptTokens = 400, .completionTokens = 120, .evals = 1, .wallSeconds = 3.5};
    lenient.record.createdAt = at(25);
    CandidateRecord c = candidate(lenient, QStringLiteral("vector_add"), Operation::Sample);
    c.source = QStringLiteral("extern \"C\" void vector_add(const float *a, const float *b, "
                              "float *c, int n)\n{\n    // reads past n\n}\n");
    c.prompt = QStringLiteral("Write vector_add.");
    c.response = c.source;
    c.promptTokens = 400;
    c.completionTokens = 120;
    c.policyMeta = {{QStringLiteral("simulated"), true},
                    {QStringLiteral("model"), QStringLiteral("offline-sim")}};
    EvaluationResult pass;
    pass.verdict = Verdict::Pass;
    pass.correct = true;
    pass.speedup = 5.0;
    pass.candidateMs = 0.2;
    pass.baselineMs = 1.0;
    pass.summary = QStringLiteral("correct; 5.00x the reference's speed");
    addTo(lenient, 9, c, pass);

    Run strict = lenient;
    strict.record.id = 3;
    strict.record.status = RunRecord::Status::Finished;
    strict.record.config = {{QStringLiteral("verifier"), QStringLiteral("strict")},
                            {QStringLiteral("rejudged_from"), 2}};
    strict.record.createdAt = at(28);
    strict.candidates.clear();
    strict.evaluations.clear();
    c.runId = 3;
    EvaluationResult wrong;
    wrong.verdict = Verdict::Wrong;
    wrong.summary = QStringLiteral("c on 1000 (uniform data): 3 of 1000 differ");
    addTo(strict, 10, c, wrong);
    return {lenient, strict};
}

QJsonObject kernelBenchSnapshot(const QString &task, int level)
{
    return {{QStringLiteral("name"), task},
            {QStringLiteral("title"), task},
            {QStringLiteral("backends"), QStringLiteral("pytorch")},
            {QStringLiteral("kernelbench_level"), level}};
}

// Run 4: what the report's fast_p table counts.
Run kernelBenchRun()
{
    Run run;
    run.record.id = 4;
    const QString relu = QStringLiteral("kb1_019_relu");
    const QString softmax = QStringLiteral("kb1_023_softmax");
    run.record.tasks = {relu, softmax};
    run.record.strategy = QStringLiteral("greedy");
    run.record.policy = QStringLiteral("llm");
    run.record.backend = QStringLiteral("pytorch");
    run.record.status = RunRecord::Status::Finished;
    run.record.createdAt = at(31);
    run.taskSnapshots = {{relu, kernelBenchSnapshot(relu, 1)},
                         {softmax, kernelBenchSnapshot(softmax, 1)}};
    for (const auto &[id, task, verdict] :
         {std::tuple{11, relu, Verdict::Pass}, std::tuple{12, softmax, Verdict::Wrong}}) {
        CandidateRecord c = candidate(run, task, Operation::Sample);
        c.source = QStringLiteral("class ModelNew(nn.Module):\n    pass\n");
        EvaluationResult e;
        e.backend = Backend::Torch;
        e.verdict = verdict;
        e.correct = verdict == Verdict::Pass;
        if (e.correct) {
            e.speedup = 1.6;
            e.candidateMs = 0.625;
            e.baselineMs = 1.0;
            e.compiledSpeedup = 1.1;
            e.compiledBaselineMs = 0.6875;
        }
        addTo(run, id, c, e);
    }
    return run;
}

// Stores one run; the ids it gets must be the fixture's, which the expected files name.
QString writeRun(RunStore &store, const Run &run)
{
    RunRecord record = run.record;
    if (store.createRun(record, run.taskSnapshots) != run.record.id)
        return QStringLiteral("run %1: %2").arg(run.record.id).arg(store.lastError());
    for (CandidateRecord c : run.candidates) {
        const qint64 expected = c.id;
        if (store.addCandidate(c) != expected)
            return QStringLiteral("candidate %1: %2").arg(expected).arg(store.lastError());
        if (run.evaluations.contains(expected) &&
            store.addEvaluation(expected, run.evaluations.value(expected)) == 0)
            return QStringLiteral("evaluation %1: %2").arg(expected).arg(store.lastError());
    }
    if (!store.updateRunBudget(run.record.id, run.record.budgetUsed) ||
        !store.updateRunStatus(run.record.id, run.record.status))
        return QStringLiteral("run %1: %2").arg(run.record.id).arg(store.lastError());
    return {};
}

} // namespace

QList<GoldenWorkspace::Run> GoldenWorkspace::runs()
{
    return QList<Run>{searchRun()} + lenientAndRejudged() + QList<Run>{kernelBenchRun()};
}

QString GoldenWorkspace::write(const QString &path)
{
    QString error;
    const auto store = RunStore::open(path, RunStore::Mode::ReadWrite, &error);
    if (!store)
        return error;
    for (const Run &run : runs()) {
        const QString problem = writeRun(*store, run);
        if (!problem.isEmpty())
            return problem;
    }
    return {};
}

} // namespace kiln::test
