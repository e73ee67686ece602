#include "cli/evalcommand.h"

#include "cli/commandline.h"
#include "engine/backendchoice.h"
#include "engine/manualsubmission.h"
#include "engine/runconfig.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"
#include "verifier/verifier.h"

#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <cstdio>

namespace kiln {

namespace {

void printHuman(const EvaluationResult &result)
{
    std::printf("verdict: %s\n", qPrintable(verdictName(result.verdict)));
    if (!result.summary.isEmpty())
        std::printf("  %s\n", qPrintable(result.summary));
    if (result.speedup) {
        std::printf("speedup: %.2fx  (candidate %.4g ms, baseline %.4g ms)\n", *result.speedup,
                    result.candidateMs.value_or(0.0), result.baselineMs.value_or(0.0));
        if (result.speedupInterval)
            std::printf("  95%% interval %.3fx - %.3fx (paired bootstrap of %d timed calls)\n",
                        result.speedupInterval->low, result.speedupInterval->high,
                        result.candidateTiming.n);
    }
    if (!result.disturbance.isEmpty())
        std::printf("  %s\n", qPrintable(result.disturbance));
    for (const StageResult &stage : result.stages)
        std::printf("  %-12s %-4s %8.1f ms  %s\n", qPrintable(stage.name), stage.ok ? "ok" : "--",
                    stage.ms, qPrintable(stage.detail));
    for (const CheatFlag &flag : result.flags) {
        QStringList lines;
        for (int line : flag.lines)
            lines << QString::number(line);
        // "[hard] id": the tier says whether it blocks (hard) or is a suspicion or advice.
        std::printf(
            "  flag %s: %s%s\n", qPrintable(flag.label()), qPrintable(flag.message),
            lines.isEmpty()
                ? ""
                : qPrintable(QStringLiteral(" (lines %1)").arg(lines.join(QLatin1Char(',')))));
    }
}

void addEvalOptions(CommandLine &command)
{
    QCommandLineParser &parser = command.parser();
    parser.addOption({QStringLiteral("task"), QStringLiteral("Task to verify against."),
                      QStringLiteral("NAME")});
    parser.addOption(
        {QStringLiteral("backend"),
         QStringLiteral(
             "auto, cpu, cuda or pytorch (default auto; KernelBench problems run on pytorch)."),
         QStringLiteral("BACKEND"), QStringLiteral("auto")});
    parser.addOption({QStringLiteral("db"),
                      QStringLiteral("Store the evaluation in this workspace database."),
                      QStringLiteral("FILE")});
    parser.addOption({{QStringLiteral("verifier-seed"), QStringLiteral("seed")},
                      QStringLiteral("Secret seed the test inputs derive from (default: random)."),
                      QStringLiteral("S")});
    parser.addOption({QStringLiteral("no-timing"), QStringLiteral("Check correctness only.")});
    parser.addOption({QStringLiteral("verifier"),
                      QStringLiteral("strict (default), or lenient: the naive harness of the "
                                     "leaky-verifier lesson (CPU backend)."),
                      QStringLiteral("MODE"), QStringLiteral("strict")});
    parser.addOption({QStringLiteral("language"),
                      QStringLiteral("Kernel language of a KernelBench candidate: auto (its own, "
                                     "the default), cuda, triton, cute or tilelang."),
                      QStringLiteral("LANGUAGE"), QStringLiteral("auto")});
    parser.addOption({QStringLiteral("inline-build"),
                      QStringLiteral("How a KernelBench candidate's load_inline extension is "
                                     "built: kiln (the split build, the default) or torch "
                                     "(load_inline itself)."),
                      QStringLiteral("WAY"), QStringLiteral("kiln")});
    command.addJsonOption();
    command.addTasksDirOption();
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Candidate source file."));
}

// Verifies the candidate, stores the judgement when a workspace is open, and prints it.
int verifyCandidate(const CommandLine &command, const Task &task, Backend backend,
                    const QString &filePath, const QString &source, quint64 seed, RunStore *store)
{
    VerifierOptions options = VerifierOptions::defaults();
    options.runTiming = !command.parser().isSet(QStringLiteral("no-timing"));
    options.lenient =
        command.parser().value(QStringLiteral("verifier")) == QLatin1String("lenient");
    options.torchLanguage = command.parser().value(QStringLiteral("language"));
    if (command.parser().isSet(QStringLiteral("inline-build")))
        options.torchInlineBuild = command.parser().value(QStringLiteral("inline-build"));
    Verifier verifier(options);
    const QString setupProblem = verifier.checkSetup();
    if (!setupProblem.isEmpty())
        return command.internalError(setupProblem);

    const EvaluationResult result = verifier.evaluate(task, backend, source, seed);

    if (store) {
        QString error;
        if (ManualSubmission::recordEvaluation(*store, task, backend, seed,
                                               QFileInfo(filePath).absoluteFilePath(), source,
                                               result, &error) == 0)
            return command.internalError(error);
    }

    if (command.json())
        CommandLine::printJson(QJsonDocument(result.toJson()));
    else
        printHuman(result);
    return ExitOk;
}

} // namespace

int runEvalCommand(const QStringList &arguments)
{
    CommandLine command(QStringLiteral("eval"),
                        QStringLiteral("Verify one candidate source file against a task: static "
                                       "screen, compile, correctness, timing, verdict."));
    addEvalOptions(command);
    if (const std::optional<int> stop = command.parse(arguments))
        return *stop;
    const QCommandLineParser &parser = command.parser();

    if (!parser.isSet(QStringLiteral("task")))
        return command.usageError(QStringLiteral("--task NAME is required"));
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1)
        return command.usageError(QStringLiteral("exactly one candidate FILE is required"));

