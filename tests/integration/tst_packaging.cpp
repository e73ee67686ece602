// The install layout and what ships with it: a tree installed by `cmake --install` runs from
// any prefix (sandbox in libexec/kiln, tasks in share/kiln/tasks), the desktop entry and the
// AppStream metainfo validate, the man pages render and cover every command and option that
// --help lists, the version numbers agree, and the bash completion completes.
#include "kilncli.h"
#include "strategyregistry.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

using namespace kiln::test;

namespace {

const QString kSource = QStringLiteral(KILN_SOURCE_DIR);

QString readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// A tool other than kiln-cli, run the same way.
CliOutcome runTool(const QString &program, const QStringList &arguments, int timeoutMs = 120000)
{
    return runCli(arguments, timeoutMs, QProcessEnvironment::systemEnvironment(), program);
}

// "--foo-bar" words of a --help text, without Qt's own help options.
QSet<QString> optionsOf(const QString &help)
{
    QSet<QString> options;
    static const QRegularExpression word(QStringLiteral("--([a-z][a-z-]*)"));
    for (auto it = word.globalMatch(help); it.hasNext();)
        options.insert(it.next().captured(1));
    options.remove(QStringLiteral("help"));
    options.remove(QStringLiteral("help-all"));
    return options;
}

// How troff source spells an option: \-\-tasks\-dir.
QString troff(const QString &option)
{
    return QStringLiteral("\\-\\-") +
           QString(option).replace(QLatin1Char('-'), QStringLiteral("\\-"));
}

// The text of one ".SS name" section of a man page.
QString section(const QString &page, const QString &name)
{
    const qsizetype start = page.indexOf(QStringLiteral("\n.SS ") + name + QLatin1Char('\n'));
    if (start < 0)
        return {};
    const qsizetype end =
        page.indexOf(QRegularExpression(QStringLiteral("\n\\.S[SH] ")), start + 1);
    return page.mid(start, end < 0 ? -1 : end - start);
}

// COMPREPLY of the installed completion function for a command line (one word per element).
QStringList complete(const QStringList &words)
{
    QStringList quoted;
    for (const QString &w : words)
        quoted << QLatin1Char('\'') + w + QLatin1Char('\'');
    const QString script =
        QStringLiteral("source '%1/packaging/completion/kiln-cli'\nCOMP_WORDS=(%2)\n"
                       "COMP_CWORD=%3\n_kiln_cli\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
            .arg(kSource, quoted.join(QLatin1Char(' ')))
            .arg(words.size() - 1);
    const CliOutcome o = runTool(QStringLiteral("bash"), {QStringLiteral("-c"), script});
    return QString::fromUtf8(o.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

QStringList sorted(QStringList list)
{
    list.sort();
    return list;
}

} // namespace

class TstPackaging : public QObject
{
    Q_OBJECT

private slots:
    void desktopEntryValidates()
    {
        const QString tool =
            QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
        if (tool.isEmpty())
            QSKIP("desktop-file-validate not installed (desktop-file-utils)");
        const CliOutcome o =
            runTool(tool, {kSource + u"/packaging/linux/io.github.kiln.Kiln.desktop"_s});
        QVERIFY2(o.status == 0 && !o.out.contains("error"), (o.out + o.err).constData());
    }

    void metainfoValidates()
    {
        const QString tool = QStandardPaths::findExecutable(QStringLiteral("appstreamcli"));
        if (tool.isEmpty())
            QSKIP("appstreamcli not installed (appstream)");
        const CliOutcome o =
            runTool(tool, {QStringLiteral("validate"), QStringLiteral("--no-net"),
                           kSource + u"/packaging/linux/io.github.kiln.Kiln.metainfo.xml"_s});
        QVERIFY2(o.status == 0, (o.out + o.err).constData());
    }

    void versionsAgree()
    {
        const QString version = QStringLiteral(KILN_VERSION);
        const QString metainfo =
            readText(kSource + u"/packaging/linux/io.github.kiln.Kiln.metainfo.xml"_s);
        const QRegularExpressionMatch release =
            QRegularExpression(QStringLiteral("<release version=\"([^\"]+)\"")).match(metainfo);
        QCOMPARE(release.captured(1), version);
        const QRegularExpressionMatch changelog =
            QRegularExpression(QStringLiteral("\n## ([0-9.]+) "))
                .match(readText(kSource + u"/docs/CHANGELOG.md"_s));
        QCOMPARE(changelog.captured(1), version);
        for (const QString &page : {QStringLiteral("kiln.1"), QStringLiteral("kiln-cli.1")})
            QVERIFY2(readText(kSource + u"/packaging/man/"_s + page)
                         .contains(u"\"Kiln "_s + version + u"\""_s),
                     qPrintable(page));
    }

    void manPagesRender()
    {
        const QString groff = QStandardPaths::findExecutable(QStringLiteral("groff"));
        if (groff.isEmpty())
            QSKIP("groff not installed (groff-base)");
        for (const QString &page : {QStringLiteral("kiln.1"), QStringLiteral("kiln-cli.1")}) {
            const CliOutcome o = runTool(groff, {QStringLiteral("-man"), QStringLiteral("-Tutf8"),
                                                 QStringLiteral("-ww"), QStringLiteral("-z"),
                                                 kSource + u"/packaging/man/"_s + page});
            QVERIFY2(o.status == 0 && o.err.isEmpty(),
                     qPrintable(page + u": "_s + QString::fromUtf8(o.err)));
        }
    }

    // Every command of `kiln-cli --help` has a section, and every option of its --help is in it
    // (or in run's, for a command that says it takes run's options).
    void cliManPageCoversHelp()
    {
        const QString page = readText(kSource + u"/packaging/man/kiln-cli.1"_s);
        const CliOutcome usage = runCli({QStringLiteral("--help")});
        static const QRegularExpression commandLine(QStringLiteral("^  ([a-z-]+) "),
                                                    QRegularExpression::MultilineOption);
        QStringList commands;
        for (auto it = commandLine.globalMatch(QString::fromUtf8(usage.out)); it.hasNext();)
            commands << it.next().captured(1);
        QVERIFY(commands.contains(QStringLiteral("doctor")));
        for (const QString &command : std::as_const(commands)) {
            QString text = section(page, command);
            QVERIFY2(!text.isEmpty(), qPrintable(u"no .SS "_s + command));
            if (text.contains(QLatin1String("the options of\n.BR run")))
                text += section(page, QStringLiteral("run"));
            const CliOutcome help = runCli({command, QStringLiteral("--help")});
            for (const QString &option : optionsOf(QString::fromUtf8(help.out)))
                QVERIFY2(text.contains(troff(option)),
                         qPrintable(command + u": --"_s + option + u" is not in kiln-cli.1"_s));
        }
    }

    void windowManPageCoversHelp()
    {
        const QString page = readText(kSource + u"/packaging/man/kiln.1"_s);
        const CliOutcome help =
            runTool(QStringLiteral(KILN_BINARY_DIR "/bin/kiln"), {QStringLiteral("--help")});
        QCOMPARE(help.status, 0);
        const QSet<QString> options = optionsOf(QString::fromUtf8(help.out));
        QVERIFY(options.contains(QStringLiteral("screenshot")));
        for (const QString &option : options)
            QVERIFY2(page.contains(troff(option)),
                     qPrintable(u"--"_s + option + u" is not in kiln.1"_s));
    }

    void completion()
    {
        const QString cli = kiln::test::cli();
        QCOMPARE(sorted(complete({cli, QStringLiteral("re")})),
                 sorted({QStringLiteral("rejudge"), QStringLiteral("report"),
                         QStringLiteral("resume")}));
        QCOMPARE(complete({cli, QStringLiteral("run"), QStringLiteral("--strat")}),
                 QStringList{QStringLiteral("--strategy")});
        QCOMPARE(complete({cli, QStringLiteral("run"), QStringLiteral("--strategy"), QString()}),
                 kiln::StrategyRegistry::names());
        const CliOutcome tasks = runCli({QStringLiteral("tasks"), QStringLiteral("--json")});
        QStringList taskNames;
        for (const QJsonValue &task : tasks.json().value(QStringLiteral("tasks")).toArray())
            taskNames << task.toObject().value(QStringLiteral("name")).toString();
        QCOMPARE(
            sorted(complete({cli, QStringLiteral("eval"), QStringLiteral("--task"), QString()})),
            sorted(taskNames));
        QCOMPARE(complete({cli, QStringLiteral("compare"), QStringLiteral("--strategies"),
                           QStringLiteral("best-of-n,re")}),
                 QStringList{QStringLiteral("best-of-n,refine")});
        QCOMPARE(complete({cli, QStringLiteral("run"), QStringLiteral("--param"),
                           QStringLiteral("preset"), QStringLiteral("="), QStringLiteral("w")}),
                 QStringList{QStringLiteral("weak")});
        QCOMPARE(complete({cli, QStringLiteral("run"), QStringLiteral("--backend"),
                           QStringLiteral("c")}),
                 sorted({QStringLiteral("cpu"), QStringLiteral("cuda")}));
    }

    // cmake --install into a fresh prefix, moved elsewhere afterwards: the installed kiln-cli
    // finds its sandbox in libexec/kiln and its tasks once each, with no build tree on its path.
    void installedTreeRunsAnywhere()
    {
        QTemporaryDir scratch;
        const QString prefix = scratch.filePath(QStringLiteral("first"));
        const CliOutcome install =
            runTool(QStringLiteral("cmake"),
                    {QStringLiteral("--install"), QStringLiteral(KILN_BINARY_DIR),
                     QStringLiteral("--prefix"), prefix},
                    300000);
        QVERIFY2(install.status == 0, install.err.constData());
        const QStringList manifest =
            readText(QStringLiteral(KILN_BINARY_DIR "/install_manifest.txt"))
                .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(QSet<QString>(manifest.begin(), manifest.end()).size(), manifest.size());
        for (const char *file :
             {"bin/kiln", "bin/kiln-cli", "libexec/kiln/kiln-sandbox",
              "share/applications/io.github.kiln.Kiln.desktop",
              "share/metainfo/io.github.kiln.Kiln.metainfo.xml",
              "share/icons/hicolor/scalable/apps/io.github.kiln.Kiln.svg",
              "share/icons/hicolor/16x16/apps/io.github.kiln.Kiln.png",
              "share/icons/hicolor/256x256/apps/io.github.kiln.Kiln.png",
              "share/man/man1/kiln.1.gz", "share/man/man1/kiln-cli.1.gz",
              "share/bash-completion/completions/kiln-cli", "share/kiln/tasks/matmul/task.json",
              "share/doc/kiln/docs/CHANGELOG.md", "lib/kiln/plugins"})
            QVERIFY2(QFileInfo::exists(prefix + QLatin1Char('/') + QLatin1String(file)), file);
        if (QFileInfo::exists(QStringLiteral(KILN_BINARY_DIR "/bin/kiln-cuda-sandbox")))
            QVERIFY(QFileInfo::exists(prefix + QStringLiteral("/libexec/kiln/kiln-cuda-sandbox")));

        const QString moved = scratch.filePath(QStringLiteral("moved"));
        QVERIFY(QDir().rename(prefix, moved));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (const QString &name :
             {QStringLiteral("KILN_SANDBOX"), QStringLiteral("KILN_CUDA_SANDBOX")})
            environment.remove(name);
        const CliOutcome doctor =
            runCli({QStringLiteral("doctor"), QStringLiteral("--json")}, 120000, environment,
                   moved + QStringLiteral("/bin/kiln-cli"));
        QCOMPARE(doctor.status, 0);
        QVERIFY2(
            doctor.out.contains(QDir::cleanPath(moved + u"/libexec/kiln/kiln-sandbox"_s).toUtf8()),
            doctor.out.constData());
        QVERIFY(doctor.json().value(QStringLiteral("backends")).toObject().value(u"cpu").toBool());
        const CliOutcome tasks = runCli({QStringLiteral("tasks"), QStringLiteral("--json")}, 60000,
                                        environment, moved + QStringLiteral("/bin/kiln-cli"));
        QCOMPARE(tasks.status, 0);
        QVERIFY2(tasks.err.isEmpty(), tasks.err.constData());
        QCOMPARE(tasks.json().value(QStringLiteral("tasks")).toArray().size(), 6);

        // A strategy plugin dropped into the installed plugin folder is found.
        const QString plugin = QStringLiteral(
            KILN_BINARY_DIR "/test-plugins/strategies/libkiln_test_dummy_strategy.so");
        QVERIFY(QFile::copy(plugin, moved + u"/lib/kiln/plugins/libkiln_test_dummy_strategy.so"_s));
        const CliOutcome help = runCli({QStringLiteral("run"), QStringLiteral("--help")}, 60000,
                                       environment, moved + QStringLiteral("/bin/kiln-cli"));
        QVERIFY2(help.out.contains("or dummy."), help.out.constData());
    }
};

QTEST_GUILESS_MAIN(TstPackaging)
#include "tst_packaging.moc"
