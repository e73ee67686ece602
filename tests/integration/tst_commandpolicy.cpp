// The command policy with real scripted agents (tests/data/agents) under the real
// kiln-agent-sandbox: an agent that edits the parent, one that hangs, one that writes nothing,
// one whose JSON breaks off, one that reads outside its folder; the recorded output formats of
// Claude Code, Codex and Gemini CLI; and whole searches through kiln-cli (refine, agents).
#include "kilncli.h"
#include "policies/command/agentoutput.h"
#include "policies/command/commandpolicy.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <sys/types.h>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

// A child killed but not yet reaped (its new parent reaps it when it can).
bool isZombie(pid_t pid)
{
    QFile stat(u"/proc/%1/stat"_s.arg(pid));
    return stat.open(QIODevice::ReadOnly) && stat.readAll().split(' ').value(2) == "Z";
}

const QString kAgents = QStringLiteral(KILN_SOURCE_DIR "/tests/data/agents");

QString agent(const QString &script)
{
    return u"sh "_s + kAgents + u'/' + script;
}

// A file outside any agent's folder, as the workspace database or another run's would be; its
// path, or empty when it could not be written.
QString writeSecret(const QTemporaryDir &dir, const QString &name, const QByteArray &text)
{
    QFile file(dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        return {};
    return file.fileName();
}

// kiln-cli run on vector_add (CPU) with edit_parent.sh as the agent, one trajectory wide, into db.
test::CliOutcome runAgentSearch(const QString &db, const QStringList &options)
{
    return test::runCli(
        QStringList{u"run"_s, u"--task"_s, u"vector_add"_s, u"--backend"_s, u"cpu"_s, u"--policy"_s,
                    u"command"_s, u"--command"_s, agent(u"edit_parent.sh"_s), u"--param"_s,
                    u"command.read="_s + kAgents, u"--param"_s, u"width=1"_s, u"--db"_s, db} +
            options,
        120000);
}

} // namespace

class TestCommandPolicy : public QObject
{
    Q_OBJECT

    TaskLibrary m_tasks = TaskLibrary::standard();

    CommandPolicyConfig config(const QString &command, int timeoutSeconds = 60) const
    {
        CommandPolicyConfig c = CommandPolicyConfig::withDefaults(command);
        c.sandbox = QStringLiteral(KILN_BINARY_DIR "/bin/kiln-agent-sandbox");
        c.readable << kAgents; // as --param command.read=DIR gives a user's own scripts
        c.timeoutSeconds = timeoutSeconds;
        return c;
    }

    GenerationRequest request(Operation operation = Operation::Sample) const
    {
        GenerationRequest r;
        r.task = m_tasks.task(u"vector_add"_s);
        r.backend = Backend::Cpu;
        r.operation = operation;
        return r;
    }

