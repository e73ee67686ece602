#include "tasks/taskloader.h"
#include "verifier/harness/bufferlayout.h"
#include "verifier/harness/entryshim.h"

#include <QTest>

using namespace kiln;

class TestBufferLayout : public QObject
{
    Q_OBJECT

private slots:
    void alignedAndGuarded()
    {
        const TaskLoader::Result loaded =
            TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/layernorm"));
        QVERIFY(loaded.ok());
        const Task &task = *loaded.task;
        ShapeConfig shape;
        shape.sizes = {{QStringLiteral("rows"), 3}, {QStringLiteral("cols"), 7}};
        BufferLayout layout;
        const PlacedBuffers placed = layout.place(task, shape);
        QCOMPARE(placed.buffers.size(), 4); // x, gamma, beta, y
        qint64 previousEnd = 0;
        for (const auto &buffer : placed.buffers) {
            QCOMPARE(buffer.offset % BufferLayout::kAlignment, 0);
            QCOMPARE(buffer.bytes, 4 * task.elementCount(task.parameters[buffer.parameter], shape));
            // Never aliasing, with a guard band in between.
            QVERIFY(buffer.offset >= previousEnd + BufferLayout::kGuardBytes);
            previousEnd = buffer.offset + buffer.bytes;
            bool guardedBefore = false, guardedAfter = false;
            for (const auto &[offset, bytes] : layout.guards()) {
                guardedBefore = guardedBefore || offset + bytes == buffer.offset;
                guardedAfter = guardedAfter || offset == buffer.offset + buffer.bytes;
            }
            QVERIFY(guardedBefore && guardedAfter);
        }
        QVERIFY(layout.size() >= previousEnd + BufferLayout::kGuardBytes);
        QCOMPARE(placed.buffers.last().output, true);
        // 4 pointers, 2 ints (rows, cols), 1 real (eps).
        const QList<QByteArray> words = placed.argumentWords(task, shape).split(' ');
        QCOMPARE(words.value(0), QByteArray("4"));
        QCOMPARE(words.value(5), QByteArray("2"));
        QCOMPARE(words.value(6), QByteArray("3"));
        QCOMPARE(words.value(7), QByteArray("7"));
        QCOMPARE(words.value(8), QByteArray("1"));
        QVERIFY(std::abs(words.value(9).toDouble() - 1e-5) < 1e-9);
    }

    void shimMatchesTheSignature()
    {
        const TaskLoader::Result loaded =
            TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/layernorm"));
        QVERIFY(loaded.ok());
        const QString shim = EntryShim::source(*loaded.task);
        QVERIFY2(
            shim.contains(QStringLiteral("extern \"C\" void layernorm(const float*, const float*, "
                                         "const float*, float*, int, int, float);")),
            qPrintable(shim));
        QVERIFY(shim.contains(QStringLiteral("(float)r[0]")));
        QVERIFY(shim.contains(QLatin1String(EntryShim::kSymbol)));
    }
};

QTEST_GUILESS_MAIN(TestBufferLayout)
#include "tst_bufferlayout.moc"
