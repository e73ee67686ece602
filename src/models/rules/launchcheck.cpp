#include "models/rules/launchcheck.h"

#include <QObject>

namespace kiln {

QList<LaunchSettings::Problem> LaunchCheck::problems(const LaunchSettings &settings,
                                                     const TaskLibrary &tasks,
                                                     const CudaAvailability &gpus)
{
    return settings.problems(tasks, gpus, [](const QString &name) {
        return !qEnvironmentVariable(qPrintable(name)).isEmpty();
    });
}

std::optional<QString> LaunchCheck::refusal(const LaunchSettings &settings,
                                            const TaskLibrary &tasks, const CudaAvailability &gpus)
{
    const QList<LaunchSettings::Problem> found = problems(settings, tasks, gpus);
    if (found.isEmpty())
        return std::nullopt;
    return found.first().message;
}

QString LaunchCheck::resumeRefusal(const RunRecord *shown)
{
    if (!shown || shown->kind != QLatin1String("search"))
        return QObject::tr("Pick a search run to resume.");
    return {};
}

std::optional<LaunchCheck::Question> LaunchCheck::resumeConfirmation(const RunRecord &run)
{
    if (run.status != RunRecord::Status::Running && run.status != RunRecord::Status::Paused)
        return std::nullopt;
    return Question{QObject::tr("Resume run #%1").arg(run.id),
                    QObject::tr("Run #%1 is marked %2. Resume it only if no other process "
                                "is still making it: two writers would corrupt it.")
                        .arg(run.id)
                        .arg(RunRecord::statusName(run.status))};
}

} // namespace kiln
