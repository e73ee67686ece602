#pragma once

#include "core/operation.h"
#include "core/verdict.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QtPlugin>

namespace kiln {

// One expansion a strategy wants: which parent(s), which operation. The engine turns it into a
// generation (policy) and an evaluation (verifier), then reports a NodeResult back.
struct ExpansionRequest
{
    Operation operation = Operation::Sample;
    QList<qint64> parents; // node ids (candidate ids): 0 for sample, 1 refine/mutate, 2 crossover
    int island = 0;
    int generation = 0;
    qint64 reasoningLength = 0; // 0: the run's default
    QString task;               // suites: which task; empty = the run's only task
    // Lessons of the workspace's optimisation memory the prompt carries (0: none). A run that
    // reads the memory also records its own improvements in it.
    int memoryEntries = 0;
    // The agents strategy: profiler, planner, coder and tester each write one generation, and
    // the tester's shapes join the candidate's checks (docs/strategies.md "agents").
    bool agentRoles = false;
};

// What became of one request. Failures (no code, compile error, wrong, crash...) are results
// too: strategies score them 0.
struct NodeResult
{
    qint64 id = 0;
    ExpansionRequest request;
    bool generated = false; // the policy produced code
    Verdict verdict = Verdict::Crash;
    bool correct = false; // verdict == pass
    double speedup = 0.0; // 0 unless correct; the confirmed figure when it was confirmed
    // The speedup's 95 % interval (both equal to speedup when there is none): a strategy that
    // selects on fitness may treat candidates whose intervals overlap as equals.
    double speedupLow = 0.0;
    double speedupHigh = 0.0;
    bool duplicate = false; // same source as an earlier candidate: no new information
    double rooflineFraction = 0.0;
    qint64 reasoningTokens = 0;
    QJsonObject descriptors; // e.g. knobs or code features, for MAP-Elites
};

// A declared, user-settable strategy parameter (shown in the launcher, validated by the engine).
struct StrategyParameter
{
    QString name;
    QString description;
    QVariant defaultValue;
    QVariant minimum; // invalid QVariant: unbounded
    QVariant maximum;
    QStringList choices; // string parameters: the allowed values (empty: any string)

    // What 0 means for a numeric parameter whose description says so ("... (0: never)" gives
    // "never"); empty when 0 has no meaning of its own.
    QString zeroMeaning() const
    {
        const qsizetype at = description.lastIndexOf(QLatin1String("(0: "));
        if (at < 0 || !description.endsWith(QLatin1Char(')')))
            return {};
        return description.mid(at + 4, description.size() - at - 5);
    }
};

// Decision logic only (architecture.md "ask / tell"): no I/O, no threads, deterministic for a
// given seed and sequence of results, so it is unit-testable with fake results and a run can be
// resumed by replaying the recorded results into a fresh instance.
class Strategy
{
public:
    virtual ~Strategy() = default;
    virtual QString name() const = 0;
    virtual QList<StrategyParameter> parameters() const = 0;
    // Called once before the first ask. Values are validated against parameters() by the engine.
    virtual void configure(const QVariantMap &values, quint64 seed) = 0;
    // Up to maxRequests expansions for the next round (fewer, or none, is fine: an empty answer
    // with nothing in flight ends the run). The engine evaluates the whole round, then calls tell
    // with the results in request order.
    virtual QList<ExpansionRequest> ask(int maxRequests) = 0;
    virtual void tell(const QList<NodeResult> &results) = 0;
    // Ids of nodes the strategy dropped from its population/beam/archive (drawn as ghosts).
    virtual QList<qint64> evicted() const { return {}; }
    // Why `evaluations` ends the run before the strategy does what it is named for (an evolve
    // run that never gets past its first generation is best-of-n), with what would fit; empty
    // when it fits. `values` as configure() takes them.
    virtual QString budgetShortfall(const QVariantMap &values, int evaluations) const
    {
        Q_UNUSED(values);
        Q_UNUSED(evaluations);
        return {};
    }
};

// The Qt plugin interface each strategy plugin implements (plugins/strategies/<name>/).
class StrategyFactory
{
public:
    virtual ~StrategyFactory() = default;
    virtual QString strategyName() const = 0; // the --strategy value, e.g. "beam"
    virtual Strategy *create() const = 0;     // caller owns
};

} // namespace kiln

#define KilnStrategyFactory_iid "org.kiln.StrategyFactory/1.0"
Q_DECLARE_INTERFACE(kiln::StrategyFactory, KilnStrategyFactory_iid)
