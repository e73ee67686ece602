// Workbench benchmarks: time to first paint, frame times while panning and zooming, resident
// memory. Prints a Markdown table; `generate` mode writes a synthetic database instead.
#include "guibenchmarks.h"

#include "app/commandlineoptions.h"
#include "app/lineageview.h"
#include "app/mainwindow.h"
#include "models/rundocument.h"
#include "store/runstore.h"
#include "syntheticrun.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

using namespace kiln;

namespace {

} // namespace

double kiln::statusKiB(const char *key)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> lines = f.readAll().split('\n');
    for (const QByteArray &line : lines) {
        if (line.startsWith(key))
            return line.mid(qstrlen(key)).trimmed().split(' ').first().toDouble();
    }
    return 0;
}

namespace {

bool generate(const QString &path, int n, bool crossover, int islands)
{
    QString error;
    auto store = RunStore::open(path, RunStore::Mode::ReadWrite, &error);
    if (!store) {
        std::fprintf(stderr, "cannot create %s: %s\n", qPrintable(path), qPrintable(error));
        return false;
    }
    SyntheticRunOptions options;
    options.candidates = n;
    options.crossover = crossover;
    options.islands = islands;
    return createSyntheticRun(*store, options) > 0;
}

struct Frames
{
    double mean = 0, p50 = 0, p95 = 0, max = 0;
};

Frames summarise(std::vector<double> v)
{
    Frames f;
    std::sort(v.begin(), v.end());
    f.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
    f.p50 = v[v.size() / 2];
    f.p95 = v[std::min(v.size() - 1, size_t(double(v.size()) * 0.95))];
    f.max = v.back();
    return f;
}

} // namespace

