#include "verifier/lint/problemlint.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <algorithm>
#include <cmath>

namespace kiln {

namespace {

QString number(double value)
{
    return QString::number(value, 'g', 3);
}

QString afterText(const LintFacts::Op &op)
{
    return op.after.isEmpty() ? QString() : QStringLiteral(", after %1").arg(op.after);
}

QString changeText(LintFacts::Change change, int seeds)
{
    return change == LintFacts::Change::None
               ? QStringLiteral("fresh values for it leave every output bit for bit the same")
               : QStringLiteral("fresh values for it move no output beyond the tolerance (%1 "
                                "input sets)")
                     .arg(seeds);
}

// Outputs that never vary, and inputs that change no output (beyond the tolerance applied).
void addStructural(const LintFacts &facts, QList<LintFinding> &findings)
{
    for (const LintFacts::Output &o : facts.outputs)
        if (o.constantAcrossSeeds)
            findings.append({QStringLiteral("constant_output"), o.name,
                             QStringLiteral("the same on all %1 input sets").arg(facts.seeds)});
    for (const LintFacts::Input &i : facts.inputs)
        if (i.change == LintFacts::Change::None || i.change == LintFacts::Change::WithinTolerance)
            findings.append(
                {QStringLiteral("unused_input"), i.name, changeText(i.change, facts.seeds)});
}

// What the magnitude-aware atol does to a trivial answer that met the declared tolerance.
QString atEffective(bool stillPasses, const std::optional<double> &effective)
{
    if (!effective)
        return QStringLiteral("; a smaller atol cannot help (the relative term, or no non-zero "
                              "output)");
    return stillPasses ? QStringLiteral("; it still passes with atol %1 (the relative term "
                                        "covers it)")
                             .arg(number(*effective))
                       : QStringLiteral("; with atol %1 it fails").arg(number(*effective));
}

// zeros_pass, constant_passes and input_passes, each with what the effective atol changes.
void addTrivialAnswers(const LintFacts &facts, const Tolerance &declared,
                       const std::optional<double> &effective, QList<LintFinding> &findings)
{
    const QString tolerance =
        QStringLiteral("atol %1, rtol %2").arg(number(declared.abs), number(declared.rel));
    for (const LintFacts::Output &o : facts.outputs) {
        if (o.zeros.declared)
            findings.append({QStringLiteral("zeros_pass"), o.name,
                             QStringLiteral("an all-zero answer meets %1 on every input set "
                                            "(median |ref| %2)")
                                     .arg(tolerance, number(o.typical)) +
                                 atEffective(o.zeros.effective, effective)});
        else if (o.constant.declared)
            findings.append({QStringLiteral("constant_passes"), o.name,
                             QStringLiteral("the constant %1 (the reference's mean) meets %2 on "
                                            "every input set")
                                     .arg(number(o.mean), tolerance) +
                                 atEffective(o.constant.effective, effective)});
        for (const LintFacts::PassedInput &i : o.inputs)
            if (i.pass.declared)
                findings.append(
                    {QStringLiteral("input_passes"), o.name,
                     QStringLiteral("returning input %1 unchanged meets %2 on every input set")
                             .arg(i.input, tolerance) +
                         (effective ? atEffective(i.pass.effective, effective) : QString())});
    }
}

void addOps(const LintFacts &facts, QList<LintFinding> &findings)
{
    for (const LintFacts::Op &op : facts.ops)
        findings.append(
            {QStringLiteral("redundant_op"),
             QStringLiteral("%1 (call %2)").arg(op.name).arg(op.index),
             (op.noOp ? QStringLiteral("changes nothing on two input sets")
                      : QStringLiteral("removing it keeps every output within the tolerance on "
                                       "two input sets")) +
                 afterText(op)});
    if (facts.nondeterminism == QLatin1String("beyond_tolerance"))
        findings.append({QStringLiteral("nondeterministic_reference"), QString(),
                         QStringLiteral("two calls on the same inputs differ beyond the "
                                        "tolerance")});
}

QString stateText(ProblemLint::State state)
{
    switch (state) {
    case ProblemLint::State::Linted:
        return QStringLiteral("linted");
    case ProblemLint::State::Failed:
        return QStringLiteral("failed");
    case ProblemLint::State::NotLinted:
        break;
    }
    return QStringLiteral("not_linted");
}

void addToHash(QCryptographicHash &hash, const QString &text)
{
    hash.addData(text.toUtf8());
    hash.addData(QByteArrayView("\x1f", 1));
}

void hashDistribution(QCryptographicHash &hash, const ValueDistribution &d)
{
    addToHash(hash, QStringLiteral("%1 %2 %3 %4 %5")
                        .arg(d.name)
                        .arg(int(d.kind))
                        .arg(d.a, 0, 'g', 17)
                        .arg(d.b, 0, 'g', 17)
                        .arg(d.offset, 0, 'g', 17));
}

} // namespace

ProblemLint ProblemLint::fromFacts(const LintFacts &facts, const Tolerance &declared)
{
    ProblemLint lint;
    lint.state = State::Linted;
    lint.declared = declared;
    lint.lintedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    lint.opsCoverage = facts.opsCoverage;
    QList<double> typicals;
    bool trivial = false;
    for (const LintFacts::Output &o : facts.outputs) {
        if (!o.integer)
            typicals << o.typical;
        trivial = trivial || o.zeros.declared || o.constant.declared;
    }
    for (double typical : typicals)
        if (typical > 0.0 && (lint.typicalMagnitude == 0.0 || typical < lint.typicalMagnitude))
            lint.typicalMagnitude = typical;
    if (trivial && facts.effectiveAbs > 0.0 && facts.effectiveAbs < declared.abs)
        lint.effectiveAbs = facts.effectiveAbs;
    addStructural(facts, lint.findings);
    addTrivialAnswers(facts, declared, lint.effectiveAbs, lint.findings);
    addOps(facts, lint.findings);
    return lint;
}

ProblemLint ProblemLint::notLinted(const QString &why)
{
    ProblemLint lint;
    lint.note = why;
    return lint;
}

ProblemLint ProblemLint::failed(const QString &why)
{
    ProblemLint lint;
    lint.state = State::Failed;
    lint.note = why;
    return lint;
}

double ProblemLint::magnitudeAbs(double declaredAbs, const QList<double> &typicalMagnitudes)
{
    double result = declaredAbs;
    for (double typical : typicalMagnitudes)
        if (typical > 0.0 && std::isfinite(typical))
            result = std::min(result, kMagnitudeFraction * typical);
    return result;
}

QString ProblemLint::hashOf(const Task &task)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    addToHash(hash, QStringLiteral("kiln-lint %1").arg(kVersion));
    const Backend linted = task.isKernelBench() ? Backend::Torch : Backend::Cpu;
    addToHash(hash, task.referenceSource.value(linted));
    for (const TaskParameter &p : task.parameters) {
        addToHash(hash, QStringLiteral("%1 %2 %3 [%4] %5")
                            .arg(p.name)
                            .arg(int(p.role))
                            .arg(p.dtype, p.shape.join(QLatin1Char(',')), p.value));
        if (p.distribution)
            hashDistribution(hash, *p.distribution);
    }
    for (const ShapeConfig &shape : task.correctnessShapes)
        for (auto it = shape.sizes.constBegin(); it != shape.sizes.constEnd(); ++it)
            addToHash(hash, QStringLiteral("%1=%2").arg(it.key()).arg(it.value()));
    for (const ValueDistribution &d : task.distributions)
        hashDistribution(hash, d);
    for (auto it = task.tolerances.constBegin(); it != task.tolerances.constEnd(); ++it)
        addToHash(hash, QStringLiteral("%1 %2 %3 %4")
                            .arg(it.key())
                            .arg(it.value().abs, 0, 'g', 17)
                            .arg(it.value().rel, 0, 'g', 17)
                            .arg(it.value().scaled, 0, 'g', 17));
    return QString::fromLatin1(hash.result().toHex().left(16));
}

