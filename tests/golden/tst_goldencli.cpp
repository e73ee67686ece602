// Golden files (goldenfile.h) of what the real kiln-cli prints: `report` (text and JSON) and
// `export` (JSON and CSV) over the fixed workspace (goldenworkspace.h), and `eval` (the verifier
// report, text and JSON) of candidates under tests/data/candidates/cpu with a fixed secret.

#include "goldenfile.h"
#include "goldenworkspace.h"
#include "kilncli.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;
using namespace kiln::test;

namespace {

// The environment every kiln-cli here runs in: a fixed locale (printf's %f and the text's
// encoding follow it), no user or system task folders beside the embedded tasks, and a compile
// cache of its own (so "cached" is always false), all under `home`.
QProcessEnvironment hermetic(const QString &home)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
    environment.insert(QStringLiteral("TZ"), QStringLiteral("UTC"));
    environment.insert(QStringLiteral("HOME"), home);
    for (const char *variable :
         {"XDG_DATA_HOME", "XDG_DATA_DIRS", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "KILN_CACHE_DIR"})
        environment.insert(QString::fromLatin1(variable),
                           home + QLatin1Char('/') + QString::fromLatin1(variable).toLower());
    return environment;
}

// kiln-cli prints its JSON documents compact, on one line. The golden file holds the document
// indented, to be read and diffed; that says everything about the output once the output is
// checked to be exactly the compact form of that document.
QByteArray indentedJson(const QByteArray &output, QString *problem)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(output, &error);
    if (error.error != QJsonParseError::NoError)
        *problem = QStringLiteral("not JSON: ") + error.errorString();
    else if (document.toJson(QJsonDocument::Compact) + '\n' != output)
        *problem = QStringLiteral("not one compact JSON document and a line break");
    return document.toJson(QJsonDocument::Indented);
}

// What changes from one `eval` to the next without the verifier's judgement changing: the time
// each stage took, the compiler's, the reference's, how the sandbox could isolate itself (Landlock
// or not, by kernel) and how many threads the sandbox process had. Each becomes "<varies>".
bool variesByRun(const QString &key)
{
    return key == QLatin1String("ms") || key.endsWith(QLatin1String("_ms")) ||
           key == QLatin1String("isolation") || key == QLatin1String("max_threads");
}

QString normalisedDetail(QString text)
{
    static const QRegularExpression compiledIn(QStringLiteral("compiled in \\d+ ms"));
    return text.replace(compiledIn, QStringLiteral("compiled in <varies> ms"));
}

QJsonValue normalisedJson(const QJsonValue &value)
{
    if (value.isString())
        return normalisedDetail(value.toString());
    if (value.isArray()) {
        QJsonArray array;
        for (const QJsonValue &item : value.toArray())
            array.append(normalisedJson(item));
        return array;
    }
    if (!value.isObject())
        return value;
    QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it)
        it.value() =
            variesByRun(it.key()) ? QJsonValue(QStringLiteral("<varies>")) : normalisedJson(*it);
    return object;
}

// The text report with the times of its stage rows ("  compile      ok      812.4 ms  compiled
// in 790 ms") replaced.
QByteArray normalisedEvalText(const QByteArray &output)
{
    static const QRegularExpression stageTime(
        QStringLiteral("^(  \\S+ +(?:ok|--)) +\\d+\\.\\d ms  "),
        QRegularExpression::MultilineOption);
    QString text = QString::fromUtf8(output);
    text.replace(stageTime, QStringLiteral("\\1 <varies> ms  "));
    return normalisedDetail(text).toUtf8();
}

} // namespace

