#include "cli/commandline.h"
#include "cli/commands.h"
#include "tasks/kernelbenchimporter.h"
#include "tasks/kernelbenchtaskloader.h"
#include "tasks/tasklibrary.h"
#include "verifier/harness/verifieroptions.h"

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

void printReport(const KernelBenchImporter::Report &report, const QString &out, const QString &note,
                 bool json)
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
        CommandLine::printJson(QJsonDocument(QJsonObject{{QStringLiteral("out"), out},
                                                         {QStringLiteral("imported"), imported},
                                                         {QStringLiteral("skipped"), skipped},
                                                         {QStringLiteral("note"), note}}));
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
}

} // namespace

int runImportKernelBenchCommand(const QStringList &arguments)
{
    CommandLine cli(
        QStringLiteral("import-kernelbench"),
        QStringLiteral("Import the problems of a KernelBench checkout (KernelBench/level1 ...) "
                       "as tasks of the pytorch backend. Each problem keeps its Python source "
                       "as the reference; a malformed file is reported and skipped."));
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
    printReport(report, out, note, cli.json());
    return report.imported.isEmpty() ? ExitUsage : ExitOk;
}

} // namespace kiln