bool ProblemLint::currentFor(const Task &task) const
{
    return state == State::Linted && version == kVersion && taskHash == hashOf(task);
}

void ProblemLint::applyTo(Task &task) const
{
    if (state != State::Linted || !effectiveAbs)
        return;
    const auto it = task.tolerances.find(QStringLiteral("f32"));
    if (it != task.tolerances.end())
        it->abs = std::min(it->abs, *effectiveAbs);
}

QString ProblemLint::toleranceText() const
{
    if (!effectiveAbs)
        return {};
    return QStringLiteral("atol %1 -> %2 (magnitude-aware: %3 x median |ref| %4)")
        .arg(number(declared.abs), number(*effectiveAbs), number(kMagnitudeFraction),
             number(typicalMagnitude));
}

QStringList ProblemLint::lines() const
{
    if (state == State::NotLinted)
        return {QStringLiteral("not linted: %1").arg(note)};
    if (state == State::Failed)
        return {QStringLiteral("lint failed: %1").arg(note)};
    QStringList lines;
    for (const LintFinding &finding : findings)
        lines << finding.text();
    if (lines.isEmpty())
        lines << QStringLiteral("lint: no findings");
    if (effectiveAbs)
        lines << QStringLiteral("tolerance: ") + toleranceText();
    return lines;
}

