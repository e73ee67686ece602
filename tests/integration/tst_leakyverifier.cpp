// The leaky-verifier lesson end to end through the real kiln-cli: the naive harness passes
// candidates the strict verifier blocks, and `rejudge` shows the same run's true curve.
#include "kilncli.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using Outcome = kiln::test::CliOutcome;
using kiln::test::cli;
using kiln::test::runCli;

QString candidate(const QString &name)
{
    return QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/") + name;
}

QJsonObject eval(const QString &task, const QString &file, const QString &verifier)
{
    const Outcome o =
        runCli({QStringLiteral("eval"), QStringLiteral("--task"), task, QStringLiteral("--backend"),
                QStringLiteral("cpu"), QStringLiteral("--verifier"), verifier,
                QStringLiteral("--seed"), QStringLiteral("5"), QStringLiteral("--json"), file});
    return o.status == 0 ? o.json()
                         : QJsonObject{{QStringLiteral("error"), QString::fromUtf8(o.err)}};
}

} // namespace

class TestLeakyVerifier : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(cli()), "kiln-cli is not built");
        qputenv("KILN_CACHE_DIR", QByteArray(KILN_BINARY_DIR "/test-compile-cache"));
    }

    // Each of these games a naive harness in its own way: no output written (the pre-filled
    // answer passes), the answer kept from the previous call (the same inputs every time).
    // Strictly, an unwritten output fails the check: wrong, with the suspicion noted.
    void naiveHarnessLetsGamesThrough_data()
    {
        QTest::addColumn<QString>("task");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("strictVerdict");
        QTest::addColumn<double>("minimumSpeedup");
        QTest::newRow("output unwritten") << "vector_add"
                                          << "game_output_unwritten.cpp"
                                          << "wrong" << 10.0;
        QTest::newRow("result cache") << "reduce_sum"
                                      << "game_static_memo.cpp"
                                      << "flagged" << 10.0;
        // An honest bug, not a game: the element it never writes holds the pre-filled answer.
        QTest::newRow("last element unwritten") << "vector_add"
                                                << "bug_off_by_one.cpp"
                                                << "wrong" << 0.0;
    }
    void naiveHarnessLetsGamesThrough()
    {
        QFETCH(QString, task);
        QFETCH(QString, file);
        QFETCH(QString, strictVerdict);
        QFETCH(double, minimumSpeedup);
        const QJsonObject lenient = eval(task, candidate(file), QStringLiteral("lenient"));
        QCOMPARE(lenient.value(QStringLiteral("verdict")).toString(), QStringLiteral("pass"));
        QVERIFY2(lenient.value(QStringLiteral("speedup")).toDouble() > minimumSpeedup,
                 QJsonDocument(lenient).toJson().constData());
        QVERIFY(lenient.value(QStringLiteral("flags")).toArray().isEmpty());
        const QJsonObject strict = eval(task, candidate(file), QStringLiteral("strict"));
        QCOMPARE(strict.value(QStringLiteral("verdict")).toString(), strictVerdict);
    }

    // An honest kernel passes both ways; one that writes wrong values fails both ways.
    void honestAndWrongAgree()
    {
        QCOMPARE(eval(QStringLiteral("vector_add"),
                      candidate(QStringLiteral("vector_add_naive.cpp")), QStringLiteral("lenient"))
                     .value(QStringLiteral("verdict"))
                     .toString(),
                 QStringLiteral("pass"));
        QTemporaryDir dir;
        QFile wrong(dir.filePath(QStringLiteral("subtract.cpp")));
        QVERIFY(wrong.open(QIODevice::WriteOnly));
        wrong.write(
            "extern \"C\" void vector_add(const float *a, const float *b, float *c, int n)\n"
            "{\n    for (int i = 0; i < n; ++i)\n        c[i] = a[i] - b[i];\n}\n");
        wrong.close();
        QCOMPARE(eval(QStringLiteral("vector_add"), wrong.fileName(), QStringLiteral("lenient"))
                     .value(QStringLiteral("verdict"))
                     .toString(),
                 QStringLiteral("wrong"));
    }

    void lenientNeedsTheCpuBackend()
    {
        const Outcome o = runCli(
            {QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("vector_add"),
             QStringLiteral("--backend"), QStringLiteral("cuda"), QStringLiteral("--verifier"),
             QStringLiteral("lenient"), QStringLiteral("--budget"), QStringLiteral("2")});
        QVERIFY(o.status != 0);
    }

    // A lenient search, then the same candidates judged strictly: the lenient run is labelled,
    // the rejudged run keeps every candidate and its lineage, and its best is not higher.
    void rejudgeShowsTheTrueCurve()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("w.db"));
        const Outcome run = runCli(
            {QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("vector_add"),
             QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--verifier"),
             QStringLiteral("lenient"), QStringLiteral("--strategy"), QStringLiteral("refine"),
             // A model that often games, so the lenient run passes kernels the strict one flags.
             QStringLiteral("--param"), QStringLiteral("gaming_rate=0.6"),
             QStringLiteral("--param"), QStringLiteral("stuck_share=0"), QStringLiteral("--budget"),
             QStringLiteral("12"), QStringLiteral("--seed"), QStringLiteral("3"),
             QStringLiteral("--db"), db, QStringLiteral("--json")});
        QVERIFY2(run.status == 0, run.err.constData());
        QCOMPARE(run.json().value(QStringLiteral("verifier")).toString(),
                 QStringLiteral("lenient"));
        const Outcome text = runCli({QStringLiteral("report"), QStringLiteral("--db"), db});
        QVERIFY2(text.out.contains("LENIENT"), text.out.constData());

        const Outcome again =
            runCli({QStringLiteral("rejudge"), QStringLiteral("--db"), db, QStringLiteral("--run"),
                    QStringLiteral("1"), QStringLiteral("--json")});
        QVERIFY2(again.status == 0, again.err.constData());
        const QJsonObject doc = again.json();
        const QJsonObject original = doc.value(QStringLiteral("original")).toObject();
        const QJsonObject strict = doc.value(QStringLiteral("run")).toObject();
        QCOMPARE(strict.value(QStringLiteral("verifier")).toString(), QStringLiteral("strict"));
        QCOMPARE(strict.value(QStringLiteral("rejudged_from")).toInt(), 1);
        QCOMPARE(strict.value(QStringLiteral("candidates")).toInt(),
                 original.value(QStringLiteral("candidates")).toInt());
        auto best = [](const QJsonObject &r) {
            return r.value(QStringLiteral("best"))
                .toObject()
                .value(QStringLiteral("speedup"))
                .toDouble();
        };
        QVERIFY2(
            best(strict) <= best(original) + 1e-9,
            qPrintable(
                QStringLiteral("strict %1, lenient %2").arg(best(strict)).arg(best(original))));
        // The lineage is the original's: as many refine edges in both runs.
        const Outcome lineage =
            runCli({QStringLiteral("export"), QStringLiteral("--db"), db, QStringLiteral("--run"),
                    QStringLiteral("2"), QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(lineage.status == 0, lineage.err.constData());
        int children = 0;
        for (const QJsonValue &c : QJsonDocument::fromJson(lineage.out)
                                       .object()
                                       .value(QStringLiteral("candidates"))
                                       .toArray())
            children += c.toObject().value(QStringLiteral("parent")).isDouble() ? 1 : 0;
        QVERIFY(children > 0);
    }

    void rejudgeOfAnUnknownRunIsAUsageError()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("empty.db"));
        const Outcome o = runCli({QStringLiteral("rejudge"), QStringLiteral("--db"), db,
                                  QStringLiteral("--run"), QStringLiteral("9")});
        QCOMPARE(o.status, 2);
        QVERIFY(o.err.contains("no run 9"));
    }
};

QTEST_GUILESS_MAIN(TestLeakyVerifier)
#include "tst_leakyverifier.moc"
