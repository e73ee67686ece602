#pragma once

#include "strategy/strategy.h"

#include <QStringList>
#include <QVariantMap>
#include <memory>

namespace kiln {

// Finds strategies by their --strategy name: the built-in static plugins first, then dynamic
// plugins (shared libraries implementing kiln::StrategyFactory) from the plugin directories.
// Thread-safe.
class StrategyRegistry
{
public:
    // Built-ins in the documented order (best-of-n, refine, beam, greedy, mcts, evolve,
    // two-phase), then dynamic plugins by name.
    static QStringList names();
    static bool contains(const QString &name);
    // nullptr for an unknown name.
    static std::unique_ptr<Strategy> create(const QString &name);
    static QList<StrategyParameter> parameters(const QString &name);
    // The plugin metadata's description ("" if unknown).
    static QString description(const QString &name);
    // Empty when `values` fits the strategy's parameters, else a one-line reason. Unknown keys
    // are errors unless ignoreUnknown (a --param list that also carries policy parameters).
    static QString validate(const QString &name, const QVariantMap &values,
                            bool ignoreUnknown = false);
    // Strategy::budgetShortfall of a fresh instance ("" for an unknown name).
    static QString budgetShortfall(const QString &name, const QVariantMap &values, int evaluations);

    // By default $KILN_PLUGIN_PATH, the installed lib/kiln/plugins and the user's
    // ~/.local/share/kiln/plugins; missing folders are skipped.
    static void setPluginDirectories(const QStringList &directories);
    static QStringList pluginDirectories();
    // Plugins with the strategy interface that failed to load: "path: reason".
    static QStringList loadErrors();
};

} // namespace kiln
