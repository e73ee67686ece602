#include "app/candidatespanel.h"
#include "app/codeeditor.h"
#include "app/codepanel.h"
#include "app/commandlineoptions.h"
#include "app/diagnosispanel.h"
#include "app/diffpanel.h"
#include "app/doctordialog.h"
#include "app/lineageview.h"
#include "app/mainwindow.h"
#include "app/memorydialog.h"
#include "app/noticelabel.h"
#include "app/plotspanel.h"
#include "app/reportpanel.h"
#include "app/transcriptpanel.h"
#include "damageddatabase.h"
#include "engine/diagnosis/rundiagnosis.h"
#include "kilnprocess.h"
#include "models/candidatefiltermodel.h"
#include "models/candidatehighlight.h"
#include "models/candidateselection.h"
#include "models/candidatetablemodel.h"
#include "models/diagnosismodel.h"
#include "models/memorytablemodel.h"
#include "models/notices.h"
#include "models/rundocument.h"
#include "models/verdictstyle.h"
#include "store/runstore.h"
#include "syntheticrun.h"

#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDropEvent>
#include <QFileInfo>
#include <QHelpEvent>
#include <QImage>
#include <QLineEdit>
#include <QListView>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QToolTip>
#include <QTreeWidget>

using namespace kiln;
using namespace kiln::testing;

