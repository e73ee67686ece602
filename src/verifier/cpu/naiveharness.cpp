#include "verifier/cpu/naiveharness.h"

#include "verifier/harness/entryshim.h"
#include "verifier/harness/inputgenerator.h"
#include "verifier/harness/referencebank.h"

#include <QElapsedTimer>
#include <cstring>
#include <vector>

namespace kiln {

namespace {

constexpr int kWarmupCalls = 2;
constexpr int kTimedCalls = 30; // a fixed count, as naive harnesses use
constexpr int kCallsPerBatch = 10;

} // namespace

NaiveHarness::NaiveHarness(SandboxProcess &sandbox, const VerifierOptions &options,
                           const Task &task, const std::atomic<bool> &cancel, Failure failure)
    : m_sandbox(sandbox), m_options(options), m_task(task), m_cancel(cancel),
      m_failure(std::move(failure)), m_shape(ReferenceBank::timingShape(task))
{
}

bool NaiveHarness::request(const QByteArray &line, const QString &during,
                           SandboxProcess::Reply *reply)
{
    const SandboxProcess::Reply answer =
        m_sandbox.request(line, m_options.batchTimeoutMs, &m_cancel);
    if (reply)
        *reply = answer;
    if (answer.status == SandboxProcess::Status::Ok)
        return true;
    m_failure(answer, during);
    return false;
}

NaiveHarness::Outcome NaiveHarness::run(const QString &referenceObject, bool timing)
{
    Outcome outcome;
    BufferLayout layout;
    m_candidateBuffers = layout.place(m_task, m_shape);
    m_referenceBuffers = layout.place(m_task, m_shape);
    if (!m_sandbox.resizeBuffer(layout.size(), m_options.callTimeoutMs)) {
        outcome.detail = QStringLiteral("cannot grow the shared buffer");
        return outcome;
    }
    // One input set from a fixed seed, the same for both sides and for every call.
    const QList<QByteArray> inputs = InputGenerator::inputs(
        m_task, m_shape, InputGenerator::distributionFor(m_task, 0), kFixedSeed);
    char *base = m_sandbox.buffer();
    for (const PlacedBuffers *placed : {&m_candidateBuffers, &m_referenceBuffers})
        for (const auto &buffer : placed->buffers)
            if (!buffer.output)
                std::memcpy(base + buffer.offset, inputs[buffer.parameter].constData(),
                            size_t(buffer.bytes));
    const QString setup = QStringLiteral("the naive harness's setup");
    if (!request("load r " + QByteArray(EntryShim::kSymbol) + ' ' +
                     m_sandbox.stage(referenceObject).toLocal8Bit(),
                 setup, nullptr) ||
        !request("args 0 " + m_candidateBuffers.argumentWords(m_task, m_shape), setup, nullptr) ||
        !request("args 1 " + m_referenceBuffers.argumentWords(m_task, m_shape), setup, nullptr))
        return outcome;
    outcome.ran = check(outcome) && (!outcome.correct || !timing || time(outcome));
    return outcome;
}

// The reference answers first; its answer is copied into the candidate's output (the leak a
// naive harness has when it reuses one buffer), then the candidate runs and is compared.
bool NaiveHarness::check(Outcome &outcome)
{
    if (!request("batch call:r:1", QStringLiteral("the reference's call"), nullptr))
        return false;
    char *base = m_sandbox.buffer();
    for (qsizetype b = 0; b < m_candidateBuffers.buffers.size(); ++b) {
        const auto &mine = m_candidateBuffers.buffers[b];
        if (mine.output)
            std::memcpy(base + mine.offset, base + m_referenceBuffers.buffers[b].offset,
                        size_t(mine.bytes));
    }
    if (!request("batch call:c:0", QStringLiteral("the call on %1").arg(m_task.shapeLabel(m_shape)),
                 nullptr))
        return false;
    outcome.correct = true;
    for (qsizetype b = 0; b < m_candidateBuffers.buffers.size(); ++b) {
        const auto &mine = m_candidateBuffers.buffers[b];
        if (!mine.output)
            continue;
        const TaskParameter &parameter = m_task.parameters[mine.parameter];
        outcome.check = OutputChecker::compare(
            base + mine.offset, base + m_referenceBuffers.buffers[b].offset, nullptr,
            mine.bytes / 4, parameter.dtype, m_task.tolerance(parameter.dtype));
        if (!outcome.check.ok) {
            outcome.correct = false;
            outcome.detail =
                QStringLiteral("%1 on %2: %3")
                    .arg(parameter.name, m_task.shapeLabel(m_shape), outcome.check.describe());
            return true;
        }
    }
    outcome.detail = QStringLiteral("1 call on %1, seed %2: within tolerance (lenient verifier)")
                         .arg(m_task.shapeLabel(m_shape))
                         .arg(kFixedSeed);
    return true;
}

// Reference and candidate alternate on the same inputs; no cache flush, no check of the outputs.
bool NaiveHarness::time(Outcome &outcome)
{
    std::vector<double> candidate, reference;
    QElapsedTimer loop;
    loop.start();
    for (int done = -kWarmupCalls; done < kTimedCalls;) {
        const int calls = done < 0 ? kWarmupCalls : kCallsPerBatch;
        QByteArray line = "batch";
        for (int i = 0; i < calls; ++i)
            line += " call:r:1 call:c:0";
        SandboxProcess::Reply reply;
        if (!request(line, QStringLiteral("the timed calls"), &reply))
            return false;
        // "ok <threads> <ns> <ns> ...": reference, candidate, reference, ...
        for (int i = 0; done >= 0 && i < calls; ++i) {
            reference.push_back(reply.words.value(1 + 2 * i).toDouble() / 1e6);
            candidate.push_back(reply.words.value(2 + 2 * i).toDouble() / 1e6);
        }
        done += calls;
        if (loop.elapsed() > m_options.timingBudgetMs && done > 0)
            break;
    }
    outcome.candidate = TimingStats::fromSamples(candidate);
    outcome.reference = TimingStats::fromSamples(reference);
    return true;
}

} // namespace kiln
