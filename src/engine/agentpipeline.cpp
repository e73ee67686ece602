#include "agentpipeline.h"

#include "engine/reports/profilereport.h"
#include "engine/shapeproposal.h"

#include <QElapsedTimer>
#include <QJsonArray>

namespace kiln {

namespace {

// A role's answer without the label the simulated policy puts first.
QString answerText(const CandidateRecord &c)
{
    QString text = c.response.trimmed();
    if (text.startsWith(QLatin1String("[simulated")))
        text = text.section(QLatin1Char('\n'), 1).trimmed();
    return text;
}

} // namespace

AgentPipeline::AgentPipeline(Policy &policy, Evaluator &evaluator, quint64 runSecret)
    : m_policy(policy), m_evaluator(evaluator), m_runSecret(runSecret)
{
}

QStringList AgentPipeline::roles()
{
    return GenerationRequest::roles();
}

GenerationResult AgentPipeline::runRole(const GenerationRequest &base, const QString &role,
                                        const std::atomic<bool> &cancel)
{
    GenerationRequest request = base;
    request.role = role;
    request.agentRoles = false;
    return m_policy.generate(request, cancel);
}

QJsonObject AgentPipeline::stepJson(const QString &role, const GenerationResult &result)
{
    const CandidateRecord &c = result.candidate;
    QJsonObject step{
        {QStringLiteral("role"), role},
        {QStringLiteral("template"), QStringLiteral("agent_") + role},
        {QStringLiteral("ok"), result.ok},
        {QStringLiteral("prompt"), c.prompt},
        {QStringLiteral("reasoning"), c.reasoning},
        {QStringLiteral("response"), c.response},
        {QStringLiteral("prompt_tokens"), double(c.promptTokens)},
        {QStringLiteral("completion_tokens"), double(c.completionTokens)},
        {QStringLiteral("reasoning_tokens"), double(c.reasoningTokens)},
        {QStringLiteral("cost"), c.policyMeta.value(QStringLiteral("cost")).toDouble()}};
    if (!result.ok)
        step.insert(QStringLiteral("error"), result.error);
    return step;
}

StageResult AgentPipeline::profileParent(const GenerationRequest &request,
                                         const std::atomic<bool> &cancel)
{
    QElapsedTimer timer;
    timer.start();
    StageResult stage = m_evaluator.profile(*request.task, request.backend,
                                            request.parents.first().source, m_runSecret, cancel);
    stage.name = QStringLiteral("profile");
    if (stage.ms <= 0.0)
        stage.ms = double(timer.nsecsElapsed()) * 1e-6;
    return stage;
}

GenerationResult AgentPipeline::generate(const GenerationRequest &request,
                                         const std::atomic<bool> &cancel)
{
    // Roles need a kernel to profile: a first sample is one ordinary generation.
    if (!request.agentRoles || !m_policy.playsRoles() || request.parents.isEmpty() ||
        !request.task || request.parentEvaluations.isEmpty())
        return m_policy.generate(request, cancel);

    GenerationRequest shared = request;
    const StageResult profile = profileParent(request, cancel);
    shared.roleContext.insert(QStringLiteral("profile"),
                              ProfileReport::text(request.parentEvaluations.first(), profile));
    QJsonArray steps;
    QJsonObject profileStep = profile.toJson();
    profileStep.insert(QStringLiteral("role"), QStringLiteral("profile"));
    steps.append(profileStep);

    QList<GenerationResult> results;
    GenerationResult coder;
    for (const QString &role : roles()) {
        if (cancel)
            break;
        GenerationResult step = runRole(shared, role, cancel);
        steps.append(stepJson(role, step));
        const QString answer = answerText(step.candidate);
        if (role == QLatin1String("profiler"))
            shared.roleContext.insert(QStringLiteral("diagnosis"),
                                      step.ok ? answer : QStringLiteral("(the profiler failed)"));
        if (role == QLatin1String("planner"))
            shared.roleContext.insert(QStringLiteral("plan"),
                                      step.ok ? answer : QStringLiteral("(the planner failed)"));
        results.append(step);
        if (role == QLatin1String("coder")) {
            coder = step;
            if (!step.ok)
                break; // no kernel: nothing for the tester to test
            shared.roleContext.insert(QStringLiteral("candidate_source"), step.candidate.source);
        }
    }
    // A round cut short is not a candidate: its kernel would go unchecked on the tester's shapes.
    if (cancel && results.size() < roles().size()) {
        coder.ok = false;
        coder.error = QStringLiteral("cancelled during the agents' round");
    }

    // The candidate is the coder's; it carries every role's tokens and the steps.
    GenerationResult merged = coder;
    CandidateRecord &c = merged.candidate;
    QJsonObject meta = c.policyMeta;
    double cost = 0.0;
    bool priced = false;
    c.promptTokens = c.completionTokens = c.reasoningTokens = 0;
    for (const GenerationResult &step : std::as_const(results)) {
        c.promptTokens += step.candidate.promptTokens;
        c.completionTokens += step.candidate.completionTokens;
        c.reasoningTokens += step.candidate.reasoningTokens;
        priced = priced || step.candidate.policyMeta.contains(QStringLiteral("cost"));
        cost += step.candidate.policyMeta.value(QStringLiteral("cost")).toDouble();
    }
    if (priced)
        meta.insert(QStringLiteral("cost"), cost);
    meta.insert(QStringLiteral("agent_steps"), steps);
    meta.insert(QStringLiteral("agent_plan"), shared.roleContext.value(QStringLiteral("plan")));
    if (results.size() == roles().size()) {
        const ShapeProposal::Outcome shapes =
            ShapeProposal::parse(answerText(results.last().candidate), *request.task);
        meta.insert(QStringLiteral("tester_shapes"), ShapeProposal::toJson(shapes.accepted));
        QJsonArray rejected;
        for (const QString &why : shapes.rejected)
            rejected.append(why);
        if (!shapes.error.isEmpty())
            rejected.append(shapes.error);
        meta.insert(QStringLiteral("tester_rejected"), rejected);
    }
    c.policyMeta = meta;
    return merged;
}

} // namespace kiln