    GenerationResult generate(const CommandPolicyConfig &c, const GenerationRequest &r)
    {
        CommandPolicy policy(c);
        const std::atomic<bool> cancel{false};
        return policy.generate(r, cancel);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tasks.task(u"vector_add"_s));
        QVERIFY2(QFileInfo(u"" KILN_BINARY_DIR "/bin/kiln-agent-sandbox"_s).isExecutable(),
                 "kiln-agent-sandbox is not built");
        qputenv("KILN_CACHE_DIR", QByteArray(KILN_BINARY_DIR "/test-compile-cache"));
    }

    // The agent reads parent.cpp and feedback.md from its folder and writes candidate.cpp.
    void anAgentThatEditsTheParent()
    {
        GenerationRequest r = request(Operation::Refine);
        CandidateRecord parent;
        parent.id = 41;
        parent.source = r.task->referenceSource.value(Backend::Cpu);
        r.parents = {parent};
        EvaluationResult evaluation;
        evaluation.verdict = Verdict::Wrong;
        evaluation.summary = u"wrong: output 0 differs at index 7"_s;
        r.parentEvaluations = {evaluation};
        const GenerationResult g = generate(config(agent(u"edit_parent.sh"_s)), r);
        QVERIFY2(g.ok, qPrintable(g.error));
        QCOMPARE(g.candidate.source, u"// edited by the scripted agent\n"_s + parent.source);
        QCOMPARE(g.candidate.parent, 41);
        QCOMPARE(g.candidate.policy, u"command"_s);
        QVERIFY(g.candidate.prompt.contains(u"parent.*"_s));
        QVERIFY2(g.candidate.response.contains(u"wrote candidate.cpp from parent.cpp"_s),
                 qPrintable(g.candidate.response));
        const QJsonObject meta = g.candidate.policyMeta;
        QCOMPARE(meta.value(u"candidate_from"_s).toString(), u"candidate.cpp"_s);
        QCOMPARE(meta.value(u"agent_format"_s).toString(), u"text"_s);
        QCOMPARE(meta.value(u"usage_reported"_s).toBool(), false);
        QCOMPARE(meta.value(u"cost_known"_s).toBool(), false);
        QCOMPARE(meta.value(u"exit_code"_s).toInt(), 0);
    }

    // A hang ends at the time limit with the agent's whole process group, its children too.
    void anAgentThatHangs()
    {
        QElapsedTimer timer;
        timer.start();
        const GenerationResult g = generate(config(agent(u"hang.sh"_s), 2), request());
        QVERIFY(!g.ok);
        QVERIFY2(g.error.contains(u"did not finish within 2 s"_s), qPrintable(g.error));
        QVERIFY2(timer.elapsed() < 15000, "the hang was not cut at its limit");
        QCOMPARE(g.candidate.policyMeta.value(u"timed_out"_s).toBool(), true);
        const QRegularExpressionMatch child =
            QRegularExpression(u"child (\\d+)"_s).match(g.candidate.response);
        QVERIFY2(child.hasMatch(), qPrintable(g.candidate.response));
        const pid_t pid = pid_t(child.captured(1).toInt());
        QTRY_VERIFY_WITH_TIMEOUT(::kill(pid, 0) != 0 || isZombie(pid), 5000);
    }

    void anAgentThatWritesNothing()
    {
        const GenerationResult g = generate(config(agent(u"write_nothing.sh"_s)), request());
        QVERIFY(!g.ok);
        QVERIFY2(g.error.contains(u"left no candidate.cpp and printed nothing"_s),
                 qPrintable(g.error));
        QCOMPARE(g.candidate.policyMeta.value(u"error_kind"_s).toString(), u"no_code"_s);
        // What it said on stderr is in the transcript.
        QVERIFY(g.candidate.response.contains(u"could not decide on a tiling"_s));
    }

    void anAgentWhoseJsonBreaksOff()
    {
        const GenerationResult g = generate(config(agent(u"malformed_json.sh"_s)), request());
        QVERIFY(!g.ok);
        const QJsonObject meta = g.candidate.policyMeta;
        QCOMPARE(meta.value(u"agent_format"_s).toString(), u"malformed-json"_s);
        QCOMPARE(meta.value(u"usage_reported"_s).toBool(), false);
        QCOMPARE(g.candidate.promptTokens, 0);
        QVERIFY(g.candidate.response.contains(u"half an answ"_s));
    }

    // Landlock keeps the agent inside its folder: a secret file elsewhere (as the workspace
    // database or another run would be) cannot be read, nor the memory map of Kiln's process.
    void anAgentThatReadsOutsideItsFolder()
    {
        QTemporaryDir elsewhere;
        const QString secret = writeSecret(elsewhere, u"verifier-secret.txt"_s, "SECRET-7f3a91");
        QVERIFY(!secret.isEmpty());
        qputenv("KILN_TEST_SECRET", secret.toUtf8());
        qputenv("KILN_TEST_PID", QByteArray::number(QCoreApplication::applicationPid()));
        const GenerationResult g = generate(config(agent(u"read_outside.sh"_s)), request());
        qunsetenv("KILN_TEST_SECRET");
        qunsetenv("KILN_TEST_PID");
        const QString confinement = g.candidate.policyMeta.value(u"confinement"_s).toString();
        if (!confinement.contains(u"reads=1"_s))
            QSKIP(qPrintable(u"Landlock does not confine reads here: "_s + confinement));
        QVERIFY(!g.candidate.source.contains(u"SECRET-7f3a91"_s));
        QVERIFY(!g.candidate.response.contains(u"SECRET-7f3a91"_s));
        QVERIFY(!g.ok);
        QVERIFY2(g.candidate.response.contains(u"Permission denied"_s),
                 qPrintable(g.candidate.response));
        // Nor the memory of the process that started it (Landlock's ptrace rule; run as root,
        // only because the sandbox dropped CAP_SYS_PTRACE).
        QVERIFY2(!g.candidate.response.contains(u"r-xp"_s), qPrintable(g.candidate.response));
        QVERIFY2(g.candidate.response.contains(QRegularExpression(u"/maps.*Permission denied"_s)),
                 qPrintable(g.candidate.response));
    }

    // What the agent leaves as its candidate is read only as a regular file of its folder: a
    // link to a file it may not read is not followed by Kiln, a FIFO does not block it.
    void plantedCandidates_data()
    {
        QTest::addColumn<QString>("script");
        QTest::newRow("link") << u"plant_link.sh"_s;
        QTest::newRow("fifo") << u"plant_fifo.sh"_s;
    }

    void plantedCandidates()
    {
        QFETCH(QString, script);
        QTemporaryDir elsewhere;
        const QString secret = writeSecret(elsewhere, u"key.txt"_s, "SECRET-key-41");
        QVERIFY(!secret.isEmpty());
        qputenv("KILN_TEST_SECRET", secret.toUtf8());
        QElapsedTimer timer;
        timer.start();
        const GenerationResult g = generate(config(agent(script)), request());
        qunsetenv("KILN_TEST_SECRET");
        QVERIFY(timer.elapsed() < 20000);
        QVERIFY(!g.ok);
        QVERIFY(!g.candidate.source.contains(u"SECRET-key-41"_s));
        QVERIFY2(g.error.contains(u"left no candidate.cpp"_s), qPrintable(g.error));
    }

    // The agent's process group ends with the agent: a child it left running does not outlive
    // the request, and the kernel it wrote is still taken.
    void aChildLeftRunningEnds()
    {
        const GenerationResult g = generate(config(agent(u"leave_child.sh"_s)), request());
        QVERIFY2(g.ok, qPrintable(g.error));
        const QRegularExpressionMatch child =
            QRegularExpression(u"child (\\d+)"_s).match(g.candidate.response);
        QVERIFY2(child.hasMatch(), qPrintable(g.candidate.response));
        const pid_t pid = pid_t(child.captured(1).toInt());
        QTRY_VERIFY_WITH_TIMEOUT(::kill(pid, 0) != 0 || isZombie(pid), 5000);
    }

    void noUnixSockets()
    {
        const GenerationResult g = generate(config(agent(u"unix_socket.sh"_s)), request());
        if (!g.candidate.policyMeta.value(u"confinement"_s)
                 .toString()
                 .contains(u"unix_sockets=0"_s))
            QSKIP("the seccomp filter could not be installed here");
        QVERIFY2(!g.candidate.response.contains(u"socket made"_s),
                 qPrintable(g.candidate.response));
        QVERIFY2(g.candidate.response.contains(u"Permission denied"_s),
                 qPrintable(g.candidate.response));
    }

    void recordedOutputs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("format");
        QTest::addColumn<qint64>("input");
        QTest::addColumn<qint64>("output");
        QTest::addColumn<double>("cost"); // -1: not reported
        QTest::newRow("claude code") << u"claude-code.json"_s << u"claude-code"_s
                                     << qint64(1510 + 2048 + 8192) << qint64(612) << 0.0412;
        QTest::newRow("codex") << u"codex.jsonl"_s << u"codex"_s << qint64(24763) << qint64(122)
                               << -1.0;
        QTest::newRow("gemini cli")
            << u"gemini-cli.json"_s << u"gemini-cli"_s << qint64(5120) << qint64(410 + 600) << -1.0;
    }

    // Each format's answer and usage, end to end: the agent prints it, the policy takes the code
    // block of its final message as the candidate and records the tokens and cost it reports.
    void recordedOutputs()
    {
        QFETCH(QString, file);
        QFETCH(QString, format);
        QFETCH(qint64, input);
        QFETCH(qint64, output);
        QFETCH(double, cost);
        qputenv("KILN_TEST_RECORDED", (kAgents + u'/' + file).toUtf8());
        const GenerationResult g = generate(config(agent(u"print_recorded.sh"_s)), request());
        qunsetenv("KILN_TEST_RECORDED");
        QVERIFY2(g.ok, qPrintable(g.error));
        QVERIFY(g.candidate.source.startsWith(u"extern \"C\" void vector_add"_s));
        QVERIFY(g.candidate.source.contains(u"#pragma omp simd"_s));
        const QJsonObject meta = g.candidate.policyMeta;
        QCOMPARE(meta.value(u"agent_format"_s).toString(), format);
        QCOMPARE(meta.value(u"candidate_from"_s).toString(), u"stdout"_s);
        QCOMPARE(meta.value(u"usage_reported"_s).toBool(), true);
        QCOMPARE(g.candidate.promptTokens, input);
        QCOMPARE(g.candidate.completionTokens, output);
        QCOMPARE(meta.value(u"cost_known"_s).toBool(), cost >= 0);
        if (cost >= 0)
            QCOMPARE(meta.value(u"cost"_s).toDouble(), cost);
    }

    void codexErrorsAndPlainText()
    {
        // Claude Code's --verbose output: a list of messages, the result last.
        const AgentOutput verbose = AgentOutput::parse(
            "[{\"type\":\"system\",\"subtype\":\"init\"},{\"type\":\"result\",\"is_error\":true,"
            "\"subtype\":\"error_during_execution\",\"result\":\"\"}]");
        QCOMPARE(verbose.format, u"claude-code"_s);
        QVERIFY(verbose.error.contains(u"error_during_execution"_s));
        const AgentOutput gemini = AgentOutput::parse(
            "{\"error\":{\"type\":\"ApiError\",\"message\":\"quota exceeded\"}}");
        QCOMPARE(gemini.format, u"gemini-cli"_s);
        QCOMPARE(gemini.error, u"quota exceeded"_s);
        // A warning line between Codex's events does not hide them.
        const AgentOutput warned = AgentOutput::parse(
            "{\"type\":\"thread.started\"}\nwarning: config has an unknown key\n\n"
            "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":7,\"output_tokens\":3}}\n");
        QCOMPARE(warned.format, u"codex"_s);
        QCOMPARE(warned.outputTokens, 3);
        const AgentOutput failed = AgentOutput::parse(
            "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.started\"}\n"
            "{\"type\":\"turn.failed\",\"error\":{\"message\":\"stream disconnected\"}}\n");
        QCOMPARE(failed.format, u"codex"_s);
        QCOMPARE(failed.error, u"stream disconnected"_s);
        QCOMPARE(failed.usageReported, false);
        const AgentOutput plain = AgentOutput::parse("```cpp\nint x;\n```\n");
        QCOMPARE(plain.format, u"text"_s);
        QCOMPARE(plain.text, u"```cpp\nint x;\n```\n"_s);
    }

    void usageErrors()
    {
        const test::CliOutcome noCommand =
            test::runCli({u"run"_s, u"--task"_s, u"vector_add"_s, u"--policy"_s, u"command"_s});
        QVERIFY(noCommand.status != 0);
        QVERIFY2(noCommand.err.contains("needs --command"), noCommand.err.constData());
        QTemporaryDir dir;
        const test::CliOutcome badTimeout =
            test::runCli({u"run"_s, u"--task"_s, u"vector_add"_s, u"--policy"_s, u"command"_s,
                          u"--command"_s, u"true"_s, u"--param"_s, u"command.timeout=soon"_s,
                          u"--db"_s, dir.filePath(u"w.db"_s)});
        QVERIFY(badTimeout.status != 0);
        QVERIFY2(badTimeout.err.contains("command.timeout"), badTimeout.err.constData());
    }

    // An agent that reports no cost cannot be held to a cost budget: the run stops after the
    // round that showed it instead of spending nothing, forever.
    void aCostBudgetNeedsAReportedCost()
    {
        QTemporaryDir dir;
        const test::CliOutcome o = runAgentSearch(
            dir.filePath(u"w.db"_s),
            {u"--strategy"_s, u"refine"_s, u"--budget-axis"_s, u"cost"_s, u"--budget"_s, u"1"_s});
        QVERIFY2(o.status == 0, o.err.constData());
        QVERIFY2(o.out.contains("has no known cost: a cost budget cannot be kept"),
                 o.out.constData());
        QVERIFY2(o.out.contains("run 1: 1 candidates"), o.out.constData());
    }

    // Whole searches: refine feeds each candidate back as the next one's parent; the agents
    // strategy asks the same command for its profiler's, planner's and tester's prose.
    void searchesThroughKilnCli_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("refine") << u"refine"_s;
        QTest::newRow("agents") << u"agents"_s;
    }

    void searchesThroughKilnCli()
    {
        QFETCH(QString, strategy);
        QTemporaryDir dir;
        const QString db = dir.filePath(u"w.db"_s);
        const test::CliOutcome o =
            runAgentSearch(db, {u"--strategy"_s, strategy, u"--param"_s, u"command.timeout=60"_s,
                                u"--budget"_s, u"3"_s, u"--json"_s});
        QVERIFY2(o.status == 0, o.err.constData());
        const std::unique_ptr<RunStore> store = RunStore::open(db, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        const QList<RunRecord> runs = store->runs();
        QCOMPARE(runs.size(), 1);
        const QList<CandidateRecord> candidates = store->candidates(runs.first().id);
        QVERIFY(candidates.size() >= 2);
        int edited = 0;
        int refined = 0;
        bool planned = false; // the coder's prompt holds the planner's prose
        for (const CandidateRecord &c : candidates) {
            QCOMPARE(c.policy, u"command"_s);
            edited += c.source.startsWith(u"// edited by the scripted agent"_s) ? 1 : 0;
            refined += c.parent > 0 ? 1 : 0;
            planned = planned || c.prompt.contains(u"The planner's note"_s);
        }
        if (strategy == u"agents"_s)
            QVERIFY(planned);
        QVERIFY2(edited >= 2, qPrintable(QString::number(edited)));
        QVERIFY2(refined >= 1, "no candidate was made from a parent");
        const QJsonObject verdicts = o.json().value(u"verdicts"_s).toObject();
        QVERIFY2(verdicts.value(u"pass"_s).toInt() >= 1, o.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCommandPolicy)
#include "tst_commandpolicy.moc"
