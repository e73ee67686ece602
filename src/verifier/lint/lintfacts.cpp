#include "verifier/lint/lintfacts.h"

#include <QJsonArray>

namespace kiln {

namespace {

LintFacts::Pass passOf(const QJsonValue &value)
{
    const QJsonArray pair = value.toArray();
    return {pair.at(0).toBool(), pair.at(1).toBool()};
}

LintFacts::Change changeOf(const QString &text)
{
    if (text == QLatin1String("none"))
        return LintFacts::Change::None;
    if (text == QLatin1String("within_tolerance"))
        return LintFacts::Change::WithinTolerance;
    if (text == QLatin1String("not_perturbed") || text == QLatin1String("not_a_tensor"))
        return LintFacts::Change::NotPerturbed;
    return LintFacts::Change::Changes;
}

QList<LintFacts::Op> opsOf(const QJsonArray &array, bool noOp)
{
    QList<LintFacts::Op> ops;
    for (const QJsonValue &value : array) {
        const QJsonObject op = value.toObject();
        ops.append({op.value(QStringLiteral("index")).toInt(),
                    op.value(QStringLiteral("name")).toString(),
                    op.value(QStringLiteral("after")).toString(), noOp});
    }
    return ops;
}

// "12 of 12 ops tried", or the worker's note when the trace could not run.
QString coverageOf(const QJsonObject &ops)
{
    if (ops.contains(QStringLiteral("note")))
        return ops.value(QStringLiteral("note")).toString();
    const int tried = ops.value(QStringLiteral("tried")).toInt();
    const int untried = ops.value(QStringLiteral("untried")).toInt();
    const int noOps = ops.value(QStringLiteral("noop")).toArray().size();
    return QStringLiteral("%1 torch calls recorded, %2 ops that keep their input's shape "
                          "(copies and views aside): %3 change nothing, %4 tried for removal, "
                          "%5 not tried (limit)")
        .arg(ops.value(QStringLiteral("recorded")).toInt())
        .arg(ops.value(QStringLiteral("eligible")).toInt())
        .arg(noOps)
        .arg(tried)
        .arg(untried);
}

} // namespace

LintFacts LintFacts::fromWorkerJson(const QJsonObject &document)
{
    LintFacts facts;
    facts.seeds = document.value(QStringLiteral("seeds")).toInt();
    facts.nondeterminism = document.value(QStringLiteral("nondeterminism")).toString();
    facts.effectiveAbs = document.value(QStringLiteral("effective_atol")).toDouble();
    for (const QJsonValue &value : document.value(QStringLiteral("outputs")).toArray()) {
        const QJsonObject o = value.toObject();
        Output output;
        output.name = o.value(QStringLiteral("name")).toString();
        output.integer = o.value(QStringLiteral("integer")).toBool();
        output.typical = o.value(QStringLiteral("typical")).toDouble();
        output.mean = o.value(QStringLiteral("mean")).toDouble();
        output.constantAcrossSeeds = o.value(QStringLiteral("constant_across_seeds")).toBool();
        output.zeros = passOf(o.value(QStringLiteral("zeros")));
        output.constant = passOf(o.value(QStringLiteral("constant")));
        const QJsonArray inputs = document.value(QStringLiteral("inputs")).toArray();
        for (const QJsonValue &answer : o.value(QStringLiteral("inputs")).toArray()) {
            const int index = answer.toObject().value(QStringLiteral("input")).toInt();
            const QString name =
                inputs.at(index).toObject().value(QStringLiteral("name")).toString();
            output.inputs.append({name.isEmpty() ? QStringLiteral("input %1").arg(index) : name,
                                  passOf(answer.toObject().value(QStringLiteral("pass")))});
        }
        facts.outputs.append(output);
    }
    for (const QJsonValue &value : document.value(QStringLiteral("inputs")).toArray()) {
        const QJsonObject i = value.toObject();
        facts.inputs.append({i.value(QStringLiteral("name")).toString(),
                             changeOf(i.value(QStringLiteral("change")).toString())});
    }
    const QJsonObject ops = document.value(QStringLiteral("ops")).toObject();
    facts.ops = opsOf(ops.value(QStringLiteral("noop")).toArray(), true) +
                opsOf(ops.value(QStringLiteral("removable")).toArray(), false);
    facts.opsCoverage = coverageOf(ops);
    return facts;
}

} // namespace kiln
