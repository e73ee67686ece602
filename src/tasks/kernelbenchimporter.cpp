#include "tasks/kernelbenchimporter.h"

#include "tasks/kernelbenchsource.h"
#include "tasks/kernelbenchtaskloader.h"
#include "tasks/taskloader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>
#include <algorithm>

namespace kiln {

namespace {

// Numeric order (2 before 10), as KernelBench numbers its problems.
QStringList sortedProblems(const QString &folder)
{
    QStringList files = QDir(folder).entryList({QStringLiteral("*.py")}, QDir::Files);
    std::stable_sort(files.begin(), files.end(), [](const QString &a, const QString &b) {
        const int na = a.section(QLatin1Char('_'), 0, 0).toInt();
        const int nb = b.section(QLatin1Char('_'), 0, 0).toInt();
        return na != nb ? na < nb : a < b;
    });
    return files;
}

QString taskDescription(const QString &title, const QString &summary, int level)
{
    QString text = QStringLiteral("KernelBench level %1 problem \"%2\".").arg(level).arg(title);
    if (!summary.isEmpty())
        text += QLatin1Char(' ') + summary;
    return text +
           QStringLiteral(" The reference is a PyTorch Model; write a ModelNew with the same "
                          "constructor and forward whose forward computes the same outputs with "
                          "custom CUDA kernels (torch.utils.cpp_extension.load_inline).");
}

bool writeText(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

} // namespace

QMap<int, QString> KernelBenchImporter::levelFolders(const QString &checkout)
{
    QMap<int, QString> folders;
    static const QRegularExpression name(QStringLiteral("^level(\\d+)$"));
    for (const QString &base : {checkout + QStringLiteral("/KernelBench"), checkout}) {
        const QStringList entries = QDir(base).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &entry : entries) {
            const QRegularExpressionMatch m = name.match(entry);
            if (m.hasMatch() && !folders.contains(m.captured(1).toInt()))
                folders.insert(m.captured(1).toInt(), base + QLatin1Char('/') + entry);
        }
        if (!folders.isEmpty())
            break;
    }
    return folders;
}

QStringList KernelBenchImporter::problemFiles(const QString &checkout, const QList<int> &levels)
{
    QStringList files;
    const QMap<int, QString> folders = levelFolders(checkout);
    for (auto it = folders.constBegin(); it != folders.constEnd(); ++it) {
        if (!levels.isEmpty() && !levels.contains(it.key()))
            continue;
        for (const QString &file : sortedProblems(it.value()))
            files << it.value() + QLatin1Char('/') + file;
    }
    return files;
}

std::optional<KernelBenchImporter::Skipped>
KernelBenchImporter::importOne(const QString &path, int level, const QString &outDir,
                               const Tolerance &tolerance, Imported *imported)
{
    const QFileInfo info(path);
    const QString relative = info.dir().dirName() + QLatin1Char('/') + info.fileName();
    int number = 0;
    QString title;
    if (!KernelBenchSource::parseFileName(info.fileName(), &number, &title))
        return Skipped{relative, QStringLiteral("the file name does not start with a problem "
                                                "number (NN_Name.py)")};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Skipped{relative, QStringLiteral("cannot read: %1").arg(file.errorString())};
    const QString source = QString::fromUtf8(file.readAll());
    if (const QStringList defects = KernelBenchSource::problemDefects(source); !defects.isEmpty())
        return Skipped{relative, defects.join(QStringLiteral("; "))};

    Task task;
    task.name = KernelBenchSource::taskName(level, number, title);
    task.title = QStringLiteral("KernelBench L%1 #%2: %3").arg(level).arg(number).arg(title);
    task.description = taskDescription(title, KernelBenchSource::summary(source), level);
    task.kernelBench = KernelBenchProblem{level, number, relative};
    task.tolerances.insert(QStringLiteral("f32"), tolerance);
    const QString folder = outDir + QLatin1Char('/') + task.name;
    const QByteArray json =
        QJsonDocument(KernelBenchTaskLoader::taskJson(task, QStringLiteral("reference.py")))
            .toJson(QJsonDocument::Indented);
    if (!QDir().mkpath(folder) ||
        !writeText(folder + QStringLiteral("/reference.py"), source.toUtf8()) ||
        !writeText(folder + QStringLiteral("/task.json"), json))
        return Skipped{relative, QStringLiteral("cannot write %1").arg(folder)};
    // What was written must load, as the library will load it.
    const TaskLoader::Result check = TaskLoader::load(folder);
    if (!check.ok()) {
        QDir(folder).removeRecursively(); // a broken folder would stay in the library
        return Skipped{relative, check.errorStrings().join(QStringLiteral("; "))};
    }
    *imported = Imported{task.name, relative, level};
    return std::nullopt;
}

KernelBenchImporter::Report KernelBenchImporter::run(const QString &checkout,
                                                     const QString &outDirectory,
                                                     const QList<int> &levels,
                                                     const Tolerance &tolerance,
                                                     const QMap<QString, QString> &syntaxErrors)
{
    Report report;
    const QMap<int, QString> folders = levelFolders(checkout);
    if (folders.isEmpty()) {
        report.error =
            QStringLiteral("no level folders (KernelBench/level1 ...) under %1").arg(checkout);
        return report;
    }
    if (!QDir().mkpath(outDirectory)) {
        report.error = QStringLiteral("cannot create %1").arg(outDirectory);
        return report;
    }
    for (auto it = folders.constBegin(); it != folders.constEnd(); ++it) {
        if (!levels.isEmpty() && !levels.contains(it.key()))
            continue;
        for (const QString &name : sortedProblems(it.value())) {
            const QString path = it.value() + QLatin1Char('/') + name;
            if (syntaxErrors.contains(path)) {
                report.skipped.append(
                    {QFileInfo(it.value()).fileName() + QLatin1Char('/') + name,
                     QStringLiteral("Python cannot parse it: %1").arg(syntaxErrors.value(path))});
                continue;
            }
            Imported imported;
            if (const auto skipped = importOne(path, it.key(), outDirectory, tolerance, &imported))
                report.skipped.append(*skipped);
            else
                report.imported.append(imported);
        }
    }
    return report;
}

} // namespace kiln
