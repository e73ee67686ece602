// The Plots panel on runs made by the real engine: every plot exported in every format by
// `kiln --plot`, hover and click on a drawn candidate, and bad plot arguments.
#include "app/candidatespanel.h"
#include "app/commandlineoptions.h"
#include "app/mainwindow.h"
#include "app/plotspanel.h"
#include "app/replaybar.h"
#include "engine/diagnosis/diagnosiscomparison.h"
#include "kernelbenchdb.h"
#include "kilnprocess.h"
#include "models/candidatefiltermodel.h"
#include "models/candidateselection.h"
#include "models/growthtimeline.h"
#include "models/plotdata.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "store/runstore.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDockWidget>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QSlider>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QXmlStreamReader>

using namespace kiln;
using namespace kiln::testing;

namespace {

// The largest number of points of one <polyline> in an SVG file; -1 when it is no valid XML.
int longestPolyline(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    QXmlStreamReader xml(&file);
    int longest = 0;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == u"polyline") {
            const QString points = xml.attributes().value(QStringLiteral("points")).toString();
            longest =
                std::max(longest, int(points.split(QLatin1Char(' '), Qt::SkipEmptyParts).size()));
        }
    }
    return xml.hasError() ? -1 : longest;
}

} // namespace

class TestPlotsPanel : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;
    QString m_kernelBenchDb; // tests/kernelbenchdb.h: KernelBench runs with known fast_p

    bool makeRun(const QString &strategy, int seed)
    {
        QProcess cli;
        cli.start(binary("kiln-cli"),
                  {QStringLiteral("run"), QStringLiteral("--task"), QStringLiteral("softmax"),
                   QStringLiteral("--strategy"), strategy, QStringLiteral("--backend"),
                   QStringLiteral("cpu"), QStringLiteral("--budget"), QStringLiteral("12"),
                   QStringLiteral("--seed"), QString::number(seed), QStringLiteral("--db"), m_db});
        return cli.waitForFinished(300000) && cli.exitCode() == 0;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        if (!QFileInfo::exists(binary("kiln-cli")) || !QFileInfo::exists(binary("kiln")))
            QSKIP("kiln and kiln-cli are not built: the plots are tested on real runs");
        m_db = m_dir.filePath(QStringLiteral("plots.db"));
        // Runs 1 and 2 are seeds of one setting (a band), run 3 another strategy.
        QVERIFY(makeRun(QStringLiteral("best-of-n"), 1));
        QVERIFY(makeRun(QStringLiteral("best-of-n"), 2));
        QVERIFY(makeRun(QStringLiteral("beam"), 1));
        m_kernelBenchDb = m_dir.filePath(QStringLiteral("kernelbench.db"));
        QVERIFY(test::writeKernelBenchDatabase(m_kernelBenchDb));
    }

    void exportsEveryPlot_data()
    {
        QTest::addColumn<QString>("plot");
        QTest::addColumn<QString>("format");
        for (PlotKind kind : allPlotKinds())
            for (const char *format : {"png", "pdf", "svg"})
                QTest::newRow(
                    qPrintable(plotKindName(kind) + QLatin1Char('.') + QLatin1String(format)))
                    << plotKindName(kind) << QString::fromLatin1(format);
    }

    void exportsEveryPlot()
    {
        QFETCH(QString, plot);
        QFETCH(QString, format);
        const QString out = m_dir.filePath(plot + QLatin1Char('.') + format);
        // fast_p is drawn from the KernelBench runs of a database; the others from these runs.
        const QString db = plot == QLatin1String("fastp") ? m_kernelBenchDb : m_db;
        QString err;
        QCOMPARE(
            runKiln({QStringLiteral("--db"), db, QStringLiteral("--runs"), QStringLiteral("1,2,3"),
                     QStringLiteral("--plot"), plot, QStringLiteral("--export"), out},
                    &err, KilnPlatform::None),
            0);
        QVERIFY2(!err.contains(QStringLiteral("note:")), qPrintable(err)); // nothing left empty
        if (format == QLatin1String("png")) {
            const QImage image(out);
            QCOMPARE(image.size(), QSize(1100, 680));
            QSet<QRgb> colours;
            for (int y = 0; y < image.height(); y += 5)
                for (int x = 0; x < image.width(); x += 5)
                    colours.insert(image.pixel(x, y));
            QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
        } else if (format == QLatin1String("pdf")) {
            QFile file(out);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray bytes = file.readAll();
            QVERIFY(bytes.startsWith("%PDF-"));
            QVERIFY(bytes.contains("/Type /Page\n") || bytes.contains("/Type /Page "));
            QVERIFY(bytes.contains("%%EOF"));
        } else {
            QVERIFY(longestPolyline(out) > 0);
        }
    }

    void svgHoldsTheCurve()
    {
        const QString out = m_dir.filePath(QStringLiteral("curve.svg"));
        QCOMPARE(runKiln({QStringLiteral("--db"), m_db, QStringLiteral("--run"),
                          QStringLiteral("3"), QStringLiteral("--plot"), QStringLiteral("speedup"),
                          QStringLiteral("--x-axis"), QStringLiteral("tokens"),
                          QStringLiteral("--export"), out},
                         nullptr, KilnPlatform::None),
                 0);
        auto store = RunStore::open(m_db, RunStore::Mode::ReadOnly);
        QVERIFY(store);
        const StepCurve curve =
            PlotData::bestSpeedup(PlotRun::load(*store, 3), ComputeAxis::AllTokens);
        QVERIFY(curve.records.size() >= 1);
        // A step line through n vertices is drawn with at least n points.
        QVERIFY2(
            longestPolyline(out) >= curve.x.size(),
            qPrintable(QStringLiteral("%1 < %2").arg(longestPolyline(out)).arg(curve.x.size())));
    }

    void hoverAndClickSelect()
    {
        RunDocument document;
        QVERIFY(document.openDatabase(m_db));
        QVERIFY(document.loadRun(3));
        CandidateSelection selection;
        PlotsPanel panel(&document, &selection);
        panel.resize(1000, 640);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.refresh();
        const StepCurve curve = PlotData::bestSpeedup(document.plotRun(3), ComputeAxis::Samples);
        QVERIFY(!curve.records.isEmpty());
        const CandidatePoint best = curve.records.last();
        QCustomPlot *plot = panel.plot();
        const QPoint at(int(plot->xAxis->coordToPixel(best.x)),
                        int(plot->yAxis->coordToPixel(best.y)));
        QCOMPARE(panel.renderer().candidateAt(at), best.candidateId);
        QCOMPARE(panel.renderer().candidateAt(at + QPoint(40, 40)), 0);
        QTest::mouseMove(plot, at);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().startsWith(QStringLiteral("#%1 pass").arg(best.candidateId)),
                 qPrintable(QToolTip::text()));
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QCOMPARE(selection.current(), best.candidateId);
    }

    // The best curve of a run the engine judged carries the 95 % band of its best, and the
    // speedups against reasoning length carry error bars.
    void speedupsAreDrawnWithTheirIntervals()
    {
        RunDocument document;
        QVERIFY(document.openDatabase(m_db));
        QVERIFY(document.loadRun(3));
        CandidateSelection selection;
        PlotsPanel panel(&document, &selection);
        panel.resize(1000, 640);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.refresh();
        const StepCurve curve = PlotData::bestSpeedup(document.plotRun(3), ComputeAxis::Samples);
        QVERIFY(curve.banded);
        QVERIFY(PlotData::curveName(curve).endsWith(QStringLiteral(", 95 % band")));
        QCustomPlot *plot = panel.plot();
        QCPGraph *line = nullptr;
        QCPGraph *upper = nullptr;
        for (int i = 0; i < plot->graphCount(); ++i) {
            if (plot->graph(i)->name() == PlotData::curveName(curve))
                line = plot->graph(i);
            if (plot->graph(i)->channelFillGraph())
                upper = plot->graph(i);
        }
        QVERIFY(line);
        QVERIFY(upper);
        QCOMPARE(upper->data()->size(), curve.x.size());
        QCOMPARE((upper->data()->constEnd() - 1)->value, curve.high.last());
        QCOMPARE((upper->channelFillGraph()->data()->constEnd() - 1)->value, curve.low.last());

        PlotOptions options;
        options.kind = PlotKind::Reasoning;
        panel.setOptions(options);
        panel.refresh();
        QCPErrorBars *bars = nullptr;
        for (int i = 0; i < plot->plottableCount(); ++i)
            bars = bars ? bars : qobject_cast<QCPErrorBars *>(plot->plottable(i));
        QVERIFY(bars);
        QVERIFY(bars->dataPlottable());
        QCOMPARE(bars->dataCount(), bars->dataPlottable()->interface1D()->dataCount());
    }

    void replaySliderShowsTheRunAsItStood()
    {
        MainWindow window(MainWindow::Settings::Ignore);
        CommandLineOptions options;
        options.database = m_db;
        options.run = 3;
        QString error;
        QVERIFY2(window.applyOptions(options, &error), qPrintable(error));
        auto store = RunStore::open(m_db, RunStore::Mode::ReadOnly);
        const GrowthTimeline timeline = GrowthTimeline::read(*store, 3);
        ReplayBar *bar = window.replayBar();
        QCOMPARE(bar->steps(), timeline.count());
        QVERIFY(timeline.count() >= 24); // 12 added, 12 judged
        auto tableRows = [&] { return window.candidatesPanel()->filterModel()->rowCount(); };
        for (int step : {timeline.count() / 2, 3, timeline.count() - 1, 0}) {
            bar->slider()->setValue(step); // as the user drags it
            const QList<CandidateSummary> expected = timeline.rowsAt(step);
            QCOMPARE(tableRows(), int(expected.size()));
            int judged = 0;
            for (const CandidateSummary &c : window.document()->candidates())
                judged += c.evaluated;
            int expectedJudged = 0;
            for (const CandidateSummary &c : expected)
                expectedJudged += c.evaluated;
            QCOMPARE(judged, expectedJudged);
        }
        bar->slider()->setValue(timeline.count()); // the end: the run as it is now
        QVERIFY(!window.document()->isReplaying());
        QCOMPARE(tableRows(), 12);
        // Playing goes from the start to the end by itself.
        bar->play();
        QVERIFY(window.document()->isReplaying());
        QTRY_VERIFY_WITH_TIMEOUT(!bar->isPlaying(), 10000);
        QVERIFY(!window.document()->isReplaying());
        QCOMPARE(tableRows(), 12);
    }

    void compareStrategiesAtEqualBudget()
    {
        MainWindow window(MainWindow::Settings::Ignore);
        MainWindow::Comparison comparison;
        comparison.task = QStringLiteral("vector_add");
        comparison.strategies = {QStringLiteral("best-of-n"), QStringLiteral("refine")};
        comparison.budget = 4;
        comparison.seeds = 2;
        comparison.database = m_dir.filePath(QStringLiteral("compare.db"));
        QString error;
        const QList<RunController *> controllers = window.startComparison(comparison, &error);
        QCOMPARE(controllers.size(), 4);
        for (RunController *controller : controllers)
            QTRY_VERIFY_WITH_TIMEOUT(controller->state() == RunController::State::Finished, 240000);
        PlotsPanel *plots = window.plotsPanel();
        QTRY_COMPARE(plots->plottedRunIds().size(), 4);
        QVERIFY(plots->isComparing());
        plots->refresh();
        QTableWidget *table = plots->comparisonTable();
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("best-of-n"));
        QCOMPARE(table->item(1, 0)->text(), QStringLiteral("refine"));
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("2"));
        auto store = RunStore::open(comparison.database, RunStore::Mode::ReadOnly);
        const QList<RunRecord> runs = store->runs();
        QCOMPARE(runs.size(), 4);
        for (const RunRecord &run : runs) {
            QCOMPARE(run.config.value(QStringLiteral("budget")).toDouble(), 4.0);
            QCOMPARE(run.tasks, QStringList{QStringLiteral("vector_add")});
            QCOMPARE(store->candidateCount(run.id), 4);
        }
        // Both strategies have a verified best to draw (no "nothing passed" note).
        QCOMPARE(plots->renderer().emptyReason(), QString());
        // Beside the table, each strategy's mean diagnosis rating over its seeds, as
        // `kiln-cli diagnose` computes it for the same runs.
        QTableWidget *diagnosis = plots->diagnosisTable();
        QVERIFY(diagnosis->isVisibleTo(plots));
        QTRY_COMPARE_WITH_TIMEOUT(diagnosis->rowCount(), 2, 20000);
        const QList<DiagnosisComparison::StrategyRow> expected =
            DiagnosisComparison::byStrategy(DiagnosisComparison::runs(*store));
        QCOMPARE(diagnosis->columnCount(), 1 + int(DiagnosisComparison::titles().size()));
        for (int r = 0; r < 2; ++r) {
            QCOMPARE(diagnosis->item(r, 0)->text(), expected[r].strategy);
            for (int a = 0; a < expected[r].meanRatings.size(); ++a)
                QCOMPARE(diagnosis->item(r, a + 1)->text(),
                         QString::number(expected[r].meanRatings[a], 'f', 1));
        }
    }

    void presentationMode()
    {
        MainWindow window(MainWindow::Settings::Ignore);
        CommandLineOptions options;
        options.database = m_db;
        QString error;
        QVERIFY(window.applyOptions(options, &error));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const int normalFont = window.font().pointSize();
        window.setPresentation(true);
        QVERIFY(window.isPresenting());
        QVERIFY(window.windowState() & Qt::WindowFullScreen);
        QVERIFY(window.font().pointSize() > normalFont);
        QVERIFY(window.dockFor(QStringLiteral("plots"))->isVisible());
        QVERIFY(!window.dockFor(QStringLiteral("code"))->isVisible());
        QVERIFY(window.plotsPanel()->renderer().presenting());
        window.setPresentation(false);
        QVERIFY(!(window.windowState() & Qt::WindowFullScreen));
        QCOMPARE(window.font().pointSize(), normalFont);
        QVERIFY(window.dockFor(QStringLiteral("code"))->isVisible());
    }

    void fastPDrawsEveryLevel()
    {
        RunDocument document;
        QVERIFY(document.openDatabase(m_kernelBenchDb));
        QVERIFY(document.loadRun(1));
        CandidateSelection selection;
        PlotsPanel panel(&document, &selection);
        panel.resize(1000, 640);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto *kind = panel.findChild<QComboBox *>(QStringLiteral("plotKind"));
        QVERIFY(kind);
        const int index = kind->findData(QStringLiteral("fastp"));
        QVERIFY(index >= 0);
        kind->setCurrentIndex(index); // as the user picks it
        QCOMPARE(panel.options().kind, PlotKind::FastP);
        panel.refresh();
        QCOMPARE(panel.renderer().emptyReason(), QString());
        QCustomPlot *plot = panel.plot();
        // Two levels, each against eager (solid) and torch.compile (dashed), in one colour.
        QCOMPARE(plot->graphCount(), 4);
        QStringList names;
        for (int i = 0; i < plot->graphCount(); ++i)
            names << plot->graph(i)->name();
        QCOMPARE(names, (QStringList{QStringLiteral("level 1, 2 problems: vs eager PyTorch"),
                                     QStringLiteral("level 1, 2 problems: vs torch.compile"),
                                     QStringLiteral("level 2, 1 problem: vs eager PyTorch"),
                                     QStringLiteral("level 2, 1 problem: vs torch.compile")}));
        QCOMPARE(plot->graph(0)->pen().style(), Qt::SolidLine);
        QCOMPARE(plot->graph(1)->pen().style(), Qt::DashLine);
        QCOMPARE(plot->graph(0)->pen().color(), plot->graph(1)->pen().color());
        QVERIFY(plot->graph(0)->pen().color() != plot->graph(2)->pen().color());
        // Level 1 against eager: both correct (1.6x and 0.8x), then one, then none.
        auto points = [&](int graph) {
            QList<QPointF> xy;
            for (auto it = plot->graph(graph)->data()->constBegin();
                 it != plot->graph(graph)->data()->constEnd(); ++it)
                xy << QPointF(it->key, it->value);
            return xy;
        };
        QCOMPARE(points(0), (QList<QPointF>{{0, 1}, {0.8, 0.5}, {1.6, 0}, {3, 0}}));
        QCOMPARE(points(3), (QList<QPointF>{{0, 1}, {0, 0}, {3, 0}})); // correct, never timed
        // p from 0 to 3 and shares from 0 to 1, with a little room at the frame.
        QCOMPARE(plot->xAxis->range().lower, -0.05);
        QCOMPARE(plot->xAxis->range().upper, 3.05);
        QCOMPARE(plot->yAxis->range().lower, -0.03);
        QCOMPARE(plot->yAxis->range().upper, 1.05);
        // The flagged 30x of level 1 and the lenient run never reach the plot.
        auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->element(0, 0));
        QVERIFY(title);
        QCOMPARE(title->text(), QStringLiteral("fast_p by KernelBench level: 3 problem(s) over 2 "
                                               "run(s) of the database (1 lenient left out)"));
    }

    void fastPWithoutKernelBenchRuns()
    {
        const QString out = m_dir.filePath(QStringLiteral("empty-fastp.png"));
        QString err;
        QCOMPARE(runKiln({QStringLiteral("--db"), m_db, QStringLiteral("--plot"),
                          QStringLiteral("fastp"), QStringLiteral("--export"), out},
                         &err, KilnPlatform::None),
                 0);
        QVERIFY2(err.contains(QStringLiteral("note: No KernelBench runs in this database.")),
                 qPrintable(err));
        QCOMPARE(QImage(out).size(), QSize(1100, 680));
        RunDocument document;
        QVERIFY(document.openDatabase(m_db));
        QVERIFY(document.loadRun(1));
        CandidateSelection selection;
        PlotsPanel panel(&document, &selection);
        PlotOptions options;
        options.kind = PlotKind::FastP;
        panel.setOptions(options);
        panel.refresh();
        QCOMPARE(panel.plot()->graphCount(), 0);
        QCOMPARE(panel.renderer().emptyReason(),
                 QStringLiteral("No KernelBench runs in this database."));
    }

    void badPlotArguments_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        QTest::newRow("no export")
            << QStringList{QStringLiteral("--plot"), QStringLiteral("speedup")}
            << QStringLiteral("--plot and --export go together");
        QTest::newRow("bad kind") << QStringList{QStringLiteral("--plot"), QStringLiteral("pie"),
                                                 QStringLiteral("--export"),
                                                 QStringLiteral("x.png")}
                                  << QStringLiteral("--plot must be one of");
        QTest::newRow("bad axis") << QStringList{QStringLiteral("--plot"),
                                                 QStringLiteral("speedup"),
                                                 QStringLiteral("--x-axis"),
                                                 QStringLiteral("furlongs"),
                                                 QStringLiteral("--export"),
                                                 QStringLiteral("x.png")}
                                  << QStringLiteral("--x-axis must be one of");
        QTest::newRow("bad format")
            << QStringList{QStringLiteral("--plot"), QStringLiteral("speedup"),
                           QStringLiteral("--export"), QStringLiteral("x.gif")}
            << QStringLiteral("--export needs a file ending in");
        QTest::newRow("no such run")
            << QStringList{QStringLiteral("--runs"),   QStringLiteral("1,99"),
                           QStringLiteral("--plot"),   QStringLiteral("speedup"),
                           QStringLiteral("--export"), QStringLiteral("x.png")}
            << QStringLiteral("no run 99");
    }

    void badPlotArguments()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        QString err;
        QCOMPARE(
            runKiln(QStringList{QStringLiteral("--db"), m_db} + args, &err, KilnPlatform::None), 2);
        const QStringList lines = err.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().contains(reason), qPrintable(err));
    }
};

QTEST_MAIN(TestPlotsPanel)
#include "tst_plotspanel.moc"
