#include "syntheticrun.h"

#include "store/runstore.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace kiln {

namespace {

struct Knobs
{
    int block = 256;
    int vector = 1;
    bool shared = true;
    int unroll = 1;
    bool fastExp = false;
};

// A softmax kernel whose text follows the knobs, so children differ from parents by a few lines.
QString kernelSource(const Knobs &k, bool sideStream, bool typo)
{
    QStringList l;
    l << QStringLiteral("#include <cuda_runtime.h>") << QStringLiteral("#include <float.h>")
      << QString()
      << QStringLiteral("// Row-wise softmax: one block per row, %1 threads.").arg(k.block)
      << QStringLiteral("template <int BLOCK>")
      << QStringLiteral("__global__ void softmax_kernel(const float *__restrict__ x, float "
                        "*__restrict__ y, int cols)")
      << QStringLiteral("{")
      << QStringLiteral("    const float *row = x + blockIdx.x * (size_t)cols;")
      << QStringLiteral("    float *out = y + blockIdx.x * (size_t)cols;");
    if (k.shared)
        l << QStringLiteral("    __shared__ float scratch[BLOCK];");
    l << QStringLiteral("    float m = -FLT_MAX;");
    if (k.unroll > 1)
        l << QStringLiteral("#pragma unroll %1").arg(k.unroll);
    if (k.vector == 4)
        l << QStringLiteral("    for (int i = threadIdx.x * 4; i + 3 < cols; i += BLOCK * 4) {")
          << QStringLiteral("        float4 v = *reinterpret_cast<const float4 *>(row + i);")
          << QStringLiteral("        m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));")
          << QStringLiteral("    }");
    else
        l << QStringLiteral("    for (int i = threadIdx.x; i < cols; i += BLOCK)")
          << QStringLiteral("        m = fmaxf(m, row[i]);");
    if (k.shared)
        l << QStringLiteral("    scratch[threadIdx.x] = m;")
          << QStringLiteral("    __syncthreads();")
          << QStringLiteral("    for (int s = BLOCK / 2; s > 0; s >>= 1) {")
          << QStringLiteral("        if (threadIdx.x < s)")
          << QStringLiteral("            scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], "
                            "scratch[threadIdx.x + s]);")
          << QStringLiteral("        __syncthreads();") << QStringLiteral("    }")
          << QStringLiteral("    m = scratch[0];");
    else
        l << QStringLiteral("    for (int o = 16; o > 0; o >>= 1)")
          << QStringLiteral("        m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));");
    l << QStringLiteral("    float sum = 0.f;")
      << QStringLiteral("    for (int i = threadIdx.x; i < cols; i += BLOCK)")
      << (k.fastExp ? QStringLiteral("        sum += __expf(row[i] - m);")
                    : QStringLiteral("        sum += expf(row[i] - m);"));
    if (typo)
        l << QStringLiteral("    sum = block_reduce_sum(sum, blockDimx);");
    else
        l << QStringLiteral("    sum = block_reduce_sum(sum);");
    l << QStringLiteral("    for (int i = threadIdx.x; i < cols; i += BLOCK)")
      << (k.fastExp ? QStringLiteral("        out[i] = __expf(row[i] - m) / sum;")
                    : QStringLiteral("        out[i] = expf(row[i] - m) / sum;"))
      << QStringLiteral("}") << QString()
      << QStringLiteral("extern \"C\" void softmax(const float *x, float *y, int rows, int cols, "
                        "cudaStream_t stream)")
      << QStringLiteral("{");
    if (sideStream)
        l << QStringLiteral("    cudaStream_t side;")
          << QStringLiteral("    cudaStreamCreate(&side); // work the timed stream never sees")
          << QStringLiteral("    softmax_kernel<%1><<<rows, %1, 0, side>>>(x, y, cols);")
                 .arg(k.block);
    else
        l << QStringLiteral("    softmax_kernel<%1><<<rows, %1, 0, stream>>>(x, y, cols);")
                 .arg(k.block);
    l << QStringLiteral("}");
    return l.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

int lineOf(const QString &source, const QString &needle)
{
    const QStringList lines = source.split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        if (lines[i].contains(needle))
            return i + 1;
    }
    return 0;
}

Verdict pickVerdict(QRandomGenerator &rng)
{
    const double u = rng.generateDouble();
    if (u < 0.55)
        return Verdict::Pass;
    if (u < 0.70)
        return Verdict::Wrong;
    if (u < 0.82)
        return Verdict::CompileError;
    if (u < 0.88)
        return Verdict::Flagged;
    if (u < 0.93)
        return Verdict::Crash;
    if (u < 0.97)
        return Verdict::Timeout;
    return Verdict::Resource;
}

} // namespace

