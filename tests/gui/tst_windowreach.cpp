// The window's part 4 (issue 36), offscreen on the real engine: an edited copy is submitted to
// its own database whatever is shown; a run left going in another database stays listed and
// stoppable; the launcher only looks ready when it is and passes no default the person did not
// change; the start page, the help and the plots' legend, readout and CSV.
#include "app/commandlineoptions.h"
#include "app/helpdialog.h"
#include "app/mainwindow.h"
#include "app/manualeditorpanel.h"
#include "app/manualedittab.h"
#include "app/plotrenderer.h"
#include "app/plotspanel.h"
#include "app/profilepanel.h"
#include "app/runlauncherdialog.h"
#include "app/runprogresswidget.h"
#include "app/startpage.h"
#include "models/candidateselection.h"
#include "models/launchsettings.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "models/workspace.h"
#include "store/runstore.h"

#include <qcustomplot.h>

#include <QAction>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonArray>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

using namespace kiln;

namespace {

QString binary(const char *name)
{
    return QStringLiteral(KILN_BINARY_DIR "/bin/") + QString::fromLatin1(name);
}

// A finished search made by the real engine.
bool makeRun(const QString &db, const QString &task, int budget)
{
    QProcess cli;
    cli.start(binary("kiln-cli"),
              {QStringLiteral("run"), QStringLiteral("--task"), task, QStringLiteral("--backend"),
               QStringLiteral("cpu"), QStringLiteral("--budget"), QString::number(budget),
               QStringLiteral("--seed"), QStringLiteral("3"), QStringLiteral("--db"), db});
    return cli.waitForFinished(300000) && cli.exitCode() == 0;
}

int candidatesIn(const QString &db)
{
    auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
    int count = 0;
    for (const RunRecord &run : store->runs())
        count += int(store->candidates(run.id).size());
    return count;
}

} // namespace

