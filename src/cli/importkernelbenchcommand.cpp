#include "cli/commandline.h"
#include "cli/commands.h"
#include "cli/lintreport.h"
#include "tasks/kernelbenchimporter.h"
#include "tasks/kernelbenchtaskloader.h"
#include "tasks/tasklibrary.h"
#include "tasks/taskloader.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/lint/problemlinter.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <cstdio>

namespace kiln {

namespace {

// Which problem files Python cannot parse, asked of python3 through the worker's --syntax mode
// (no torch needed). Without python3 the static checks alone decide.
QMap<QString, QString> syntaxErrors(const QStringList &files, QString *note)
{
    QMap<QString, QString> errors;
    const VerifierOptions options = VerifierOptions::defaults();
    const QString worker =
        QFileInfo(options.torchSandbox).dir().filePath(QStringLiteral("kiln_torch_worker.py"));
    if (files.isEmpty() || options.python.isEmpty() || !QFileInfo::exists(worker)) {
        *note = QStringLiteral("python3 or kiln_torch_worker.py not found: syntax not checked");
        return errors;
    }
    QProcess python;
    python.start(options.python, QStringList{worker, QStringLiteral("--syntax")} + files);
    if (!python.waitForFinished(300000)) {
        python.kill();
        *note = QStringLiteral("python3 did not finish the syntax check");
        return errors;
    }
    for (const QByteArray &line : python.readAllStandardOutput().split('\n')) {
        const QJsonObject answer = QJsonDocument::fromJson(line).object();
        if (!answer.isEmpty() && !answer.value(QStringLiteral("ok")).toBool())
            errors.insert(answer.value(QStringLiteral("file")).toString(),
                          answer.value(QStringLiteral("error")).toString());
    }
    return errors;
}

QList<int> parseLevels(const QString &text, bool *ok)
{
    QList<int> levels;
    *ok = true;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const int level = part.trimmed().toInt(ok);
        if (!*ok || level < 1)
            return {};
        levels << level;
    }
    return levels;
}

// Lints every imported problem (kept in its folder's lint.json, so a second import or
// `kiln-cli lint-tasks` does not lint it again); text mode prints each finding as it comes.
LintReport lintImported(const KernelBenchImporter::Report &report, const QString &out, bool json)
{
    LintReport lints;
    ProblemLinter linter(VerifierOptions::defaults());
    const QString noTorch = linter.torchUnavailable();
    for (qsizetype i = 0; i < report.imported.size(); ++i) {
        const QString name = report.imported[i].task;
        const TaskLoader::Result loaded = TaskLoader::load(out + QLatin1Char('/') + name);
        if (!loaded.ok())
            continue;
        if (noTorch.isEmpty())
            std::fprintf(stderr, "kiln-cli import-kernelbench: linting %s (%lld of %lld)\n",
                         qPrintable(name), static_cast<long long>(i + 1),
                         static_cast<long long>(report.imported.size()));
        const ProblemLint lint =
            noTorch.isEmpty() ? linter.lint(*loaded.task) : ProblemLint::notLinted(noTorch);
        lints.add(name, lint);
        if (!json)
            for (const QString &line : LintReport::taskLines(name, lint))
                std::printf("lint %s\n", qPrintable(line));
        std::fflush(stdout);
    }
    return lints;
}

void printReport(const KernelBenchImporter::Report &report, const QString &out, const QString &note,
                 const std::optional<LintReport> &lints, bool json)
{
    if (json) {
        QJsonArray imported, skipped;
        for (const auto &i : report.imported)
            imported.append(QJsonObject{{QStringLiteral("task"), i.task},
                                        {QStringLiteral("file"), i.file},
                                        {QStringLiteral("level"), i.level}});
        for (const auto &s : report.skipped)
            skipped.append(QJsonObject{{QStringLiteral("file"), s.file},
                                       {QStringLiteral("reason"), s.reason}});
        QJsonObject document{{QStringLiteral("out"), out},
                             {QStringLiteral("imported"), imported},
                             {QStringLiteral("skipped"), skipped},
                             {QStringLiteral("note"), note}};
        if (lints)
            document.insert(QStringLiteral("lint"), lints->toJson());
        CommandLine::printJson(QJsonDocument(document));
        return;
    }
    for (const auto &i : report.imported)
        std::printf("imported %-44s %s\n", qPrintable(i.task), qPrintable(i.file));
    for (const auto &s : report.skipped)
        std::fprintf(stderr, "kiln-cli import-kernelbench: skipped %s: %s\n", qPrintable(s.file),
                     qPrintable(s.reason));
    if (!note.isEmpty())
        std::fprintf(stderr, "kiln-cli import-kernelbench: %s\n", qPrintable(note));
    std::printf("%lld problem(s) imported into %s, %lld skipped\n",
                static_cast<long long>(report.imported.size()), qPrintable(out),
                static_cast<long long>(report.skipped.size()));
    if (!lints)
        return;
    for (const QString &line : lints->notLintedLines())
        std::printf("lint %s\n", qPrintable(line));
    std::printf("lint: %s\n", qPrintable(lints->summary()));
}

} // namespace

