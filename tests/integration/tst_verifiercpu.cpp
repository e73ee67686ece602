// End to end through the real sandbox: every candidate under tests/data/candidates/cpu and
// tests/data/candidates/hostile carries its expected verdict (and flag) in its first line:
//   // expect: task=NAME verdict=VERDICT [flag=ID]

#include "candidatebatch.h"
#include "policies/feedbacksummary.h"
#include "tasks/tasklibrary.h"
#include "verifier/verifier.h"
#include "verifier/verifierpool.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFutureSynchronizer>
#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <dirent.h>
#include <thread>
#include <unistd.h>

using namespace kiln;
using namespace kiln::testing;

using namespace Qt::StringLiterals;

namespace {

// Children of this process (sandboxes, or anything a candidate forked that escaped); with
// `liveOnly`, not those that have ended and wait to be reaped.
int childProcesses(bool liveOnly = false)
{
    int count = 0;
    const QString self = QString::number(::getpid());
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &pid : pids) {
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QString text = QString::fromLatin1(stat.readAll());
        const QStringList fields =
            text.mid(text.lastIndexOf(QLatin1Char(')')) + 2).split(QLatin1Char(' '));
        if (fields.value(1) == self && (!liveOnly || fields.value(0) != QLatin1String("Z")))
            ++count;
    }
    return count;
}

} // namespace

