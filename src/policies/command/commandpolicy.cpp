#include "policies/command/commandpolicy.h"

#include "policies/candidateanswer.h"
#include "policies/command/agentcommand.h"
#include "policies/command/agentoutput.h"
#include "policies/command/agentworkfolder.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonObject>

#include <climits>

namespace kiln {

namespace {

// What the transcript keeps of a run: stdout, then stderr, each as bounded as AgentCommand kept.
QString transcript(const AgentCommand::Result &run)
{
    QString text = QString::fromUtf8(run.standardOutput);
    if (!run.standardError.isEmpty())
        text += QStringLiteral("\n--- stderr ---\n") + QString::fromUtf8(run.standardError);
    if (run.droppedBytes > 0)
        text +=
            QStringLiteral("\n--- %1 more bytes of output not kept ---\n").arg(run.droppedBytes);
    return text;
}

void recordRun(const AgentCommand::Result &run, QJsonObject &meta)
{
    meta.insert(QStringLiteral("latency_ms"), run.ms);
    meta.insert(QStringLiteral("exit_code"), run.exitCode);
    meta.insert(QStringLiteral("confinement"), run.confinement);
    if (run.timedOut)
        meta.insert(QStringLiteral("timed_out"), true);
    if (run.crashed)
        meta.insert(QStringLiteral("crashed"), true);
    if (run.droppedBytes > 0)
        meta.insert(QStringLiteral("output_dropped_bytes"), run.droppedBytes);
}

// Token counts and cost where the agent's output reports them; unknown (and labelled so) where
// it does not.
void recordUsage(const AgentOutput &output, CandidateRecord &c, QJsonObject &meta)
{
    meta.insert(QStringLiteral("agent_format"), output.format);
    meta.insert(QStringLiteral("usage_reported"), output.usageReported);
    if (output.usageReported) {
        c.promptTokens = output.inputTokens;
        c.completionTokens = output.outputTokens;
        meta.insert(QStringLiteral("cached_input_tokens"), output.cachedInputTokens);
    }
    meta.insert(QStringLiteral("cost"), output.costUsd.value_or(0.0));
    meta.insert(QStringLiteral("cost_paid"), output.costUsd.value_or(0.0));
    meta.insert(QStringLiteral("cost_known"), output.costUsd.has_value());
    meta.insert(QStringLiteral("currency"), QStringLiteral("USD"));
    if (!output.error.isEmpty())
        meta.insert(QStringLiteral("agent_error"), output.error);
}

void fail(GenerationResult &result, QJsonObject &meta, const QString &error, const QString &kind)
{
    result.ok = false;
    result.error = error;
    meta.insert(QStringLiteral("error"), error);
    meta.insert(QStringLiteral("error_kind"), kind);
}

// Why a finished run gave no candidate, with what the agent itself said where it said it.
QString nothingBack(const AgentCommand::Result &run, const AgentOutput &output,
                    const QString &expected)
{
    QString why =
        QStringLiteral("the command left no %1 and printed %2 (exit code %3)")
            .arg(expected, output.text.trimmed().isEmpty() ? QStringLiteral("nothing")
                                                           : QStringLiteral("no code block"))
            .arg(run.exitCode);
    if (!output.error.isEmpty())
        why += QStringLiteral("; the agent said: ") + output.error.left(300);
    return why;
}

// A role's answer: answer.md, or what the agent printed. The next role reads the response, so
// the run's own output moves to the metadata.
void takeProse(const GenerationRequest &request, const AgentWorkFolder &folder,
               const AgentOutput &output, GenerationResult &result, QJsonObject &meta)
{
    meta.insert(QStringLiteral("agent_output"), result.candidate.response.left(65536));
    const QString answer = folder.answer();
    CandidateAnswer::takeRoleAnswer(request, answer.isEmpty() ? output.text : answer, result, meta);
}

// The candidate file the agent wrote, else the code in what it printed.
void takeCandidate(const GenerationRequest &request, const AgentWorkFolder &folder,
                   const AgentCommand::Result &run, const AgentOutput &output,
                   GenerationResult &result, QJsonObject &meta)
{
    const QString written = folder.candidate();
    if (!written.trimmed().isEmpty()) {
        result.candidate.source = written;
        result.ok = true;
        meta.insert(QStringLiteral("candidate_from"), folder.candidateFile());
        return;
    }
    CandidateAnswer::takeSource(request, output.text, false, result, meta);
    if (result.ok) {
        meta.insert(QStringLiteral("candidate_from"), QStringLiteral("stdout"));
        return;
    }
    fail(result, meta, nothingBack(run, output, folder.candidateFile()), QStringLiteral("no_code"));
}

} // namespace

CommandPolicy::CommandPolicy(CommandPolicyConfig config)
    : m_config(std::move(config)), m_prompts(m_config.promptDir)
{
}

GenerationResult CommandPolicy::generate(const GenerationRequest &request,
                                         const std::atomic<bool> &cancel)
{
    GenerationResult result;
    CandidateRecord &c = result.candidate;
    describeNewCandidate(request, name(), c);
    Prompt prompt = m_prompts.build(request);
    prompt.user += AgentWorkFolder::instructions(request);
    c.prompt = prompt.transcript();
    QJsonObject meta{{QStringLiteral("command"), m_config.command},
                     {QStringLiteral("sample_index"), request.sampleIndex}};
    if (!request.role.isEmpty())
        meta.insert(QStringLiteral("role"), request.role);
    const AgentWorkFolder folder(m_config.workRoot, request, prompt);
    if (!folder.isValid()) {
        fail(result, meta, folder.error(), QStringLiteral("work_folder"));
        c.policyMeta = meta;
        return result;
    }
    AgentCommand::Spec spec;
    spec.command = m_config.command;
    spec.workDir = folder.path();
    spec.sandbox = m_config.sandbox;
    spec.readable = m_config.readable;
    spec.writable = m_config.writable;
    spec.environment = {
        QStringLiteral("KILN_WORK_DIR=") + folder.path(),
        QStringLiteral("KILN_PROMPT_FILE=") + folder.path() + QStringLiteral("/prompt.md"),
        QStringLiteral("KILN_CANDIDATE_FILE=") + folder.path() + u'/' + folder.candidateFile(),
        QStringLiteral("KILN_ROLE=") + request.role};
    spec.standardInput = prompt.transcript().toUtf8();
    spec.timeoutMs = int(std::min<qint64>(qint64(m_config.timeoutSeconds) * 1000, INT_MAX));
    const AgentCommand::Result run = AgentCommand::run(spec, cancel);
    recordRun(run, meta);
    c.response = transcript(run);
    const AgentOutput output = AgentOutput::parse(run.standardOutput);
    recordUsage(output, c, meta);
    if (!run.started)
        fail(result, meta, run.error, QStringLiteral("start"));
    else if (run.timedOut)
        fail(result, meta,
             QStringLiteral("the command did not finish within %1 s").arg(m_config.timeoutSeconds),
             QStringLiteral("timeout"));
    else if (run.cancelled)
        fail(result, meta, QStringLiteral("cancelled"), QStringLiteral("cancelled"));
    else if (run.crashed)
        fail(result, meta, QStringLiteral("the command was ended by a signal"),
             QStringLiteral("crash"));
    else if (request.answersInProse() && !output.error.isEmpty())
        fail(result, meta, QStringLiteral("the agent failed: ") + output.error.left(300),
             QStringLiteral("agent_error")); // not a plan for the next role
    else if (request.answersInProse())
        takeProse(request, folder, output, result, meta);
    else
        takeCandidate(request, folder, run, output, result, meta);
    c.policyMeta = meta;
    return result;
}

} // namespace kiln
