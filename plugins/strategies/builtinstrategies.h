#pragma once

namespace kiln {

// Registers the built-in strategy plugins with Qt's static plugin list. Called by
// StrategyRegistry; referencing it is what makes the linker keep the plugins.
void importBuiltinStrategies();

} // namespace kiln
