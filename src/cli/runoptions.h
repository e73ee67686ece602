#pragma once

#include "cli/commandline.h"
#include "engine/runconfig.h"

#include <memory>
#include <optional>

namespace kiln {

class RunStore;

// The options `run` and `compare` share (cli.md): task or suite, backend, policy, budget, seed,
// database, --param KEY=VALUE and the LLM / replay settings. `run` adds --strategy itself.
void addRunOptions(CommandLine &cli);
// Turns parsed options into a RunConfig for `strategy`, or nothing with a one-line *error.
// --param keys go to the strategy (its declared parameters), the engine (target_speedup,
// plateau, round_limit, reasoning_length, allocation, generation_threads, sandboxes) or the
// policy (offline settings, llm.*).
std::optional<RunConfig> runConfigFromOptions(const CommandLine &cli, const QString &strategy,
                                              QString *error);
// Opens (creating) the workspace for writing; on failure reports on stderr and sets *status.
std::unique_ptr<RunStore> openWorkspace(const CommandLine &cli, const QString &path, int *status);

} // namespace kiln
