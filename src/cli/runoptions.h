#pragma once

#include "cli/commandline.h"
#include "engine/runconfig.h"

#include <memory>
#include <optional>

namespace kiln {

class RunStore;

// The options `run` and `compare` share (engine/runarguments.h holds their meaning) and --json.
// `run` adds --strategy itself.
void addRunOptions(CommandLine &cli);
// Turns parsed options into a RunConfig for `strategy`, or nothing with a one-line *error.
std::optional<RunConfig> runConfigFromOptions(const CommandLine &cli, const QString &strategy,
                                              QString *error);
// Opens (creating) the workspace for writing; on failure reports on stderr and sets *status.
std::unique_ptr<RunStore> openWorkspace(const CommandLine &cli, const QString &path, int *status);

} // namespace kiln
