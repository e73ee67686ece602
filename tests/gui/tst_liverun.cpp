// Starting, watching and steering searches from the window (offscreen), on the real engine:
// the launcher, live growth, stop, a window closed mid-run, manual submissions, dropped files,
// and `kiln --new-run`. With KILN_SCREENSHOT_DIR set, the launcher and a live run are saved there.
#include "app/codeeditor.h"
#include "app/codepanel.h"
#include "app/lineageview.h"
#include "app/mainwindow.h"
#include "app/manualeditorpanel.h"
#include "app/manualedittab.h"
#include "app/runlauncherdialog.h"
#include "app/runprogresswidget.h"
#include "engine/diagnosis/rundiagnosis.h"
#include "models/candidatefiltermodel.h"
#include "models/candidateselection.h"
#include "models/diagnosismodel.h"
#include "models/launchsettings.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "models/workspace.h"
#include "runlineage.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

#include "app/candidatespanel.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

namespace {

QString binary(const char *name)
{
    return QStringLiteral(KILN_BINARY_DIR "/bin/") + QString::fromLatin1(name);
}

void saveScreenshot(QWidget *widget, const char *name)
{
    const QString folder = qEnvironmentVariable("KILN_SCREENSHOT_DIR");
    if (!folder.isEmpty())
        widget->grab().save(folder + QLatin1Char('/') + QLatin1String(name), "PNG");
}

// Waits until pred holds, letting events through; false on timeout.
bool waitFor(const std::function<bool()> &pred, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (!pred()) {
        if (clock.elapsed() > timeoutMs)
            return false;
        QTest::qWait(20);
    }
    return true;
}

int runProcess(const QString &program, const QStringList &args, QByteArray *out = nullptr,
               QByteArray *err = nullptr)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForFinished(300000))
        return -1;
    if (out)
        *out = p.readAllStandardOutput();
    if (err)
        *err = p.readAllStandardError();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace

