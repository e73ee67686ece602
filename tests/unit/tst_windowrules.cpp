// The workbench window's rules, exercised without any widget: which candidate files are judged
// and how (refusals, the task to ask for, the backend), the checks before a run starts or
// resumes, which database and run the window opens, the comparison's runs, the Run menu's state,
// the candidates it picks, the lines that describe a run and the launcher's problem-lint notes.
#include "engine/verifierevaluator.h"
#include "models/rules/backgroundruns.h"
#include "models/rules/candidatefile.h"
#include "models/rules/candidatepicks.h"
#include "models/rules/comparisonplan.h"
#include "models/rules/controllerstatus.h"
#include "models/rules/databasechoice.h"
#include "models/rules/editedcopysubmission.h"
#include "models/rules/fileevaluationplan.h"
#include "models/rules/launchcheck.h"
#include "models/rules/lintnotes.h"
#include "models/rules/recentdatabases.h"
#include "models/rules/runactionstate.h"
#include "models/rules/runsummarytext.h"
#include "models/rules/runtoopen.h"
#include "models/rules/workshopexercises.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "strategyregistry.h"

#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

namespace {

RunRecord searchRun(qint64 id, const QString &backend, const QStringList &tasks)
{
    RunRecord run;
    run.id = id;
    run.kind = QStringLiteral("search");
    run.backend = backend;
    run.tasks = tasks;
    return run;
}

RunRecord evalRun(qint64 id)
{
    RunRecord run;
    run.id = id;
    run.kind = QStringLiteral("eval");
    return run;
}

CudaAvailability noGpu()
{
    CudaAvailability none;
    none.reason = QStringLiteral("no NVIDIA driver");
    return none;
}

CudaAvailability oneGpu()
{
    CudaAvailability gpus;
    gpus.usable = true;
    return gpus;
}

QStringList words(const char *line)
{
    return QString::fromUtf8(line).split(QLatin1Char(' '));
}

LaunchSettings validLaunch()
{
    LaunchSettings s;
    s.tasks = {QStringLiteral("softmax")};
    s.backend = QStringLiteral("cpu");
    s.database = QStringLiteral("work.db");
    return s;
}

} // namespace

class TstWindowRules : public QObject
{
    Q_OBJECT

private:
    // Two runs in picks.db: a search run root → best (pass) → pending, root judged wrong; and
    // another run whose one candidate descends from best.
    struct StoredRuns
    {
        QString path;
        qint64 searchId = 0;
        qint64 otherId = 0;
        qint64 root = 0;
        qint64 best = 0;
        qint64 pending = 0;
        qint64 child = 0;
    };

    QTemporaryDir m_dir;
    TaskLibrary m_library = TaskLibrary::standard();
    StoredRuns m_stored;

    bool storeRuns()
    {
        m_stored.path = m_dir.filePath(QStringLiteral("picks.db"));
        std::unique_ptr<RunStore> store = RunStore::open(m_stored.path, RunStore::Mode::ReadWrite);
        if (!store)
            return false;
        auto createRun = [&store](const QString &strategy) {
            RunRecord run = searchRun(0, QStringLiteral("cpu"), {QStringLiteral("softmax")});
            run.strategy = strategy;
            run.policy = QStringLiteral("offline");
            return store->createRun(run);
        };
        auto add = [&store](qint64 runId, std::optional<qint64> parent, qint64 tokens) {
            CandidateRecord c;
            c.runId = runId;
            c.task = QStringLiteral("softmax");
            c.parent = parent;
            c.operation = parent ? Operation::Refine : Operation::Sample;
            c.source = QStringLiteral("// candidate\n");
            c.policy = QStringLiteral("offline");
            c.promptTokens = tokens;
            return store->addCandidate(c);
        };
        StoredRuns &r = m_stored;
        r.searchId = createRun(QStringLiteral("greedy"));
        r.root = add(r.searchId, std::nullopt, 10);
        r.best = add(r.searchId, r.root, 20);
        r.pending = add(r.searchId, r.best, 30);
        EvaluationResult wrong;
        wrong.verdict = Verdict::Wrong;
        EvaluationResult pass;
        pass.verdict = Verdict::Pass;
        pass.correct = true;
        pass.speedup = 1.5;
        r.otherId = createRun(QStringLiteral("refine"));
        r.child = add(r.otherId, r.best, 5);
        return r.searchId && r.root && r.best && r.pending && r.otherId && r.child &&
               store->addEvaluation(r.root, wrong) && store->addEvaluation(r.best, pass);
    }

    bool openStored(RunDocument &document, qint64 runId)
    {
        QString error;
        if (document.openDatabase(m_stored.path, &error) && document.loadRun(runId, &error))
            return true;
        qWarning("%s", qPrintable(error));
        return false;
    }

    QString writeFile(const QString &name, const QByteArray &content)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

    CandidateFile kernel(const QString &name)
    {
        QString why;
        const std::optional<CandidateFile> file =
            CandidateFile::read(writeFile(name, "void kernel() {}\n"), &why);
        if (!file)
            qFatal("%s", qPrintable(why));
        return *file;
    }

    QString refusalOf(const QString &path)
    {
        QString why;
        if (CandidateFile::read(path, &why))
            return QStringLiteral("(accepted)");
        return why;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(storeRuns());
    }

    // ---- CandidateFile: kind by suffix, then size, readability and content, in that order.

