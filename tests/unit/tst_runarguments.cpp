// The options of `kiln-cli run` as the engine reads them (engine/runarguments.h): the command
// line, `kiln --new-run` and the launcher all parse them here.
#include "engine/runarguments.h"

#include <QProcess>
#include <QTest>

using namespace kiln;

class TstRunArguments : public QObject
{
    Q_OBJECT

private slots:
    void parsesEveryKindOfSetting()
    {
        QString error;
        const auto parsed =
            RunArguments::parse({QStringLiteral("--suite"),       QStringLiteral("softmax,matmul"),
                                 QStringLiteral("--strategy"),    QStringLiteral("beam"),
                                 QStringLiteral("--backend"),     QStringLiteral("cpu"),
                                 QStringLiteral("--budget"),      QStringLiteral("40"),
                                 QStringLiteral("--budget-axis"), QStringLiteral("samples"),
                                 QStringLiteral("--seed"),        QStringLiteral("7"),
                                 QStringLiteral("--param"),       QStringLiteral("beams=3"),
                                 QStringLiteral("--param"),       QStringLiteral("skill=0.8"),
                                 QStringLiteral("--param"),       QStringLiteral("round_limit=4"),
                                 QStringLiteral("--param"),       QStringLiteral("sandboxes=2"),
                                 QStringLiteral("--db"),          QStringLiteral("w.db"),
                                 QStringLiteral("--tasks-dir"),   QStringLiteral("/a"),
                                 QStringLiteral("--json")},
                                &error);
        QVERIFY2(parsed, qPrintable(error));
        const RunConfig &c = parsed->config;
        QCOMPARE(c.tasks, (QStringList{QStringLiteral("softmax"), QStringLiteral("matmul")}));
        QCOMPARE(c.strategy, QStringLiteral("beam"));
        QCOMPARE(c.backend, Backend::Cpu);
        QCOMPARE(c.budget, 40.0);
        QCOMPARE(c.budgetAxis, BudgetAxis::Samples);
        QCOMPARE(c.seed, quint64(7));
        QCOMPARE(c.strategyParameters.value(QStringLiteral("beams")).toInt(), 3);
        QCOMPARE(c.policyParameters.value(QStringLiteral("skill")).toString(),
                 QStringLiteral("0.8"));
        QCOMPARE(c.roundLimit, 4);
        QCOMPARE(parsed->sandboxes, 2);
        QCOMPARE(parsed->database, QStringLiteral("w.db"));
        QCOMPARE(parsed->tasksDirs, QStringList{QStringLiteral("/a")});
    }

    void defaultsMatchTheCommandLine()
    {
        QString error;
        const auto parsed =
            RunArguments::parse({QStringLiteral("--task"), QStringLiteral("vector_add"),
                                 QStringLiteral("--backend"), QStringLiteral("cpu")},
                                &error);
        QVERIFY2(parsed, qPrintable(error));
        QCOMPARE(parsed->config.strategy, QStringLiteral("best-of-n"));
        QCOMPARE(parsed->config.policy, QStringLiteral("offline"));
        QCOMPARE(parsed->config.budget, 32.0);
        QCOMPARE(parsed->config.seed, quint64(1));
        QVERIFY(parsed->database.isEmpty()); // not given: the caller decides
        QCOMPARE(parsed->sandboxes, 0);
        QCOMPARE(parsed->config.profile, QStringLiteral("none"));
        // A run keeps the wish with its configuration (the CUDA backend needs a GPU to parse).
        RunConfig profiled = parsed->config;
        profiled.profile = QStringLiteral("all");
        QCOMPARE(RunConfig::fromJson(profiled.toJson()).profile, QStringLiteral("all"));
        QVERIFY(RunConfig::profileProblem(QStringLiteral("best"), Backend::Cuda).isEmpty());
    }

