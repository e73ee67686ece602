// kiln-cli diagnose on a real search (the offline policy, the CPU backend, a SQLite workspace):
// its --json is what RunDiagnosis says of the same stored run, read in this process (the window
// computes it the same way), and its text lists every analyzer with a rating.
#include "engine/diagnosis/rundiagnosis.h"
#include "kilncli.h"
#include "store/runstore.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using kiln::test::cli;
using kiln::test::runCli;
using namespace kiln;

class TestDiagnose : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;
    qint64 m_run = 0;

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(cli()), "kiln-cli is not built");
        qputenv("KILN_CACHE_DIR", QByteArray(KILN_BINARY_DIR "/test-compile-cache"));
        m_db = m_dir.filePath(QStringLiteral("d.db"));
        const kiln::test::CliOutcome o = runCli(
            {QStringLiteral("run"), QStringLiteral("--backend"), QStringLiteral("cpu"),
             QStringLiteral("--task"), QStringLiteral("softmax"), QStringLiteral("--strategy"),
             QStringLiteral("refine"), QStringLiteral("--budget"), QStringLiteral("16"),
             QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("--param"),
             QStringLiteral("width=4"), QStringLiteral("--db"), m_db, QStringLiteral("--json")},
            600000);
        QVERIFY2(o.status == 0, o.err.constData());
        m_run = qint64(o.json().value(QStringLiteral("run_id")).toDouble());
        QVERIFY2(m_run > 0, o.out.constData());
    }

    void jsonIsTheLibrarysDiagnosis()
    {
        const kiln::test::CliOutcome o =
            runCli({QStringLiteral("diagnose"), QStringLiteral("--db"), m_db,
                    QStringLiteral("--run"), QString::number(m_run), QStringLiteral("--json")});
        QVERIFY2(o.status == 0, o.err.constData());
        auto store = RunStore::open(m_db, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        const RunHistory history = RunHistory::load(*store, m_run);
        QCOMPARE(history.evaluatedCount(), 16);
        QVERIFY(!history.sources.isEmpty());
        const QJsonObject expected =
            RunDiagnosis::toJson(m_run, history, RunDiagnosis::diagnose(history));
        QCOMPARE(o.json(), expected);
        const QJsonArray findings = expected.value(QStringLiteral("findings")).toArray();
        QCOMPARE(findings.size(), 8);
        // A refine search: after its first samples, its evaluations are children (depth).
        for (const QJsonValue &f : findings)
            if (f.toObject().value(QStringLiteral("analyzer")) == QLatin1String("depth_width")) {
                const QJsonObject figures =
                    f.toObject().value(QStringLiteral("figures")).toObject();
                QCOMPARE(figures.value(QStringLiteral("width_evaluations")).toInt(), 4);
                QCOMPARE(figures.value(QStringLiteral("depth_evaluations")).toInt(), 12);
            }
    }

    void textListsEveryAnalyzer()
    {
        const kiln::test::CliOutcome o =
            runCli({QStringLiteral("diagnose"), QStringLiteral("--db"), m_db,
                    QStringLiteral("--run"), QString::number(m_run)});
        QVERIFY2(o.status == 0, o.err.constData());
        const QString text = QString::fromUtf8(o.out);
        for (const char *title :
             {"Stagnation", "Exploration collapse", "Repeated misconception", "Evaluator noise",
              "Ceiling", "Cost efficiency", "Reward-hacking pressure", "Depth versus width"})
            QVERIFY2(text.contains(QLatin1String(title)), qPrintable(text));
        QVERIFY(text.contains(QRegularExpression(QStringLiteral("[1-5]/5"))));
    }

    // Without --run: every search run's ratings, and the mean per strategy.
    void workspaceComparesRuns()
    {
        const kiln::test::CliOutcome second =
            runCli({QStringLiteral("run"), QStringLiteral("--backend"), QStringLiteral("cpu"),
                    QStringLiteral("--task"), QStringLiteral("softmax"),
                    QStringLiteral("--strategy"), QStringLiteral("best-of-n"),
                    QStringLiteral("--budget"), QStringLiteral("8"), QStringLiteral("--seed"),
                    QStringLiteral("4"), QStringLiteral("--db"), m_db, QStringLiteral("--json")},
                   600000);
        QVERIFY2(second.status == 0, second.err.constData());
        const qint64 other = qint64(second.json().value(QStringLiteral("run_id")).toDouble());
        const kiln::test::CliOutcome o = runCli(
            {QStringLiteral("diagnose"), QStringLiteral("--db"), m_db, QStringLiteral("--json")});
        QVERIFY2(o.status == 0, o.err.constData());
        const QJsonArray runs = o.json().value(QStringLiteral("runs")).toArray();
        QCOMPARE(runs.size(), 2);
        auto store = RunStore::open(m_db, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        for (const QJsonValue &value : runs) {
            const QJsonObject run = value.toObject();
            const qint64 id = qint64(run.value(QStringLiteral("run")).toDouble());
            QVERIFY(id == m_run || id == other);
            const QJsonObject ratings = run.value(QStringLiteral("ratings")).toObject();
            for (const DiagnosisFinding &f : RunDiagnosis::diagnose(RunHistory::load(*store, id)))
                QCOMPARE(ratings.value(f.analyzer).toInt(), f.rating);
        }
        const QJsonArray strategies = o.json().value(QStringLiteral("strategies")).toArray();
        QCOMPARE(strategies.size(), 2);
        QCOMPARE(strategies[0].toObject().value(QStringLiteral("strategy")).toString(),
                 QStringLiteral("refine"));
        const kiln::test::CliOutcome text =
            runCli({QStringLiteral("diagnose"), QStringLiteral("--db"), m_db});
        QVERIFY(QString::fromUtf8(text.out).contains(QStringLiteral("mean rating per strategy")));
        QVERIFY(QString::fromUtf8(text.out).contains(QStringLiteral("best-of-n")));
    }

    void badArgumentsAreUsageErrors()
    {
        QCOMPARE(runCli({QStringLiteral("diagnose"), QStringLiteral("--db"), m_db,
                         QStringLiteral("--run"), QStringLiteral("x")})
                     .status,
                 2);
        QCOMPARE(runCli({QStringLiteral("diagnose"), QStringLiteral("--db"), m_db,
                         QStringLiteral("--run"), QStringLiteral("999")})
                     .status,
                 2);
        QCOMPARE(runCli({QStringLiteral("diagnose"), QStringLiteral("--db"),
                         m_dir.filePath(QStringLiteral("missing.db")), QStringLiteral("--run"),
                         QStringLiteral("1")})
                     .status,
                 2);
    }
};

QTEST_GUILESS_MAIN(TestDiagnose)
#include "tst_diagnose.moc"
