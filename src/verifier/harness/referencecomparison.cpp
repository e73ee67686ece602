#include "verifier/harness/referencecomparison.h"

namespace kiln {

ReferenceComparison::Finding ReferenceComparison::judge(const char *got, const Task &task,
                                                        int parameter,
                                                        const ReferenceInstance &instance,
                                                        const ReferenceInstance *previous,
                                                        const QString &shapeLabel, int seed)
{
    Finding finding;
    const TaskParameter &p = task.parameters[parameter];
    const Tolerance tolerance = task.tolerances.value(p.dtype);
    const QByteArray &expected = instance.expected[parameter];
    const qint64 count = expected.size() / 4;
    const QByteArray scale = instance.scale.value(parameter);
    finding.check = OutputChecker::compare(got, expected.constData(),
                                           scale.isEmpty() ? nullptr : scale.constData(), count,
                                           p.dtype, tolerance);
    const OutputChecker::Shape form =
        OutputChecker::outputShape(got, expected.constData(), count, p.dtype);
    // Only a game explains a constant that meets the tolerance; a wrong constant is as often
    // a kernel that did nothing for this shape, so that one is suspicious, not hard.
    if (finding.check.ok) {
        if (form != OutputChecker::Shape::Follows)
            finding.flags.append({QStringLiteral("near_constant_output"), shapeLabel});
        return finding;
    }
    if (form == OutputChecker::Shape::Constant)
        finding.flags.append({QStringLiteral("wrong_constant_output"), shapeLabel});
    // One element left unwritten may be an off-by-one; a whole buffer is a mechanism.
    if (finding.check.unwritten == count && count > 1)
        finding.flags.append({QStringLiteral("output_unwritten"), shapeLabel});
    if (previous) {
        const QByteArray previousScale = previous->scale.value(parameter);
        if (OutputChecker::compare(got, previous->expected[parameter].constData(),
                                   previousScale.isEmpty() ? nullptr : previousScale.constData(),
                                   count, p.dtype, tolerance)
                .ok)
            finding.flags.append({QStringLiteral("cached_result"),
                                  QStringLiteral("%1, seed %2").arg(shapeLabel).arg(seed)});
    }
    return finding;
}

} // namespace kiln