class TstLiveRun : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    QString m_db;
    qint64 m_runId = 0; // the run the launcher started

    QAction *action(const char *name)
    {
        return m_window->findChild<QAction *>(QString::fromLatin1(name));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        if (!QFileInfo::exists(binary("kiln-sandbox")))
            QSKIP("kiln-sandbox is not built: no live run can be judged");
        m_db = m_dir.filePath(QStringLiteral("live.db"));
        m_window = std::make_unique<MainWindow>(MainWindow::Settings::Ignore);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanupTestCase() { m_window.reset(); }

    // The launcher rejects what cannot run, each problem with its message, and starts nothing.
    void launcherRejectsBadInput()
    {
        RunLauncherDialog dialog(m_window->workspace()->tasks(), m_window->workspace()->gpus(), {});
        LaunchSettings s;
        s.tasks = {QStringLiteral("softmax")};
        s.policy = QStringLiteral("llm");
        s.endpoint = QStringLiteral("localhost:8000");
        s.apiKeyEnv = QStringLiteral("KILN_TEST_UNSET_KEY");
        s.budget = 0;
        s.database = m_db;
        dialog.setSettings(s);
        dialog.show();
        const QString text = dialog.problemsText();
        QVERIFY2(text.contains(QStringLiteral("http:// or https://")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Name the model")));
        QVERIFY(text.contains(QStringLiteral("KILN_TEST_UNSET_KEY is not set")));
        QVERIFY(text.contains(QStringLiteral("more than 0")));
        dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        QVERIFY(dialog.isVisible()); // Start refused
        QCOMPARE(dialog.result(), int(QDialog::Rejected));

        // Fixing the fields clears the messages and the line shows the run.
        dialog.findChild<QComboBox *>(QStringLiteral("policyCombo"))->setCurrentIndex(0);
        dialog.findChild<QDoubleSpinBox *>(QStringLiteral("budgetSpin"))->setValue(6);
        dialog.findChild<QComboBox *>(QStringLiteral("backendCombo"))
            ->setCurrentText(QStringLiteral("cuda"));
        if (!m_window->workspace()->gpus().usable)
            QVERIFY(dialog.problemsText().contains(QStringLiteral("No usable GPU")));
        dialog.findChild<QComboBox *>(QStringLiteral("backendCombo"))
            ->setCurrentText(QStringLiteral("cpu"));
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problemsText()));
        QVERIFY(dialog.commandLine().startsWith(
            QStringLiteral("kiln-cli run --task softmax --strategy best-of-n --backend cpu "
                           "--budget 6 --seed 1 --db ")));
        QVERIFY(m_window->workspace()->controllers().isEmpty());
    }

    // A small offline search started from the launcher fills the tree, the table and the
    // status as results arrive; the progress bar follows the budget.
    void launcherStartsALiveRun()
    {
        // The modal launcher is driven from inside its own event loop; a failure there closes it
        // and is reported after.
        QString problem;
        QString line;
        QTimer::singleShot(0, this, [&] {
            auto *dialog = qobject_cast<RunLauncherDialog *>(QApplication::activeModalWidget());
            if (!dialog) {
                problem = QStringLiteral("no launcher on screen");
                return;
            }
            auto *task = dialog->findChild<QComboBox *>(QStringLiteral("taskCombo"));
            task->setCurrentIndex(task->findData(QStringLiteral("vector_add")));
            dialog->findChild<QComboBox *>(QStringLiteral("backendCombo"))
                ->setCurrentText(QStringLiteral("cpu"));
            dialog->findChild<QComboBox *>(QStringLiteral("strategyCombo"))
                ->setCurrentText(QStringLiteral("beam"));
            auto *beams = dialog->findChild<QSpinBox *>(QStringLiteral("param_beams"));
            auto *children = dialog->findChild<QSpinBox *>(QStringLiteral("param_children"));
            if (!beams || !children) {
                problem = QStringLiteral("no form for the beam parameters");
                dialog->reject();
                return;
            }
            beams->setValue(2);
            children->setValue(2);
            dialog->findChild<QDoubleSpinBox *>(QStringLiteral("budgetSpin"))->setValue(8);
            dialog->findChild<QSpinBox *>(QStringLiteral("seedSpin"))->setValue(2);
            dialog->findChild<QLineEdit *>(QStringLiteral("databaseEdit"))->setText(m_db);
            line = dialog->commandLine();
            for (int i = 0; i < 5; ++i) // lay the new parameter form out
                QApplication::processEvents();
            saveScreenshot(dialog, "kiln-launcher.png");
            dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
            if (dialog->isVisible()) {
                QStringList messages;
                for (const LaunchSettings::Problem &p : dialog->problems())
                    messages << p.field + QStringLiteral(": ") + p.message;
                problem = QStringLiteral("Start refused: ") + messages.join(QStringLiteral("; "));
                dialog->reject();
            }
        });
        const bool started = m_window->openLauncher();
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(started);
        QVERIFY2(line.contains(QStringLiteral("--strategy beam --backend cpu --budget 8 --seed 2 "
                                              "--param beams=2 --param children=2")),
                 qPrintable(line));
        QCOMPARE(m_window->workspace()->controllers().size(), 1);
        RunController *c = m_window->workspace()->controllers().first();
        QVERIFY(waitFor([&] { return m_window->liveController() == c; }, 30000));
        m_runId = c->runId();
        QCOMPARE(m_window->document()->run().id, m_runId);
        QVERIFY(action("actionStopRun")->isEnabled());
        QVERIFY(action("actionPauseRun")->isEnabled());

        // Growth is seen while the run goes, not only at the end.
        RunDocument *doc = m_window->document();
        QSignalSpy appended(doc, &RunDocument::candidatesAppended);
        QSignalSpy loaded(doc, &RunDocument::runLoaded);
        auto evaluated = [doc] {
            int n = 0;
            for (const CandidateSummary &s : doc->candidates())
                n += s.evaluated ? 1 : 0;
            return n;
        };
        QVERIFY(waitFor([&] { return evaluated() >= 4 || !c->isLive(); }, 60000));
        QVERIFY2(c->isLive(), "the run ended before it was seen growing");
        QVERIFY(doc->count() < 8 || evaluated() < 8);
        QVERIFY(m_window->progressWidget()->isVisible());
        QVERIFY(m_window->progressWidget()->text().contains(QStringLiteral("evals")));
        m_window->selectBestCandidate();
        QTest::qWait(300); // the tree lays out a burst of arrivals once
        saveScreenshot(m_window.get(), "kiln-live-run.png");
        QVERIFY(waitFor([&] { return c->state() == RunController::State::Finished; }, 120000));
        QTest::qWait(100);
        QCOMPARE(loaded.size(), 0);    // grew row by row, never reloaded
        QVERIFY(appended.size() >= 1); // inserted as they came (in batches), no reload
        QCOMPARE(doc->count(), 8);
        QCOMPARE(m_window->candidatesPanel()->filterModel()->rowCount(), 8);
        QCOMPARE(m_window->lineageView()->graph().size(), 8);
        QVERIFY2(m_window->statusText().contains(QStringLiteral("<b>8</b> candidates")),
                 qPrintable(m_window->statusText()));
        QVERIFY(m_window->statusText().contains(QStringLiteral("finished")));
        QCOMPARE(doc->run().status, RunRecord::Status::Finished);
        QVERIFY(!m_window->liveController());
        QVERIFY(!action("actionStopRun")->isEnabled());
        QVERIFY(!action("actionContinueRun")->isEnabled()); // finished: nothing to resume

        // The Diagnosis tab kept up with the growth (the run was never reloaded): it ends on the
        // finished run's diagnosis, as `kiln-cli diagnose` computes it.
        auto *diagnosis = m_window->findChild<DiagnosisModel *>();
        QVERIFY(diagnosis);
        auto store = RunStore::open(m_db, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        const RunHistory history = RunHistory::load(*store, m_runId);
        QCOMPARE(history.evaluatedCount(), 8);
        const QJsonObject expected =
            RunDiagnosis::toJson(m_runId, history, RunDiagnosis::diagnose(history));
        QVERIFY(waitFor(
            [&] {
                return diagnosis->runId() == m_runId &&
                       RunDiagnosis::toJson(m_runId, history, diagnosis->findings()) == expected;
            },
            DiagnosisModel::kRefreshMs + 15000));
    }

    void stopWorksAndResumeContinues()
    {
        LaunchSettings s;
        s.tasks = {QStringLiteral("softmax")};
        s.backend = QStringLiteral("cpu");
        s.budget = 10;
        s.seed = 7;
        s.database = m_db;
        QString error;
        QVERIFY2(m_window->startRuns(s, &error), qPrintable(error));
        RunController *c = m_window->workspace()->controllers().last();
        QVERIFY(waitFor([&] { return m_window->liveController() == c; }, 30000));
        QVERIFY(waitFor([&] { return m_window->document()->count() >= 2; }, 60000));
        QElapsedTimer clock;
        clock.start();
        action("actionStopRun")->trigger();
        QVERIFY(waitFor([&] { return c->state() == RunController::State::Cancelled; }, 2000));
        QVERIFY(clock.elapsed() < 2000);
        QVERIFY(waitFor([&] { return !m_window->liveController(); }, 2000));
        QCOMPARE(m_window->document()->run().status, RunRecord::Status::Cancelled);
        QVERIFY(m_window->statusText().contains(QStringLiteral("cancelled")));
        QVERIFY(action("actionContinueRun")->isEnabled());

        const qint64 runId = c->runId();
        action("actionContinueRun")->trigger();
        QVERIFY(waitFor([&] { return m_window->liveController() != nullptr; }, 30000));
        RunController *resumed = m_window->liveController();
        QCOMPARE(resumed->runId(), runId);
        QVERIFY(
            waitFor([&] { return resumed->state() == RunController::State::Finished; }, 180000));
        QVERIFY(waitFor([&] { return m_window->document()->count() == 10; }, 5000));
        QCOMPARE(m_window->document()->run().status, RunRecord::Status::Finished);
    }

    // Closing the window mid-run stops it within 2 s and leaves a run that `kiln-cli resume`
    // finishes as an uninterrupted run of the same seed would have.
    void closedWindowLeavesAResumableRun()
    {
        const QString db = m_dir.filePath(QStringLiteral("closed.db"));
        const QStringList run{QStringLiteral("--task"),     QStringLiteral("softmax"),
                              QStringLiteral("--strategy"), QStringLiteral("refine"),
                              QStringLiteral("--param"),    QStringLiteral("width=2"),
                              QStringLiteral("--param"),    QStringLiteral("turns=8"),
                              QStringLiteral("--param"),    QStringLiteral("follow=latest"),
                              QStringLiteral("--backend"),  QStringLiteral("cpu"),
                              QStringLiteral("--budget"),   QStringLiteral("14"),
                              QStringLiteral("--seed"),     QStringLiteral("11")};
        qint64 runId = 0;
        {
            MainWindow window(MainWindow::Settings::Ignore);
            window.show();
            QString error;
            RunController *c = window.startRunFromArguments(run, db, &error);
            QVERIFY2(c, qPrintable(error));
            QVERIFY(waitFor([&] { return window.document()->count() >= 4; }, 60000));
            runId = c->runId();
            QElapsedTimer clock;
            clock.start();
            window.close();
            QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
            QVERIFY(!window.workspace()->hasLiveRuns());
        }
        {
            auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
            QCOMPARE(store->run(runId)->status, RunRecord::Status::Cancelled);
            QVERIFY(store->candidateCount(runId) < 14);
        }
        QByteArray out, err;
        QCOMPARE(
            runProcess(binary("kiln-cli"),
                       {QStringLiteral("resume"), QStringLiteral("--db"), db,
                        QStringLiteral("--run"), QString::number(runId), QStringLiteral("--json")},
                       &out, &err),
            0);
        QCOMPARE(QJsonDocument::fromJson(out).object().value(QStringLiteral("candidates")).toInt(),
                 14);
        const QString wholeDb = m_dir.filePath(QStringLiteral("whole.db"));
        QCOMPARE(
            runProcess(binary("kiln-cli"),
                       QStringList{QStringLiteral("run")} + run +
                           QStringList{QStringLiteral("--db"), wholeDb, QStringLiteral("--json")},
                       &out, &err),
            0);
        const qint64 wholeId = qint64(
            QJsonDocument::fromJson(out).object().value(QStringLiteral("run_id")).toDouble());
        QString why;
        QVERIFY2(sameLineage(runLineage(db, runId), runLineage(wholeDb, wholeId), &why),
                 qPrintable(why));
    }

    // "Can you beat the search?": an edited copy becomes a manual child with its verdict.
    void manualSubmissionBecomesAChild()
    {
        QVERIFY(m_runId > 0);
        QString error;
        QVERIFY(m_window->loadRun(m_runId, &error));
        RunDocument *doc = m_window->document();
        const int best = doc->bestRow();
        QVERIFY(best >= 0);
        const qint64 parent = doc->at(best).id;
        m_window->selection()->setCurrent(parent);
        QVERIFY(action("actionEditCopy")->isEnabled());
        ManualEditTab *tab = m_window->editCopyOfCurrent();
        QVERIFY(tab);
        QCOMPARE(m_window->editorPanel()->tabs()->count(), 1);
        QVERIFY(!tab->editor()->isReadOnly());
        tab->editor()->append(QStringLiteral("\n// tuned by hand\n"));
        const int before = doc->count();
        tab->submitButton()->click();
        QVERIFY(tab->ticket() > 0);
        QVERIFY(waitFor([&] { return tab->ticket() == 0; }, 120000));
        QCOMPARE(doc->count(), before + 1);
        const CandidateSummary &added = doc->at(doc->count() - 1);
        QCOMPARE(added.operation, Operation::Manual);
        QCOMPARE(added.parent, std::optional<qint64>(parent));
        QVERIFY(added.evaluated);
        QCOMPARE(added.verdict, Verdict::Pass);
        QVERIFY2(tab->statusText().contains(QStringLiteral("pass")), qPrintable(tab->statusText()));
        QCOMPARE(m_window->selection()->current(), added.id);
        auto store = RunStore::open(m_db, RunStore::Mode::ReadOnly);
        const std::optional<CandidateRecord> stored = store->candidate(added.id);
        QVERIFY(stored);
        QVERIFY(stored->source.contains(QStringLiteral("tuned by hand")));
        QCOMPARE(store->evaluation(added.id)->verdict, Verdict::Pass);
    }

    // A file dropped onto the window is judged against the shown run's task and stored as a
    // manual root; files that cannot be judged are refused with a reason.
    void droppedFileIsEvaluated()
    {
        QString error;
        QVERIFY(m_window->loadRun(m_runId, &error));
        const QString file =
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/vector_add_naive.cpp");
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(file)});
        QSignalSpy judged(m_window.get(), &MainWindow::fileEvaluated);
        QDragEnterEvent enter(QPoint(200, 200), Qt::CopyAction, &mime, Qt::LeftButton,
                              Qt::NoModifier);
        QApplication::sendEvent(m_window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(200, 200), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(m_window.get(), &drop);
        QVERIFY(judged.wait(120000));
        QCOMPARE(judged.first().at(0).toBool(), true);
        const qint64 id = judged.first().at(1).toLongLong();
        const EvaluationResult result = judged.first().at(2).value<EvaluationResult>();
        QCOMPARE(result.verdict, Verdict::Pass);
        const int row = m_window->document()->rowOf(id);
        QVERIFY(row >= 0);
        QCOMPARE(m_window->document()->at(row).operation, Operation::Manual);
        QVERIFY(!m_window->document()->at(row).parent);
        QCOMPARE(m_window->selection()->current(), id);

        QVERIFY(!m_window->evaluateFile(m_dir.filePath(QStringLiteral("notes.txt")), {}, &error));
        QVERIFY(error.contains(QStringLiteral("not a kernel source")));
        QVERIFY(!m_window->evaluateFile(
            QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cuda/vector_add_naive.cu"), {},
            &error));
        QVERIFY2(error.contains(QStringLiteral("judges CPU")), qPrintable(error));
    }

    // With no search run shown, a file is judged against a task of its own as an evaluation run.
    void fileWithoutARunBecomesAnEvaluation()
    {
        MainWindow window(MainWindow::Settings::Ignore);
        window.show();
        QSignalSpy judged(&window, &MainWindow::fileEvaluated);
        QString error;
        QVERIFY2(window.evaluateFile(
                     QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/softmax_naive.cpp"),
                     QStringLiteral("softmax"), &error),
                 qPrintable(error));
        QVERIFY(judged.wait(120000));
        QVERIFY(judged.first().at(0).toBool());
        QCOMPARE(window.document()->run().kind, QStringLiteral("eval"));
        QCOMPARE(window.document()->count(), 1);
        QCOMPARE(judged.first().at(2).value<EvaluationResult>().verdict, Verdict::Pass);
    }

    // kiln --db FILE --new-run ARGS… --screenshot OUT.png waits for the run, renders, exits 0.
    void newRunFromTheCommandLine()
    {
        const QString db = m_dir.filePath(QStringLiteral("cmdline.db"));
        const QString png = m_dir.filePath(QStringLiteral("run.png"));
        QByteArray out, err;
        QCOMPARE(
            runProcess(binary("kiln"),
                       {QStringLiteral("--db"), db, QStringLiteral("--screenshot"), png,
                        QStringLiteral("--new-run"), QStringLiteral("--task"),
                        QStringLiteral("transpose"), QStringLiteral("--backend"),
                        QStringLiteral("cpu"), QStringLiteral("--budget"), QStringLiteral("4")},
                       &out, &err),
            0);
        QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() > 800);
        auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        QCOMPARE(store->runs().size(), 1);
        QCOMPARE(store->runs().first().status, RunRecord::Status::Finished);
        QCOMPARE(store->candidateCount(store->runs().first().id), 4);

        QCOMPARE(runProcess(binary("kiln"),
                            {QStringLiteral("--db"), db, QStringLiteral("--new-run"),
                             QStringLiteral("--task"), QStringLiteral("transpose"),
                             QStringLiteral("--budget"), QStringLiteral("-3")},
                            &out, &err),
                 2);
        QVERIFY2(err.contains("--budget must be a positive number"), err.constData());
        QCOMPARE(err.count('\n'), 1);

        // A run the engine cannot set up (an unknown task) ends kiln with 2 and one line, also
        // without --screenshot, where it used to leave an empty window open.
        QCOMPARE(runProcess(binary("kiln"),
                            {QStringLiteral("--db"), db, QStringLiteral("--new-run"),
                             QStringLiteral("--task"), QStringLiteral("nosuch"),
                             QStringLiteral("--budget"), QStringLiteral("2")},
                            &out, &err),
                 2);
        QVERIFY2(err.contains("kiln: --new-run: unknown task 'nosuch'"), err.constData());
    }
};

QTEST_MAIN(TstLiveRun)
#include "tst_liverun.moc"
