// fast_p by KernelBench level through the real store and the real `kiln-cli report`: a database
// written by RunStore (tests/kernelbenchdb.h) with known answers.
#include "engine/reports/fastpreport.h"
#include "kernelbenchdb.h"
#include "kilncli.h"
#include "store/runstore.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

void verifyShares(const QJsonObject &object, const QList<double> &expected)
{
    const QStringList keys{u"fast_0"_s, u"fast_1"_s, u"fast_1.5"_s, u"fast_2"_s};
    for (int i = 0; i < keys.size(); ++i) {
        QVERIFY2(object.value(keys[i]).isDouble(), qPrintable(keys[i]));
        QCOMPARE(object.value(keys[i]).toDouble(), expected[i]);
    }
}

} // namespace

class TestKernelBenchReport : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;

private slots:
    void initTestCase()
    {
        m_db = m_dir.filePath(u"kb.db"_s);
        QVERIFY(test::writeKernelBenchDatabase(m_db));
    }

    void collectedFromTheStore()
    {
        const auto store = RunStore::open(m_db, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        const FastPReport::Collected c = FastPReport::collect(*store);
        QCOMPARE(c.runs, 2);
        QCOMPARE(c.lenientRuns, 1);
        QCOMPARE(c.problems.size(), 3);
        QCOMPARE(c.problems[0].task, u"kb1_019_relu"_s);
        QCOMPARE(c.problems[0].speedup, std::optional<double>(1.6));
        // The torch.compile speedup survives the store (it lives in the result's JSON).
        QCOMPARE(c.problems[0].compiledSpeedup, std::optional<double>(1.1));
        QCOMPARE(c.problems[1].task, u"kb1_023_softmax"_s);
        QVERIFY(c.problems[1].correct);
        QCOMPARE(c.problems[2].task, u"kb2_005_conv_relu"_s);
        QCOMPARE(c.problems[2].level, 2); // from its name: run 2 kept no snapshot of it
        QVERIFY(!c.problems[2].compiledSpeedup);
    }

    void jsonReport_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::newRow("every run") << QStringList{};
        // --run narrows the run table only: fast_p is over the whole database.
        QTest::newRow("--run 4") << QStringList{u"--run"_s, u"4"_s};
    }

    void jsonReport()
    {
        QFETCH(QStringList, extra);
        const test::CliOutcome o =
            test::runCli(QStringList{u"report"_s, u"--db"_s, m_db, u"--json"_s} + extra, 60000);
        QVERIFY2(o.status == 0, o.err.constData());
        const QJsonObject doc = o.json();
        QCOMPARE(doc.value(u"runs"_s).toArray().size(), extra.isEmpty() ? 4 : 1);
        const QJsonObject fastP = doc.value(u"fast_p"_s).toObject();
        QCOMPARE(fastP.keys(),
                 (QStringList{u"1"_s, u"2"_s})); // the lenient run's level 2 gemm is out
        const QJsonObject one = fastP.value(u"1"_s).toObject();
        QCOMPARE(one.value(u"problems"_s).toInt(), 2);
        QCOMPARE(one.value(u"correct"_s).toInt(), 2);
        verifyShares(one, {1.0, 0.5, 0.5, 0.0});
        const QJsonObject oneCompiled = one.value(u"compiled"_s).toObject();
        QCOMPARE(oneCompiled.value(u"problems"_s).toInt(), 2);
        QCOMPARE(oneCompiled.value(u"measured"_s).toInt(), 2);
        verifyShares(oneCompiled, {1.0, 0.5, 0.0, 0.0});
        const QJsonObject two = fastP.value(u"2"_s).toObject();
        QCOMPARE(two.value(u"problems"_s).toInt(), 1);
        verifyShares(two, {1.0, 1.0, 1.0, 1.0});
        const QJsonObject twoCompiled = two.value(u"compiled"_s).toObject();
        QCOMPARE(twoCompiled.value(u"measured"_s).toInt(), 0);
        verifyShares(twoCompiled, {1.0, 0.0, 0.0, 0.0});
    }

    void textReport()
    {
        const test::CliOutcome o = test::runCli({u"report"_s, u"--db"_s, m_db}, 60000);
        QVERIFY2(o.status == 0, o.err.constData());
        const QString text = QString::fromUtf8(o.out);
        QVERIFY2(text.contains(u"fast_p by KernelBench level"_s), qPrintable(text));
        QVERIFY2(text.contains(u"over 2 run(s) of the whole database, 1 lenient run(s) left out"_s),
                 qPrintable(text));
        const QStringList lines = text.split(u'\n');
        const qsizetype header = lines.indexOf(
            u"level problems correct     fast_0   fast_1 fast_1.5   fast_2     fast_1 fast_1.5   "
            u"fast_2"_s);
        QVERIFY2(header > 0, qPrintable(text));
        QCOMPARE(lines.value(header + 1).simplified(), u"1 2 2 100% 50% 50% 0% 50% 0% 0%"_s);
        QCOMPARE(lines.value(header + 2).simplified(),
                 u"2 1 1 100% 100% 100% 100% 0% 0% 0% (1 correct without a torch.compile "
                 u"timing)"_s);
    }

    void noKernelBenchNoSection()
    {
        const QString db = m_dir.filePath(u"own.db"_s);
        {
            const auto store = RunStore::open(db, RunStore::Mode::ReadWrite);
            QVERIFY(store);
            const qint64 run = test::addKernelBenchRun(*store, {u"softmax"_s}, {}, false, u"cpu"_s);
            QVERIFY(test::addJudgedCandidate(*store, run, u"softmax"_s, Verdict::Pass, 2.0,
                                             std::nullopt, Backend::Cpu));
        }
        const test::CliOutcome json =
            test::runCli({u"report"_s, u"--db"_s, db, u"--json"_s}, 60000);
        QVERIFY2(json.status == 0, json.err.constData());
        QVERIFY(!json.json().contains(u"fast_p"_s));
        QCOMPARE(json.json().value(u"runs"_s).toArray().size(), 1);
        const test::CliOutcome text = test::runCli({u"report"_s, u"--db"_s, db}, 60000);
        QVERIFY2(text.status == 0, text.err.constData());
        QVERIFY(!text.out.contains("fast_p"));
    }

    void helpSaysDatabaseWide()
    {
        const test::CliOutcome o = test::runCli({u"report"_s, u"--help"_s}, 60000);
        QCOMPARE(o.status, 0);
        QVERIFY2(o.out.contains("fast_p") && o.out.contains("every run"), o.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestKernelBenchReport)
#include "tst_kernelbenchreport.moc"