    void candidateKindComesFromTheSuffix_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("candidate");
        QTest::addColumn<bool>("cuda");
        QTest::newRow("cu") << "k.cu" << true << true;
        QTest::newRow("CU") << "K.CU" << true << true;
        QTest::newRow("cpp") << "k.cpp" << true << false;
        QTest::newRow("cc") << "k.cc" << true << false;
        QTest::newRow("cxx") << "k.cxx" << true << false;
        QTest::newRow("c++") << "k.c++" << true << false;
        QTest::newRow("py") << "model_new.py" << true << false;
        QTest::newRow("txt") << "notes.txt" << false << false;
        QTest::newRow("header") << "k.cuh" << false << false;
        QTest::newRow("no suffix") << "kernel" << false << false;
    }
    void candidateKindComesFromTheSuffix()
    {
        QFETCH(QString, name);
        QFETCH(bool, candidate);
        QFETCH(bool, cuda);
        QCOMPARE(CandidateFile::isCandidateFile(m_dir.filePath(name)), candidate);
        if (candidate)
            QCOMPARE(kernel(name).isCuda(), cuda);
    }

    void fileRefusalsNameTheFile()
    {
        QCOMPARE(refusalOf(m_dir.filePath(QStringLiteral("notes.txt"))),
                 QStringLiteral("notes.txt is not a kernel source (.cu, .cpp, .cc, .cxx)"));
        QCOMPARE(refusalOf(writeFile(QStringLiteral("big.cpp"),
                                     QByteArray(CandidateFile::maxBytes + 1, 'x'))),
                 QStringLiteral("big.cpp is larger than 1 MiB"));
        QCOMPARE(refusalOf(writeFile(QStringLiteral("limit.cpp"),
                                     QByteArray(CandidateFile::maxBytes, 'x'))),
                 QStringLiteral("(accepted)"));
        QCOMPARE(refusalOf(writeFile(QStringLiteral("blank.cu"), " \n\t\n")),
                 QStringLiteral("blank.cu is empty"));
        const QString missing = m_dir.filePath(QStringLiteral("missing.cpp"));
        const QString unreadable = refusalOf(missing);
        QVERIFY2(unreadable.startsWith(QStringLiteral("cannot read %1: ").arg(missing)),
                 qPrintable(unreadable));
        QVERIFY(unreadable.size() > QStringLiteral("cannot read %1: ").arg(missing).size());
    }

    void acceptedFileKeepsItsText()
    {
        const CandidateFile file = kernel(QStringLiteral("vector_add.cu"));
        QCOMPARE(file.source(), QStringLiteral("void kernel() {}\n"));
        QCOMPARE(file.fileName(), QStringLiteral("vector_add.cu"));
        QCOMPARE(file.path(), m_dir.filePath(QStringLiteral("vector_add.cu")));
        QCOMPARE(file.absoluteFilePath(),
                 QFileInfo(m_dir.filePath(QStringLiteral("vector_add.cu"))).absoluteFilePath());
    }

    // ---- FileEvaluationPlan: joining the shown search run.

    void fileOfTheWrongKindIsRefusedByTheRun()
    {
        const RunRecord cpuRun = searchRun(7, QStringLiteral("cpu"), {QStringLiteral("softmax")});
        const FileEvaluationPlan cuOnCpu =
            FileEvaluationPlan::make(kernel(QStringLiteral("k.cu")), &cpuRun, {}, {});
        QVERIFY(cuOnCpu.joinsRun());
        QCOMPARE(cuOnCpu.refusal(),
                 QStringLiteral("run #7 judges CPU (.cpp) candidates; k.cu is a .cu file"));
        const RunRecord cudaRun = searchRun(8, QStringLiteral("cuda"), {QStringLiteral("softmax")});
        const FileEvaluationPlan cppOnCuda =
            FileEvaluationPlan::make(kernel(QStringLiteral("k.cpp")), &cudaRun, {}, {});
        QCOMPARE(cppOnCuda.refusal(),
                 QStringLiteral("run #8 judges CUDA (.cu) candidates; k.cpp is a C++ file"));
        // Anything but a .cu file counts as C++; a torch run judges no .cu file here.
        const RunRecord torchRun =
            searchRun(9, QStringLiteral("torch"), {QStringLiteral("softmax")});
        QCOMPARE(
            FileEvaluationPlan::make(kernel(QStringLiteral("k.cu")), &torchRun, {}, {}).refusal(),
            QStringLiteral("run #9 judges CPU (.cpp) candidates; k.cu is a .cu file"));
        QVERIFY(FileEvaluationPlan::make(kernel(QStringLiteral("m.py")), &torchRun, {}, {})
                    .refusal()
                    .isEmpty());
    }

    void fileJoinsARunOfOneTaskWithoutAsking()
    {
        const RunRecord run = searchRun(7, QStringLiteral("cuda"), {QStringLiteral("softmax")});
        const CandidateFile file = kernel(QStringLiteral("fast.cu"));
        const FileEvaluationPlan plan = FileEvaluationPlan::make(file, &run, {}, {});
        QVERIFY(plan.joinsRun());
        QVERIFY(plan.refusal().isEmpty());
        QVERIFY(!plan.taskQuestion());
        QVERIFY(!plan.needsGpu()); // the run's own backend judges it
        QCOMPARE(plan.task(), QStringLiteral("softmax"));
        const ManualSubmission::Request request = plan.submission();
        QCOMPARE(request.runId, 7);
        QVERIFY(!request.parent);
        QCOMPARE(request.task, QStringLiteral("softmax"));
        QCOMPARE(request.source, file.source());
        QCOMPARE(request.note, QStringLiteral("from the file fast.cu"));
        QCOMPARE(plan.startedMessage(), QStringLiteral("Verifying fast.cu on run #7's inputs…"));
    }

    void suiteRunAsksForTheTask()
    {
        const QStringList suite{QStringLiteral("softmax"), QStringLiteral("transpose")};
        const RunRecord run = searchRun(3, QStringLiteral("cpu"), suite);
        FileEvaluationPlan plan =
            FileEvaluationPlan::make(kernel(QStringLiteral("t.cpp")), &run, {}, {});
        QVERIFY(plan.refusal().isEmpty());
        const std::optional<FileEvaluationPlan::TaskQuestion> question = plan.taskQuestion();
        QVERIFY(question);
        QCOMPARE(question->title, QStringLiteral("Evaluate t.cpp"));
        QCOMPARE(question->label, QStringLiteral("Task of the suite:"));
        QCOMPARE(question->choices, suite);
        plan.setTask(QStringLiteral("transpose"));
        QVERIFY(!plan.taskQuestion());
        QCOMPARE(plan.submission().task, QStringLiteral("transpose"));

        // A task named by the caller is taken as it is.
        const FileEvaluationPlan named = FileEvaluationPlan::make(
            kernel(QStringLiteral("t.cpp")), &run, QStringLiteral("transpose"), {});
        QVERIFY(!named.taskQuestion());
        QCOMPARE(named.task(), QStringLiteral("transpose"));
    }

    // ---- FileEvaluationPlan: judged alone, as an evaluation run.

    void withoutASearchRunTheFileIsJudgedAlone()
    {
        const QStringList names{QStringLiteral("softmax"), QStringLiteral("vector_add")};
        const RunRecord eval = evalRun(4);
        for (const RunRecord *shown : {static_cast<const RunRecord *>(nullptr), &eval}) {
            FileEvaluationPlan plan =
                FileEvaluationPlan::make(kernel(QStringLiteral("v.cpp")), shown, {}, names);
            QVERIFY(!plan.joinsRun());
            QVERIFY(plan.refusal().isEmpty());
            const std::optional<FileEvaluationPlan::TaskQuestion> question = plan.taskQuestion();
            QVERIFY(question);
            QCOMPARE(question->title, QStringLiteral("Evaluate v.cpp"));
            QCOMPARE(question->label, QStringLiteral("Task:"));
            QCOMPARE(question->choices, names);
            plan.setTask(QStringLiteral("vector_add"));
            QCOMPARE(plan.startedMessage(), QStringLiteral("Verifying v.cpp against vector_add…"));
        }
        const FileEvaluationPlan named = FileEvaluationPlan::make(
            kernel(QStringLiteral("v.cpp")), nullptr, QStringLiteral("softmax"), names);
        QVERIFY(!named.taskQuestion());
        QCOMPARE(named.task(), QStringLiteral("softmax"));
    }

    void cudaFileAloneNeedsAUsableGpu()
    {
        const FileEvaluationPlan cuda = FileEvaluationPlan::make(
            kernel(QStringLiteral("k.cu")), nullptr, QStringLiteral("softmax"), {});
        QVERIFY(cuda.needsGpu());
        QCOMPARE(cuda.gpuRefusal(noGpu()),
                 QStringLiteral("k.cu is a CUDA kernel, and there is no usable GPU: "
                                "no NVIDIA driver"));
        QVERIFY(cuda.gpuRefusal(oneGpu()).isEmpty());
        const FileEvaluationPlan cpu = FileEvaluationPlan::make(
            kernel(QStringLiteral("k.cpp")), nullptr, QStringLiteral("softmax"), {});
        QVERIFY(!cpu.needsGpu());
        QVERIFY(cpu.gpuRefusal(noGpu()).isEmpty());
    }

    void backendFollowsTheTaskThenTheFile_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("task");
        QTest::addColumn<Backend>("backend");
        QTest::newRow("kernelbench .py") << "model_new.py"
                                         << "kb_relu" << Backend::Torch;
        QTest::newRow("kernelbench .cu") << "k.cu"
                                         << "kb_relu" << Backend::Torch;
        QTest::newRow("cuda") << "k.cu"
                              << "softmax" << Backend::Cuda;
        QTest::newRow("cpu") << "k.cpp"
                             << "softmax" << Backend::Cpu;
        QTest::newRow("unknown task, cuda") << "k.cu"
                                            << "nosuch" << Backend::Cuda;
        QTest::newRow("unknown task, cpu") << "k.cc"
                                           << "nosuch" << Backend::Cpu;
    }
    void backendFollowsTheTaskThenTheFile()
    {
        QFETCH(QString, file);
        QFETCH(QString, task);
        QFETCH(Backend, backend);
        TaskLibrary library = m_library;
        Task relu;
        relu.name = QStringLiteral("kb_relu");
        relu.kernelBench = KernelBenchProblem{1, 19, QStringLiteral("level1/19_ReLU.py")};
        library.addTask(relu);
        const FileEvaluationPlan plan = FileEvaluationPlan::make(kernel(file), nullptr, task, {});
        QCOMPARE(plan.backend(library), backend);
    }

    // ---- LaunchCheck

    void launchIsRefusedWithTheFirstProblem()
    {
        QVERIFY(LaunchCheck::problems(validLaunch(), m_library, noGpu()).isEmpty());
        QVERIFY(!LaunchCheck::refusal(validLaunch(), m_library, noGpu()));
        LaunchSettings bad = validLaunch();
        bad.tasks.clear();
        bad.budget = 0;
        const QList<LaunchSettings::Problem> problems =
            LaunchCheck::problems(bad, m_library, noGpu());
        QVERIFY(problems.size() >= 2);
        QCOMPARE(LaunchCheck::refusal(bad, m_library, noGpu()), problems.first().message);
        QCOMPARE(problems.first().field, QStringLiteral("task"));
    }

    void launchReadsTheKeyFromThisProcess()
    {
        LaunchSettings llm = validLaunch();
        llm.policy = QStringLiteral("llm");
        llm.endpoint = QStringLiteral("http://localhost:8000/v1");
        llm.model = QStringLiteral("m");
        llm.apiKeyEnv = QStringLiteral("KILN_TST_WINDOWRULES_KEY");
        qunsetenv("KILN_TST_WINDOWRULES_KEY");
        const std::optional<QString> unset = LaunchCheck::refusal(llm, m_library, noGpu());
        QVERIFY(unset);
        QVERIFY2(unset->contains(QStringLiteral("KILN_TST_WINDOWRULES_KEY is not set")),
                 qPrintable(*unset));
        qputenv("KILN_TST_WINDOWRULES_KEY", "secret");
        QVERIFY(!LaunchCheck::refusal(llm, m_library, noGpu()));
        qunsetenv("KILN_TST_WINDOWRULES_KEY");
    }

    void onlyASearchRunResumes()
    {
        const QString refusal = QStringLiteral("Pick a search run to resume.");
        QCOMPARE(LaunchCheck::resumeRefusal(nullptr), refusal);
        const RunRecord eval = evalRun(2);
        QCOMPARE(LaunchCheck::resumeRefusal(&eval), refusal);
        const RunRecord search = searchRun(3, QStringLiteral("cpu"), {});
        QVERIFY(LaunchCheck::resumeRefusal(&search).isEmpty());
    }

    void resumingARunMarkedLiveAsksFirst_data()
    {
        QTest::addColumn<RunRecord::Status>("status");
        QTest::addColumn<bool>("asks");
        QTest::newRow("running") << RunRecord::Status::Running << true;
        QTest::newRow("paused") << RunRecord::Status::Paused << true;
        QTest::newRow("created") << RunRecord::Status::Created << false;
        QTest::newRow("cancelled") << RunRecord::Status::Cancelled << false;
        QTest::newRow("failed") << RunRecord::Status::Failed << false;
        QTest::newRow("finished") << RunRecord::Status::Finished << false;
    }
    void resumingARunMarkedLiveAsksFirst()
    {
        QFETCH(RunRecord::Status, status);
        QFETCH(bool, asks);
        RunRecord run = searchRun(12, QStringLiteral("cpu"), {});
        run.status = status;
        const std::optional<LaunchCheck::Question> question = LaunchCheck::resumeConfirmation(run);
        QCOMPARE(question.has_value(), asks);
        if (!asks)
            return;
        QCOMPARE(question->title, QStringLiteral("Resume run #12"));
        QCOMPARE(question->text,
                 QStringLiteral("Run #12 is marked %1. Resume it only if no other process is "
                                "still making it: two writers would corrupt it.")
                     .arg(RunRecord::statusName(status)));
    }

    // ---- DatabaseChoice

    void databaseChoices()
    {
        const QString open = QStringLiteral("/data/open.db");
        QCOMPARE(DatabaseChoice::defaultWorkspace(open), open);
        const QString fallback = DatabaseChoice::defaultWorkspace(QString());
        QCOMPARE(QFileInfo(fallback).fileName(), QStringLiteral("workspace.db"));
        QCOMPARE(
            QFileInfo(fallback).absolutePath(),
            QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).absolutePath());
        QVERIFY(QFileInfo(fallback).dir().exists()); // made for the workspace to be written

        const QString remembered = QStringLiteral("/data/last.db");
        QCOMPARE(DatabaseChoice::forLauncher(remembered, open), open);
        QCOMPARE(DatabaseChoice::forLauncher(remembered, QString()), remembered);
        QCOMPARE(DatabaseChoice::forLauncher(QString(), QString()), fallback);
        QCOMPARE(DatabaseChoice::forLauncher(QString(), open), open);

        const QString named = QStringLiteral("named.db");
        QCOMPARE(DatabaseChoice::forRunArguments(named, open), named);
        QCOMPARE(DatabaseChoice::forRunArguments(QString(), open), open);
        QCOMPARE(DatabaseChoice::forRunArguments(QString(), QString()), QStringLiteral("kiln.db"));
    }

    // ---- RunToOpen

    void runToOpen()
    {
        RunRecord eval5 = evalRun(5);
        const QList<RunRecord> runs{searchRun(1, QStringLiteral("cpu"), {}),
                                    searchRun(3, QStringLiteral("cpu"), {}), eval5};
        const RunToOpen asked = RunToOpen::choose(runs, 1, QStringLiteral("w.db"));
        QCOMPARE(asked.runId, 1);
        QVERIFY(asked.refusal.isEmpty());
        const RunToOpen askedEval = RunToOpen::choose(runs, 5, QStringLiteral("w.db"));
        QCOMPARE(askedEval.runId, 5);
        const RunToOpen missing = RunToOpen::choose(runs, 9, QStringLiteral("w.db"));
        QCOMPARE(missing.runId, 0);
        QCOMPARE(missing.refusal, QStringLiteral("no run 9 in w.db"));
        // Unasked: the most recent search run, though an evaluation came later ...
        QCOMPARE(RunToOpen::choose(runs, std::nullopt, {}).runId, 3);
        // ... and the most recent of any kind in an evaluation-only database.
        QCOMPARE(RunToOpen::choose({evalRun(2), eval5, evalRun(4)}, std::nullopt, {}).runId, 5);
        const RunToOpen none = RunToOpen::choose({}, std::nullopt, {});
        QCOMPARE(none.runId, 0);
        QVERIFY(none.refusal.isEmpty());
    }

    // ---- ComparisonPlan

    void comparisonNeedsStrategiesSeedsAndAnAxis()
    {
        const QString refusal =
            QStringLiteral("a comparison needs strategies, seeds and a budget axis");
        ComparisonPlan plan;
        plan.task = QStringLiteral("softmax");
        QCOMPARE(plan.problem(), refusal); // no strategies
        plan.strategies = {QStringLiteral("greedy"), QStringLiteral("beam")};
        QVERIFY(plan.problem().isEmpty());
        QCOMPARE(plan.axis(), std::optional<BudgetAxis>(BudgetAxis::Evals));
        plan.seeds = 0;
        QCOMPARE(plan.problem(), refusal);
        plan.seeds = 3;
        plan.budgetAxis = QStringLiteral("furlongs");
        QVERIFY(!plan.axis());
        QCOMPARE(plan.problem(), refusal);
    }

    void comparisonRunsOneSlotPerStrategyAndSeed()
    {
        ComparisonPlan plan;
        plan.task = QStringLiteral("softmax");
        plan.strategies = {QStringLiteral("greedy"), QStringLiteral("beam")};
        QCOMPARE(plan.budget, 24.0);
        QCOMPARE(plan.seeds, 3);
        QCOMPARE(plan.runCount(), 6);
        QCOMPARE(plan.arguments(QStringLiteral("beam"), 2),
                 words("--task softmax --strategy beam --budget 24 --budget-axis evals --seed 2"));
        plan.budget = 2.5;
        plan.budgetAxis = QStringLiteral("seconds");
        QCOMPARE(
            plan.arguments(QStringLiteral("greedy"), 1),
            words("--task softmax --strategy greedy --budget 2.5 --budget-axis seconds --seed 1"));
        QCOMPARE(ComparisonPlan::startedRuns({0, 11, 0, 7, 9, 0}), (QList<qint64>{11, 7, 9}));
        QVERIFY(ComparisonPlan::startedRuns({0, 0}).isEmpty());
        QCOMPARE(plan.queuedMessage(6),
                 QStringLiteral("Comparing greedy, beam over 3 seeds each: 6 runs queued"));
        QCOMPARE(plan.shortfallMessage(2, QStringLiteral("no such task")),
                 QStringLiteral("2 of 6 runs started: no such task"));
    }

    void comparisonProposesTheShownTask()
    {
        QVERIFY(ComparisonPlan::proposedFor(nullptr).task.isEmpty());
        const RunRecord none = searchRun(1, QStringLiteral("cpu"), {});
        QVERIFY(ComparisonPlan::proposedFor(&none).task.isEmpty());
        const RunRecord suite = searchRun(1, QStringLiteral("cpu"),
                                          {QStringLiteral("transpose"), QStringLiteral("softmax")});
        const ComparisonPlan proposed = ComparisonPlan::proposedFor(&suite);
        QCOMPARE(proposed.task, QStringLiteral("transpose"));
        QVERIFY(proposed.strategies.isEmpty());
        QCOMPARE(proposed.budgetAxis, QStringLiteral("evals"));
        QVERIFY(proposed.database.isEmpty());
    }

    // ---- ControllerStatus

    void controllerStatesReadAsWordsAndRunStatuses_data()
    {
        QTest::addColumn<RunController::State>("state");
        QTest::addColumn<QString>("name");
        QTest::addColumn<RunRecord::Status>("status");
        using S = RunController::State;
        using R = RunRecord::Status;
        QTest::newRow("queued") << S::Queued << "queued" << R::Running;
        QTest::newRow("starting") << S::Starting << "starting" << R::Running;
        QTest::newRow("running") << S::Running << "running" << R::Running;
        QTest::newRow("paused") << S::Paused << "paused" << R::Paused;
        QTest::newRow("stopping") << S::Stopping << "stopping" << R::Running;
        QTest::newRow("finished") << S::Finished << "finished" << R::Finished;
        QTest::newRow("cancelled") << S::Cancelled << "stopped" << R::Cancelled;
        QTest::newRow("failed") << S::Failed << "failed" << R::Failed;
    }
    void controllerStatesReadAsWordsAndRunStatuses()
    {
        QFETCH(RunController::State, state);
        QFETCH(QString, name);
        QFETCH(RunRecord::Status, status);
        QCOMPARE(ControllerStatus::name(state), name);
        QCOMPARE(ControllerStatus::recordStatus(state), status);
    }

    // ---- RunActionState

    void liveControllerDecidesPauseResumeStop_data()
    {
        QTest::addColumn<int>("liveState"); // -1: no live controller
        QTest::addColumn<bool>("pause");
        QTest::addColumn<bool>("resume");
        QTest::addColumn<bool>("stop");
        using S = RunController::State;
        QTest::newRow("none") << -1 << false << false << false;
        QTest::newRow("starting") << int(S::Starting) << false << false << true;
        QTest::newRow("running") << int(S::Running) << true << false << true;
        QTest::newRow("paused") << int(S::Paused) << false << true << true;
        QTest::newRow("stopping") << int(S::Stopping) << false << false << false;
    }
    void liveControllerDecidesPauseResumeStop()
    {
        QFETCH(int, liveState);
        const std::optional<RunController::State> live =
            liveState < 0 ? std::nullopt : std::optional(RunController::State(liveState));
        QFETCH(bool, pause);
        QFETCH(bool, resume);
        QFETCH(bool, stop);
        RunRecord run = searchRun(1, QStringLiteral("cpu"), {});
        run.status = RunRecord::Status::Running;
        const RunActionState actions = RunActionState::of(live, &run, nullptr);
        QCOMPARE(actions.pause, pause);
        QCOMPARE(actions.resume, resume);
        QCOMPARE(actions.stop, stop);
        // A run this window grows cannot be resumed besides; one that is not grown here can.
        QCOMPARE(actions.continueRun, !live.has_value());
    }

    void continueNeedsAnUnfinishedSearchRun()
    {
        RunRecord run = searchRun(1, QStringLiteral("cpu"), {});
        for (RunRecord::Status status :
             {RunRecord::Status::Created, RunRecord::Status::Running, RunRecord::Status::Paused,
              RunRecord::Status::Failed, RunRecord::Status::Cancelled}) {
            run.status = status;
            QVERIFY(RunActionState::of(std::nullopt, &run, nullptr).continueRun);
        }
        run.status = RunRecord::Status::Finished;
        QVERIFY(!RunActionState::of(std::nullopt, &run, nullptr).continueRun);
        RunRecord eval = evalRun(2);
        eval.status = RunRecord::Status::Cancelled;
        QVERIFY(!RunActionState::of(std::nullopt, &eval, nullptr).continueRun);
        const RunActionState nothing = RunActionState::of(std::nullopt, nullptr, nullptr);
        QVERIFY(!nothing.pause && !nothing.resume && !nothing.stop && !nothing.continueRun &&
                !nothing.editCopy);
    }

    void editCopyNeedsAStoredCandidateOfASearchRun()
    {
        const RunRecord search = searchRun(1, QStringLiteral("cpu"), {});
        const RunRecord eval = evalRun(2);
        CandidateSummary stored;
        stored.id = 4;
        CandidateSummary placeholder;
        placeholder.id = 5;
        placeholder.placeholder = true;
        QVERIFY(RunActionState::canEditCopy(&search, &stored));
        QVERIFY(RunActionState::of(std::nullopt, &search, &stored).editCopy);
        QVERIFY(!RunActionState::canEditCopy(&search, &placeholder));
        QVERIFY(!RunActionState::canEditCopy(&search, nullptr));
        QVERIFY(!RunActionState::canEditCopy(&eval, &stored));
        QVERIFY(!RunActionState::canEditCopy(nullptr, &stored));
        QCOMPARE(RunActionState::editCopyRefusal(),
                 QStringLiteral("Select a candidate of a search run to edit a copy."));
    }

    // ---- EditedCopySubmission

    void editedCopyIsSubmittedAsAChild()
    {
        QCOMPARE(EditedCopySubmission::refusal(QStringLiteral(" \n\t")),
                 QStringLiteral("the source is empty"));
        QVERIFY(EditedCopySubmission::refusal(QStringLiteral("int x;")).isEmpty());
        const ManualSubmission::Request request =
            EditedCopySubmission::request(3, 12, QStringLiteral("int x;"));
        QCOMPARE(request.runId, 3);
        QCOMPARE(request.parent, std::optional<qint64>(12));
        QVERIFY(request.task.isEmpty()); // the parent's task
        QCOMPARE(request.source, QStringLiteral("int x;"));
        QCOMPARE(request.note, QStringLiteral("edited in the workbench from #12"));
    }

    // ---- RunSummaryText: the picker's line

    void pickerLabelDescribesTheRun()
    {
        RunRecord run = searchRun(4, QStringLiteral("cpu"),
                                  {QStringLiteral("softmax"), QStringLiteral("transpose")});
        run.strategy = QStringLiteral("greedy");
        run.policy = QStringLiteral("offline");
        run.status = RunRecord::Status::Finished;
        run.budgetUsed.samples = 12;
        run.seed = 7;
        QCOMPARE(RunSummaryText::pickerLabel(run),
                 QStringLiteral("#4  softmax, transpose · greedy · seed 7 · offline (simulated) · "
                                "finished · 12 samples"));
        // A live run has no count yet; a run without a strategy shows its kind; a lenient one
        // says so.
        run.status = RunRecord::Status::Running;
        run.strategy.clear();
        run.policy = QStringLiteral("llm");
        run.config = QJsonObject{{QStringLiteral("verifier"), QStringLiteral("lenient")}};
        const QString live = RunSummaryText::pickerLabel(run);
        QVERIFY2(live.startsWith(
                     QStringLiteral("#4  softmax, transpose · search · seed 7 · llm · running")),
                 qPrintable(live));
        QCOMPARE(live.contains(QStringLiteral("samples")), false);
        QVERIFY2(live.endsWith(QStringLiteral(" · LENIENT verifier")), qPrintable(live));
        for (RunRecord::Status status : {RunRecord::Status::Paused, RunRecord::Status::Created}) {
            run.status = status;
            QVERIFY(!RunSummaryText::pickerLabel(run).contains(QStringLiteral("samples")));
        }
    }

    // ---- CandidatePicks and the status line, on a run read from a real database

    void statusAndTitleBeforeARun()
    {
        RunDocument document;
        QCOMPARE(RunSummaryText::statusLine(document), QStringLiteral("No database open."));
        QCOMPARE(RunSummaryText::windowTitle(document), QStringLiteral("Kiln"));
        const QString path = m_dir.filePath(QStringLiteral("norun.db"));
        QVERIFY(RunStore::open(path, RunStore::Mode::ReadWrite));
        QVERIFY(document.openDatabase(path));
        QCOMPARE(RunSummaryText::statusLine(document),
                 QStringLiteral("This database has no runs yet."));
        QCOMPARE(RunSummaryText::windowTitle(document), QStringLiteral("Kiln — norun.db"));
    }

    void picksOnAStoredRun()
    {
        RunDocument document;
        QVERIFY(openStored(document, m_stored.searchId));
        const StoredRuns &r = m_stored;
        QCOMPARE(document.count(), 3);
        QVERIFY(CandidatePicks::isSelectable(document, r.pending));
        QVERIFY(!CandidatePicks::isSelectable(document, 999));
        QVERIFY(CandidatePicks::selectRefusal(document, r.root, r.searchId).isEmpty());
        QCOMPARE(CandidatePicks::selectRefusal(document, 999, r.searchId),
                 QStringLiteral("no candidate 999 in run %1").arg(r.searchId));
        // After a load: the one asked for, else the best (not the last).
        QCOMPARE(CandidatePicks::afterLoad(document, r.root), r.root);
        QCOMPARE(CandidatePicks::afterLoad(document, 0), r.best);
        QCOMPARE(CandidatePicks::afterLoad(document, 999), r.best);
        // The diff compares with the picked one, else with the parent; a root has none.
        QCOMPARE(CandidatePicks::diffBase(document, r.pending, 0), r.best);
        QCOMPARE(CandidatePicks::diffBase(document, r.pending, r.root), r.root);
        QCOMPARE(CandidatePicks::diffBase(document, r.root, 0), 0);
        QCOMPARE(CandidatePicks::parentOf(document, r.pending), std::optional<qint64>(r.best));
        QCOMPARE(CandidatePicks::parentOf(document, r.root), std::nullopt);
        QCOMPARE(CandidatePicks::parentOf(document, 999), std::nullopt);
    }

    // A parent from another run is a placeholder: never selected, compared with or counted.
    void picksAroundAPlaceholder()
    {
        RunDocument document;
        QVERIFY(openStored(document, m_stored.otherId));
        const StoredRuns &r = m_stored;
        QCOMPARE(document.count(), 2);
        QVERIFY(document.at(document.rowOf(r.best)).placeholder);
        QVERIFY(!CandidatePicks::isSelectable(document, r.best));
        QCOMPARE(CandidatePicks::selectRefusal(document, r.best, r.otherId),
                 QStringLiteral("no candidate %1 in run %2").arg(r.best).arg(r.otherId));
        QCOMPARE(CandidatePicks::diffBase(document, r.child, 0), 0);
        QCOMPARE(CandidatePicks::parentOf(document, r.child), std::optional<qint64>(r.best));
        // No best: the last row, whatever it is.
        QCOMPARE(CandidatePicks::afterLoad(document, r.best), document.at(1).id);
        QCOMPARE(CandidatePicks::afterLoad(document, 0), document.at(1).id);
        const QString status = RunSummaryText::statusLine(document);
        QVERIFY2(status.startsWith(QStringLiteral("<b>1</b> candidates &nbsp;·&nbsp; 1 "
                                                  "pending &nbsp;·&nbsp; 5 tokens")),
                 qPrintable(status));
    }

    void statusLineCountsTheStoredRun()
    {
        RunDocument document;
        QVERIFY(openStored(document, m_stored.searchId));
        const QString status = RunSummaryText::statusLine(document);
        const QString separator = QStringLiteral(" &nbsp;·&nbsp; ");
        QVERIFY2(status.startsWith(QStringLiteral("<b>3</b> candidates") + separator),
                 qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("</span> 1 pass") + separator), qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("</span> 1 wrong") + separator),
                 qPrintable(status));
        QVERIFY2(status.contains(separator + QStringLiteral("1 pending") + separator +
                                 QStringLiteral("best <b>")),
                 qPrintable(status));
        QVERIFY2(status.endsWith(QStringLiteral("</b> (#%1)").arg(m_stored.best) + separator +
                                 QStringLiteral("60 tokens") + separator +
                                 RunRecord::statusName(document.run().status)),
                 qPrintable(status));
        QCOMPARE(
            RunSummaryText::windowTitle(document),
            QStringLiteral("Kiln — picks.db — run #%1 softmax (greedy)").arg(m_stored.searchId));
    }

    void emptyRunPicksNothing()
    {
        const QString path = m_dir.filePath(QStringLiteral("empty.db"));
        qint64 runId = 0;
        {
            std::unique_ptr<RunStore> store = RunStore::open(path, RunStore::Mode::ReadWrite);
            QVERIFY(store);
            RunRecord run = searchRun(0, QStringLiteral("cpu"), {QStringLiteral("softmax")});
            runId = store->createRun(run);
        }
        RunDocument document;
        QVERIFY(document.openDatabase(path));
        QVERIFY(document.loadRun(runId));
        QCOMPARE(CandidatePicks::afterLoad(document, 0), 0);
        QCOMPARE(CandidatePicks::afterLoad(document, 3), 0);
        QCOMPARE(CandidatePicks::diffBase(document, 3, 0), 0);
    }

    void launcherNamesProblemLintFindings()
    {
        ProblemLint weak;
        weak.state = ProblemLint::State::Linted;
        weak.declared = {1e-2, 1e-2, 0.0};
        weak.effectiveAbs = 7.4e-7;
        weak.typicalMagnitude = 7.4e-5;
        weak.findings << LintFinding{QStringLiteral("zeros_pass"), QStringLiteral("output 0"),
                                     QStringLiteral("an all-zero answer meets atol 0.01")};
        ProblemLint clean;
        clean.state = ProblemLint::State::Linted;
        const QHash<QString, ProblemLint> lints{{QStringLiteral("kb1_003"), weak},
                                                {QStringLiteral("softmax"), clean}};
        // A clean task says nothing; a weak one its finding and the tolerance it is judged with.
        QVERIFY(LintNotes::lines({QStringLiteral("softmax")}, lints).isEmpty());
        const QStringList lines = LintNotes::lines({QStringLiteral("kb1_003")}, lints);
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].startsWith(QStringLiteral("kb1_003: zeros_pass output 0:")));
        QVERIFY(lines[1].contains(QStringLiteral("atol 0.01 -> 7.4e-07")));
        // Tasks never linted are counted, not listed one by one; long lists are cut.
        const QStringList suite = LintNotes::lines(
            {QStringLiteral("kb1_003"), QStringLiteral("matmul"), QStringLiteral("vector_add")},
            lints);
        QVERIFY(suite.last().startsWith(QStringLiteral("2 of the chosen tasks are not linted")));
        QHash<QString, ProblemLint> many;
        QStringList names;
        for (int i = 0; i < 12; ++i) {
            names << QStringLiteral("kb%1").arg(i);
            many.insert(names.last(), weak);
        }
        const QStringList cut = LintNotes::lines(names, many);
        QCOMPARE(cut.size(), LintNotes::kMaxLines + 1);
        QVERIFY(cut.last().contains(QStringLiteral("16 more")));
    }

    // ---- What issue 36 asked of the launcher and the window's reach

    // A budget that ends a strategy before it does what it is named for is said before it
    // starts; one that fits says nothing, and the warning never refuses the start.
    void budgetsThatDoNotFitAreSaid()
    {
        LaunchSettings s = validLaunch();
        s.strategy = QStringLiteral("evolve");
        s.budget = 24;
        const QStringList warnings = s.warnings();
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings.first().contains(QStringLiteral("4 islands x 8 individuals = 32")),
                 qPrintable(warnings.first()));
        QVERIFY(LaunchCheck::problems(s, TaskLibrary::standard({}), CudaAvailability{}).isEmpty());
        s.budget = 64;
        QVERIFY(s.warnings().isEmpty());
        s.budget = 24;
        s.strategyParameters = {{QStringLiteral("islands"), 2}, {QStringLiteral("population"), 4}};
        QVERIFY(s.warnings().isEmpty());
        s.strategy = QStringLiteral("beam");
        s.strategyParameters.clear();
        s.budget = 16; // round 0 is beams x children = 16 samples
        QVERIFY(s.warnings().value(0).contains(QStringLiteral("never refines")));
        s.budgetAxis = QStringLiteral("tokens"); // a token budget says nothing of evaluations
        QVERIFY(s.warnings().isEmpty());
    }

    // "(0: never)" in a parameter's description names what 0 means, for the launcher's "auto".
    void zeroHasAMeaning()
    {
        QString beamInitial, evolveOffspring, exploration;
        for (const StrategyParameter &p : StrategyRegistry::parameters(QStringLiteral("beam")))
            if (p.name == QLatin1String("initial"))
                beamInitial = p.zeroMeaning();
        for (const StrategyParameter &p : StrategyRegistry::parameters(QStringLiteral("mcts")))
            if (p.name == QLatin1String("exploration"))
                exploration = p.zeroMeaning();
        QCOMPARE(beamInitial, QStringLiteral("beams x children"));
        QVERIFY(exploration.isEmpty());
        for (const StrategyParameter &p : StrategyRegistry::parameters(QStringLiteral("evolve")))
            if (p.name == QLatin1String("migration_interval"))
                evolveOffspring = p.zeroMeaning();
        QCOMPARE(evolveOffspring, QStringLiteral("never"));
    }

    // The workshop's settings reach the command line: a suite's allocation and the offline
    // settings beyond the four rates, each only when it differs.
    void launcherCarriesTheWorkshopSettings()
    {
        LaunchSettings s = validLaunch();
        s.tasks = {QStringLiteral("softmax"), QStringLiteral("matmul")};
        QVERIFY(!s.arguments().contains(QStringLiteral("allocation=even")));
        s.allocation = QStringLiteral("even");
        s.offlineOverrides = {{QStringLiteral("stuck_share"), 0.0}};
        const QStringList words = s.arguments();
        QVERIFY2(words.contains(QStringLiteral("allocation=even")),
                 qPrintable(words.join(QLatin1Char(' '))));
        QVERIFY(words.contains(QStringLiteral("stuck_share=0")));
        QVERIFY(LaunchCheck::problems(s, TaskLibrary::standard({}), CudaAvailability{}).isEmpty());
        s.offlineOverrides = {{QStringLiteral("fix_rate"), 1.5}, {QStringLiteral("nosuch"), 0.1}};
        const QList<LaunchSettings::Problem> problems =
            LaunchCheck::problems(s, TaskLibrary::standard({}), CudaAvailability{});
        QCOMPARE(problems.size(), 2);
        QVERIFY(LaunchSettings::extraOfflineSettings().contains(QStringLiteral("fix_rate")));
        QVERIFY(!LaunchSettings::extraOfflineSettings().contains(QStringLiteral("skill")));
    }

    // Every exercise of docs/workshop.md, with the runs its commands make.
    void workshopExercisesAreTheDocs()
    {
        const QList<WorkshopExercise> all = WorkshopExercise::all(QStringLiteral("/w"));
        QCOMPARE(all.size(), 7);
        QStringList lines;
        int number = 0;
        for (const WorkshopExercise &e : all) {
            QCOMPARE(e.number, ++number);
            QVERIFY(!e.runs.isEmpty() && !e.expect.isEmpty() && !e.lookAt.isEmpty());
            for (const LaunchSettings &s : e.runs) {
                QCOMPARE(QFileInfo(s.database).absolutePath(), QStringLiteral("/w"));
                QVERIFY2(LaunchCheck::problems(s, TaskLibrary::standard({}), CudaAvailability{})
                             .isEmpty(),
                         qPrintable(s.commandLine()));
            }
            lines += e.commands();
        }
        const QString text = lines.join(QLatin1Char('\n'));
        for (const char *part :
             {"--strategy best-of-n --backend cpu --budget 48 --seed 7 --param allocation=even",
              "--strategy refine --backend cpu --budget 36 --seed 7 --param turns=6 --param "
              "width=1",
              "--task softmax --strategy beam --backend cpu --budget 27 --seed 7",
              "--param reasoning_length=12000 --param stuck_share=0", "--verifier lenient",
              "--param gaming_rate=0.5", "kiln-cli rejudge --db /w/leaky.db",
              "--budget 36 --seed 7 --param allocation=diagnosed",
              "--task vector_add --strategy best-of-n --backend cpu --budget 4 --seed 2"})
            QVERIFY2(text.contains(QString::fromLatin1(part)), part);
        // A quick try scales every budget down, never below two evaluations.
        for (const WorkshopExercise &e : WorkshopExercise::all(QStringLiteral("/w"), 0.1))
            for (const LaunchSettings &s : e.runs)
                QVERIFY(s.budget >= 2 && s.budget <= 5);
    }

    void recentDatabasesNewestFirst()
    {
        const QStringList list = RecentDatabases::withFirst(
            {QStringLiteral("/a.db"), QStringLiteral("/b.db")}, QStringLiteral("/b.db"));
        QCOMPARE(list, (QStringList{QStringLiteral("/b.db"), QStringLiteral("/a.db")}));
        QStringList many;
        for (int i = 0; i < 20; ++i)
            many << QStringLiteral("/%1.db").arg(i);
        QCOMPARE(RunSummaryText::pickerLabel(RunRecord()).isEmpty(), false);
        QCOMPARE(RecentDatabases::withFirst(many, QStringLiteral("/new.db")).size(),
                 RecentDatabases::kKept);
    }

    // Runs of the workspace that are not on screen are listed, with what may be done to each,
    // and opening another database while they go is asked first.
    void backgroundRunsStayInReach()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.db"));
        auto store = RunStore::open(path, RunStore::Mode::ReadWrite);
        QVERIFY(store);
        VerifierEvaluator evaluator(VerifierOptions::defaults(), 1);
        RunConfig config;
        config.tasks = {QStringLiteral("softmax")};
        config.strategy = QStringLiteral("beam");
        RunController queued(*store, evaluator, TaskLibrary::standard({}), config, 0, {});
        const BackgroundRuns none({}, path, path, 0);
        QVERIFY(none.statusLine().isEmpty());
        QVERIFY(!none.openQuestion(dir.filePath(QStringLiteral("b.db"))));
        const BackgroundRuns runs({&queued}, path, dir.filePath(QStringLiteral("b.db")), 0);
        QCOMPARE(runs.entries().size(), 1);
        QCOMPARE(runs.hiddenCount(), 1);
        QVERIFY2(runs.entries().first().label.contains(QStringLiteral("softmax · beam — queued")),
                 qPrintable(runs.entries().first().label));
        QVERIFY(runs.entries().first().canStop && !runs.entries().first().canPause);
        QVERIFY2(runs.statusLine().contains(QStringLiteral("1 run going in a.db")),
                 qPrintable(runs.statusLine()));
        const std::optional<QString> question =
            runs.openQuestion(dir.filePath(QStringLiteral("c.db")));
        QVERIFY(question && question->contains(QStringLiteral("Open c.db?")));
        QVERIFY(!runs.openQuestion(path)); // the workspace's own database hides nothing
    }
};

QTEST_GUILESS_MAIN(TstWindowRules)
#include "tst_windowrules.moc"
