#include "builtinstrategies.h"

#include <QtPlugin>

Q_IMPORT_PLUGIN(BestOfNStrategyPlugin)
Q_IMPORT_PLUGIN(RefineStrategyPlugin)
Q_IMPORT_PLUGIN(BeamStrategyPlugin)
Q_IMPORT_PLUGIN(GreedyStrategyPlugin)
Q_IMPORT_PLUGIN(MctsStrategyPlugin)
Q_IMPORT_PLUGIN(EvolveStrategyPlugin)
Q_IMPORT_PLUGIN(TwoPhaseStrategyPlugin)
Q_IMPORT_PLUGIN(AgentsStrategyPlugin)

namespace kiln {

void importBuiltinStrategies()
{
    // The Q_IMPORT_PLUGIN objects above register at static initialisation; nothing else to do.
}

} // namespace kiln
