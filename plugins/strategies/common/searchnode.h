#pragma once

#include "core/operation.h"
#include "core/verdict.h"

#include <QJsonObject>
#include <QList>

namespace kiln {

// A strategy's view of one evaluated candidate: its lineage plus the result fields that
// decisions depend on.
struct SearchNode
{
    qint64 id = 0;
    Operation operation = Operation::Sample;
    QList<qint64> parents;
    QList<qint64> children; // in arrival order
    int island = 0;
    int generation = 0;
    qint64 reasoningLength = 0;
    bool generated = false;
    bool correct = false;
    Verdict verdict = Verdict::Crash;
    double speedup = 0.0;
    double rooflineFraction = 0.0;
    qint64 reasoningTokens = 0;
    QJsonObject descriptors;
    int arrival = 0; // position in the order results arrived: the deterministic tie-break

    // Failures score 0 whatever speedup the engine reported.
    double fitness() const { return correct ? speedup : 0.0; }
    // A node without code cannot be refined, mutated or crossed: there is nothing to edit.
    bool expandable() const { return generated; }
};

} // namespace kiln
