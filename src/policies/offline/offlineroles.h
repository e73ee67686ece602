#pragma once

#include "policies/offline/counterrng.h"

#include <QString>
#include <QStringList>

namespace kiln {

// The simulated model's answers in the agents strategy's text roles, each from its prompt alone:
// the profiler names the limiter its "Profile" section shows; the tester proposes edge sizes
// within the limits its prompt states. (The planner needs the policy's variant space, so it is
// OfflinePolicy's.)
class OfflineRoles
{
public:
    // The diagnosis: the limiter on the first line ("memory-bound"), then the evidence.
    static QString diagnosis(const QString &profile, const QString &fallbackBound);
    // {"shapes": [...]}: sizes of one, odd remainders and near-largest values.
    static QString testerAnswer(const QString &prompt, CounterRng &rng);
};

} // namespace kiln
