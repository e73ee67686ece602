// The agents strategy's roles over the real offline policy and the real CPU verifier: each role's
// prompt holds what the role before it produced, the profile stage is there and says why it has no
// hardware profile, and a whole run (kiln-cli) records the steps and checks the tester's shapes.
// Also the optimisation memory across two runs of one workspace.
#include "engine/agentpipeline.h"
#include "engine/reports/profilereport.h"
#include "engine/reports/trajectorylog.h"
#include "engine/verifierevaluator.h"
#include "kilncli.h"
#include "policies/offline/offlinepolicy.h"
#include "tasks/tasklibrary.h"

#include <QJsonArray>
#include <QMutex>
#include <QTemporaryDir>
#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

// The real offline policy, with every request it is given kept for the test to read; it can
// raise a stop flag once a given role has answered (a user pressing Stop mid-round).
class RecordingPolicy : public Policy
{
public:
    QString name() const override { return m_policy.name(); }
    GenerationResult generate(const GenerationRequest &request,
                              const std::atomic<bool> &cancel) override
    {
        GenerationResult result = m_policy.generate(request, cancel);
        QMutexLocker lock(&m_mutex);
        requests.append(request);
        results.append(result);
        if (stopAfter && request.role == stopAfterRole)
            *stopAfter = true;
        return result;
    }
    QList<GenerationRequest> requests;
    QList<GenerationResult> results;
    std::atomic<bool> *stopAfter = nullptr;
    QString stopAfterRole;

private:
    OfflinePolicy m_policy;
    QMutex m_mutex;
};

QString answerOf(const GenerationResult &r)
{
    return r.candidate.response.section(QLatin1Char('\n'), 1).trimmed();
}

QJsonArray candidatesOf(const QString &db, qint64 run)
{
    const test::CliOutcome o =
        test::runCli({u"export"_s, u"--db"_s, db, u"--run"_s, QString::number(run)});
    return QJsonDocument::fromJson(o.out).object().value(u"candidates"_s).toArray();
}

// Whether an exported candidate carries tester shapes and was checked on its task's own shapes
// plus every one of them.
bool checkedOnTesterShapes(const QJsonObject &candidate, int ownShapes)
{
    const int proposed = int(
        candidate.value(u"policy_meta"_s).toObject().value(u"tester_shapes"_s).toArray().size());
    for (const QJsonValue &s :
         candidate.value(u"evaluation"_s).toObject().value(u"stages"_s).toArray())
        if (s.toObject().value(u"name"_s).toString() == u"correctness"_s && proposed > 0 &&
            s.toObject().value(u"data"_s).toObject().value(u"shapes"_s).toInt() ==
                ownShapes + proposed)
            return true;
    return false;
}

} // namespace