int runImportKernelBenchCommand(const QStringList &arguments)
{
    CommandLine cli(
        QStringLiteral("import-kernelbench"),
        QStringLiteral("Import the problems of a KernelBench checkout (KernelBench/level1 ...) "
                       "as tasks of the pytorch backend. Each problem keeps its Python source "
                       "as the reference; a malformed file is reported and skipped. Each "
                       "imported problem is then linted (needs torch; docs/kernelbench.md)."));
    cli.parser().addPositionalArgument(QStringLiteral("PATH"),
                                       QStringLiteral("The KernelBench checkout."));
    cli.parser().addOption({QStringLiteral("out"),
                            QStringLiteral("Where the task folders go (default: %1).")
                                .arg(TaskLibrary::userTasksDirectory()),
                            QStringLiteral("DIR")});
    cli.parser().addOption({QStringLiteral("levels"),
                            QStringLiteral("Levels to import, e.g. 1,2 (default: all)."),
                            QStringLiteral("LIST")});
    const QString defaultTolerance = QString::number(KernelBenchTaskLoader::kDefaultTolerance);
    cli.parser().addOption({QStringLiteral("atol"),
                            QStringLiteral("Absolute output tolerance (default %1, KernelBench's).")
                                .arg(defaultTolerance),
                            QStringLiteral("X"), defaultTolerance});
    cli.parser().addOption({QStringLiteral("rtol"),
                            QStringLiteral("Relative output tolerance (default %1, KernelBench's).")
                                .arg(defaultTolerance),
                            QStringLiteral("X"), defaultTolerance});
    cli.parser().addOption({QStringLiteral("no-lint"),
                            QStringLiteral("Import only; `kiln-cli lint-tasks` lints later.")});
    cli.addJsonOption();
    if (const auto done = cli.parse(arguments))
        return *done;
    const QStringList positional = cli.parser().positionalArguments();
    if (positional.size() != 1)
        return cli.usageError(QStringLiteral("give exactly one KernelBench checkout"));
    bool ok = true;
    const QList<int> levels = parseLevels(cli.parser().value(QStringLiteral("levels")), &ok);
    if (!ok)
        return cli.usageError(QStringLiteral("--levels takes numbers such as 1,2"));
    bool okAbs = false, okRel = false;
    const Tolerance tolerance{cli.parser().value(QStringLiteral("atol")).toDouble(&okAbs),
                              cli.parser().value(QStringLiteral("rtol")).toDouble(&okRel), 0.0};
    if (!okAbs || !okRel || tolerance.abs < 0 || tolerance.rel < 0)
        return cli.usageError(QStringLiteral("--atol and --rtol take non-negative numbers"));
    const QString checkout = positional.first();
    QString out = cli.parser().value(QStringLiteral("out"));
    if (out.isEmpty())
        out = TaskLibrary::userTasksDirectory();
    QString note;
    const QMap<QString, QString> errors =
        syntaxErrors(KernelBenchImporter::problemFiles(checkout, levels), &note);
    const KernelBenchImporter::Report report =
        KernelBenchImporter::run(checkout, out, levels, tolerance, errors);
    if (!report.error.isEmpty())
        return cli.usageError(report.error);
    std::optional<LintReport> lints;
    if (!cli.parser().isSet(QStringLiteral("no-lint")))
        lints = lintImported(report, out, cli.json());
    printReport(report, out, note, lints, cli.json());
    return report.imported.isEmpty() ? ExitUsage : ExitOk;
}

} // namespace kiln