QString ProblemLint::stateName() const
{
    return stateText(state);
}

QJsonObject ProblemLint::toJson() const
{
    QJsonArray list;
    for (const LintFinding &finding : findings)
        list.append(finding.toJson());
    QJsonObject tolerance{{QStringLiteral("abs"), declared.abs},
                          {QStringLiteral("rel"), declared.rel},
                          {QStringLiteral("scaled"), declared.scaled}};
    if (effectiveAbs)
        tolerance.insert(QStringLiteral("effective_abs"), *effectiveAbs);
    return {{QStringLiteral("state"), stateName()},
            {QStringLiteral("note"), note},
            {QStringLiteral("version"), version},
            {QStringLiteral("task_hash"), taskHash},
            {QStringLiteral("linted_at"), lintedAt},
            {QStringLiteral("tolerance"), tolerance},
            {QStringLiteral("typical_magnitude"), typicalMagnitude},
            {QStringLiteral("ops_coverage"), opsCoverage},
            {QStringLiteral("findings"), list}};
}

ProblemLint ProblemLint::fromJson(const QJsonObject &object)
{
    ProblemLint lint;
    const QString state = object.value(QStringLiteral("state")).toString();
    lint.state = state == QLatin1String("linted")   ? State::Linted
                 : state == QLatin1String("failed") ? State::Failed
                                                    : State::NotLinted;
    lint.note = object.value(QStringLiteral("note")).toString();
    lint.version = object.value(QStringLiteral("version")).toInt();
    lint.taskHash = object.value(QStringLiteral("task_hash")).toString();
    lint.lintedAt = object.value(QStringLiteral("linted_at")).toString();
    const QJsonObject tolerance = object.value(QStringLiteral("tolerance")).toObject();
    lint.declared = {tolerance.value(QStringLiteral("abs")).toDouble(),
                     tolerance.value(QStringLiteral("rel")).toDouble(),
                     tolerance.value(QStringLiteral("scaled")).toDouble()};
    if (const double effective = tolerance.value(QStringLiteral("effective_abs")).toDouble(-1.0);
        effective >= 0.0)
        lint.effectiveAbs = effective;
    lint.typicalMagnitude = object.value(QStringLiteral("typical_magnitude")).toDouble();
    lint.opsCoverage = object.value(QStringLiteral("ops_coverage")).toString();
    for (const QJsonValue &value : object.value(QStringLiteral("findings")).toArray())
        lint.findings.append(LintFinding::fromJson(value.toObject()));
    return lint;
}

} // namespace kiln
