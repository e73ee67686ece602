// Workshop mode (issue 36, item 9): every exercise of docs/workshop.md run through the window's
// own code (Run ▸ Workshop exercises), on the real engine, at a small budget: its runs start one
// after another in its database, the leaky-verifier run is judged again strictly, and the view
// that shows the lesson comes to the front. KILN_WORKSHOP_SCALE=1 runs them at the doc's
// budgets, and each exercise's wall time is printed (docs/performance.md).
#include "app/mainwindow.h"
#include "app/plotspanel.h"
#include "app/workshopdialog.h"
#include "engine/runconfig.h"
#include "models/rules/workshopexercises.h"
#include "models/rundocument.h"
#include "models/workspace.h"
#include "store/runstore.h"

#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

class TstWorkshopWindow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        if (!QFileInfo::exists(QStringLiteral(KILN_BINARY_DIR "/bin/kiln-sandbox")))
            QSKIP("kiln-sandbox is not built: no exercise can be judged");
    }

    void everyExerciseRunsFromTheWindow_data()
    {
        QTest::addColumn<int>("number");
        for (int n = 1; n <= 7; ++n)
            QTest::newRow(qPrintable(QStringLiteral("exercise %1").arg(n))) << n;
    }

    void everyExerciseRunsFromTheWindow()
    {
        QFETCH(int, number);
        const double scale = qEnvironmentVariableIsSet("KILN_WORKSHOP_SCALE")
                                 ? qEnvironmentVariable("KILN_WORKSHOP_SCALE").toDouble()
                                 : 0.1;
        MainWindow window(MainWindow::Settings::Ignore);
        window.show();
        WorkshopDialog *dialog = window.openWorkshop();
        QVERIFY(dialog && dialog->isVisible() && !dialog->isModal());
        // Chosen and started in the dialog, as a person does.
        dialog->findChild<QLineEdit *>(QStringLiteral("workshopFolder"))->setText(m_dir.path());
        dialog->findChild<QDoubleSpinBox *>(QStringLiteral("workshopScale"))->setValue(scale);
        dialog->exerciseList()->setCurrentRow(number - 1);
        const WorkshopExercise exercise = dialog->current();
        QCOMPARE(exercise.number, number);
        QCOMPARE(exercise.runs.first().database, QDir(m_dir.path()).filePath(exercise.database));
        QSignalSpy done(&window, &MainWindow::exerciseDone);
        QElapsedTimer clock;
        clock.start();
        dialog->findChild<QPushButton *>(QStringLiteral("workshopStart"))->click();
        QVERIFY(done.wait(600000) || !done.isEmpty());
        qInfo("exercise %d at budget scale %.2f: %.1f s", number, scale, clock.elapsed() / 1000.0);
        const QList<qint64> runIds = done.first().at(1).value<QList<qint64>>();
        const qsizetype runs = exercise.runs.size() + (exercise.rejudgeStrictly ? 1 : 0);
        QCOMPARE(runIds.size(), runs);

        auto store = RunStore::open(exercise.runs.first().database, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        QCOMPARE(store->runs().size(), runs);
        for (qint64 id : runIds)
            QVERIFY2(!store->candidates(id).isEmpty(), qPrintable(QString::number(id)));
        QVERIFY(dialog->findChild<QLabel *>() != nullptr);
        // The guide's picture: the dialog beside the window, after the first exercise.
        if (const QString folder = qEnvironmentVariable("KILN_SCREENSHOT_DIR");
            !folder.isEmpty() && number == 1) {
            QPixmap picture(window.size().width() + dialog->width(),
                            std::max(window.height(), dialog->height()));
            picture.fill(Qt::white);
            QPainter painter(&picture);
            painter.drawPixmap(0, 0, window.grab());
            painter.drawPixmap(window.width(), 0, dialog->grab());
            painter.end();
            QVERIFY(picture.save(folder + QStringLiteral("/kiln-workshop.png"), "PNG"));
        }
        // The view of the lesson is in front.
        QCOMPARE(window.document()->databasePath(), exercise.runs.first().database);
        switch (exercise.view) {
        case WorkshopExercise::View::Plot:
            QVERIFY(window.dockFor(QStringLiteral("plots"))->isVisible());
            QCOMPARE(window.plotsPanel()->options().kind, exercise.plot);
            break;
        case WorkshopExercise::View::Compare:
            QCOMPARE(window.plotsPanel()->plottedRunIds(), runIds);
            break;
        case WorkshopExercise::View::Code:
            QVERIFY(window.dockFor(QStringLiteral("code"))->isVisible());
            break;
        case WorkshopExercise::View::Tree:
            QCOMPARE(window.document()->run().id, runIds.last());
            break;
        }
        if (exercise.rejudgeStrictly) {
            const RunRecord strict = store->run(runIds.last()).value_or(RunRecord());
            QVERIFY(!RunConfig::lenientOf(strict.config));
            QVERIFY(RunConfig::lenientOf(store->run(runIds.first()).value_or(RunRecord()).config));
        }
    }
};

QTEST_MAIN(TstWorkshopWindow)
#include "tst_workshopwindow.moc"
