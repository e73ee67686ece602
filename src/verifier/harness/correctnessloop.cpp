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
    // Evidence from the hidden set names a hidden shape: the user reads it in the stage's data,
    // a policy only the flag.
    if (m_inHidden && !hasFlag(id)) {
        m_hiddenEvidence.insert(id, detail);
        EvaluationRecorder::addFlag(m_record.result, id, QString::fromLatin1(kHiddenEvidence));
        return;
    }
    EvaluationRecorder::addFlag(m_record.result, id, detail);
}

void CorrectnessLoop::fail(const QString &text, const QJsonObject &data)
{
    if (m_record.wrongDetail.isEmpty()) {
        m_record.wrongDetail = text;
        m_failureData = data;
        m_wrongSet = setName(m_inHidden);
    }
}

QString CorrectnessLoop::setName(bool hidden)
{
    return hidden ? QStringLiteral("hidden") : QStringLiteral("visible");
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
    return m_reference.shapes.isEmpty() ? 0 : int(m_reference.shapes[0].instances.size());
}

bool CorrectnessLoop::run(CorrectnessSession &session, std::optional<double> referenceMs)
{
    QElapsedTimer timer;
    timer.start();
    for (int s = 0; s < m_reference.shapes.size() && !failed() && !session.halted(*this); ++s) {
        if (!runShape(session, s))
            break;
    }
    if (failed())
        m_failureSet = setName(m_inHidden);
    m_inHidden = false; // the backend's findings over all calls are no hidden evidence
    return conclude(session, timer, referenceMs);
}

bool CorrectnessLoop::runShape(CorrectnessSession &session, int index)
{
    const CheckedShape &checked = m_reference.shapes[index];
    const ShapeConfig &config = checked.config;
    const QString label = m_task.shapeLabel(config);
    Shape shape{index,
                config,
                checked.hidden ? QStringLiteral("hidden ") + label : label,
                checked.hidden,
                BufferLayout(session.alignment()),
                {}};
    m_inHidden = checked.hidden;
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
    const QList<ReferenceInstance> &instances = m_reference.shapes[shape.index].instances;
    const ReferenceInstance &instance = instances[seed];
    const QString during = QStringLiteral("the call on %1, seed %2").arg(shape.label).arg(seed);
    if (!session.call(shape, instance, during))
        return false;
    ++m_calls;
    const QJsonObject where{{QStringLiteral("shape"), m_task.shapeLabel(shape.config)},
                            {QStringLiteral("seed"), seed},
                            {QStringLiteral("distribution"), instance.distribution},
                            {QStringLiteral("set"), setName(shape.hidden)}};
    const ReferenceInstance *previous = seed > 0 ? &instances[seed - 1] : nullptr;
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
    // "shapes" counts the visible set's (the task's, tester shapes included), "hidden_shapes"
    // the shapes drawn into the hidden set.
    QJsonObject data{{QStringLiteral("calls"), m_calls},
                     {QStringLiteral("shapes"), m_reference.count(false, false)},
                     {QStringLiteral("hidden_shapes"), m_reference.count(true, true)},
                     {QStringLiteral("seeds"), seeds()}};
    session.conclude(*this, data);
    if (referenceMs)
        data.insert(QStringLiteral("reference_ms"), *referenceMs);
    const bool correct = !failed() && m_record.wrongDetail.isEmpty() && m_calls > 0;
    describeFailure(correct, data);
    QString detail;
    if (m_record.failure)
        detail = m_record.failure->message;
    else if (!m_record.wrongDetail.isEmpty())
        detail = m_record.wrongDetail;
    else
        detail = passedDetail();
    // The stage's time includes computing the run's expected outputs when this evaluation did.
    EvaluationRecorder::addStage(m_record.result, QStringLiteral("correctness"), correct,
                                 timer.nsecsElapsed() / 1e6 + referenceMs.value_or(0.0), detail,
                                 data);
    return correct;
}

// Where the reported failure was seen ("failed_on": the set of the failed request, else of the
// first wrong answer), and the evidence of flags first raised in the hidden set.
void CorrectnessLoop::describeFailure(bool correct, QJsonObject &data) const
{
    if (!m_failureData.isEmpty())
        data.insert(QStringLiteral("failure"), m_failureData);
    const QString failedOn = m_record.failure ? m_failureSet : m_wrongSet;
    if (!correct && !failedOn.isEmpty())
        data.insert(QStringLiteral("failed_on"), failedOn);
    if (!m_hiddenEvidence.isEmpty())
        data.insert(QStringLiteral("hidden_evidence"), m_hiddenEvidence);
}

QString CorrectnessLoop::passedDetail() const
{
    const int shapes = m_reference.count(false, false);
    const int drawn = m_reference.count(true, true);
    const QString visible = QStringLiteral("%1 calls within tolerance: %2 shapes x %3 seeds on "
                                           "visible inputs")
                                .arg(m_calls)
                                .arg(shapes)
                                .arg(seeds());
    if (drawn == 0)
        return visible + QStringLiteral(", the same on hidden ones");
    return visible + QStringLiteral(", %1 + %2 drawn shapes on hidden ones").arg(shapes).arg(drawn);
}

} // namespace kiln
