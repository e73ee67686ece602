#pragma once

#include "core/runrecord.h"

#include <QString>

namespace kiln {

class RunStore;

// Builds a synthetic search run through RunStore's own writes, for the benchmarks (100,000
// candidates) and for model tests that need shapes the engine does not produce on demand
// (crossover DAGs, evictions, foreign parents). View tests use a run made by the real engine.
struct SyntheticRunOptions
{
    int candidates = 200;
    int islands = 1;
    bool crossover = false;
    quint64 seed = 1;
    QString task = QStringLiteral("softmax");
    RunRecord::Status status = RunRecord::Status::Finished;
    bool evictions = true;
};

qint64 createSyntheticRun(RunStore &store, const SyntheticRunOptions &options);

} // namespace kiln
