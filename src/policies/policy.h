#pragma once

#include "core/backend.h"
#include "core/candidaterecord.h"
#include "core/evaluationresult.h"
#include "core/memoryentry.h"
#include "tasks/task.h"

#include <QDateTime>
#include <QMap>
#include <QString>
#include <atomic>
#include <optional>

namespace kiln {

// What the engine asks a policy to produce. Parents carry their evaluations so the prompt
// (or the simulated policy) can react to feedback.
struct GenerationRequest
{
    const Task *task = nullptr;
    Backend backend = Backend::Cpu;
    Operation operation = Operation::Sample;
    QList<CandidateRecord> parents;            // 0 (sample), 1 (refine/mutate), 2 (crossover)
    QList<EvaluationResult> parentEvaluations; // same order as parents
    qint64 reasoningLength = 0; // requested reasoning budget in tokens (0: policy default)
    quint64 seed = 0;           // run seed
    qint64 sampleIndex = 0;     // position of this generation in the run; keys determinism/cache
    int generation = 0;
    int island = 0;
    // The optimisation memory's lessons for this prompt, most relevant first (may be empty).
    QList<MemoryEntry> memory;
    // One role of the agents strategy ("profiler", "planner", "coder", "tester"; empty: an
    // ordinary generation) and what the earlier roles produced for it, by placeholder name
    // ("trajectory", "profile", "diagnosis", "plan", "candidate_source").
    // The agents strategy's roles, in the order a round runs them.
    static QStringList roles()
    {
        return {QStringLiteral("profiler"), QStringLiteral("planner"), QStringLiteral("coder"),
                QStringLiteral("tester")};
    }
    bool agentRoles = false; // the agents strategy asked: the engine's AgentPipeline runs roles
    QString role;
    QMap<QString, QString> roleContext;
    // A role that answers in prose (profiler, planner, tester), not with a kernel.
    bool answersInProse() const { return !role.isEmpty() && role != QLatin1String("coder"); }
};

// What came back. ok=false is a recorded failure of that sample (no code, HTTP 500, ...),
// never an exception; `candidate` still carries the prompt/response for the transcript.
struct GenerationResult
{
    bool ok = false;
    QString error;
    CandidateRecord candidate;
};

// A new candidate's identity: its task, operation, parents, lineage place, author and time.
inline void describeNewCandidate(const GenerationRequest &request, const QString &policy,
                                 CandidateRecord &c)
{
    c.task = request.task ? request.task->name : QString();
    c.operation = request.operation;
    c.generation = request.generation;
    c.island = request.island;
    c.sampleIndex = request.sampleIndex;
    c.policy = policy;
    if (!request.parents.isEmpty())
        c.parent = request.parents.at(0).id;
    if (request.parents.size() > 1)
        c.secondParent = request.parents.at(1).id;
    c.createdAt = QDateTime::currentDateTimeUtc();
}

// A source of candidates. generate() is called from worker threads, possibly concurrently,
// and must return promptly once *cancel becomes true.
class Policy
{
public:
    virtual ~Policy() = default;
    virtual QString name() const = 0; // "offline", "llm", "command", "replay", "manual"
    virtual bool isSimulated() const { return false; }
    // Whether it writes each role of the agents strategy itself. A policy that hands back what
    // was recorded or typed (replay, manual) answers the whole round at once.
    virtual bool playsRoles() const { return true; }
    // Why this policy cannot write kernels for `task` on `backend`, or empty when it can. A run
    // asks before it starts, so it fails at once with the reason instead of once per request.
    virtual QString refusal(const Task &task, Backend backend) const
    {
        Q_UNUSED(task);
        Q_UNUSED(backend);
        return {};
    }
    virtual GenerationResult generate(const GenerationRequest &request,
                                      const std::atomic<bool> &cancel) = 0;
};

} // namespace kiln
