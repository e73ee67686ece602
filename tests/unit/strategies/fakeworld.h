#pragma once

// A deterministic stand-in for policy + verifier: each candidate gets a hidden quality from a
// function of its lineage, and a verdict from a hash of (seed, id). Header-only test helper.

#include "strategy/strategy.h"

#include <QHash>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <functional>

namespace kiln::test {

inline quint64 splitmix(quint64 x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Uniform [0, 1) from (seed, id, stream).
inline double hashUnit(quint64 seed, qint64 id, int stream)
{
    const quint64 h = splitmix(splitmix(seed ^ (quint64(id) * 0x100000001b3ull)) + quint64(stream));
    return double(h >> 11) * (1.0 / 9007199254740992.0);
}

class FakeWorld
{
public:
    quint64 seed = 1;
    double failureRate = 0.2; // generated but wrong
    double noCodeRate = 0.05; // no code at all
    // Refinement multiplies the (best) parent's hidden quality by 1 + gain * u, u uniform in
    // [0, 1): gain > 0 rewards refinement, gain < 0 punishes it.
    double gain = 0.3;
    // Optional override of a sample's quality (by sample index, 0-based).
    std::function<double(int)> sampleQuality;

    explicit FakeWorld(quint64 s = 1) : seed(s) {}

    QList<NodeResult> evaluate(const QList<ExpansionRequest> &requests)
    {
        QList<NodeResult> results;
        for (const ExpansionRequest &request : requests)
            results.append(evaluateOne(request));
        return results;
    }

    double quality(qint64 id) const { return m_quality.value(id); }
    const QHash<qint64, NodeResult> &all() const { return m_results; }
    qint64 lastId() const { return m_nextId - 1; }
    double bestSpeedup() const
    {
        double best = 0.0;
        for (const NodeResult &r : m_results)
            best = std::max(best, r.correct ? r.speedup : 0.0);
        return best;
    }

private:
    NodeResult evaluateOne(const ExpansionRequest &request)
    {
        NodeResult r;
        r.id = m_nextId++;
        r.request = request;
        const double u = hashUnit(seed, r.id, 0);
        double q = 0.0;
        if (request.operation == Operation::Sample || request.parents.isEmpty()) {
            q = sampleQuality ? sampleQuality(m_samples) : 0.4 + 0.8 * u;
            if (request.operation == Operation::Sample)
                ++m_samples;
        } else {
            double parent = 0.0;
            for (qint64 p : request.parents)
                parent = std::max(parent, m_quality.value(p));
            q = parent * (1.0 + gain * u);
        }
        m_quality.insert(r.id, q);
        r.generated = hashUnit(seed, r.id, 1) >= noCodeRate;
        const bool wrong = hashUnit(seed, r.id, 2) < failureRate;
        r.verdict = !r.generated ? Verdict::Crash : (wrong ? Verdict::Wrong : Verdict::Pass);
        r.correct = r.generated && !wrong;
        r.speedup = r.correct ? q : 0.0;
        r.reasoningTokens = request.reasoningLength;
        r.descriptors = QJsonObject{{QStringLiteral("knob"), int(hashUnit(seed, r.id, 3) * 4)},
                                    {QStringLiteral("size"), hashUnit(seed, r.id, 4) * 100.0}};
        m_results.insert(r.id, r);
        return r;
    }

    qint64 m_nextId = 1;
    int m_samples = 0;
    QHash<qint64, double> m_quality;
    QHash<qint64, NodeResult> m_results;
};

struct RunLog
{
    QList<QList<ExpansionRequest>> rounds;
    int requests = 0;
    bool overAsked = false; // some ask returned more than allowed
};

// The engine's loop in miniature: rounds of min(parallelism, budget left) until the budget is
// spent or the strategy has nothing more to ask.
inline RunLog drive(Strategy &strategy, FakeWorld &world, int budget, int parallelism)
{
    RunLog log;
    while (log.requests < budget) {
        const int allowed = std::min(parallelism, budget - log.requests);
        const QList<ExpansionRequest> requests = strategy.ask(allowed);
        if (requests.size() > allowed)
            log.overAsked = true;
        if (requests.isEmpty())
            break;
        log.rounds.append(requests);
        log.requests += int(requests.size());
        strategy.tell(world.evaluate(requests));
    }
    return log;
}

// One made-up result, for hand-built scenarios.
inline NodeResult result(qint64 id, double speedup, bool correct = true, bool generated = true)
{
    NodeResult r;
    r.id = id;
    r.generated = generated;
    r.correct = correct && generated;
    r.verdict = !generated ? Verdict::Crash : (correct ? Verdict::Pass : Verdict::Wrong);
    r.speedup = r.correct ? speedup : 0.0;
    return r;
}

inline bool sameRequests(const QList<QList<ExpansionRequest>> &a,
                         const QList<QList<ExpansionRequest>> &b)
{
    if (a.size() != b.size())
        return false;
    for (int i = 0; i < a.size(); ++i) {
        if (a[i].size() != b[i].size())
            return false;
        for (int j = 0; j < a[i].size(); ++j) {
            const ExpansionRequest &x = a[i][j];
            const ExpansionRequest &y = b[i][j];
            if (x.operation != y.operation || x.parents != y.parents || x.island != y.island ||
                x.generation != y.generation || x.reasoningLength != y.reasoningLength)
                return false;
        }
    }
    return true;
}

} // namespace kiln::test
