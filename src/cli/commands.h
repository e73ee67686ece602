#pragma once

#include <QStringList>

namespace kiln {

// Each subcommand takes the words after its name and returns the process exit status.
int runTasksCommand(const QStringList &arguments);
int runEvalCommand(const QStringList &arguments);
int runRunCommand(const QStringList &arguments);
int runResumeCommand(const QStringList &arguments);
int runCompareCommand(const QStringList &arguments);
int runReportCommand(const QStringList &arguments);
int runDiagnoseCommand(const QStringList &arguments);
int runExportCommand(const QStringList &arguments);
int runSubmitCommand(const QStringList &arguments);
int runRejudgeCommand(const QStringList &arguments);
int runDoctorCommand(const QStringList &arguments);
int runImportKernelBenchCommand(const QStringList &arguments);
int runLintTasksCommand(const QStringList &arguments);
int runWorkerCommand(const QStringList &arguments);
int runMemoryCommand(const QStringList &arguments);
int runProfileCommand(const QStringList &arguments);

} // namespace kiln