class TestAgents : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(test::cli()), "kiln-cli is not built");
        qputenv("KILN_CACHE_DIR", QByteArray(KILN_BINARY_DIR "/test-compile-cache"));
    }

    void eachRolePromptHoldsThePreviousRolesAnswer()
    {
        const TaskLibrary library = TaskLibrary::standard();
        const Task *task = library.task(u"vector_add"_s);
        QVERIFY(task);
        VerifierEvaluator evaluator(VerifierOptions::defaults(), 1);
        RecordingPolicy policy;
        std::atomic<bool> cancel{false};
        // A correct parent, written and judged for real.
        GenerationRequest sample;
        sample.task = task;
        sample.backend = Backend::Cpu;
        sample.seed = 11;
        GenerationResult parent;
        EvaluationResult parentResult;
        // Some (seed, task) pairs hold a misconception their samples repeat: try a few seeds.
        for (qint64 i = 0; i < 24 && parentResult.verdict != Verdict::Pass; ++i) {
            sample.seed = 11 + quint64(i / 4);
            sample.sampleIndex = i;
            parent = policy.generate(sample, cancel);
            parent.candidate.id = 100 + i;
            parentResult =
                evaluator.evaluate(*task, Backend::Cpu, parent.candidate.source, 9, cancel);
        }
        QVERIFY2(parentResult.verdict == Verdict::Pass, qPrintable(parentResult.summary));

        AgentPipeline pipeline(policy, evaluator, 9);
        GenerationRequest request = sample;
        request.operation = Operation::Refine;
        request.sampleIndex = 50;
        request.agentRoles = true;
        request.parents = {parent.candidate};
        request.parentEvaluations = {parentResult};
        request.roleContext.insert(u"trajectory"_s, u"- candidate #100 (sample): first -> pass"_s);
        policy.requests.clear();
        policy.results.clear();
        const GenerationResult merged = pipeline.generate(request, cancel);
        QVERIFY2(merged.ok, qPrintable(merged.error));

        QCOMPARE(policy.requests.size(), 4);
        QStringList roles;
        for (const GenerationRequest &r : std::as_const(policy.requests))
            roles << r.role;
        QCOMPARE(roles, AgentPipeline::roles());
        const GenerationResult &profiler = policy.results[0];
        const GenerationResult &planner = policy.results[1];
        const GenerationResult &coder = policy.results[2];
        const GenerationResult &tester = policy.results[3];
        // The profiler read the profile stage's note and the verifier's data ...
        QVERIFY(profiler.candidate.prompt.contains(u"No hardware profile"_s));
        QVERIFY(profiler.candidate.prompt.contains(u"Verifier data:"_s));
        QVERIFY(profiler.candidate.prompt.contains(u"first -> pass"_s)); // the trajectory log
        // ... the planner its diagnosis, the coder the plan, the tester the coder's kernel.
        QVERIFY(!answerOf(profiler).isEmpty());
        QVERIFY(planner.candidate.prompt.contains(answerOf(profiler)));
        QVERIFY(answerOf(planner).contains(u"set "_s));
        QVERIFY(coder.candidate.prompt.contains(answerOf(planner)));
        QVERIFY(tester.candidate.prompt.contains(coder.candidate.source.trimmed()));
        QVERIFY(coder.candidate.prompt.contains(u"## Your role: coder"_s));

        // One candidate, the coder's source, every role's tokens and the five steps.
        QCOMPARE(merged.candidate.source, coder.candidate.source);
        qint64 tokens = 0;
        for (const GenerationResult &r : std::as_const(policy.results))
            tokens += r.candidate.promptTokens + r.candidate.completionTokens +
                      r.candidate.reasoningTokens;
        QCOMPARE(merged.candidate.promptTokens + merged.candidate.completionTokens +
                     merged.candidate.reasoningTokens,
                 tokens);
        const QJsonArray steps = merged.candidate.policyMeta.value(u"agent_steps"_s).toArray();
        QCOMPARE(steps.size(), 5);
        QCOMPARE(steps[0].toObject().value(u"role"_s).toString(), u"profile"_s);
        QCOMPARE(steps[2].toObject().value(u"template"_s).toString(), u"agent_planner"_s);
        QVERIFY(!merged.candidate.policyMeta.value(u"tester_shapes"_s).toArray().isEmpty());

        // A stop after the coder: the kernel never met the tester, so it is no candidate.
        std::atomic<bool> stop{false};
        policy.stopAfter = &stop;
        policy.stopAfterRole = u"coder"_s;
        const GenerationResult cut = pipeline.generate(request, stop);
        QVERIFY(!cut.ok);
        QVERIFY2(cut.error.contains(u"cancelled"_s), qPrintable(cut.error));
    }

    void trajectoryLogHoldsEveryRoundOfTheTrajectory()
    {
        QHash<qint64, CandidateRecord> candidates;
        QHash<qint64, EvaluationResult> evaluations;
        auto add = [&](qint64 id, int island, std::optional<qint64> parent, const QString &plan,
                       Verdict verdict) {
            CandidateRecord c;
            c.id = id;
            c.runId = 1;
            c.task = u"softmax"_s;
            c.island = island;
            c.sampleIndex = id;
            c.parent = parent;
            c.operation = parent ? Operation::Refine : Operation::Sample;
            if (!plan.isEmpty())
                c.policyMeta.insert(u"agent_plan"_s, plan);
            candidates.insert(id, c);
            EvaluationResult e;
            e.verdict = verdict;
            if (verdict == Verdict::Pass)
                e.speedup = 1.0 + double(id) / 10.0;
            evaluations.insert(id, e);
        };
        add(1, 0, std::nullopt, {}, Verdict::Pass);
        add(2, 1, std::nullopt, {}, Verdict::Pass); // another trajectory
        add(3, 0, 1, u"1. set TILE = 64 (it was 16)\n2. more"_s, Verdict::Wrong);
        add(4, 0, 1, u"1. set SIMD = on"_s, Verdict::Pass);
        // Round 4 refines #1 (the best), yet the log shows the failed round #3 as well.
        const QString log = TrajectoryLog::text(4, candidates, evaluations);
        const QStringList lines = log.split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines[0].startsWith(u"- candidate #1 (sample): a first version -> pass"_s));
        QCOMPARE(lines[1], u"- candidate #3 (refine): 1. set TILE = 64 (it was 16) -> wrong"_s);
        QVERIFY(lines[2].contains(u"set SIMD = on -> pass, 1.40x"_s));
        QVERIFY(!log.contains(u"#2"_s));
    }

    void profileStageSaysWhyThereIsNoHardwareProfile()
    {
        const TaskLibrary library = TaskLibrary::standard();
        const Task *task = library.task(u"vector_add"_s);
        VerifierEvaluator evaluator(VerifierOptions::defaults(), 1);
        std::atomic<bool> cancel{false};
        const StageResult cpu = evaluator.profile(*task, Backend::Cpu, u"x"_s, 1, cancel);
        QCOMPARE(cpu.name, u"profile"_s);
        QVERIFY(!cpu.ok);
        QVERIFY2(cpu.detail.contains(u"no hardware profiler for the cpu backend"_s),
                 qPrintable(cpu.detail));
        qputenv("KILN_NCU", "/nonexistent/ncu");
        const StageResult missing = evaluator.profile(*task, Backend::Cuda, u"x"_s, 1, cancel);
        QVERIFY(!missing.ok);
        QVERIFY2(missing.detail.contains(u"is missing"_s), qPrintable(missing.detail));
        // A "profiler" that starts nothing: the run under it fails and no report is written.
        qputenv("KILN_NCU", "/bin/true");
        const StageResult confined = evaluator.profile(*task, Backend::Cuda, u"x"_s, 1, cancel);
        qunsetenv("KILN_NCU");
        QVERIFY(!confined.ok);
        QVERIFY2(confined.detail.contains(u"ncu wrote no report"_s), qPrintable(confined.detail));
        EvaluationResult e;
        e.verdict = Verdict::Pass;
        e.speedup = 1.5;
        e.candidateMs = 0.2;
        const QString text = ProfileReport::text(e, confined);
        QVERIFY(text.startsWith(u"No hardware profile: ncu"_s));
        QVERIFY(text.contains(u"- speedup over the baseline: 1.5x"_s));
    }

    void agentsRunRecordsStepsAndChecksTheTestersShapes()
    {
        const TaskLibrary library = TaskLibrary::standard();
        const int ownShapes = int(library.task(u"vector_add"_s)->correctnessShapes.size());
        QTemporaryDir dir;
        const QString db = dir.filePath(u"w.db"_s);
        const test::CliOutcome o =
            test::runCli({u"run"_s, u"--task"_s, u"vector_add"_s, u"--strategy"_s, u"agents"_s,
                          u"--param"_s, u"width=2"_s, u"--param"_s, u"turns=3"_s, u"--budget"_s,
                          u"6"_s, u"--seed"_s, u"4"_s, u"--db"_s, db, u"--json"_s});
        QVERIFY2(o.status == 0, o.err.constData());
        const QJsonArray candidates = candidatesOf(db, o.json().value(u"run_id"_s).toInteger());
        QCOMPARE(candidates.size(), 6);
        int withSteps = 0;
        int checkedMore = 0;
        int reused = 0; // a duplicate's judgement is its original's: nothing was checked again
        for (const QJsonValue &value : candidates) {
            const QJsonObject c = value.toObject();
            const QJsonObject meta = c.value(u"policy_meta"_s).toObject();
            if (meta.value(u"agent_steps"_s).toArray().size() != 5)
                continue;
            ++withSteps;
            checkedMore += checkedOnTesterShapes(c, ownShapes) ? 1 : 0;
            const QJsonArray stages =
                c.value(u"evaluation"_s).toObject().value(u"stages"_s).toArray();
            reused +=
                !stages.isEmpty() &&
                        stages.first().toObject().value(u"name"_s).toString() == u"duplicate"_s &&
                        !meta.value(u"tester_shapes"_s).toArray().isEmpty()
                    ? 1
                    : 0;
        }
        QCOMPARE(withSteps, 4); // two trajectories: a sample, then two rounds of the roles each
        QVERIFY2(checkedMore > 0, "the tester's shapes must reach the verifier's checks");
        // A rejudged run judges each candidate on its tester's shapes again.
        const test::CliOutcome again =
            test::runCli({u"rejudge"_s, u"--db"_s, db, u"--run"_s,
                          QString::number(o.json().value(u"run_id"_s).toInteger()), u"--json"_s});
        QVERIFY2(again.status == 0, again.err.constData());
        int rejudgedMore = 0;
        for (const QJsonValue &value :
             candidatesOf(db, again.json().value(u"run_id"_s).toInteger()))
            rejudgedMore += checkedOnTesterShapes(value.toObject(), ownShapes) ? 1 : 0;
        QCOMPARE(rejudgedMore, checkedMore + reused);
    }

    void memoryCarriesLessonsFromOneRunToTheNext()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(u"w.db"_s);
        auto run = [&](const QString &seed) {
            return test::runCli({u"run"_s, u"--task"_s, u"vector_add"_s, u"--strategy"_s,
                                 u"refine"_s, u"--param"_s, u"width=2"_s, u"--param"_s,
                                 u"turns=6"_s, u"--param"_s, u"memory=3"_s, u"--budget"_s, u"12"_s,
                                 u"--seed"_s, seed, u"--db"_s, db, u"--json"_s});
        };
        const test::CliOutcome first = run(u"1"_s);
        QVERIFY2(first.status == 0, first.err.constData());
        const test::CliOutcome listed =
            test::runCli({u"memory"_s, u"list"_s, u"--db"_s, db, u"--json"_s});
        QCOMPARE(listed.status, 0);
        const QJsonArray lessons = listed.json().value(u"entries"_s).toArray();
        QVERIFY2(!lessons.isEmpty(), "a refine run with memory records its improvements");
        const QJsonObject lesson = lessons.first().toObject();
        QVERIFY(lesson.value(u"gain"_s).toDouble() >= 1.05);
        QVERIFY(lesson.value(u"diff"_s).toString().contains(u"@@"_s));
        const test::CliOutcome second = run(u"2"_s);
        QVERIFY2(second.status == 0, second.err.constData());
        const QJsonArray candidates =
            candidatesOf(db, second.json().value(u"run_id"_s).toInteger());
        const QString firstIdea = lesson.value(u"idea"_s).toString();
        bool carried = false;
        for (const QJsonValue &c : candidates)
            carried =
                carried ||
                c.toObject().value(u"prompt"_s).toString().contains(u"## What worked before"_s);
        QVERIFY2(carried, "the second run's prompts carry the first run's lessons");
        // Edited, deleted, cleared from the command line.
        const QString id = QString::number(lesson.value(u"id"_s).toInteger());
        QCOMPARE(
            test::runCli({u"memory"_s, u"edit"_s, id, u"--idea"_s, u"by hand"_s, u"--db"_s, db})
                .status,
            0);
        const test::CliOutcome shown =
            test::runCli({u"memory"_s, u"show"_s, id, u"--db"_s, db, u"--json"_s});
        QCOMPARE(shown.json().value(u"idea"_s).toString(), u"by hand"_s);
        QVERIFY(shown.json().value(u"edited"_s).toBool());
        QVERIFY(!firstIdea.isEmpty());
        QCOMPARE(test::runCli({u"memory"_s, u"clear"_s, u"--db"_s, db}).status, 2); // needs --yes
        QCOMPARE(test::runCli({u"memory"_s, u"clear"_s, u"--yes"_s, u"--db"_s, db}).status, 0);
        QVERIFY(test::runCli({u"memory"_s, u"list"_s, u"--db"_s, db, u"--json"_s})
                    .json()
                    .value(u"entries"_s)
                    .toArray()
                    .isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestAgents)
#include "tst_agents.moc"
