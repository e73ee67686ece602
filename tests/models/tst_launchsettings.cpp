// The run launcher's settings without widgets: field-by-field problems, the argument words (which
// the real parser must read back as the same run), the shown command line, and remembering.
#include "engine/runarguments.h"
#include "models/launchsettings.h"
#include "policies/offline/offlinepolicy.h"
#include "tasks/tasklibrary.h"

#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

namespace {

CudaAvailability noGpu()
{
    CudaAvailability none;
    none.reason = QStringLiteral("no NVIDIA driver");
    return none;
}

QStringList fieldsOf(const QList<LaunchSettings::Problem> &problems)
{
    QStringList fields;
    for (const LaunchSettings::Problem &p : problems)
        fields << p.field;
    return fields;
}

LaunchSettings valid()
{
    LaunchSettings s;
    s.tasks = {QStringLiteral("softmax")};
    s.backend = QStringLiteral("cpu");
    s.database = QStringLiteral("work.db");
    return s;
}

} // namespace

class TstLaunchSettings : public QObject
{
    Q_OBJECT

private:
    TaskLibrary m_library = TaskLibrary::standard();
    std::function<bool(const QString &)> m_env = [](const QString &name) {
        return name == QLatin1String("KEY_THAT_IS_SET");
    };

private slots:
    void validSettingsHaveNoProblem()
    {
        QVERIFY(valid().problems(m_library, noGpu(), m_env).isEmpty());
    }