class TstMainWindow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_engineDb;    // made by kiln-cli run (the real engine)
    QString m_syntheticDb; // flags, compile errors, crossovers and evictions on demand
    QString m_damagedDb;   // a copy of it with damaged pages
    QString m_fixture;     // the engine's
    std::unique_ptr<MainWindow> m_window;

    int tableRows() { return m_window->candidatesPanel()->filterModel()->rowCount(); }

    // A candidate id of the open run that satisfies pred, or 0.
    qint64 find(const std::function<bool(const CandidateSummary &)> &pred)
    {
        const RunDocument *doc = m_window->document();
        for (const CandidateSummary &c : doc->candidates()) {
            if (!c.placeholder && pred(c))
                return c.id;
        }
        return 0;
    }

    void open(const QString &db)
    {
        CommandLineOptions options;
        options.database = db;
        QString error;
        QVERIFY2(m_window->applyOptions(options, &error), qPrintable(error));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_syntheticDb = m_dir.filePath(QStringLiteral("synthetic.db"));
        {
            auto store = RunStore::open(m_syntheticDb, RunStore::Mode::ReadWrite);
            QVERIFY(store);
            SyntheticRunOptions options;
            options.candidates = 300;
            options.islands = 3;
            options.crossover = true;
            QVERIFY(createSyntheticRun(*store, options) > 0);
        }
        m_damagedDb = m_dir.filePath(QStringLiteral("damaged.db"));
        QVERIFY(QFile::copy(m_syntheticDb, m_damagedDb));
        QVERIFY(kiln::test::damageDatabase(m_damagedDb));
        m_engineDb = m_dir.filePath(QStringLiteral("engine.db"));
        // KILN_CLI points at another build's kiln-cli (kiln-sandbox must sit beside it).
        const QString cliPath = qEnvironmentVariableIsSet("KILN_CLI")
                                    ? qEnvironmentVariable("KILN_CLI")
                                    : binary("kiln-cli");
        // The views are tested on what the real engine makes; without it there is nothing honest
        // to show them.
        if (!QFileInfo::exists(cliPath))
            QSKIP("kiln-cli is not built: the view tests need a run made by the real engine");
        QProcess cli;
        cli.start(cliPath,
                  {QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("softmax"),
                   QStringLiteral("--strategy"), QStringLiteral("evolve"),
                   QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--budget"),
                   QStringLiteral("48"), QStringLiteral("--seed"), QStringLiteral("3"),
                   QStringLiteral("--db"), m_engineDb, QStringLiteral("--json")});
        QVERIFY(cli.waitForFinished(400000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        m_fixture = m_engineDb;
        m_window = std::make_unique<MainWindow>(MainWindow::Settings::Ignore);
        open(m_fixture);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanupTestCase() { m_window.reset(); }

    void showsTheRun()
    {
        RunDocument *doc = m_window->document();
        QVERIFY(doc->hasRun());
        QVERIFY(doc->count() > 0);
        QVERIFY(m_window->runCombo()->count() >= 1);
        QCOMPARE(m_window->runCombo()->currentData().toLongLong(), doc->run().id);
        int stored = 0;
        for (const CandidateSummary &c : doc->candidates())
            stored += c.placeholder ? 0 : 1;
        QCOMPARE(tableRows(), stored);
        QCOMPARE(m_window->lineageView()->treeLayout().size(), doc->count());
        QVERIFY(m_window->statusText().contains(QStringLiteral("candidates")));
        // Opening selects the best passing candidate, whose path is drawn.
        if (doc->bestRow() >= 0) {
            QCOMPARE(m_window->selection()->current(), doc->at(doc->bestRow()).id);
            QVERIFY(m_window->lineageView()->isOnBestPath(doc->bestRow()));
        }
        QAbstractItemModelTester tester(m_window->candidatesPanel()->filterModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
    }

    void tableSelectionDrivesEveryPanel()
    {
        const qint64 id = find([](const CandidateSummary &c) { return c.parent.has_value(); });
        QVERIFY(id);
        auto *view = m_window->candidatesPanel()->view();
        auto *filter = m_window->candidatesPanel()->filterModel();
        QModelIndex index;
        for (int r = 0; r < filter->rowCount(); ++r) {
            if (filter->index(r, 0).data(CandidateTableModel::IdRole).toLongLong() == id)
                index = filter->index(r, 0);
        }
        QVERIFY(index.isValid());
        view->setCurrentIndex(index);
        QCOMPARE(m_window->selection()->current(), id);
        const auto record = m_window->document()->candidate(id);
        QVERIFY(record);
        QCOMPARE(m_window->codePanel()->editor()->text(), record->source);
        QVERIFY(m_window->codePanel()->headerText().contains(QStringLiteral("#%1").arg(id)));
        const QString transcript = m_window->transcriptPanel()->browser()->toPlainText();
        QVERIFY(transcript.contains(QStringLiteral("Prompt")));
        QVERIFY(transcript.contains(record->prompt.left(40).trimmed()));
        const auto result = m_window->document()->evaluation(id);
        if (result) {
            const QString report = m_window->reportPanel()->browser()->toPlainText();
            QVERIFY(report.contains(VerdictStyle::label(result->verdict).toUpper()));
            for (const StageResult &stage : result->stages)
                QVERIFY2(report.contains(stage.name), qPrintable(stage.name));
        }
        QCOMPARE(m_window->diffPanel()->rightId(), id);
        QCOMPARE(m_window->diffPanel()->leftId(), *record->parent);
    }

    void clickingANodeSelectsIt()
    {
        LineageView *tree = m_window->lineageView();
        const qint64 id = find([](const CandidateSummary &c) { return c.generation >= 1; });
        QVERIFY(id);
        QVERIFY(tree->findCandidate(id)); // centres and zooms so the node is clickable
        m_window->selection()->setCurrent(0);
        const auto pos = tree->nodeScreenPosition(id);
        QVERIFY(pos);
        QVERIFY(tree->rect().contains(pos->toPoint()));
        QTest::mouseClick(tree, Qt::LeftButton, {}, pos->toPoint());
        QCOMPARE(m_window->selection()->current(), id);
        // The table follows.
        const QModelIndex current = m_window->candidatesPanel()->view()->currentIndex();
        QCOMPARE(current.data(CandidateTableModel::IdRole).toLongLong(), id);

        // Ctrl+click picks the other side of the diff.
        const auto &children = tree->graph().children(m_window->document()->rowOf(id));
        const int parentRow = tree->graph().parent(m_window->document()->rowOf(id));
        QVERIFY(parentRow >= 0);
        const qint64 other = m_window->document()->at(parentRow).id;
        Q_UNUSED(children);
        const auto otherPos = tree->nodeScreenPosition(other);
        QVERIFY(otherPos);
        if (tree->rect().contains(otherPos->toPoint())) {
            QTest::mouseClick(tree, Qt::LeftButton, Qt::ControlModifier, otherPos->toPoint());
            QCOMPARE(m_window->selection()->compare(), other);
            QCOMPARE(m_window->diffPanel()->leftId(), other);
            QCOMPARE(m_window->selection()->current(), id);
        }
        // Clicking empty space keeps the selection. Where the space is depends on the run the
        // engine made (its timings steer the search): look for a point no node covers.
        std::optional<QPoint> empty;
        for (int y = 3; y < tree->height() && !empty; y += 7) {
            for (int x = 3; x < tree->width() && !empty; x += 7) {
                if (tree->rowAt(QPointF(x, y)) < 0)
                    empty = QPoint(x, y);
            }
        }
        QVERIFY(empty);
        QTest::mouseClick(tree, Qt::LeftButton, {}, *empty);
        QCOMPARE(m_window->selection()->current(), id);
    }

    void tooltipDescribesTheNode()
    {
        LineageView *tree = m_window->lineageView();
        const qint64 id = find([](const CandidateSummary &c) { return c.evaluated; });
        QVERIFY(tree->findCandidate(id));
        const QPoint pos = tree->nodeScreenPosition(id)->toPoint();
        QHelpEvent help(QEvent::ToolTip, pos, tree->mapToGlobal(pos));
        QApplication::sendEvent(tree, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        const CandidateSummary &c = m_window->document()->at(m_window->document()->rowOf(id));
        const QString text = QToolTip::text();
        QVERIFY2(text.contains(QStringLiteral("#%1").arg(id)), qPrintable(text));
        QVERIFY2(text.contains(VerdictStyle::label(c)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("tokens")), qPrintable(text));
        if (!c.firstFlag.isEmpty())
            QVERIFY(text.contains(c.flagIds.first()));
        QToolTip::hideText();
    }

    void findAndCollapse()
    {
        LineageView *tree = m_window->lineageView();
        RunDocument *doc = m_window->document();
        int row = -1;
        for (int i = 0; i < doc->count(); ++i) {
            if (!tree->graph().children(i).isEmpty()) {
                row = i;
                break;
            }
        }
        QVERIFY(row >= 0);
        const int hiddenBefore = tree->graph().hiddenMask().count(true);
        tree->setCollapsed(row, true);
        const int below = tree->graph().descendantCount(row);
        QCOMPARE(tree->graph().hiddenMask().count(true), hiddenBefore + below);
        const int child = tree->graph().children(row).first();
        QVERIFY(!tree->treeLayout().isVisible(child));
        // Finding a hidden candidate expands its ancestors.
        QVERIFY(tree->findCandidate(doc->at(child).id));
        QVERIFY(tree->treeLayout().isVisible(child));
        QCOMPARE(m_window->selection()->current(), doc->at(child).id);
        QVERIFY(!tree->findCandidate(987654321));
        tree->expandAll();
        tree->fitToView();
    }

    void filtersNarrowTheTable()
    {
        CandidatesPanel *panel = m_window->candidatesPanel();
        const int all = tableRows();
        panel->setVerdictFilter({int(Verdict::Pass)});
        const int passing = tableRows();
        QVERIFY(passing <= all);
        for (int r = 0; r < passing; ++r)
            QCOMPARE(
                panel->filterModel()->index(r, 0).data(CandidateTableModel::VerdictRole).toInt(),
                int(Verdict::Pass));
        panel->setVerdictFilter({});
        QCOMPARE(tableRows(), all);
        panel->setFlagFilter(QStringLiteral("no-such-flag-anywhere"));
        QCOMPARE(tableRows(), 0);
        panel->setFlagFilter(QString());
        QCOMPARE(tableRows(), all);
    }

    void diffShowsChangedLines()
    {
        // A child whose source differs from its parent's.
        RunDocument *doc = m_window->document();
        qint64 child = 0;
        for (const CandidateSummary &c : doc->candidates()) {
            if (!c.parent || c.placeholder)
                continue;
            const auto a = doc->candidate(c.id);
            const auto b = doc->candidate(*c.parent);
            if (a && b && a->source != b->source) {
                child = c.id;
                break;
            }
        }
        QVERIFY(child);
        m_window->showView(QStringLiteral("diff"));
        m_window->selection()->setCurrent(child);
        DiffPanel *diff = m_window->diffPanel();
        QCOMPARE(diff->rightId(), child);
        QVERIFY(!diff->diff().identical());
        QVERIFY(diff->summaryText().contains(QStringLiteral("lines")));
        // Both editors show one row per aligned row, so scrolling stays in step.
        QCOMPARE(diff->leftEditor()->lines(), int(diff->diff().rows().size()));
        QCOMPARE(diff->rightEditor()->lines(), int(diff->diff().rows().size()));
        const int first = diff->diff().hunks().first();
        const auto &row = diff->diff().rows().at(first);
        if (row.rightLine >= 0)
            QCOMPARE(diff->rightEditor()->text(first).trimmed(),
                     diff->diff().rightLines().at(row.rightLine).trimmed());
        diff->nextChange();
        diff->previousChange();
        QVERIFY(diff->currentHunk() >= 0);
        diff->leftEditor()->setFirstVisibleLine(std::max(0, int(diff->diff().rows().size()) - 12));
        QTRY_COMPARE(diff->rightEditor()->firstVisibleLine(),
                     diff->leftEditor()->firstVisibleLine());
        diff->rightEditor()->setFirstVisibleLine(0);
        QTRY_COMPARE(diff->leftEditor()->firstVisibleLine(), 0);
    }

    void flagsAndDiagnosticsOnTheirLines()
    {
        // The engine flags cheats only when its policy produces one: use the synthetic run.
        MainWindow window(MainWindow::Settings::Ignore);
        CommandLineOptions options;
        options.database = m_syntheticDb;
        QVERIFY(window.applyOptions(options));
        RunDocument *doc = window.document();
        qint64 flagged = 0;
        qint64 broken = 0;
        for (const CandidateSummary &c : doc->candidates()) {
            if (!flagged && c.flagIds.contains(QStringLiteral("side_stream")))
                flagged = c.id;
            if (!broken && c.evaluated && c.verdict == Verdict::CompileError)
                broken = c.id;
        }
        QVERIFY(flagged && broken);
        window.selection()->setCurrent(flagged);
        const EvaluationResult result = *doc->evaluation(flagged);
        const CheatFlag flag = result.flags.first();
        CodeEditor *editor = window.codePanel()->editor();
        QVERIFY(!flag.lines.isEmpty());
        const int line = flag.lines.first();
        QVERIFY(editor->text(line - 1).contains(QStringLiteral("cudaStreamCreate")));
        QVERIFY(editor->markersAt(line) & (1u << editor->flagMarker()));
        QVERIFY(editor->noteAt(line).contains(flag.message));
        QCOMPARE(editor->markersAt(1), 0u);
        QVERIFY(window.reportPanel()->browser()->toPlainText().contains(flag.message));

        window.selection()->setCurrent(broken);
        bool marked = false;
        for (int l = 1; l <= editor->lines(); ++l)
            marked = marked || (editor->markersAt(l) & (1u << editor->errorMarker()));
        QVERIFY(marked);
        QVERIFY(window.reportPanel()->browser()->toHtml().contains(QStringLiteral("kiln-line:")));
        // The synthetic run has crossovers: the tree switches to the layered layout.
        QCOMPARE(window.lineageView()->treeLayout().mode(), TreeLayout::Mode::Layered);
    }

    void liveRunGrows()
    {
        const QString path = m_dir.filePath(QStringLiteral("live.db"));
        auto writer = RunStore::open(path, RunStore::Mode::ReadWrite);
        QVERIFY(writer);
        RunRecord run;
        run.tasks = {QStringLiteral("softmax")};
        run.strategy = QStringLiteral("refine");
        run.status = RunRecord::Status::Running;
        const qint64 runId = writer->createRun(run);
        auto add = [&](std::optional<qint64> parent) {
            CandidateRecord c;
            c.runId = runId;
            c.task = QStringLiteral("softmax");
            c.parent = parent;
            c.operation = parent ? Operation::Refine : Operation::Sample;
            c.source = QStringLiteral("// turn\n");
            writer->addCandidate(c);
            return c.id;
        };
        const qint64 root = add(std::nullopt);
        MainWindow window(MainWindow::Settings::Ignore);
        CommandLineOptions options;
        options.database = path;
        QVERIFY(window.applyOptions(options));
        window.show();
        QCOMPARE(window.document()->count(), 1);
        const qint64 next = add(root);
        add(next);
        QTRY_COMPARE_WITH_TIMEOUT(window.document()->count(), 3, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(window.lineageView()->treeLayout().size(), 3, 5000);
        QCOMPARE(window.candidatesPanel()->filterModel()->rowCount(), 3);
        QCOMPARE(window.lineageView()->treeLayout().depth(2), 2);
    }

    void opensInTheBackground()
    {
        MainWindow window(MainWindow::Settings::Ignore);
        window.show();
        CommandLineOptions options;
        options.database = m_syntheticDb;
        QString error;
        QVERIFY2(window.applyOptions(options, &error, false), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(window.document()->hasRun(), 30000);
        QTRY_VERIFY(window.selection()->current() != 0);
        const RunDocument *doc = window.document();
        QCOMPARE(window.selection()->current(), doc->at(doc->bestRow()).id);
        QCOMPARE(window.lineageView()->treeLayout().size(), doc->count());
        QCOMPARE(window.runCombo()->currentData().toLongLong(), doc->run().id);
    }

    void layoutIsRemembered()
    {
        QSettings().clear();
        {
            MainWindow window(MainWindow::Settings::Remember);
            window.show();
            window.dockFor(QStringLiteral("transcript"))->hide();
            window.close();
        }
        MainWindow again(MainWindow::Settings::Remember);
        again.show();
        QVERIFY(again.dockFor(QStringLiteral("transcript"))->isHidden());
        QVERIFY(!again.dockFor(QStringLiteral("code"))->isHidden());
        QSettings().clear();
    }

    // Help > Check this machine: the doctor's findings in a table, filled from a worker thread.
    void doctorDialog()
    {
        auto *action = m_window->findChild<QAction *>(QStringLiteral("actionDoctor"));
        QVERIFY(action);
        action->trigger();
        auto *dialog = m_window->findChild<DoctorDialog *>();
        QVERIFY(dialog && dialog->isVisible());
        QSignalSpy checked(dialog, &DoctorDialog::checked);
        QVERIFY(dialog->isChecking() || !checked.isEmpty());
        QVERIFY(checked.wait(120000) || !checked.isEmpty());
        QCOMPARE(dialog->table()->topLevelItemCount(), dialog->findings().size());
        bool cpu = false;
        for (int i = 0; i < dialog->table()->topLevelItemCount(); ++i) {
            const QTreeWidgetItem *item = dialog->table()->topLevelItem(i);
            if (item->text(1) == QLatin1String("cpu-backend"))
                cpu = item->text(0) == QLatin1String("ok");
        }
        QVERIFY(cpu);
        // KILN_SCREENSHOT_DIR: the dialog as a person sees it.
        if (const QString folder = qEnvironmentVariable("KILN_SCREENSHOT_DIR"); !folder.isEmpty()) {
            QTest::qWait(100); // the layout settles on the event loop
            dialog->grab().save(folder + QStringLiteral("/kiln-doctor.png"), "PNG");
        }
        dialog->close();
    }

    // Run > Optimisation memory: the lessons in a table, the selected one's diff, an idea edited in
    // place (and marked edited in the store), one lesson deleted, then all cleared.
    void memoryDialog()
    {
        QTemporaryDir dir;
        auto store =
            RunStore::open(dir.filePath(QStringLiteral("m.db")), RunStore::Mode::ReadWrite);
        QVERIFY(store);
        for (int i = 0; i < 2; ++i) {
            MemoryEntry e;
            e.task = i == 0 ? QStringLiteral("softmax") : QStringLiteral("matmul");
            e.backend = QStringLiteral("cpu");
            e.idea = QStringLiteral("TILE: 16 -> 64");
            e.diff = QStringLiteral("@@ -1,1 +1,1 @@\n-int b;\n+int B;");
            e.speedupBefore = 1.0;
            e.speedupAfter = 1.5 + i;
            e.childId = 10 + i;
            QVERIFY(store->addMemoryEntry(e) > 0);
        }
        MemoryDialog dialog(store.get());
        dialog.show();
        QAbstractItemModelTester tester(dialog.model());
        QCOMPARE(dialog.model()->rowCount(), 2);
        QVERIFY(!dialog.deleteButton()->isEnabled());
        dialog.table()->selectRow(0);
        QVERIFY(dialog.diff()->toPlainText().contains(QStringLiteral("+int B;")));
        // KILN_SCREENSHOT_DIR: the dialog as a person sees it.
        if (const QString folder = qEnvironmentVariable("KILN_SCREENSHOT_DIR"); !folder.isEmpty()) {
            QTest::qWait(100); // the layout settles on the event loop
            dialog.grab().save(folder + QStringLiteral("/kiln-memory.png"), "PNG");
        }
        QVERIFY(dialog.deleteButton()->isEnabled());
        const qint64 first = dialog.model()->entry(0).id;
        QVERIFY(dialog.model()->setData(dialog.model()->index(0, MemoryTableModel::Idea),
                                        QStringLiteral("tile by 64")));
        QCOMPARE(store->memoryEntry(first)->idea, QStringLiteral("tile by 64"));
        QVERIFY(store->memoryEntry(first)->edited);
        QVERIFY(dialog.model()
                    ->data(dialog.model()->index(0, MemoryTableModel::Idea))
                    .toString()
                    .endsWith(QStringLiteral("(edited)")));
        dialog.deleteButton()->click();
        QCOMPARE(dialog.model()->rowCount(), 1);
        QVERIFY(!store->memoryEntry(first));
        QVERIFY(dialog.clearAll());
        QCOMPARE(dialog.model()->rowCount(), 0);
        QVERIFY(store->memoryEntries().isEmpty());
        // The window's action opens it over the workspace's writer.
        auto *action = m_window->findChild<QAction *>(QStringLiteral("actionMemory"));
        QVERIFY(action);
        action->trigger();
        auto *shown = m_window->findChild<MemoryDialog *>();
        QVERIFY(shown && shown->isVisible());
        shown->close();
    }

    // A run another process adds to the open database reaches the run picker by itself.
    void runPickerSeesRunsOfAnotherProcess()
    {
        const QString db = m_dir.filePath(QStringLiteral("shared.db"));
        auto cliRun = [&db](const QString &seed) {
            QProcess cli;
            cli.start(binary("kiln-cli"),
                      {QStringLiteral("run"), QStringLiteral("--task"),
                       QStringLiteral("vector_add"), QStringLiteral("--backend"),
                       QStringLiteral("cpu"), QStringLiteral("--budget"), QStringLiteral("2"),
                       QStringLiteral("--seed"), seed, QStringLiteral("--db"), db});
            return cli.waitForFinished(120000) && cli.exitCode() == 0;
        };
        QVERIFY(cliRun(QStringLiteral("1")));
        open(db);
        QCOMPARE(m_window->runCombo()->count(), 1);
        QVERIFY(cliRun(QStringLiteral("2")));
        QTRY_COMPARE_WITH_TIMEOUT(m_window->runCombo()->count(), 2, 10000);
        // The shown run stays the one that was open.
        QCOMPARE(m_window->runCombo()->currentData().toLongLong(), m_window->document()->run().id);
        open(m_fixture);
    }

    // A lenient run's speedups are not true ones: the title and the run picker say so.
    void lenientRunIsLabelled()
    {
        const QString db = m_dir.filePath(QStringLiteral("lenient.db"));
        QProcess cli;
        cli.start(binary("kiln-cli"),
                  {QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("vector_add"),
                   QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--verifier"),
                   QStringLiteral("lenient"), QStringLiteral("--budget"), QStringLiteral("2"),
                   QStringLiteral("--db"), db});
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        open(db);
        QVERIFY2(m_window->windowTitle().contains(QLatin1String("LENIENT verifier")),
                 qPrintable(m_window->windowTitle()));
        QVERIFY(m_window->runCombo()->currentText().contains(QLatin1String("LENIENT verifier")));
        open(m_fixture);
        QVERIFY(!m_window->windowTitle().contains(QLatin1String("LENIENT")));
    }

    void screenshots_data()
    {
        QTest::addColumn<QString>("view");
        for (const QString &view : CommandLineOptions::views())
            QTest::newRow(qPrintable(view)) << view;
    }

    void screenshots()
    {
        QFETCH(QString, view);
        const QString out = QStringLiteral(KILN_BINARY_DIR "/screenshots/kiln-%1.png").arg(view);
        QDir().mkpath(QFileInfo(out).absolutePath());
        QFile::remove(out);
        QString err;
        QCOMPARE(runKiln({QStringLiteral("--db"), m_fixture, QStringLiteral("--view"), view,
                          QStringLiteral("--screenshot"), out},
                         &err),
                 0);
        QImage image(out);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(1600, 1000));
        // Not a blank window: many distinct colours.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
    }

    // The Diagnosis panel shows what `kiln-cli diagnose` computes for the shown run (one code
    // path, off the GUI thread); a click on a finding rings its evidence in the tree, tints its
    // rows in the table and marks it on the speedup plot; a live run's growth recomputes it.
    void diagnosisPanelHighlightsEvidence()
    {
        open(m_fixture);
        auto *model = m_window->findChild<DiagnosisModel *>();
        auto *panel = m_window->findChild<DiagnosisPanel *>();
        auto *highlight = m_window->findChild<CandidateHighlight *>();
        QVERIFY(model && panel && highlight);
        const qint64 runId = m_window->document()->run().id;
        QTRY_VERIFY_WITH_TIMEOUT(model->runId() == runId && !model->isComputing(), 20000);
        auto store = RunStore::open(m_fixture, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        const RunHistory history = RunHistory::load(*store, runId);
        const QList<DiagnosisFinding> expected = RunDiagnosis::diagnose(history);
        QCOMPARE(RunDiagnosis::toJson(runId, history, model->findings()),
                 RunDiagnosis::toJson(runId, history, expected));
        QCOMPARE(model->rowCount(), 8);

        m_window->showView(QStringLiteral("diagnosis"));
        QListView *list = panel->list();
        QTRY_VERIFY(list->isVisible());
        const int row = 0; // stagnation: its evidence is the best candidate
        QCOMPARE(model->findings()[row].analyzer, QStringLiteral("stagnation"));
        const QList<qint64> evidence = model->findings()[row].candidates;
        QVERIFY(!evidence.isEmpty());
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualRect(model->index(row)).center());
        QCOMPARE(highlight->ids(), QSet<qint64>(evidence.cbegin(), evidence.cend()));
        QCOMPARE(highlight->label(), QStringLiteral("Stagnation"));

        CandidateTableModel *table = m_window->findChild<CandidatesPanel *>()->tableModel();
        const int shown = m_window->document()->rowOf(evidence.first());
        QCOMPARE(table->data(table->index(shown, 0), Qt::BackgroundRole).value<QColor>().rgb(),
                 VerdictStyle::highlightColor().rgb());
        const int other = shown == 0 ? 1 : 0;
        QVERIFY(!table->data(table->index(other, 0), Qt::BackgroundRole).isValid());

        auto *plots = m_window->findChild<PlotsPanel *>();
        m_window->showView(QStringLiteral("plots"));
        QTRY_VERIFY(plots->renderer().csv().contains(
            QStringLiteral("evidence: Stagnation (%1)").arg(evidence.size())));

        // News of a live run (a candidate judged): the diagnosis is computed again, throttled,
        // and the highlight follows the same finding.
        QSignalSpy again(model, &DiagnosisModel::diagnosed);
        emit m_window->document()->candidateChanged(shown); // as a judged candidate does
        QVERIFY(again.wait(DiagnosisModel::kRefreshMs + 10000));
        QCOMPARE(highlight->label(), QStringLiteral("Stagnation"));

        auto *clear = panel->findChild<QPushButton *>(QStringLiteral("clearHighlight"));
        QVERIFY(clear->isEnabled());
        QTest::mouseClick(clear, Qt::LeftButton);
        QVERIFY(highlight->isEmpty());
        QVERIFY(!table->data(table->index(shown, 0), Qt::BackgroundRole).isValid());
        QTRY_VERIFY(!plots->renderer().csv().contains(QStringLiteral("evidence:")));
    }

    // Every message reaches the person: the notice area keeps a width of its own beside the run
    // summary (at a narrow window too), a failure opens a dialog without a nested event loop, and
    // the notices that were replaced stay in the list.
    void messagesReachThePerson()
    {
        const QSize before = m_window->size();
        m_window->resize(900, 700);
        auto *find = m_window->findChild<QLineEdit *>(QStringLiteral("findEdit"));
        QVERIFY(find);
        find->setText(QStringLiteral("987654"));
        QTest::keyClick(find, Qt::Key_Return);
        NoticeLabel *label = m_window->noticeLabel();
        QCOMPARE(label->notice(), QStringLiteral("No candidate 987654 in this run"));
        QVERIFY(label->isVisible());
        QTest::qWait(50); // the status bar lays itself out
        QVERIFY2(label->width() >= label->minimumSizeHint().width(),
                 qPrintable(QString::number(label->width())));
        QVERIFY(label->text().startsWith(QStringLiteral("No candidate")));

        // A failure: a dropped file that cannot be judged (an empty kernel source).
        const QString empty = m_dir.filePath(QStringLiteral("empty.cu"));
        QFile file(empty);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(empty)});
        // As a drag does: enter first (the window takes the file), then the drop.
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton,
                              Qt::NoModifier);
        QCoreApplication::sendEvent(m_window.get(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(m_window.get(), &drop);
        const Notices::Notice last = m_window->notices()->all().last();
        QVERIFY2(last.kind == Notices::Kind::Failure, qPrintable(last.text));
        QCOMPARE(label->notice(), last.text);
        auto *dialog = m_window->findChild<QMessageBox *>(QStringLiteral("failureDialog"));
        QVERIFY(dialog);
        QTRY_VERIFY(dialog->isVisible());
        QCOMPARE(dialog->text(), last.text);
        QVERIFY(!dialog->isModal() || dialog->windowModality() != Qt::ApplicationModal);
        dialog->close();
        // The earlier notice was replaced on screen, not lost.
        QVERIFY(m_window->notices()
                    ->recent(5)
                    .join(QLatin1Char('\n'))
                    .contains(QStringLiteral("No candidate 987654 in this run")));
        m_window->resize(before);
    }

    // Opening a damaged database (valid header, damaged pages) keeps the open one, says why,
    // and writes nothing beside the damaged file.
    void aDamagedDatabaseKeepsTheOpenOne()
    {
        const QString before = m_window->document()->databasePath();
        const qint64 run = m_window->document()->run().id;
        CommandLineOptions options;
        options.database = m_damagedDb;
        QString error;
        QVERIFY(!m_window->applyOptions(options, &error));
        QVERIFY2(error.contains(QStringLiteral("a damaged database")), qPrintable(error));
        QCOMPARE(m_window->document()->databasePath(), before);
        QCOMPARE(m_window->document()->run().id, run);
        QVERIFY(!QFileInfo::exists(m_damagedDb + QStringLiteral("-wal")));
        QVERIFY(!QFileInfo::exists(m_damagedDb + QStringLiteral("-shm")));
    }

    void badArguments_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        QTest::newRow("unknown") << QStringList{QStringLiteral("--frobnicate")}
                                 << QStringLiteral("unknown argument");
        QTest::newRow("missing db")
            << QStringList{QStringLiteral("--db"), QStringLiteral("/nonexistent/x.db")}
            << QStringLiteral("cannot open database");
        QTest::newRow("no such run")
            << QStringList{QStringLiteral("--db"), QStringLiteral("FIXTURE"),
                           QStringLiteral("--run"), QStringLiteral("4242")}
            << QStringLiteral("no run 4242");
        QTest::newRow("no such candidate")
            << QStringList{QStringLiteral("--db"), QStringLiteral("FIXTURE"),
                           QStringLiteral("--select"), QStringLiteral("987654")}
            << QStringLiteral("no candidate 987654");
        QTest::newRow("bad view") << QStringList{QStringLiteral("--view"),
                                                 QStringLiteral("sideways")}
                                  << QStringLiteral("--view must be one of");
        QTest::newRow("not a database")
            << QStringList{QStringLiteral("--db"), QStringLiteral("TEXTFILE")}
            << QStringLiteral("cannot open database");
        QTest::newRow("damaged database")
            << QStringList{QStringLiteral("--db"), QStringLiteral("DAMAGED")}
            << QStringLiteral("a damaged database");
    }

    void badArguments()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        const QString text = m_dir.filePath(QStringLiteral("notes.txt"));
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(5000, 'x'));
        f.close();
        for (QString &a : args) {
            if (a == QStringLiteral("FIXTURE"))
                a = m_syntheticDb;
            if (a == QStringLiteral("TEXTFILE"))
                a = text;
            if (a == QStringLiteral("DAMAGED"))
                a = m_damagedDb;
        }
        QString err;
        QCOMPARE(runKiln(args + QStringList{QStringLiteral("--screenshot"),
                                            m_dir.filePath(QStringLiteral("never.png"))},
                         &err),
                 2);
        // Exactly one line, naming the reason.
        const QStringList lines = err.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().startsWith(QStringLiteral("kiln: ")), qPrintable(err));
        QVERIFY2(lines.first().contains(reason), qPrintable(err));
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("never.png"))));
    }
};

QTEST_MAIN(TstMainWindow)
#include "tst_mainwindow.moc"
