#include "verifier/lint/lintcache.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>

namespace kiln {

namespace {

std::optional<ProblemLint> readLint(const QString &path, const Task &task)
{
    QFile file(path);
    if (path.isEmpty() || !file.open(QIODevice::ReadOnly))
        return std::nullopt;
    const ProblemLint lint =
        ProblemLint::fromJson(QJsonDocument::fromJson(file.readAll()).object());
    if (!lint.currentFor(task))
        return std::nullopt;
    return lint;
}

} // namespace

LintCache::LintCache(QString directory) : m_directory(std::move(directory)) {}

LintCache LintCache::forOptions(const VerifierOptions &options)
{
    return LintCache(QFileInfo(options.cacheDirectory).dir().filePath(QStringLiteral("lint")));
}

// An imported problem's own folder, when it is a real folder (not an embedded resource).
QString LintCache::folderFile(const Task &task)
{
    if (!task.isKernelBench() || task.directory.isEmpty() ||
        task.directory.startsWith(QLatin1Char(':')))
        return {};
    return task.directory + QStringLiteral("/lint.json");
}

QString LintCache::cacheFile(const Task &task) const
{
    return m_directory + QLatin1Char('/') + task.name + QLatin1Char('-') +
           ProblemLint::hashOf(task) + QStringLiteral(".json");
}

QString LintCache::pathFor(const Task &task) const
{
    const QString own = folderFile(task);
    if (!own.isEmpty() && QFileInfo(task.directory).isWritable())
        return own;
    return cacheFile(task);
}

std::optional<ProblemLint> LintCache::find(const Task &task) const
{
    if (auto lint = readLint(folderFile(task), task))
        return lint;
    return readLint(cacheFile(task), task);
}

ProblemLint LintCache::stored(const Task &task) const
{
    if (auto lint = find(task))
        return *lint;
    return ProblemLint::notLinted(
        QStringLiteral("not run yet (kiln-cli lint-tasks %1)").arg(task.name));
}

bool LintCache::store(const Task &task, const ProblemLint &lint, QString *error) const
{
    if (!lint.linted())
        return true;
    const QString path = pathFor(task);
    QDir().mkpath(QFileInfo(path).path());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(QJsonDocument(lint.toJson()).toJson(QJsonDocument::Indented)) < 0 ||
        !file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

Task LintCache::applied(const Task &task) const
{
    Task result = task;
    if (const auto lint = find(task))
        lint->applyTo(result);
    return result;
}

} // namespace kiln
