#pragma once

#include "engine/runconfig.h"
#include "policies/policy.h"

#include <memory>

namespace kiln {

class RunStore;

// Builds the policy a run names: offline (simulated), llm (any OpenAI-compatible or Anthropic
// endpoint), command (a coding agent's command line), or replay (the generations of an earlier
// run in the same workspace).
class PolicyFactory
{
public:
    // Settings of the offline policy that --param may set, with their meaning.
    static QStringList offlineParameterNames();
    // nullptr with *error when the configuration is unusable.
    static std::unique_ptr<Policy> create(const RunConfig &config, RunStore &store, QString *error);

private:
    static std::unique_ptr<Policy> createCommandPolicy(const QVariantMap &parameters,
                                                       QString *error);
};

} // namespace kiln
