#include "models/lineagegraph.h"
#include "models/treelayout.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTest>

#include <cmath>

using namespace kiln;

namespace {

// Parent rows of a few characteristic shapes.
QVector<int> shape(const QString &name, int n, quint32 seed)
{
    QVector<int> parent(n, -1);
    QRandomGenerator rng(seed);
    for (int i = 1; i < n; ++i) {
        if (name == QStringLiteral("chain"))
            parent[i] = i - 1;
        else if (name == QStringLiteral("star"))
            parent[i] = 0;
        else if (name == QStringLiteral("forest"))
            parent[i] = i < n / 10 ? -1 : int(rng.bounded(quint32(i)));
        else // "random": recent parents, like a search
            parent[i] = int(rng.bounded(quint32(std::max(0, i - 50)), quint32(i)));
    }
    return parent;
}

} // namespace

class TstTreeLayout : public QObject
{
    Q_OBJECT

private slots:
    void tidyInvariants_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("n");
        QTest::newRow("single") << QStringLiteral("chain") << 1;
        QTest::newRow("chain") << QStringLiteral("chain") << 2000;
        QTest::newRow("star") << QStringLiteral("star") << 500;
        QTest::newRow("forest") << QStringLiteral("forest") << 3000;
        QTest::newRow("random") << QStringLiteral("random") << 5000;
    }

    void tidyInvariants()
    {
        QFETCH(QString, shape);
        QFETCH(int, n);
        LineageGraph graph;
        graph.build(::shape(shape, n, 7), {});
        TreeLayout layout;
        layout.compute(graph, TreeLayout::Mode::Tidy);
        QCOMPARE(layout.size(), n);

        QHash<int, QList<double>> byDepth;
        for (int i = 0; i < n; ++i) {
            const QPointF p = layout.position(i);
            const int p0 = graph.parent(i);
            QCOMPARE(layout.depth(i), p0 < 0 ? 0 : layout.depth(p0) + 1);
            QCOMPARE(p.y(), layout.depth(i) * layout.ySpacing);
            byDepth[layout.depth(i)].append(p.x());
            const QVector<int> &kids = graph.children(i);
            if (!kids.isEmpty()) {
                // Parents sit centred over their first and last child.
                const double mid =
                    (layout.position(kids.first()).x() + layout.position(kids.last()).x()) / 2.0;
                QVERIFY2(std::abs(p.x() - mid) < 1e-6, qPrintable(QString::number(i)));
            }
        }
        // No two nodes of a level closer than the spacing: nothing overlaps.
        for (auto it = byDepth.begin(); it != byDepth.end(); ++it) {
            QList<double> xs = it.value();
            std::sort(xs.begin(), xs.end());
            for (int k = 1; k < xs.size(); ++k)
                QVERIFY2(xs[k] - xs[k - 1] >= layout.xSpacing - 1e-6,
                         qPrintable(QStringLiteral("depth %1").arg(it.key())));
        }
    }

    void tidyIsCompact()
    {
        // Two deep chains under one root pack side by side, not a leaf-count apart.
        QVector<int> parent{-1, 0, 1, 2, 0, 4, 5};
        LineageGraph graph;
        graph.build(parent, {});
        TreeLayout layout;
        layout.compute(graph, TreeLayout::Mode::Tidy);
        QCOMPARE(layout.position(4).x() - layout.position(1).x(), layout.xSpacing);
        QCOMPARE(layout.position(0).x(), (layout.position(1).x() + layout.position(4).x()) / 2);
    }

    void layeredPutsChildrenBelowBothParents()
    {
        QRandomGenerator rng(3);
        const int n = 3000;
        QVector<int> parent = shape(QStringLiteral("random"), n, 5);
        QVector<int> second(n, -1);
        for (int i = 10; i < n; i += 4)
            second[i] = int(rng.bounded(quint32(i)));
        LineageGraph graph;
        graph.build(parent, second);
        QVERIFY(graph.hasCrossover());
        TreeLayout layout;
        layout.compute(graph, TreeLayout::Mode::Layered);
        QHash<int, QList<double>> byLayer;
        for (int i = 0; i < n; ++i) {
            for (int p : {graph.parent(i), graph.secondParent(i)}) {
                if (p >= 0)
                    QVERIFY(layout.position(i).y() > layout.position(p).y());
            }
            byLayer[layout.depth(i)].append(layout.position(i).x());
        }
        for (auto it = byLayer.begin(); it != byLayer.end(); ++it) {
            QList<double> xs = it.value();
            std::sort(xs.begin(), xs.end());
            for (int k = 1; k < xs.size(); ++k)
                QVERIFY(xs[k] - xs[k - 1] >= layout.xSpacing - 1e-6);
        }
    }

    void collapseHidesSubtree()
    {
        QVector<int> parent{-1, 0, 1, 1, 0, 4};
        LineageGraph graph;
        graph.build(parent, {});
        graph.setCollapsed(1, true);
        QCOMPARE(graph.descendantCount(1), 2);
        TreeLayout layout;
        layout.compute(graph, TreeLayout::Mode::Tidy);
        QVERIFY(layout.isVisible(1));
        QVERIFY(!layout.isVisible(2));
        QVERIFY(!layout.isVisible(3));
        QVERIFY(layout.isVisible(5));
        QVERIFY(graph.isHidden(3));
        QCOMPARE(layout.nodesIn(layout.bounds().adjusted(-1, -1, 1, 1)).size(), 4);
        graph.setCollapsed(5, true); // a leaf cannot collapse
        QVERIFY(!graph.isCollapsed(5));
        graph.expandAll();
        layout.compute(graph, TreeLayout::Mode::Tidy);
        QVERIFY(layout.isVisible(3));
    }

    void hitTesting()
    {
        LineageGraph graph;
        graph.build(shape(QStringLiteral("random"), 2000, 9), {});
        TreeLayout layout;
        layout.compute(graph, TreeLayout::Mode::Tidy);
        for (int i : {0, 17, 999, 1999}) {
            QCOMPARE(layout.nodeAt(layout.position(i) + QPointF(2, -2), 8.0), i);
        }
        QCOMPARE(layout.nodeAt(layout.bounds().topLeft() - QPointF(500, 500), 8.0), -1);
        QCOMPARE(layout.nodesIn(layout.bounds().adjusted(-1, -1, 1, 1)).size(), 2000);
    }

    void pathToRoot()
    {
        LineageGraph graph;
        graph.build({-1, 0, 1, 2, 0}, {});
        QCOMPARE(graph.pathToRoot(3), QList<int>({3, 2, 1, 0}));
        QCOMPARE(graph.roots(), QVector<int>({0}));
    }

    void tenThousandNodesAreFast()
    {
        LineageGraph graph;
        const int n = 10000;
        QVector<int> second(n, -1);
        for (int i = 20; i < n; i += 5)
            second[i] = i - 17;
        graph.build(shape(QStringLiteral("random"), n, 11), second);
        TreeLayout layout;
        QElapsedTimer timer;
        timer.start();
        layout.compute(graph, TreeLayout::Mode::Tidy);
        const qint64 tidy = timer.restart();
        layout.compute(graph, TreeLayout::Mode::Layered);
        const qint64 layered = timer.elapsed();
        qInfo("10,000 nodes: tidy %lld ms, layered %lld ms", tidy, layered);
        QVERIFY(tidy < 1000);
        QVERIFY(layered < 2000);
    }
};

QTEST_GUILESS_MAIN(TstTreeLayout)
#include "tst_treelayout.moc"