    quint64 seed = QRandomGenerator::system()->generate64();
    if (parser.isSet(QStringLiteral("seed"))) {
        bool ok = false;
        seed = parser.value(QStringLiteral("seed")).toULongLong(&ok);
        if (!ok)
            return command.usageError(
                QStringLiteral("--verifier-seed must be a non-negative integer"));
    }

    const TaskLibrary library = TaskLibrary::standard(command.tasksDirs());
    const QString taskName = parser.value(QStringLiteral("task"));
    const Task *task = library.task(taskName);
    if (!task)
        return command.usageError(QStringLiteral("unknown task \"%1\" (known: %2)")
                                      .arg(taskName, library.names().join(QStringLiteral(", "))));
    QString backendError;
    const std::optional<Backend> chosen = BackendChoice::resolve(
        parser.value(QStringLiteral("backend")), &backendError, task->isKernelBench());
    if (!chosen)
        return command.usageError(backendError);
    const Backend backend = *chosen;
    const QString mode = parser.value(QStringLiteral("verifier"));
    for (const QString &problem :
         {RunConfig::verifierProblem(mode, backend),
          RunConfig::languageProblem(parser.value(QStringLiteral("language")), backend, true)}) {
        if (!problem.isEmpty())
            return command.usageError(problem);
    }
    if (const QString way = parser.value(QStringLiteral("inline-build"));
        way != QLatin1String("kiln") && way != QLatin1String("torch"))
        return command.usageError(
            QStringLiteral("--inline-build takes kiln or torch, not \"%1\"").arg(way));
    if (!task->backends().contains(backend))
        return command.usageError(
            QStringLiteral("task \"%1\" has no %2 reference").arg(taskName, backendName(backend)));

    QFile file(positional.first());
    if (!file.open(QIODevice::ReadOnly))
        return command.usageError(
            QStringLiteral("cannot read %1: %2").arg(positional.first(), file.errorString()));
    const QString source = QString::fromUtf8(file.readAll());

    std::unique_ptr<RunStore> store;
    if (parser.isSet(QStringLiteral("db"))) {
        QString error;
        store =
            RunStore::open(parser.value(QStringLiteral("db")), RunStore::Mode::ReadWrite, &error);
        if (!store)
            return command.usageError(QStringLiteral("cannot open %1: %2")
                                          .arg(parser.value(QStringLiteral("db")), error));
    }
    return verifyCandidate(command, *task, backend, positional.first(), source, seed, store.get());
}

} // namespace kiln
