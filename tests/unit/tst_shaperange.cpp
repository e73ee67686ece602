// The range a task's hidden shapes are drawn from (ShapeRange): derived from the declared
// correctness shapes, it keeps their bounds, common multiples, ties and fixed sizes, and the
// shapes drawn from it are new, odd or even as promised, never powers of two, and no larger
// than the largest declared one.
#include "tasks/shaperange.h"
#include "tasks/taskloader.h"

#include <QDir>
#include <QTest>

using namespace kiln;

namespace {

TaskParameter buffer(const QString &name, TaskParameter::Role role, const QStringList &shape)
{
    TaskParameter p;
    p.name = name;
    p.role = role;
    p.dtype = QStringLiteral("f32");
    p.shape = shape;
    return p;
}

TaskParameter scalar(const QString &name, const QString &value)
{
    TaskParameter p;
    p.name = name;
    p.role = TaskParameter::Role::Scalar;
    p.dtype = QStringLiteral("i32");
    p.value = value;
    return p;
}

ShapeConfig shapeOf(const QMap<QString, qint64> &sizes)
{
    ShapeConfig shape;
    shape.sizes = sizes;
    return shape;
}

// rows and cols are equal and multiples of 16 in every declared shape; heads is always 4.
Task tiedTask()
{
    Task task;
    task.name = QStringLiteral("tied");
    task.sizes = {QStringLiteral("rows"), QStringLiteral("cols"), QStringLiteral("heads")};
    const QStringList dims{QStringLiteral("heads"), QStringLiteral("rows"), QStringLiteral("cols")};
    task.parameters = {buffer(QStringLiteral("x"), TaskParameter::Role::Input, dims),
                       buffer(QStringLiteral("y"), TaskParameter::Role::Output, dims),
                       scalar(QStringLiteral("rows"), QStringLiteral("rows")),
                       scalar(QStringLiteral("heads"), QStringLiteral("heads"))};
    for (qint64 side : {16, 32, 64, 128})
        task.correctnessShapes.append(shapeOf({{QStringLiteral("rows"), side},
                                               {QStringLiteral("cols"), side},
                                               {QStringLiteral("heads"), 4}}));
    return task;
}

bool isPowerOfTwo(qint64 v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

} // namespace

class TestShapeRange : public QObject
{
    Q_OBJECT

private slots:
    void shippedTasks_data()
    {
        QTest::addColumn<QString>("directory");
        const QDir tasks(QStringLiteral(KILN_SOURCE_DIR "/tasks"));
        for (const QString &name : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (name != u"kernelbench") // the offline policy's spaces of KernelBench problems
                QTest::newRow(qPrintable(name)) << tasks.filePath(name);
    }

    // Every shipped task has a range; four shapes come from it, new, admitted, within the
    // declared bounds and the largest declared shape's elements; the first all odd, the second
    // all even; no size a power of two; the same seed gives the same shapes.
    void shippedTasks()
    {
        QFETCH(QString, directory);
        const TaskLoader::Result loaded = TaskLoader::load(directory);
        QVERIFY(loaded.ok());
        const Task &task = *loaded.task;
        const std::optional<ShapeRange> range = ShapeRange::of(task);
        QVERIFY(range.has_value());
        qint64 largest = 0;
        for (const ShapeConfig &shape : task.correctnessShapes)
            largest = std::max(largest, ShapeRange::elements(task, shape));
        QVERIFY(range->elementCap() > 0 && range->elementCap() <= largest);
        for (const quint64 seed : {1ull, 2ull, 0x5eedull, 0xfeedfacecafebeefull}) {
            const QList<ShapeConfig> drawn = range->draw(task, seed, 4);
            QCOMPARE(drawn.size(), 4);
            QCOMPARE(range->draw(task, seed, 4).first().sizes, drawn.first().sizes);
            for (int k = 0; k < drawn.size(); ++k) {
                const ShapeConfig &shape = drawn[k];
                const QString label = task.shapeLabel(shape);
                QVERIFY2(range->admits(task, shape), qPrintable(label));
                QVERIFY2(ShapeRange::elements(task, shape) <= largest, qPrintable(label));
                for (const ShapeConfig &known : task.correctnessShapes)
                    QVERIFY2(known.sizes != shape.sizes, qPrintable(label));
                for (int j = 0; j < k; ++j)
                    QVERIFY2(drawn[j].sizes != shape.sizes, qPrintable(label));
                for (const ShapeRange::Size &size : range->sizes()) {
                    const qint64 v = shape.sizes.value(size.name);
                    QVERIFY2(!isPowerOfTwo(v) || v == 2, qPrintable(label));
                    if (k == 0)
                        QVERIFY2(v % 2 == 1, qPrintable(label));
                    if (k == 1)
                        QVERIFY2(v % 2 == 0, qPrintable(label));
                }
            }
        }
        QVERIFY(range->draw(task, 1, 4).first().sizes != range->draw(task, 2, 4).first().sizes ||
                range->draw(task, 1, 4).last().sizes != range->draw(task, 2, 4).last().sizes);
    }

    void keepsMultiplesTiesAndFixedSizes()
    {
        const Task task = tiedTask();
        const std::optional<ShapeRange> range = ShapeRange::of(task);
        QVERIFY(range.has_value());
        QCOMPARE(range->sizes().size(), 3);
        QCOMPARE(range->sizes()[0].step, 16);
        QCOMPARE(range->sizes()[1].sameAs, 0);
        QCOMPARE(range->sizes()[2].low, 4);
        QCOMPARE(range->sizes()[2].high, 4);
        // Between 16 and 128 only 48, 80, 96 and 112 are new and not powers of two: the odd
        // multiple first, then 96, the one even multiple.
        const QList<ShapeConfig> drawn = range->draw(task, 99, 4);
        QVERIFY(drawn.size() >= 2);
        for (const ShapeConfig &shape : drawn) {
            const qint64 rows = shape.sizes.value(QStringLiteral("rows"));
            QCOMPARE(shape.sizes.value(QStringLiteral("cols")), rows);
            QCOMPARE(shape.sizes.value(QStringLiteral("heads")), 4);
            QVERIFY2(QList<qint64>({48, 80, 96, 112}).contains(rows),
                     qPrintable(QString::number(rows)));
        }
        QVERIFY(drawn[0].sizes.value(QStringLiteral("rows")) != 96);
        QCOMPARE(drawn[1].sizes.value(QStringLiteral("rows")), 96);
    }

    void timingShapeCapsTheElements()
    {
        Task task = tiedTask();
        task.timingShapes.insert(Backend::Cpu, shapeOf({{QStringLiteral("rows"), 32},
                                                        {QStringLiteral("cols"), 32},
                                                        {QStringLiteral("heads"), 4}}));
        const std::optional<ShapeRange> range = ShapeRange::of(task);
        QVERIFY(range.has_value());
        QCOMPARE(range->elementCap(), 2 * 4 * 32 * 32);
        QVERIFY(!range->admits(task, task.correctnessShapes.last())); // 128 x 128: too large
    }

    // A size that only enters expressions may be tied to others in ways no declared shape
    // shows: no range is derived.
    void sizesInExpressionsOnly()
    {
        QVERIFY(ShapeRange::of(tiedTask()).has_value());
        Task task = tiedTask();
        task.parameters[0].shape = {QStringLiteral("heads"), QStringLiteral("rows * cols")};
        task.parameters[1].shape = task.parameters[0].shape;
        QVERIFY(!ShapeRange::of(task).has_value());
        task.correctnessShapes.clear();
        QVERIFY(!ShapeRange::of(task).has_value());
    }
};

QTEST_GUILESS_MAIN(TestShapeRange)
#include "tst_shaperange.moc"