class TestGoldenCli : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;

    // Runs kiln-cli in a fresh home (hermetic()).
    static CliOutcome runInFreshHome(const QStringList &arguments)
    {
        QTemporaryDir home;
        return runCli(arguments, 240000, hermetic(home.path()));
    }

    static QString failure(const QStringList &arguments, const CliOutcome &o)
    {
        return QStringLiteral("kiln-cli %1 exited with %2: %3")
            .arg(arguments.join(QLatin1Char(' ')))
            .arg(o.status)
            .arg(QString::fromUtf8(o.err));
    }

    static void compareWithGolden(const QString &name, const QByteArray &actual)
    {
        const QString problem = GoldenFile(name).check(actual);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo(cli()).isExecutable(),
                 qPrintable(cli() + QStringLiteral(" is not built")));
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("golden.db"));
        const QString problem = GoldenWorkspace::write(m_db);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void workspaceCommands_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("golden");
        const QStringList report{QStringLiteral("report"), QStringLiteral("--db"), m_db};
        QTest::newRow("report") << report << QStringLiteral("report.txt");
        QTest::newRow("report --json")
            << report + QStringList{QStringLiteral("--json")} << QStringLiteral("report.json");
        QTest::newRow("report --run 1")
            << report + QStringList{QStringLiteral("--run"), QStringLiteral("1")}
            << QStringLiteral("report-run1.txt");
        for (const char *run : {"1", "4"}) {
            const QStringList exportRun{QStringLiteral("export"), QStringLiteral("--db"), m_db,
                                        QStringLiteral("--run"), QString::fromLatin1(run)};
            const QString name = QStringLiteral("export-run%1").arg(QString::fromLatin1(run));
            QTest::newRow(qPrintable(name + QStringLiteral(" json")))
                << exportRun << name + QStringLiteral(".json");
            QTest::newRow(qPrintable(name + QStringLiteral(" csv")))
                << exportRun + QStringList{QStringLiteral("--format"), QStringLiteral("csv")}
                << name + QStringLiteral(".csv");
        }
    }

    // Nothing to normalise: the workspace holds fixed dates and figures only.
    void workspaceCommands()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, golden);
        const CliOutcome o = runInFreshHome(arguments);
        QVERIFY2(o.status == 0, qPrintable(failure(arguments, o)));
        QByteArray output = o.out;
        if (arguments.contains(QStringLiteral("--json"))) {
            QString problem;
            output = indentedJson(output, &problem);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        compareWithGolden(golden, output);
    }

    void eval_data()
    {
        QTest::addColumn<QString>("candidate");
        QTest::addColumn<QString>("golden");
        QTest::newRow("pass") << "vector_add_naive.cpp"
                              << "eval-pass";
        QTest::newRow("wrong") << "bug_off_by_one.cpp"
                               << "eval-wrong";
        QTest::newRow("flagged") << "game_dlsym.cpp"
                                 << "eval-flagged";
        QTest::newRow("compile error") << "bug_syntax.cpp"
                                       << "eval-compile-error";
    }

    // The verifier report of one vector_add candidate on the CPU, untimed (timings never repeat),
    // on inputs from a fixed secret; what still varies is normalised (variesByRun).
    void eval()
    {
        QFETCH(QString, candidate);
        QFETCH(QString, golden);
        const QStringList arguments{QStringLiteral("eval"),
                                    QStringLiteral("--task"),
                                    QStringLiteral("vector_add"),
                                    QStringLiteral("--backend"),
                                    QStringLiteral("cpu"),
                                    QStringLiteral("--verifier-seed"),
                                    QStringLiteral("20261130"),
                                    QStringLiteral("--no-timing"),
                                    QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/") +
                                        candidate};
        const CliOutcome text = runInFreshHome(arguments);
        QVERIFY2(text.status == 0, qPrintable(failure(arguments, text)));
        compareWithGolden(golden + QStringLiteral(".txt"), normalisedEvalText(text.out));

        const QStringList jsonArguments = arguments + QStringList{QStringLiteral("--json")};
        const CliOutcome json = runInFreshHome(jsonArguments);
        QVERIFY2(json.status == 0, qPrintable(failure(jsonArguments, json)));
        QString problem;
        indentedJson(json.out, &problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const QJsonObject normalised =
            normalisedJson(QJsonDocument::fromJson(json.out).object()).toObject();
        compareWithGolden(golden + QStringLiteral(".json"),
                          QJsonDocument(normalised).toJson(QJsonDocument::Indented));
    }
};

QTEST_GUILESS_MAIN(TestGoldenCli)
#include "tst_goldencli.moc"