namespace {
// KILN_BENCH_DEBUG: names every event that keeps the GUI thread busy for more than 8 ms.
class TimingApplication : public QApplication
{
public:
    using QApplication::QApplication;
    bool notify(QObject *receiver, QEvent *event) override
    {
        if (!qEnvironmentVariableIsSet("KILN_BENCH_DEBUG") || QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        QElapsedTimer t;
        t.start();
        const int type = event->type();
        const bool handled = QApplication::notify(receiver, event);
        const double ms = t.nsecsElapsed() / 1e6;
        if (ms > 8)
            std::fprintf(stderr, "event %d to %s (%s): %.1f ms\n", type,
                         receiver->metaObject()->className(), qPrintable(receiver->objectName()),
                         ms);
        return handled;
    }
};
} // namespace

int main(int argc, char *argv[])
{
    TimingApplication app(argc, argv);
    QApplication::setStyle(QStringLiteral("Fusion"));
    const QStringList args = QApplication::arguments().mid(1);
    if (args.value(0) == QStringLiteral("load"))
        return runLoadBenchmark(args);
    if (args.value(0) == QStringLiteral("live"))
        return runLiveBenchmark(args);
    if (args.value(0) == QStringLiteral("plots"))
        return runPlotBenchmark(args);
    if (args.value(0) == QStringLiteral("generate")) {
        if (args.size() < 3) {
            std::fprintf(stderr,
                         "usage: kiln_bench_gui generate FILE N [--crossover] [--islands K]\n");
            return 2;
        }
        const int islandsAt = int(args.indexOf(QStringLiteral("--islands")));
        const int islands = islandsAt > 0 ? args.value(islandsAt + 1).toInt() : 1;
        return generate(args[1], args[2].toInt(), args.contains(QStringLiteral("--crossover")),
                        std::max(1, islands))
                   ? 0
                   : 1;
    }
    // kiln_bench_gui [N] [--big FILE --tree FILE]: reuse databases made by `generate`.
    const int bigN = args.value(0).toInt() > 0 ? args.value(0).toInt() : 100000;
    const int treeN = 10000;
    QTemporaryDir dir;
    QString big = dir.filePath(QStringLiteral("big.db"));
    QString tree = dir.filePath(QStringLiteral("tree.db"));
    QElapsedTimer t;
    t.start();
    if (args.contains(QStringLiteral("--big")) && args.contains(QStringLiteral("--tree"))) {
        big = args.value(args.indexOf(QStringLiteral("--big")) + 1);
        tree = args.value(args.indexOf(QStringLiteral("--tree")) + 1);
    } else if (!generate(big, bigN, true, 4) || !generate(tree, treeN, false, 1)) {
        return 1;
    }
    std::fprintf(stderr, "fixtures ready in %.1f s\n", t.elapsed() / 1000.0);
    const double rssBefore = statusKiB("VmRSS:");

    // 0. The document alone: reading summaries from the store.
    double documentMs = 0;
    {
        t.restart();
        RunDocument doc;
        doc.openDatabase(big);
        doc.loadRun(doc.runs().constLast().id);
        documentMs = t.nsecsElapsed() / 1e6;
    }

    // 1. Time to first paint: from opening the database to the tree painted on screen.
    double firstPaintMs = 0;
    double loadMs = 0;
    double rssAfter = 0;
    {
        t.restart();
        MainWindow window(MainWindow::Settings::Ignore);
        CommandLineOptions options;
        options.database = big;
        QString error;
        if (!window.applyOptions(options, &error)) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
        loadMs = t.nsecsElapsed() / 1e6;
        window.show();
        while (window.lineageView()->paintCount() == 0)
            QApplication::processEvents();
        firstPaintMs = t.nsecsElapsed() / 1e6;
        rssAfter = statusKiB("VmRSS:");
    }
    const double peak = statusKiB("VmHWM:");

    // 1b. The interactive path: the run is read on a worker thread while the window paints.
    double windowPaintMs = 0;
    double treePaintMs = 0;
    {
        t.restart();
        MainWindow window(MainWindow::Settings::Ignore);
        window.show();
        CommandLineOptions options;
        options.database = big;
        window.applyOptions(options, nullptr, false);
        while (window.lineageView()->paintCount() == 0)
            QApplication::processEvents();
        windowPaintMs = t.nsecsElapsed() / 1e6;
        // Idle in an event loop, as the application does, while the worker reads.
        QEventLoop idle;
        QObject::connect(window.document(), &RunDocument::loadFinished, &idle, &QEventLoop::quit);
        if (window.document()->isLoading())
            idle.exec();
        const int before = window.lineageView()->paintCount();
        while (window.lineageView()->paintCount() == before)
            QApplication::processEvents();
        treePaintMs = t.nsecsElapsed() / 1e6;
    }

    // 2. Frame times on a 10,000-node tree.
    MainWindow window(MainWindow::Settings::Ignore);
    CommandLineOptions options;
    options.database = tree;
    QString error;
    window.applyOptions(options, &error);
    window.show();
    QApplication::processEvents();
    LineageView *view = window.lineageView();
    auto measure = [&](auto step, int frames) {
        std::vector<double> ms;
        for (int i = 0; i < frames; ++i) {
            step(i);
            QElapsedTimer f;
            f.start();
            view->repaint();
            ms.push_back(f.nsecsElapsed() / 1e6);
        }
        return summarise(ms);
    };
    view->fitToView();
    const Frames panFit =
        measure([&](int i) { view->panBy(QPointF(i % 40 < 20 ? 6 : -6, 0)); }, 200);
    const Frames zoomFit = measure(
        [&](int i) {
            view->zoomBy(i % 40 < 20 ? 1.03 : 1 / 1.03,
                         QPointF(view->width() / 2, view->height() / 2));
        },
        200);
    view->zoomBy(1.0 / view->zoom(), QPointF(view->width() / 2, view->height() / 2));
    const Frames pan100 =
        measure([&](int i) { view->panBy(QPointF(i % 40 < 20 ? 8 : -8, 3)); }, 200);
    const Frames zoom100 = measure(
        [&](int i) {
            view->zoomBy(i % 40 < 20 ? 1.03 : 1 / 1.03,
                         QPointF(view->width() / 2, view->height() / 2));
        },
        200);

    std::printf("| Measure | Value |\n|---|---|\n");
    {
        RunDocument doc;
        doc.openDatabase(big);
        doc.loadRun(doc.runs().constLast().id);
        std::printf("| Candidates in the large run | %d |\n", doc.count());
    }
    std::printf("| Read the run into the document (%d candidates) | %.0f ms |\n", bigN, documentMs);
    std::printf("| Open + load run into the window (%d candidates) | %.0f ms |\n", bigN, loadMs);
    std::printf("| Time to first paint (%d candidates) | %.0f ms |\n", bigN, firstPaintMs);
    std::printf("| Background load: window painted, responsive | %.0f ms |\n", windowPaintMs);
    std::printf("| Background load: tree painted | %.0f ms |\n", treePaintMs);
    std::printf("| Resident memory before opening | %.0f MiB |\n", rssBefore / 1024);
    std::printf("| Resident memory with the run open | %.0f MiB |\n", rssAfter / 1024);
    std::printf("| Peak resident memory (whole benchmark so far) | %.0f MiB |\n", peak / 1024);
    std::printf("| Tree view size | %d × %d px |\n", view->width(), view->height());
    auto row = [](const char *name, const Frames &f) {
        std::printf("| %s | mean %.2f · p50 %.2f · p95 %.2f · max %.2f ms |\n", name, f.mean, f.p50,
                    f.p95, f.max);
    };
    row("Pan, 10,000 nodes, whole tree in view", panFit);
    row("Zoom, 10,000 nodes, whole tree in view", zoomFit);
    row("Pan, 10,000 nodes, zoom 100%", pan100);
    row("Zoom, 10,000 nodes, around 100%", zoom100);
    return 0;
}