    void rejectsBadInput_data()
    {
        QTest::addColumn<QStringList>("words");
        QTest::addColumn<QString>("message");
        const QString task = QStringLiteral("--task");
        const QString va = QStringLiteral("vector_add");
        const QString cpu = QStringLiteral("--backend=cpu");
        QTest::newRow("no task") << QStringList{cpu} << QStringLiteral("--task NAME");
        QTest::newRow("budget") << QStringList{task, va, cpu, QStringLiteral("--budget"),
                                               QStringLiteral("0")}
                                << QStringLiteral("--budget must be a positive number");
        QTest::newRow("axis") << QStringList{task, va, cpu, QStringLiteral("--budget-axis"),
                                             QStringLiteral("parsecs")}
                              << QStringLiteral("--budget-axis");
        QTest::newRow("strategy") << QStringList{task, va, cpu, QStringLiteral("--strategy"),
                                                 QStringLiteral("annealing")}
                                  << QStringLiteral("unknown strategy 'annealing'");
        QTest::newRow("param") << QStringList{task, va, cpu, QStringLiteral("--param"),
                                              QStringLiteral("colour=red")}
                               << QStringLiteral("unknown parameter 'colour'");
        QTest::newRow("param range") << QStringList{task,
                                                    va,
                                                    cpu,
                                                    QStringLiteral("--strategy"),
                                                    QStringLiteral("beam"),
                                                    QStringLiteral("--param"),
                                                    QStringLiteral("beams=0")}
                                     << QStringLiteral("beams");
        QTest::newRow("replay without run")
            << QStringList{task, va, cpu, QStringLiteral("--policy"), QStringLiteral("replay")}
            << QStringLiteral("--replay-run");
        QTest::newRow("command without its line")
            << QStringList{task, va, cpu, QStringLiteral("--policy"), QStringLiteral("command")}
            << QStringLiteral("needs --command");
        QTest::newRow("policy") << QStringList{task, va, cpu, QStringLiteral("--policy"),
                                               QStringLiteral("oracle")}
                                << QStringLiteral(
                                       "--policy must be offline, llm, command or replay");
        QTest::newRow("backend") << QStringList{task, va, QStringLiteral("--backend"),
                                                QStringLiteral("tpu")}
                                 << QStringLiteral("--backend must be auto, cpu, cuda or pytorch");
        QTest::newRow("profile value")
            << QStringList{task, va, cpu, QStringLiteral("--param"), QStringLiteral("profile=some")}
            << QStringLiteral("profile must be best, all or none");
        QTest::newRow("profile off cuda")
            << QStringList{task, va, cpu, QStringLiteral("--param"), QStringLiteral("profile=best")}
            << QStringLiteral("needs the cuda backend");
        QTest::newRow("stray word") << QStringList{task, va, cpu, QStringLiteral("extra")}
                                    << QStringLiteral("unexpected argument 'extra'");
        QTest::newRow("unknown option")
            << QStringList{task, va, QStringLiteral("--colour")} << QStringLiteral("colour");
    }
    void rejectsBadInput()
    {
        QFETCH(QStringList, words);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!RunArguments::parse(words, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    // What shellLine writes, a POSIX shell reads back as the same words.
    void shellLineQuotesForTheShell()
    {
        const QStringList words{
            QStringLiteral("--task"),  QStringLiteral("softmax"),
            QStringLiteral("--db"),    QStringLiteral("my runs/it's.db"),
            QStringLiteral("--param"), QStringLiteral("llm.extra_body={\"a\": 1}"),
            QStringLiteral("$HOME"),   QString()};
        const QString line = RunArguments::shellLine(words);
        QVERIFY(line.startsWith(QStringLiteral("--task softmax --db ")));
        QProcess sh;
        sh.start(QStringLiteral("/bin/sh"),
                 {QStringLiteral("-c"), QStringLiteral("for w in ") + line +
                                            QStringLiteral("; do printf '%s\\n' \"$w\"; done")});
        QVERIFY(sh.waitForFinished(10000));
        QStringList echoed = QString::fromUtf8(sh.readAllStandardOutput()).split(QLatin1Char('\n'));
        echoed.removeLast(); // after the last newline
        QCOMPARE(echoed, words);
    }
};

QTEST_GUILESS_MAIN(TstRunArguments)
#include "tst_runarguments.moc"
