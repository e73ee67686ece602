#include "verifier/lint/lintfinding.h"

namespace kiln {

QStringList LintFinding::kinds()
{
    return {QStringLiteral("constant_output"),
            QStringLiteral("unused_input"),
            QStringLiteral("zeros_pass"),
            QStringLiteral("constant_passes"),
            QStringLiteral("input_passes"),
            QStringLiteral("redundant_op"),
            QStringLiteral("nondeterministic_reference")};
}

QString LintFinding::text() const
{
    return (subject.isEmpty() ? id : id + QLatin1Char(' ') + subject) + QStringLiteral(": ") +
           detail;
}

QJsonObject LintFinding::toJson() const
{
    return {{QStringLiteral("id"), id},
            {QStringLiteral("subject"), subject},
            {QStringLiteral("detail"), detail}};
}

LintFinding LintFinding::fromJson(const QJsonObject &object)
{
    return {object.value(QStringLiteral("id")).toString(),
            object.value(QStringLiteral("subject")).toString(),
            object.value(QStringLiteral("detail")).toString()};
}

} // namespace kiln