class TstWindowReach : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_a, m_b;

    void open(MainWindow &window, const QString &db)
    {
        CommandLineOptions options;
        options.database = db;
        QString error;
        QVERIFY2(window.applyOptions(options, &error), qPrintable(error));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        if (!QFileInfo::exists(binary("kiln-cli")) || !QFileInfo::exists(binary("kiln-sandbox")))
            QSKIP("kiln-cli and kiln-sandbox are not built: no run can be made or judged");
        m_a = m_dir.filePath(QStringLiteral("a.db"));
        m_b = m_dir.filePath(QStringLiteral("b.db"));
        QVERIFY(makeRun(m_a, QStringLiteral("vector_add"), 3));
        QVERIFY(makeRun(m_b, QStringLiteral("transpose"), 2));
    }

    // Item 3: the copy of a candidate of a.db goes to a.db after b.db is opened.
    void anEditedCopyGoesToItsOwnDatabase()
    {
        MainWindow window(MainWindow::Settings::Ignore);
        open(window, m_a);
        window.selectBestCandidate();
        ManualEditTab *tab = window.editCopyOfCurrent();
        QVERIFY(tab);
        QCOMPARE(tab->database(), m_a);
        open(window, m_b);
        QCOMPARE(window.document()->databasePath(), m_b);
        const int inA = candidatesIn(m_a), inB = candidatesIn(m_b);
        tab->submitButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(tab->ticket() == 0, 120000);
        QVERIFY2(tab->statusText().contains(QStringLiteral("#")), qPrintable(tab->statusText()));
        QCOMPARE(candidatesIn(m_a), inA + 1);
        QCOMPARE(candidatesIn(m_b), inB);
        QCOMPARE(window.document()->databasePath(), m_b); // the view stayed where it was
    }

    // The Profile tab: on a CPU run it says why there is no profile and offers no button; a
    // profile in the database (as kiln-cli profile stores one) is shown beside its reference.
    void theProfileTabShowsStoredProfiles()
    {
        {
            MainWindow window(MainWindow::Settings::Ignore);
            open(window, m_a);
            window.selectBestCandidate();
            const QString text = window.profilePanel()->browser()->toPlainText();
            QVERIFY2(text.contains(QStringLiteral("no hardware profiler for the cpu backend")),
                     qPrintable(text));
            QVERIFY(!window.profilePanel()->profileButton()->isEnabled());
        }
        {
            auto store = RunStore::open(m_a, RunStore::Mode::ReadWrite);
            QVERIFY(store);
            for (const CandidateRecord &c : store->candidates(store->runs().first().id))
                for (const char *subject : {"candidate", "reference"}) {
                    ProfileRecord profile;
                    profile.candidateId = c.id;
                    profile.subject = QString::fromLatin1(subject);
                    profile.ok = true;
                    const QString kernel = profile.subject == u"candidate"
                                               ? QStringLiteral("add_fast")
                                               : QStringLiteral("add_reference");
                    profile.metrics = {
                        {QStringLiteral("duration_ms"), 0.042},
                        {QStringLiteral("kernels"),
                         QJsonArray{QJsonObject{{QStringLiteral("kernel"), kernel},
                                                {QStringLiteral("duration_ms"), 0.042},
                                                {QStringLiteral("registers_per_thread"), 18}}}}};
                    profile.fingerprint = {{QStringLiteral("gpu"), QStringLiteral("test GPU")}};
                    QVERIFY(store->addProfile(profile) > 0);
                }
        }
        MainWindow window(MainWindow::Settings::Ignore);
        open(window, m_a);
        window.selectBestCandidate();
        const QString text = window.profilePanel()->browser()->toPlainText();
        for (const char *expected : {"add_fast", "add_reference", "registers per thread", "18",
                                     "0.042 ms a call by Nsight Compute", "test GPU"})
            QVERIFY2(text.contains(QString::fromLatin1(expected)), qPrintable(text));
    }

    // Item 4: a run going in a.db while b.db is shown is listed, said in the status bar, and
    // stopped from Run ▸ Runs going.
    void aBackgroundRunStaysInReach()
    {
        MainWindow window(MainWindow::Settings::Ignore);
        QString error;
        RunController *c = window.startRunFromArguments(
            {QStringLiteral("--task"), QStringLiteral("softmax"), QStringLiteral("--backend"),
             QStringLiteral("cpu"), QStringLiteral("--budget"), QStringLiteral("400")},
            m_dir.filePath(QStringLiteral("going.db")), &error);
        QVERIFY2(c, qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(c->state() == RunController::State::Running, 60000);
        open(window, m_b);
        QTRY_VERIFY_WITH_TIMEOUT(window.progressWidget()->isVisibleTo(&window), 5000);
        QVERIFY2(
            window.progressWidget()->text().contains(QStringLiteral("1 run going in going.db")),
            qPrintable(window.progressWidget()->text()));
        auto *menu = window.findChild<QMenu *>(QStringLiteral("runsGoingMenu"));
        QVERIFY(menu);
        emit menu->aboutToShow();
        QCOMPARE(menu->actions().size(), 1);
        QMenu *entry = menu->actions().first()->menu();
        QVERIFY(entry);
        QAction *stop = nullptr;
        for (QAction *a : entry->actions())
            if (a->text() == QStringLiteral("Stop"))
                stop = a;
        QVERIFY(stop && stop->isEnabled());
        stop->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!c->isLive(), 30000);
        QCOMPARE(c->state(), RunController::State::Cancelled);
        QTRY_VERIFY_WITH_TIMEOUT(!window.progressWidget()->isVisibleTo(&window), 5000);
    }

    // Item 6: Start is disabled while a problem remains; an untouched editor passes nothing
    // (mcts's 1.41421356 shows as 1.414); 0 reads as what it means; a budget that ends evolve
    // in its first generation is said.
    void theLauncherSaysWhatItWillDo()
    {
        MainWindow window(MainWindow::Settings::Ignore);
        RunLauncherDialog dialog(window.workspace()->tasks(), window.workspace()->gpus(), {});
        LaunchSettings s;
        s.tasks = {QStringLiteral("softmax")};
        s.backend = QStringLiteral("cpu");
        s.database = m_dir.filePath(QStringLiteral("l.db"));
        s.strategy = QStringLiteral("mcts");
        dialog.setSettings(s);
        QPushButton *start = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QVERIFY(start->isEnabled());
        QVERIFY2(!dialog.commandLine().contains(QStringLiteral("exploration")),
                 qPrintable(dialog.commandLine()));
        dialog.findChild<QDoubleSpinBox *>(QStringLiteral("param_exploration"))->setValue(2.0);
        QVERIFY(dialog.commandLine().contains(QStringLiteral("--param exploration=2")));
        dialog.findChild<QDoubleSpinBox *>(QStringLiteral("budgetSpin"))->setValue(0);
        QVERIFY(!start->isEnabled());
        dialog.findChild<QDoubleSpinBox *>(QStringLiteral("budgetSpin"))->setValue(24);
        QVERIFY(start->isEnabled());

        s.strategy = QStringLiteral("beam");
        dialog.setSettings(s);
        auto *initial = dialog.findChild<QSpinBox *>(QStringLiteral("param_initial"));
        QVERIFY(initial);
        QCOMPARE(initial->text(), QStringLiteral("beams x children"));
        s.strategy = QStringLiteral("evolve");
        s.budget = 24;
        dialog.setSettings(s);
        QVERIFY2(dialog.lintText().contains(QStringLiteral("evolve first fills")),
                 qPrintable(dialog.lintText()));
        QVERIFY(start->isEnabled()); // advice, not a refusal
        // The workshop's fields: a suite's allocation and the other offline settings.
        auto *stuck = dialog.findChild<QDoubleSpinBox *>(QStringLiteral("offline_stuck_share"));
        QVERIFY(stuck);
        stuck->setValue(0.0);
        QVERIFY(dialog.commandLine().contains(QStringLiteral("--param stuck_share=0")));
    }

    // Item 8: an empty window offers ways in; Help lists the shortcuts from the actions.
    void anEmptyWindowShowsTheWayIn()
    {
        MainWindow window(MainWindow::Settings::Ignore);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.startPage()->isVisible());
        QVERIFY(window.startPage()->findChild<QPushButton *>(QStringLiteral("startDemo")));
        open(window, m_a);
        QTRY_VERIFY(!window.startPage()->isVisible());
        HelpDialog help(window.findChildren<QAction *>());
        QStringList shortcuts;
        for (int r = 0; r < help.shortcuts()->rowCount(); ++r)
            shortcuts << help.shortcuts()->item(r, 0)->text();
        QVERIFY2(shortcuts.contains(QStringLiteral("User guide")),
                 qPrintable(shortcuts.join(QLatin1Char(','))));
        QVERIFY(shortcuts.size() >= 10);
        if (!HelpDialog::guidePath().isEmpty())
            QVERIFY(help.guide()->toPlainText().contains(QStringLiteral("Kiln")));
    }

    // Item 5: the legend has a row of its own (never over the data); a hover gives every
    // curve's value; the curves export as CSV.
    void plotsKeepTheirDataInView()
    {
        MainWindow window(MainWindow::Settings::Ignore);
        window.show();
        open(window, m_a);
        window.showView(QStringLiteral("plots"));
        PlotsPanel *plots = window.plotsPanel();
        plots->refresh();
        QCustomPlot *plot = plots->plot();
        QVERIFY(plot->legend->layout() != plot->axisRect()->insetLayout());
        QVERIFY(plot->legend->outerRect().top() >= plot->axisRect()->outerRect().bottom());
        const QPointF inside = plot->axisRect()->rect().center();
        const QString readout = plots->renderer().readoutAt(inside);
        QVERIFY2(readout.contains(QStringLiteral("best")) || readout.contains(QStringLiteral(":")),
                 qPrintable(readout));
        const QString csv = m_dir.filePath(QStringLiteral("curves.csv"));
        QString error;
        QVERIFY2(plots->exportTo(csv, 0, 0, &error), qPrintable(error));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QVERIFY(lines.first().startsWith("series,"));
        QVERIFY(lines.size() > 3);
        // A plot narrower than a curve's name: the legend elides it, the CSV keeps it whole.
        plot->setFixedWidth(320);
        plots->refresh();
        const QFontMetrics metrics(plot->legend->font());
        bool elided = false;
        for (int i = 0; i < plot->legend->itemCount(); ++i) {
            auto *item = qobject_cast<QCPPlottableLegendItem *>(plot->legend->item(i));
            QVERIFY(item);
            QVERIFY2(metrics.horizontalAdvance(item->plottable()->name()) <= 320,
                     qPrintable(item->plottable()->name()));
            elided = elided || item->plottable()->name().contains(QChar(0x2026));
        }
        QVERIFY(elided);
        QVERIFY2(plots->renderer().csv().contains(QStringLiteral("95 % band")),
                 qPrintable(plots->renderer().csv().left(300)));
    }
};

QTEST_MAIN(TstWindowReach)
#include "tst_windowreach.moc"