qint64 createSyntheticRun(RunStore &store, const SyntheticRunOptions &options)
{
    QRandomGenerator rng(quint32(options.seed));
    RunRecord run;
    run.tasks = {options.task};
    run.strategy = options.crossover ? QStringLiteral("evolve") : QStringLiteral("greedy");
    run.policy = QStringLiteral("offline");
    run.backend = QStringLiteral("cuda");
    run.seed = options.seed;
    run.status = RunRecord::Status::Running;
    const qint64 runId = store.createRun(run);
    if (!runId)
        return 0;

    struct Node
    {
        qint64 id;
        Knobs knobs;
        double speedup;
        bool pass;
        int generation;
    };
    std::vector<Node> nodes;
    nodes.reserve(options.candidates);
    const int roots = std::clamp(options.candidates / 25, 1, 24);
    BudgetUsage used;
    QList<qint64> evictable;
    const bool ok = store.transaction([&] {
        for (int i = 0; i < options.candidates; ++i) {
            CandidateRecord c;
            c.runId = runId;
            c.task = options.task;
            c.policy = QStringLiteral("offline");
            c.sampleIndex = i;
            c.island = options.islands > 1 ? int(rng.bounded(options.islands)) : 0;
            Knobs knobs;
            double parentSpeedup = 1.0;
            if (i < roots) {
                c.operation = Operation::Sample;
                knobs.block = 64 << rng.bounded(4);
                knobs.shared = rng.bounded(2);
            } else {
                // Prefer fast, passing parents, as a search would.
                const Node *best = nullptr;
                for (int t = 0; t < 3; ++t) {
                    const size_t lo = nodes.size() > 400 ? nodes.size() - 400 : 0;
                    const Node &n = nodes[lo + rng.bounded(quint32(nodes.size() - lo))];
                    if (!best || (n.pass && (!best->pass || n.speedup > best->speedup)))
                        best = &n;
                }
                c.parent = best->id;
                knobs = best->knobs;
                parentSpeedup = best->speedup;
                const double u = rng.generateDouble();
                if (options.crossover && u < 0.2 && nodes.size() > 2) {
                    const Node &other = nodes[rng.bounded(quint32(nodes.size()))];
                    if (other.id != best->id) {
                        c.operation = Operation::Crossover;
                        c.secondParent = other.id;
                        knobs.vector = other.knobs.vector;
                        knobs.unroll = other.knobs.unroll;
                    } else {
                        c.operation = Operation::Mutate;
                    }
                } else {
                    c.operation = u < 0.6 ? Operation::Refine : Operation::Mutate;
                }
                if (i % 997 == 0) { // now and then a person's candidate
                    c.operation = Operation::Manual;
                    c.secondParent.reset();
                }
                switch (rng.bounded(5)) {
                case 0:
                    knobs.block = std::clamp(knobs.block * (rng.bounded(2) ? 2 : 1) /
                                                 (rng.bounded(2) ? 2 : 1),
                                             32, 1024);
                    break;
                case 1:
                    knobs.vector = knobs.vector == 4 ? 1 : 4;
                    break;
                case 2:
                    knobs.shared = !knobs.shared;
                    break;
                case 3:
                    knobs.unroll = knobs.unroll == 1 ? 4 : 1;
                    break;
                default:
                    knobs.fastExp = !knobs.fastExp;
                }
                c.generation = best->generation + 1;
            }
            const Verdict verdict = pickVerdict(rng);
            c.source =
                kernelSource(knobs, verdict == Verdict::Flagged, verdict == Verdict::CompileError);
            c.prompt = QStringLiteral("You are optimising a CUDA kernel for the task '%1'.\n"
                                      "Signature: void softmax(const float* x, float* y, int rows, "
                                      "int cols, cudaStream_t stream)\n\n")
                           .arg(options.task);
            if (c.parent)
                c.prompt += QStringLiteral("Previous candidate #%1 reached %2x. Feedback from the "
                                           "verifier:\nVerdict: pass\nTiming: candidate 0.41 ms, "
                                           "baseline 0.52 ms\n\nImprove it.\n")
                                .arg(*c.parent)
                                .arg(parentSpeedup, 0, 'f', 2);
            c.prompt += QStringLiteral("Return one ```cuda block.\n").repeated(2);
            c.reasoning =
                QStringLiteral("The row fits in shared memory; a block-wide max then a "
                               "sum keeps two passes over global memory. Vectorised loads "
                               "should help when cols is a multiple of four. ")
                    .repeated(2);
            c.response = QStringLiteral("Here is a faster version.\n```cuda\n") + c.source +
                         QStringLiteral("```\n");
            c.promptTokens = c.prompt.size() / 4;
            c.completionTokens = c.response.size() / 4;
            c.reasoningTokens = c.reasoning.size() / 4;
            c.reasoningLength = 1024;
            c.policyMeta = QJsonObject{{QStringLiteral("simulated"), true},
                                       {QStringLiteral("model"), QStringLiteral("offline-sim")}};
            if (!store.addCandidate(c))
                return false;

            EvaluationResult r;
            r.verdict = verdict;
            r.backend = Backend::Cuda;
            r.correct = verdict == Verdict::Pass || verdict == Verdict::Flagged;
            r.stages.append(StageResult{QStringLiteral("screen"),
                                        true,
                                        2.0 + rng.bounded(3),
                                        QStringLiteral("no blocking pattern"),
                                        {}});
            const bool compiles = verdict != Verdict::CompileError;
            QJsonObject compileData;
            if (!compiles)
                compileData.insert(
                    QStringLiteral("log"),
                    QStringLiteral("kernel.cu(%1): error: identifier \"blockDimx\" is "
                                   "undefined\n1 error detected in the compilation "
                                   "of \"kernel.cu\".")
                        .arg(lineOf(c.source, QStringLiteral("blockDimx"))));
            r.stages.append(StageResult{
                QStringLiteral("compile"), compiles, 900.0 + rng.bounded(600),
                compiles ? QStringLiteral("nvcc -O3") : QStringLiteral("1 error"), compileData});
            double speedup = 0;
            if (compiles) {
                const bool ok = verdict != Verdict::Wrong && verdict != Verdict::Crash &&
                                verdict != Verdict::Timeout && verdict != Verdict::Resource;
                QJsonObject data{{QStringLiteral("shapes"), 4},
                                 {QStringLiteral("max_abs_error"), ok ? 3e-7 : 0.031},
                                 {QStringLiteral("max_rel_error"), ok ? 2e-6 : 0.44}};
                if (!ok) {
                    data.insert(QStringLiteral("first_bad_index"), 4097);
                    data.insert(
                        QStringLiteral("cases"),
                        QJsonArray{QJsonObject{{QStringLiteral("shape"), QJsonArray{1024, 4096}},
                                               {QStringLiteral("seed"), 11},
                                               {QStringLiteral("ok"), true},
                                               {QStringLiteral("max_abs_error"), 2e-7}},
                                   QJsonObject{{QStringLiteral("shape"), QJsonArray{37, 1000}},
                                               {QStringLiteral("seed"), 12},
                                               {QStringLiteral("ok"), false},
                                               {QStringLiteral("max_abs_error"), 0.031}}});
                }
                r.stages.append(
                    StageResult{QStringLiteral("correctness"), ok, 40.0 + rng.bounded(30),
                                ok ? QStringLiteral("4 shapes x 3 seeds within tolerance")
                                   : QStringLiteral("mismatch at index 4097"),
                                data});
                if (ok) {
                    // Log-space drift towards 3x with noise: early gains, then a plateau, as
                    // searches go.
                    speedup = std::exp(0.85 * std::log(std::max(parentSpeedup, 0.1)) +
                                       0.15 * std::log(3.0) + 0.2 * (rng.generateDouble() - 0.5));
                    r.speedup = speedup;
                    r.baselineMs = 0.52;
                    r.candidateMs = 0.52 / speedup;
                    r.candidateTiming = TimingStats::fromSamples({0.41, 0.40, 0.42, 0.41, 0.43});
                    r.baselineTiming = TimingStats::fromSamples({0.52, 0.51, 0.53, 0.52});
                    r.rooflineFraction = std::min(0.95, 0.3 * speedup);
                    r.stages.append(StageResult{QStringLiteral("timing"),
                                                true,
                                                200.0 + rng.bounded(100),
                                                QStringLiteral("n=50, SEM 0.8%"),
                                                {}});
                }
            }
            if (verdict == Verdict::Flagged)
                r.flags.append(CheatFlag{QStringLiteral("side_stream"),
                                         QStringLiteral("Launches work on a stream it created, so "
                                                        "the timed stream sees none of it."),
                                         {lineOf(c.source, QStringLiteral("cudaStreamCreate"))},
                                         true});
            if (knobs.fastExp && rng.bounded(4) == 0)
                r.flags.append(CheatFlag{
                    QStringLiteral("precision_downgrade"),
                    QStringLiteral("Uses __expf, a reduced-precision intrinsic, in an fp32 task."),
                    {lineOf(c.source, QStringLiteral("__expf"))},
                    false});
            r.summary = verdictName(verdict);
            if (!store.addEvaluation(c.id, r))
                return false;
            nodes.push_back({c.id, knobs, speedup > 0 ? speedup : parentSpeedup,
                             verdict == Verdict::Pass, c.generation});
            evictable.append(c.id);
            if (options.evictions && i > 0 && i % 60 == 0 && evictable.size() > 40) {
                QJsonArray ids;
                for (int k = 0; k < 8; ++k)
                    ids.append(evictable.takeFirst());
                store.appendEvent(runId, QStringLiteral("evicted"), std::nullopt,
                                  QJsonObject{{QStringLiteral("ids"), ids}});
            }
            used.samples += 1;
            used.evals += 1;
            used.promptTokens += c.promptTokens;
            used.completionTokens += c.completionTokens;
            used.reasoningTokens += c.reasoningTokens;
        }
        return true;
    });
    if (!ok) {
        qWarning("synthetic run: %s", qPrintable(store.lastError()));
        return 0;
    }
    store.updateRunBudget(runId, used);
    store.updateRunStatus(runId, options.status);
    return runId;
}

} // namespace kiln
