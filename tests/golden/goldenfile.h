#pragma once

// Golden-file comparison: a test renders a whole output for a fixed input and compares it with
// a checked-in file under tests/golden/expected/. With KILN_REFRESH_GOLDEN=1 the test writes the
// file instead (scripts/refresh-golden.sh does that for every golden test); the new file is then
// reviewed like code, since each change in it is a change in what users see.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStringList>
#include <QTemporaryFile>

namespace kiln::test {

class GoldenFile
{
public:
    explicit GoldenFile(const QString &name) : m_name(name) {}

    static bool refreshing() { return qEnvironmentVariableIntValue("KILN_REFRESH_GOLDEN") == 1; }

    QString relativePath() const { return QStringLiteral("tests/golden/expected/") + m_name; }
    QString path() const { return QStringLiteral(KILN_SOURCE_DIR "/") + relativePath(); }

    // Empty when `actual` equals the expected file (or, when refreshing, once it is written);
    // otherwise what is wrong, with a unified diff, ready for QVERIFY2.
    QString check(const QByteArray &actual) const
    {
        QFile file(path());
        const bool exists = file.open(QIODevice::ReadOnly);
        const QByteArray expected = exists ? file.readAll() : QByteArray();
        file.close();
        if (exists && expected == actual)
            return {};
        if (refreshing())
            return write(actual);
        if (!exists)
            return QStringLiteral("%1 is missing: run scripts/refresh-golden.sh to write it, "
                                  "then review and commit it")
                .arg(relativePath());
        return QStringLiteral("the output differs from %1 (--- expected, +++ actual):\n%2\nIf the "
                              "change is intended, run scripts/refresh-golden.sh and commit the "
                              "new file.")
            .arg(relativePath(), diff(actual));
    }

private:
    QString write(const QByteArray &actual) const
    {
        QDir().mkpath(QFileInfo(path()).absolutePath());
        QFile file(path());
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            file.write(actual) != actual.size())
            return QStringLiteral("cannot write %1: %2").arg(path(), file.errorString());
        qInfo("wrote %s", qPrintable(relativePath()));
        return {};
    }

    // `diff -u` of the expected file against the output, at most kDiffLines lines of it.
    QString diff(const QByteArray &actual) const
    {
        QTemporaryFile output;
        if (!output.open() || output.write(actual) != actual.size())
            return QStringLiteral("(no diff: cannot write a temporary file)");
        output.close();
        QProcess process;
        process.start(QStringLiteral("diff"),
                      {QStringLiteral("-u"), QStringLiteral("--label"), relativePath(),
                       QStringLiteral("--label"), QStringLiteral("actual"), path(),
                       output.fileName()});
        if (!process.waitForFinished(30000))
            return QStringLiteral("(no diff: %1)").arg(process.errorString());
        QStringList lines = QString::fromUtf8(process.readAllStandardOutput()).split(u'\n');
        if (lines.size() > kDiffLines) {
            const qsizetype more = lines.size() - kDiffLines;
            lines.resize(kDiffLines);
            lines.append(QStringLiteral("... %1 more lines of diff").arg(more));
        }
        return lines.join(u'\n');
    }

    static constexpr qsizetype kDiffLines = 150;
    QString m_name;
};

} // namespace kiln::test
