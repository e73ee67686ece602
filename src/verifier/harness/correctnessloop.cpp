#include "verifier/harness/correctnessloop.h"

#include "verifier/harness/correctnesssession.h"
#include "verifier/harness/outputchecker.h"
#include "verifier/harness/referencecomparison.h"

#include <QElapsedTimer>
#include <cstring>

namespace kiln {

CorrectnessLoop::CorrectnessLoop(const Task &task, const RunReference &reference, Record record)
    : m_task(task), m_reference(reference), m_record(record)
{
}

bool CorrectnessLoop::hasFlag(const QString &id) const
{
    for (const CheatFlag &flag : m_record.result.flags)
        if (flag.id == id)
            return true;
    return false;
}

void CorrectnessLoop::flag(const QString &id, const QString &detail)
{
    EvaluationRecorder::addFlag(m_record.result, id, detail);
}

void CorrectnessLoop::fail(const QString &text, const QJsonObject &data)
{
    if (m_record.wrongDetail.isEmpty()) {
        m_record.wrongDetail = text;
        m_failureData = data;
    }
}

bool CorrectnessLoop::growBuffer(SandboxProcess &box, qint64 bytes, int timeoutMs)
{
    if (box.resizeBuffer(bytes, timeoutMs))
        return true;
    m_record.failure = EvaluationRecorder::Failure{Verdict::Crash,
                                                   QStringLiteral("cannot grow the shared buffer")};
    return false;
}

void CorrectnessLoop::fillGuards(char *memory, const BufferLayout &layout)
{
    for (const auto &[offset, bytes] : layout.guards())
        OutputChecker::fillGuard(memory + offset, bytes);
}

bool CorrectnessLoop::checkInput(const Call &call, const PlacedBuffers::Buffer &buffer)
{
    const QByteArray &pristine = call.instance.inputs[buffer.parameter];
    if (std::memcmp(call.memory + buffer.offset, pristine.constData(), size_t(pristine.size())) ==
        0)
        return true;
    flag(QStringLiteral("input_modified"), call.shape.label);
    fail(QStringLiteral("modified an input on %1").arg(call.shape.label), call.where);
    return false;
}

void CorrectnessLoop::judgeOutput(const Call &call, const PlacedBuffers::Buffer &buffer,
                                  const char *got)
{
    const TaskParameter &parameter = m_task.parameters[buffer.parameter];
    const ReferenceComparison::Finding finding = ReferenceComparison::judge(
        got, m_task, buffer.parameter, call.instance, call.previous, call.shape.label, call.seed);
    for (const auto &[id, detail] : finding.flags)
        flag(id, detail);
    const CheckResult &check = finding.check;
    if (check.ok)
        return;
    QJsonObject data = call.where;
    data.insert(QStringLiteral("output"), parameter.name);
    data.insert(QStringLiteral("check"), check.toJson());
    fail(QStringLiteral("%1 on %2 (%3 data): %4")
             .arg(parameter.name, call.shape.label, call.instance.distribution, check.describe()),
         data);
}

int CorrectnessLoop::seeds() const
{
    return m_reference.correctness.isEmpty() ? 0 : int(m_reference.correctness[0].size());
}

bool CorrectnessLoop::run(CorrectnessSession &session, std::optional<double> referenceMs)
{
    QElapsedTimer timer;
    timer.start();
    for (int s = 0; s < m_task.correctnessShapes.size() && !failed() && !session.halted(*this);
         ++s) {
        if (!runShape(session, s))
            break;
    }
    return conclude(session, timer, referenceMs);
}

bool CorrectnessLoop::runShape(CorrectnessSession &session, int index)
{
    const ShapeConfig &config = m_task.correctnessShapes[index];
    Shape shape{index, config, m_task.shapeLabel(config), BufferLayout(session.alignment()), {}};
    shape.placed = shape.layout.place(m_task, config);
    switch (session.setUp(*this, shape)) {
    case CorrectnessSession::SetUp::Ready:
        break;
    case CorrectnessSession::SetUp::Skipped:
        return true;
    case CorrectnessSession::SetUp::Failed:
        return false;
    }
    // Every seed of a shape uses the same addresses: a result cached by pointer (or kept in
    // static state) shows up as the previous seed's answer.
    for (int k = 0; k < seeds() && !failed() && !session.halted(*this); ++k) {
        if (!runSeed(session, shape, k))
            break;
    }
    if (failed())
        return false;
    return session.finishShape(*this);
}

bool CorrectnessLoop::runSeed(CorrectnessSession &session, const Shape &shape, int seed)
{
    const ReferenceInstance &instance = m_reference.correctness[shape.index][seed];
    const QString during = QStringLiteral("the call on %1, seed %2").arg(shape.label).arg(seed);
    if (!session.call(shape, instance, during))
        return false;
    ++m_calls;
    const QJsonObject where{{QStringLiteral("shape"), shape.label},
                            {QStringLiteral("seed"), seed},
                            {QStringLiteral("distribution"), instance.distribution}};
    const ReferenceInstance *previous =
        seed > 0 ? &m_reference.correctness[shape.index][seed - 1] : nullptr;
    const Call call{shape, seed, instance, previous, session.memory(), where};
    if (!OutputChecker::guardsIntact(call.memory, shape.layout.guards())) {
        flag(QStringLiteral("guard_band_overwrite"), shape.label);
        fail(QStringLiteral("wrote outside its output on %1").arg(shape.label), call.where);
    }
    session.judge(*this, call);
    return true;
}

bool CorrectnessLoop::conclude(CorrectnessSession &session, const QElapsedTimer &timer,
                               std::optional<double> referenceMs)
{
    QJsonObject data{{QStringLiteral("calls"), m_calls},
                     {QStringLiteral("shapes"), int(m_task.correctnessShapes.size())},
                     {QStringLiteral("seeds"), seeds()}};
    session.conclude(*this, data);
    if (referenceMs)
        data.insert(QStringLiteral("reference_ms"), *referenceMs);
    const bool correct = !failed() && m_record.wrongDetail.isEmpty() && m_calls > 0;
    if (!m_failureData.isEmpty())
        data.insert(QStringLiteral("failure"), m_failureData);
    QString detail;
    if (m_record.failure)
        detail = m_record.failure->message;
    else if (!m_record.wrongDetail.isEmpty())
        detail = m_record.wrongDetail;
    else
        detail = QStringLiteral("%1 calls on %2 shapes x %3 seeds within tolerance")
                     .arg(m_calls)
                     .arg(m_task.correctnessShapes.size())
                     .arg(seeds());
    // The stage's time includes computing the run's expected outputs when this evaluation did.
    EvaluationRecorder::addStage(m_record.result, QStringLiteral("correctness"), correct,
                                 timer.nsecsElapsed() / 1e6 + referenceMs.value_or(0.0), detail,
                                 data);
    return correct;
}

} // namespace kiln
