#pragma once

#include "core/candidatesummary.h"

#include <QHash>
#include <QList>
#include <QStringList>
#include <optional>

namespace kiln {

class RunStore;

// A run as the analyzers read it: its candidates in the order they were asked for, what each
// cost, the budget the run was given, and the few heavier facts some analyzers need (the recent
// candidates' sources, the task bests' roofline fractions). Loaded from the store by the CLI and,
// off the GUI thread, by the window alike, so both judge the same thing. A suite's tasks are
// judged apart: a best belongs to a task, and one task's speed never hides another's.
class RunHistory
{
public:
    // One raise of a task's best: the candidate that did it, where it stands among the evaluated
    // candidates, and the task's best after it.
    struct Improvement
    {
        int position = 0; // among the evaluated candidates, from 0
        qint64 candidate = 0;
        QString task;
        double to = 0.0;
    };
    // What the store says of a task's best beyond its summary.
    struct BestFacts
    {
        std::optional<double> rooflineFraction;
        std::optional<double> librarySpeedup; // against the vendor library, CUDA
    };

    // Candidates whose sources are read for the exploration analyzer: the most recent ones.
    static constexpr int kRecentSources = 64;

    RunHistory() = default;
    explicit RunHistory(QList<CandidateSummary> candidates);
    static RunHistory load(RunStore &store, qint64 runId);

    const QList<CandidateSummary> &candidates() const { return m_candidates; }
    // The evaluated candidates (not placeholders), in order: what compute bought.
    int evaluatedCount() const { return int(m_evaluated.size()); }
    const CandidateSummary &evaluated(int position) const
    {
        return m_candidates[m_evaluated[position]];
    }
    const QStringList &tasks() const { return m_tasks; } // in order of first evaluation
    bool isSuite() const { return m_tasks.size() > 1; }
    const QList<Improvement> &improvements() const { return m_improvements; }
    // The task's fastest passing candidate, nullptr when none passed.
    const CandidateSummary *best(const QString &task) const;
    // The suite's value after `position` evaluations: the mean over its tasks of max(1, the
    // task's best), the reference's 1x standing in for a task with nothing faster.
    double valueAt(int position) const;
    QList<int> roundsOf(const QList<qint64> &ids) const; // distinct, ascending
    // "" for a single task, " on softmax" in a suite: where a finding names a task's best.
    QString onTask(const QString &task) const;

    double budget = 0.0;                 // on the run's axis; 0 when unknown
    QString budgetAxis;                  // "evals", "samples", "tokens", "cost", "wall" ...
    QHash<qint64, double> costs;         // list-price cost per candidate, where the policy has one
    QHash<qint64, QString> sources;      // the recent candidates' sources
    QHash<QString, BestFacts> bestFacts; // by task

private:
    QList<CandidateSummary> m_candidates;
    QList<qsizetype> m_evaluated; // indexes into m_candidates
    QHash<qint64, qsizetype> m_indexById;
    QStringList m_tasks;
    QList<Improvement> m_improvements;
    QHash<QString, int> m_bestPosition; // by task: where its best stands
    QList<double> m_valueAfter;         // the value after each evaluated candidate
};

} // namespace kiln