    void eachBadFieldHasItsMessage_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        QTest::newRow("no task") << "task"
                                 << "Pick a task";
        QTest::newRow("unknown task") << "task"
                                      << "There is no task 'nosuch'";
        QTest::newRow("cuda without gpu") << "backend"
                                          << "No usable GPU: no NVIDIA driver";
        QTest::newRow("skill") << "offline"
                               << "between 0 and 1";
        QTest::newRow("lenient on cuda") << "verifier"
                                         << "CPU backend only";
        QTest::newRow("preset") << "offline"
                                << "Unknown model preset 'genius'";
        QTest::newRow("endpoint") << "endpoint"
                                  << "http:// or https://";
        QTest::newRow("model") << "model"
                               << "Name the model";
        QTest::newRow("key variable") << "apiKeyEnv"
                                      << "MISSING_KEY is not set";
        QTest::newRow("replay") << "replay"
                                << "Pick the recorded run";
        QTest::newRow("agent command") << "agentCommand"
                                       << "the agent's command line";
        QTest::newRow("strategy parameter") << "param:beams"
                                            << "beams";
        QTest::newRow("budget") << "budget"
                                << "more than 0";
        QTest::newRow("fractional count") << "budget"
                                          << "whole units";
        QTest::newRow("seeds") << "seeds"
                               << "between 1 and 100";
        QTest::newRow("database") << "database"
                                  << "Choose the database";
        QTest::newRow("slurm without partition") << "slurmPartition"
                                                 << "Name the Slurm partition";
        QTest::newRow("executor") << "executor"
                                  << "locally or on Slurm";
        QTest::newRow("tasks at once") << "tasksAtOnce"
                                       << "at least one task at once";
    }
    void eachBadFieldHasItsMessage()
    {
        QFETCH(QString, field);
        QFETCH(QString, message);
        LaunchSettings s = valid();
        const QString row = QString::fromLatin1(QTest::currentDataTag());
        if (row == QLatin1String("no task"))
            s.tasks.clear();
        else if (row == QLatin1String("unknown task"))
            s.tasks = {QStringLiteral("nosuch")};
        else if (row == QLatin1String("cuda without gpu"))
            s.backend = QStringLiteral("cuda");
        else if (row == QLatin1String("skill"))
            s.skill = 1.5;
        else if (row == QLatin1String("lenient on cuda")) {
            s.verifier = QStringLiteral("lenient");
            s.backend = QStringLiteral("auto");
        } else if (row == QLatin1String("preset"))
            s.preset = QStringLiteral("genius");
        else if (row == QLatin1String("endpoint") || row == QLatin1String("model") ||
                 row == QLatin1String("key variable")) {
            s.policy = QStringLiteral("llm");
            s.endpoint = row == QLatin1String("endpoint") ? QStringLiteral("localhost:8000")
                                                          : QStringLiteral("http://h:8000/v1");
            s.model = row == QLatin1String("model") ? QString() : QStringLiteral("m");
            s.apiKeyEnv =
                row == QLatin1String("key variable") ? QStringLiteral("MISSING_KEY") : QString();
        } else if (row == QLatin1String("replay"))
            s.policy = QStringLiteral("replay");
        else if (row == QLatin1String("agent command"))
            s.policy = QStringLiteral("command");
        else if (row == QLatin1String("strategy parameter")) {
            s.strategy = QStringLiteral("beam");
            s.strategyParameters = {{QStringLiteral("beams"), 0}};
        } else if (row == QLatin1String("budget"))
            s.budget = 0;
        else if (row == QLatin1String("fractional count"))
            s.budget = 2.5;
        else if (row == QLatin1String("seeds"))
            s.seeds = 0;
        else if (row == QLatin1String("database"))
            s.database.clear();
        else if (row == QLatin1String("slurm without partition"))
            s.executor = QStringLiteral("slurm");
        else if (row == QLatin1String("executor"))
            s.executor = QStringLiteral("mpi");
        else if (row == QLatin1String("tasks at once"))
            s.tasksAtOnce = 0;
        const QList<LaunchSettings::Problem> problems = s.problems(m_library, noGpu(), m_env);
        QCOMPARE(fieldsOf(problems), QStringList{field});
        QVERIFY2(problems.first().message.contains(message), qPrintable(problems.first().message));
    }

    void aSetKeyVariableIsFine()
    {
        LaunchSettings s = valid();
        s.policy = QStringLiteral("llm");
        s.endpoint = QStringLiteral("https://api.example.com/v1");
        s.model = QStringLiteral("m");
        s.apiKeyEnv = QStringLiteral("KEY_THAT_IS_SET");
        QVERIFY(s.problems(m_library, noGpu(), m_env).isEmpty());
    }

    // The command policy's fields reach kiln-cli as --command and command.* parameters.
    void anAgentCommandParsesBack()
    {
        LaunchSettings s = valid();
        s.policy = QStringLiteral("command");
        s.agentCommand = QStringLiteral("codex exec --json \"$(cat prompt.md)\"");
        s.agentTimeoutSeconds = 900;
        s.agentReadable = QStringLiteral("/opt/agents:/srv/tools");
        QVERIFY(s.problems(m_library, noGpu(), m_env).isEmpty());
        QString error;
        const auto parsed = RunArguments::parse(s.arguments(), &error);
        QVERIFY2(parsed, qPrintable(error));
        QCOMPARE(parsed->config.policy, QStringLiteral("command"));
        const QVariantMap &p = parsed->config.policyParameters;
        QCOMPARE(p.value(QStringLiteral("command")).toString(), s.agentCommand);
        QCOMPARE(p.value(QStringLiteral("command.timeout")).toInt(), 900);
        QCOMPARE(p.value(QStringLiteral("command.read")).toString(), s.agentReadable);
    }

    // The words the launcher starts a run with are read by the real parser as the same run.
    void argumentsParseBackToTheSameRun()
    {
        LaunchSettings s = valid();
        s.tasks = {QStringLiteral("softmax"), QStringLiteral("transpose")};
        s.strategy = QStringLiteral("beam");
        s.strategyParameters = {{QStringLiteral("beams"), 3},
                                {QStringLiteral("keep_parents"), false}};
        s.skill = 0.8;
        s.budget = 50;
        s.budgetAxis = QStringLiteral("samples");
        s.seed = 9;
        s.database = QStringLiteral("my runs.db");
        s.tasksAtOnce = 2;
        QString error;
        const auto parsed = RunArguments::parse(s.arguments(2), &error);
        QVERIFY2(parsed, qPrintable(error));
        QCOMPARE(parsed->config.tasks, s.tasks);
        QCOMPARE(parsed->config.tasksAtOnce, 2);
        QCOMPARE(parsed->config.strategy, QStringLiteral("beam"));
        QCOMPARE(parsed->config.backend, Backend::Cpu);
        QCOMPARE(parsed->config.budget, 50.0);
        QCOMPARE(parsed->config.budgetAxis, BudgetAxis::Samples);
        QCOMPARE(parsed->config.seed, quint64(11));
        QCOMPARE(parsed->config.strategyParameters.value(QStringLiteral("beams")).toInt(), 3);
        QCOMPARE(parsed->config.strategyParameters.value(QStringLiteral("keep_parents")).toBool(),
                 false);
        QCOMPARE(parsed->config.policyParameters.value(QStringLiteral("skill")).toDouble(), 0.8);
        // Defaults stay off the line.
        QVERIFY(!parsed->config.policyParameters.contains(QStringLiteral("wrong_rate")));
        QCOMPARE(parsed->database, QStringLiteral("my runs.db"));
        QCOMPARE(parsed->config.verifier, QStringLiteral("strict"));

        // A preset travels by name; only the settings changed from it are passed, and the
        // lenient verifier is asked for by name.
        LaunchSettings weak = valid();
        const OfflinePolicyOptions preset =
            *OfflinePolicyOptions::fromPreset(QStringLiteral("weak"));
        weak.preset = QStringLiteral("weak");
        weak.skill = preset.skill;
        weak.compileErrorRate = preset.compileErrorRate;
        weak.wrongRate = preset.wrongRate;
        weak.gamingRate = 0.3;
        weak.verifier = QStringLiteral("lenient");
        const auto parsedWeak = RunArguments::parse(weak.arguments(), &error);
        QVERIFY2(parsedWeak, qPrintable(error));
        QCOMPARE(parsedWeak->config.verifier, QStringLiteral("lenient"));
        const QVariantMap &w = parsedWeak->config.policyParameters;
        QCOMPARE(w.value(QStringLiteral("preset")).toString(), QStringLiteral("weak"));
        QCOMPARE(w.value(QStringLiteral("gaming_rate")).toDouble(), 0.3);
        QVERIFY(!w.contains(QStringLiteral("skill")) && !w.contains(QStringLiteral("wrong_rate")));

        LaunchSettings llm = valid();
        llm.policy = QStringLiteral("llm");
        llm.endpoint = QStringLiteral("http://localhost:8000/v1");
        llm.model = QStringLiteral("qwen");
        llm.apiKeyEnv = QStringLiteral("MY_KEY");
        llm.reasoningEffort = QStringLiteral("low");
        llm.pricePrompt = 0.5;
        const auto parsedLlm = RunArguments::parse(llm.arguments(), &error);
        QVERIFY2(parsedLlm, qPrintable(error));
        const QVariantMap &p = parsedLlm->config.policyParameters;
        QCOMPARE(parsedLlm->config.policy, QStringLiteral("llm"));
        QCOMPARE(p.value(QStringLiteral("endpoint")).toString(), llm.endpoint);
        QCOMPARE(p.value(QStringLiteral("api_key_env")).toString(), QStringLiteral("MY_KEY"));
        QCOMPARE(p.value(QStringLiteral("llm.reasoning_effort")).toString(), QStringLiteral("low"));
        QCOMPARE(p.value(QStringLiteral("llm.price_prompt")).toString(), QStringLiteral("0.5"));

        // Evaluations on Slurm: the partition, GPUs and job count reach the run's config.
        LaunchSettings cluster = valid();
        cluster.executor = QStringLiteral("slurm");
        cluster.slurmPartition = QStringLiteral("gpu");
        cluster.slurmGpus = 1;
        cluster.slurmMaxJobs = 12;
        QVERIFY(cluster.problems(m_library, noGpu(), m_env).isEmpty());
        const auto parsedCluster = RunArguments::parse(cluster.arguments(), &error);
        QVERIFY2(parsedCluster, qPrintable(error));
        QVERIFY(parsedCluster->config.onSlurm());
        QCOMPARE(parsedCluster->config.slurm.partition, QStringLiteral("gpu"));
        QCOMPARE(parsedCluster->config.slurm.gpus, 1);
        QCOMPARE(parsedCluster->config.slurm.maxJobs, 12);
        QVERIFY(!RunArguments::parse(valid().arguments(), &error)->config.onSlurm());
    }

    void commandLineIsTheSameRun()
    {
        LaunchSettings s = valid();
        QCOMPARE(s.commandLine(),
                 QStringLiteral("kiln-cli run --task softmax --strategy best-of-n --backend cpu "
                                "--budget 32 --seed 1 --db work.db"));
        s.seeds = 3;
        s.seed = 4;
        QCOMPARE(s.commandLine(),
                 QStringLiteral("for seed in 4 5 6; do kiln-cli run --task softmax --strategy "
                                "best-of-n --backend cpu --budget 32 --seed \"$seed\" --db "
                                "work.db; done"));
    }

    void rememberedBetweenSessions()
    {
        QTemporaryDir dir;
        LaunchSettings s = valid();
        s.strategy = QStringLiteral("mcts");
        s.strategyParameters = {{QStringLiteral("exploration"), 0.9}};
        s.policy = QStringLiteral("llm");
        s.endpoint = QStringLiteral("http://x:1/v1");
        s.seeds = 5;
        s.seed = 42;
        s.executor = QStringLiteral("slurm");
        s.slurmPartition = QStringLiteral("batch");
        s.slurmMaxJobs = 7;
        s.tasks = {QStringLiteral("softmax"), QStringLiteral("matmul")};
        s.tasksAtOnce = 2;
        {
            QSettings settings(dir.filePath(QStringLiteral("k.ini")), QSettings::IniFormat);
            s.save(settings);
        }
        QSettings settings(dir.filePath(QStringLiteral("k.ini")), QSettings::IniFormat);
        const LaunchSettings back = LaunchSettings::load(settings);
        QCOMPARE(back.arguments(), s.arguments());
        QCOMPARE(back.seeds, 5);
        QCOMPARE(back.tasksAtOnce, 2);
    }
};

QTEST_GUILESS_MAIN(TstLaunchSettings)
#include "tst_launchsettings.moc"
