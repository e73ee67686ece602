#include "cli/runoptions.h"

#include "engine/runarguments.h"
#include "store/runstore.h"

namespace kiln {

void addRunOptions(CommandLine &cli)
{
    RunArguments::addOptions(cli.parser());
    cli.addJsonOption();
}

std::optional<RunConfig> runConfigFromOptions(const CommandLine &cli, const QString &strategy,
                                              QString *error)
{
    return RunArguments::toConfig(cli.parser(), strategy, error);
}

std::unique_ptr<RunStore> openWorkspace(const CommandLine &cli, const QString &path, int *status)
{
    QString error;
    auto store = RunStore::open(path, RunStore::Mode::ReadWrite, &error);
    if (!store)
        *status = cli.usageError(error);
    return store;
}

} // namespace kiln
