#pragma once

#include <QString>
#include <optional>

namespace kiln {

// The outcome of verifying one candidate (verifier.md, "Verdicts").
enum class Verdict
{
    Pass,
    Wrong,
    Flagged,
    CompileError,
    Crash,
    Timeout,
    Resource
};

QString verdictName(Verdict verdict);
std::optional<Verdict> verdictFromName(const QString &name);
// All verdicts in the order reports list them.
const QList<Verdict> &allVerdicts();

} // namespace kiln