class TestVerifierCpu : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_cache;
    TaskLibrary m_tasks;
    VerifierOptions m_options;
    std::unique_ptr<VerifierPool> m_pool;
    QHash<QString, EvaluationResult> m_results;
    QList<Expectation> m_expectations;
    static constexpr quint64 kSecret = 20261130;

    const Task &task(const QString &name)
    {
        const Task *t = m_tasks.task(name);
        Q_ASSERT(t);
        return *t;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        QVERIFY(m_tasks.loadDirectory(QStringLiteral(KILN_SOURCE_DIR "/tasks")) >= 6);
        m_options = VerifierOptions::defaults();
        m_options.sandbox.executable = QStringLiteral(KILN_BINARY_DIR "/bin/kiln-sandbox");
        m_options.cacheDirectory = m_cache.path();
        m_options.callTimeoutMs = 3000; // the endless loop costs this much
        m_options.timingBudgetMs = 60;  // timing is exercised, not measured precisely, here
        m_pool = std::make_unique<VerifierPool>(m_options, 2);
        QVERIFY2(m_pool->verifier().checkSetup().isEmpty(),
                 qPrintable(m_pool->verifier().checkSetup()));

        for (const char *folder : {"cpu", "hostile"})
            m_expectations += expectationsIn(
                QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/") + QLatin1String(folder),
                QStringLiteral("*.cpp"));
        QVERIFY(m_expectations.size() >= 40);
        QFile::remove(QStringLiteral("/tmp/kiln-escaped-file.txt"));

        // Everything evaluated up front, two sandboxes at a time.
        QElapsedTimer timer;
        timer.start();
        QString missing;
        m_results = judgeAll(*m_pool, m_tasks, Backend::Cpu, m_expectations, kSecret, &missing);
        QVERIFY2(missing.isEmpty(), qPrintable(missing + QStringLiteral(": its task is unknown")));
        qInfo("%lld candidates evaluated in %lld ms", qint64(m_results.size()), timer.elapsed());
    }

    void verdicts_data()
    {
        QTest::addColumn<QString>("path");
        for (const Expectation &e : std::as_const(m_expectations))
            QTest::newRow(qPrintable(QFileInfo(e.path).fileName())) << e.path;
    }

    void verdicts()
    {
        QFETCH(QString, path);
        const Expectation e = readExpectation(path);
        const EvaluationResult result = m_results.value(path);
        const QString mismatch = expectationMismatch(e, result);
        QVERIFY2(mismatch.isEmpty(),
                 qPrintable(mismatch + QStringLiteral(": ") + describeResult(path, result)));
        if (e.verdict == QLatin1String("pass"))
            QVERIFY(result.speedup.has_value() && *result.speedup > 0.0);
    }

    void flagsPointAtLines_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("flag");
        QTest::addColumn<int>("line");
        QTest::newRow("dlsym") << "cpu/game_dlsym.cpp"
                               << "dynamic_loading" << 8;
        QTest::newRow("token pasting") << "cpu/game_token_paste.cpp"
                                       << "dynamic_loading" << 9;
        QTest::newRow("half") << "cpu/game_half_precision.cpp"
                              << "precision_downgrade" << 7;
        QTest::newRow("detach") << "cpu/game_detached_thread.cpp"
                                << "threads_detached" << 10;
    }

    void flagsPointAtLines()
    {
        QFETCH(QString, file);
        QFETCH(QString, flag);
        QFETCH(int, line);
        const EvaluationResult result =
            m_results.value(QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/") + file);
        for (const CheatFlag &f : result.flags) {
            if (f.id == flag) {
                QVERIFY2(f.lines.contains(line), qPrintable(QStringLiteral("lines %1").arg([&] {
                             QStringList l;
                             for (int x : f.lines)
                                 l << QString::number(x);
                             return l.join(QLatin1Char(','));
                         }())));
                QVERIFY(!f.message.isEmpty());
                return;
            }
        }
        QFAIL("flag missing");
    }

    // Correct on every declared shape, wrong on the sizes drawn from the secret: judged wrong on
    // the hidden set, which the user's result describes in full and a policy's feedback names
    // only; a bug on the visible set is described to the policy as before.
    void hiddenFailuresAreNotShownToPolicies()
    {
        const QString cpu = QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/");
        for (const char *file :
             {"game_declared_shapes_only.cpp", "game_declared_shape_dispatch.cpp"}) {
            const EvaluationResult hidden = m_results.value(cpu + QLatin1String(file));
            const StageResult *correctness = hidden.stage(QStringLiteral("correctness"));
            QVERIFY(correctness);
            QCOMPARE(correctness->data.value(QStringLiteral("failed_on")).toString(),
                     QStringLiteral("hidden"));
            QVERIFY(correctness->data.value(QStringLiteral("hidden_shapes")).toInt() > 0);
            const QJsonObject failure =
                correctness->data.value(QStringLiteral("failure")).toObject();
            QCOMPARE(failure.value(QStringLiteral("set")).toString(), QStringLiteral("hidden"));
            const QString shape = failure.value(QStringLiteral("shape")).toString();
            QVERIFY2(hidden.summary.contains(QStringLiteral("hidden ") + shape),
                     qPrintable(hidden.summary));
            const QString feedback = FeedbackSummary::describe(hidden);
            QVERIFY2(feedback.contains(u"wrong on hidden inputs (shape and values not shown)"),
                     qPrintable(feedback));
            for (const QString &secret : {shape, QStringLiteral("got"), QStringLiteral("expected")})
                QVERIFY2(!feedback.contains(secret),
                         qPrintable(secret + QStringLiteral(" in ") + feedback));
        }
        const EvaluationResult visible =
            m_results.value(cpu + QStringLiteral("bug_off_by_one.cpp"));
        QCOMPARE(visible.stage(QStringLiteral("correctness"))
                     ->data.value(QStringLiteral("failed_on"))
                     .toString(),
                 QStringLiteral("visible"));
        const QString feedback = FeedbackSummary::describe(visible);
        QVERIFY2(feedback.contains(u"got") && feedback.contains(u"expected"), qPrintable(feedback));
    }

    // After every hostile candidate the same verifier judges an honest one normally.
    void hostileThenHonest_data()
    {
        QTest::addColumn<QString>("path");
        for (const Expectation &e : std::as_const(m_expectations))
            if (e.path.contains(QLatin1String("/hostile/")))
                QTest::newRow(qPrintable(QFileInfo(e.path).fileName())) << e.path;
    }

    void hostileThenHonest()
    {
        QFETCH(QString, path);
        const Expectation e = readExpectation(path);
        QCOMPARE(verdictName(m_results.value(path).verdict), e.verdict);
        const EvaluationResult next = m_pool->verifier().evaluate(
            task(QStringLiteral("vector_add")), Backend::Cpu,
            readFile(
                QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/vector_add_naive.cpp")),
            kSecret);
        QCOMPARE(verdictName(next.verdict), QStringLiteral("pass"));
    }

    void hostileLeftNothingBehind()
    {
        // No candidate sandbox and no forked child survives its evaluation; what stays are the
        // idle timing baselines (reference code only), and they go when released.
        Verifier &verifier = m_pool->verifier();
        QTRY_COMPARE_WITH_TIMEOUT(childProcesses(), verifier.idleBaselineSandboxes(), 5000);
        QVERIFY(verifier.idleBaselineSandboxes() > 0);
        verifier.releaseIdleSandboxes();
        QTRY_COMPARE_WITH_TIMEOUT(childProcesses(), 0, 5000);
    }

    // Landlock keeps a candidate's writes inside its work directory; without it (an older
    // kernel) such writes are only flagged, and there is nothing here to check.
    void landlockKeptTheWriteInside()
    {
        const EvaluationResult written = m_results.value(
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/hostile/write_file.cpp"));
        const QString isolation =
            written.stages.last().data.value(QStringLiteral("isolation")).toString();
        if (isolation.contains(QLatin1String("landlock=0")))
            QSKIP("Landlock unavailable: writes outside the work directory are only flagged");
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/kiln-escaped-file.txt")));
    }

    void diagnosticsHaveLines()
    {
        const EvaluationResult result = m_results.value(
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/bug_syntax.cpp"));
        const StageResult *compile = result.stage(QStringLiteral("compile"));
        QVERIFY(compile);
        const QJsonArray diagnostics = compile->data.value(QStringLiteral("diagnostics")).toArray();
        QVERIFY(!diagnostics.isEmpty());
        QCOMPARE(diagnostics.first()[QStringLiteral("line")].toInt(), 5);
        QVERIFY(compile->detail.startsWith(QStringLiteral("line 5")));
    }

    void jsonDocumentOfCli()
    {
        const EvaluationResult result = m_results.value(
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/vector_add_naive.cpp"));
        const QJsonObject json = result.toJson();
        for (const char *key : {"verdict", "correct", "speedup", "candidate_ms", "baseline_ms",
                                "roofline_fraction", "flags", "stages"})
            QVERIFY2(json.contains(QLatin1String(key)), key);
        QStringList names;
        for (const QJsonValue &stage : json.value(QStringLiteral("stages")).toArray()) {
            names << stage[QStringLiteral("name")].toString();
            QVERIFY(stage[QStringLiteral("ms")].isDouble());
        }
        QCOMPARE(names, (QStringList{QStringLiteral("screen"), QStringLiteral("compile"),
                                     QStringLiteral("correctness"), QStringLiteral("timing"),
                                     QStringLiteral("verdict")}));
        const QJsonObject timing = result.stage(QStringLiteral("timing"))->data;
        for (const char *key : {"n", "mean", "median", "std", "sem", "min", "max"})
            QVERIFY(
                timing.value(QStringLiteral("candidate")).toObject().contains(QLatin1String(key)));
    }

    void compileCacheHits()
    {
        const QString source = readFile(
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/transpose_naive.cpp"));
        const EvaluationResult again = m_pool->verifier().evaluate(
            task(QStringLiteral("transpose")), Backend::Cpu, source, kSecret);
        const StageResult *compile = again.stage(QStringLiteral("compile"));
        QVERIFY(compile && compile->data.value(QStringLiteral("cached")).toBool());
        QVERIFY2(compile->ms < 200, qPrintable(QString::number(compile->ms)));
        QCOMPARE(again.verdict, Verdict::Pass);
    }

    void baselineOutlivesTheThreadThatStartedIt()
    {
        // Evaluations run on threads that end with their round; the baseline sandbox kept for
        // the next evaluation must not end with them.
        Verifier verifier(m_options);
        const int before = childProcesses(true);
        EvaluationResult result;
        std::thread round([&] {
            result = verifier.evaluate(
                task(QStringLiteral("vector_add")), Backend::Cpu,
                readFile(QStringLiteral(KILN_SOURCE_DIR
                                        "/tests/data/candidates/cpu/vector_add_naive.cpp")),
                kSecret);
        });
        round.join();
        QCOMPARE(result.verdict, Verdict::Pass);
        QCOMPARE(verifier.idleBaselineSandboxes(), 1);
        QTest::qWait(300); // a parent-death signal would have arrived by now
        QCOMPARE(childProcesses(true), before + 1);
        const EvaluationResult again = verifier.evaluate(
            task(QStringLiteral("vector_add")), Backend::Cpu,
            readFile(
                QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/vector_add_naive.cpp")),
            kSecret);
        QCOMPARE(again.verdict, Verdict::Pass);
    }

    // The task's own reference crashing is the verifier's failure: an honest candidate is
    // neither a crash nor wrong, and the summary says whose failure it was.
    void referenceFailureIsTheVerifiers()
    {
        Task broken = task(QStringLiteral("vector_add"));
        QString &reference = broken.referenceSource[Backend::Cpu];
        QVERIFY(reference.contains(u"c[i] = a[i] + b[i];"_s));
        reference.replace(u"c[i] = a[i] + b[i];"_s,
                          u"c[i] = a[i] + b[i]; if (n > 0) __builtin_trap();"_s);
        broken.name = u"vector_add_broken_reference"_s; // not the healthy task's cached reference
        Verifier verifier(m_options);
        const EvaluationResult result = verifier.evaluate(
            broken, Backend::Cpu,
            readFile(
                QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/vector_add_naive.cpp")),
            kSecret);
        QCOMPARE(verdictName(result.verdict), u"verifier_error"_s);
        QVERIFY2(result.summary.contains(u"not the candidate"_s), qPrintable(result.summary));
        QVERIFY(!result.speedup);
    }

    void cancelStopsAnEndlessLoop()
    {
        std::atomic<bool> cancel{false};
        QElapsedTimer timer;
        timer.start();
        QThread *stopper = QThread::create([&cancel] {
            QThread::msleep(300);
            cancel = true;
        });
        stopper->start();
        VerifierOptions options = m_options;
        options.callTimeoutMs = 60000; // only the cancel flag can end it early
        Verifier verifier(options);
        const EvaluationResult result = verifier.evaluate(
            task(QStringLiteral("vector_add")), Backend::Cpu,
            readFile(
                QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/hostile/infinite_loop.cpp")),
            kSecret, cancel);
        stopper->wait();
        delete stopper;
        QVERIFY(result.verdict != Verdict::Pass);
        QVERIFY2(timer.elapsed() < 20000, qPrintable(QString::number(timer.elapsed())));
    }
};

QTEST_GUILESS_MAIN(TestVerifierCpu)
#include "tst_verifiercpu.moc"
