#include "policies/candidateanswer.h"

#include "policies/codeextractor.h"

namespace kiln {

void CandidateAnswer::takeRoleAnswer(const GenerationRequest &request, const QString &answer,
                                     GenerationResult &result, QJsonObject &meta)
{
    CandidateRecord &c = result.candidate;
    c.response = answer; // what the next role reads; inline thinking is in c.reasoning
    result.ok = !answer.trimmed().isEmpty();
    if (!result.ok) {
        result.error = QStringLiteral("the %1 gave an empty answer").arg(request.role);
        meta.insert(QStringLiteral("error"), result.error);
    }
    meta.insert(QStringLiteral("role"), request.role);
}

void CandidateAnswer::takeSource(const GenerationRequest &request, const QString &answer,
                                 bool truncated, GenerationResult &result, QJsonObject &meta)
{
    const QString entry =
        request.task ? (request.task->entry.isEmpty() ? request.task->name : request.task->entry)
                     : QString();
    // A KernelBench answer is a Python module: its ModelNew class, not a C entry, marks it.
    const bool module =
        request.backend == Backend::Torch || (request.task && request.task->isKernelBench());
    const ExtractedCode code =
        module ? CodeExtractor::extractModule(answer) : CodeExtractor::extract(answer, entry);
    meta.insert(QStringLiteral("code_blocks"), code.blockCount);
    if (!code.found) {
        result.ok = false;
        result.error = code.reason;
        if (truncated)
            result.error += QStringLiteral(" (the answer hit the max_tokens limit)");
        meta.insert(QStringLiteral("error"), result.error);
        meta.insert(QStringLiteral("error_kind"), QStringLiteral("no_code"));
        return;
    }
    result.candidate.source = code.code;
    if (!code.language.isEmpty())
        meta.insert(QStringLiteral("code_language"), code.language);
    result.ok = true;
}

} // namespace kiln
