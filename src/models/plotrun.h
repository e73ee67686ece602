#pragma once

#include "core/candidateplotfacts.h"
#include "core/candidatesummary.h"
#include "core/runrecord.h"

#include <QHash>
#include <QList>
#include <QString>

namespace kiln {

class RunStore;

// One run as the plots see it: its record, its candidates' summaries and their plot facts.
struct PlotRun
{
    RunRecord run;
    QList<CandidateSummary> candidates;
    QHash<qint64, CandidatePlotFacts> facts;

    // Reads it from a store; an empty run (id 0) when there is no such run. The facts are a
    // second query, left out when the plot needs none (`withFacts`).
    static PlotRun load(RunStore &store, qint64 runId, bool withFacts = true);
    // Task, strategy, policy, backend and every setting but the seed: runs with equal keys are
    // seeds of one experiment.
    QString settingsKey() const;
    // "mcts on softmax, seed 3 (run 12)".
    QString label() const;
};

} // namespace kiln
