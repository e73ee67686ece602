#include "verdict.h"

#include <QList>

namespace kiln {

const QList<Verdict> &allVerdicts()
{
    static const QList<Verdict> verdicts{
        Verdict::Pass,  Verdict::Wrong,   Verdict::Flagged,  Verdict::CompileError,
        Verdict::Crash, Verdict::Timeout, Verdict::Resource, Verdict::VerifierError};
    return verdicts;
}

QString verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Pass:
        return QStringLiteral("pass");
    case Verdict::Wrong:
        return QStringLiteral("wrong");
    case Verdict::Flagged:
        return QStringLiteral("flagged");
    case Verdict::CompileError:
        return QStringLiteral("compile_error");
    case Verdict::Crash:
        return QStringLiteral("crash");
    case Verdict::Timeout:
        return QStringLiteral("timeout");
    case Verdict::Resource:
        return QStringLiteral("resource");
    case Verdict::VerifierError:
        return QStringLiteral("verifier_error");
    }
    return {};
}

std::optional<Verdict> verdictFromName(const QString &name)
{
    for (Verdict v : allVerdicts()) {
        if (verdictName(v) == name)
            return v;
    }
    return std::nullopt;
}

} // namespace kiln
