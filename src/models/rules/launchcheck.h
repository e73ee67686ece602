#pragma once

#include "models/launchsettings.h"

#include "core/runrecord.h"

#include <QList>
#include <QString>
#include <optional>

namespace kiln {

class TaskLibrary;

// What is checked before a run starts or resumes, without the widgets: the launcher's settings
// against this process (the API key's variable is read from its environment), and whether the
// shown run may be resumed, and with which warning.
class LaunchCheck
{
public:
    struct Question
    {
        QString title;
        QString text;
    };

    // Every problem of `settings` here, in form order; empty when they can start.
    static QList<LaunchSettings::Problem> problems(const LaunchSettings &settings,
                                                   const TaskLibrary &tasks,
                                                   const CudaAvailability &gpus);
    // The first problem's message, which refuses the start; nullopt when there is none.
    static std::optional<QString> refusal(const LaunchSettings &settings, const TaskLibrary &tasks,
                                          const CudaAvailability &gpus);

    // Only a search run resumes; `shown` is the run on screen (nullptr: none). Empty: it may.
    static QString resumeRefusal(const RunRecord *shown);
    // A run still marked running or paused may be in the hands of a process that died, or of
    // one making it right now elsewhere: the user confirms before two writers could meet.
    static std::optional<Question> resumeConfirmation(const RunRecord &run);
};

} // namespace kiln
