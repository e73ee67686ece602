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
    Resource,
    // The verifier could not judge: its own reference or a baseline failed (out of memory, a
    // crash), never the candidate's doing. Counts as no evidence about the candidate.
    VerifierError
};

QString verdictName(Verdict verdict);
std::optional<Verdict> verdictFromName(const QString &name);
// All verdicts in the order reports list them.
const QList<Verdict> &allVerdicts();

} // namespace kiln
