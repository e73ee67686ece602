#include "models/sidebysidediff.h"

#include <QTest>

using namespace kiln;
using Kind = SideBySideDiff::Kind;

Q_DECLARE_METATYPE(QList<int>)

class TstSideBySideDiff : public QObject
{
    Q_OBJECT

private slots:
    void alignment_data()
    {
        QTest::addColumn<QString>("left");
        QTest::addColumn<QString>("right");
        QTest::addColumn<QList<int>>("kinds"); // one per row
        QTest::addColumn<int>("added");
        QTest::addColumn<int>("removed");
        QTest::addColumn<int>("hunks");
        const QString abc = QStringLiteral("a\nb\nc\n");
        QTest::newRow("identical") << abc << abc << QList<int>{0, 0, 0} << 0 << 0 << 0;
        QTest::newRow("insert") << abc << QStringLiteral("a\nb\nx\nc\n")
                                << QList<int>{0, 0, int(Kind::Added), 0} << 1 << 0 << 1;
        QTest::newRow("delete") << abc << QStringLiteral("a\nc\n")
                                << QList<int>{0, int(Kind::Removed), 0} << 0 << 1 << 1;
        QTest::newRow("change") << abc << QStringLiteral("a\nB\nc\n")
                                << QList<int>{0, int(Kind::Changed), 0} << 1 << 1 << 1;
        QTest::newRow("two hunks")
            << QStringLiteral("1\n2\n3\n4\n5\n") << QStringLiteral("1\n2x\n3\n4\n5y\n")
            << QList<int>{0, int(Kind::Changed), 0, 0, int(Kind::Changed)} << 2 << 2 << 2;
        QTest::newRow("empty left")
            << QString() << QStringLiteral("a\nb\n")
            << QList<int>{int(Kind::Added), int(Kind::Added)} << 2 << 0 << 1;
        QTest::newRow("crlf") << QStringLiteral("a\r\nb\r\n") << QStringLiteral("a\nb\n")
                              << QList<int>{0, 0} << 0 << 0 << 0;
    }

    void alignment()
    {
        QFETCH(QString, left);
        QFETCH(QString, right);
        QFETCH(QList<int>, kinds);
        QFETCH(int, added);
        QFETCH(int, removed);
        QFETCH(int, hunks);
        SideBySideDiff diff;
        diff.compute(left, right);
        QList<int> got;
        for (const SideBySideDiff::Row &row : diff.rows()) {
            got << int(row.kind);
            // Every row shows the lines it claims on each side.
            if (row.kind == Kind::Same)
                QCOMPARE(diff.leftLines().at(row.leftLine), diff.rightLines().at(row.rightLine));
            QCOMPARE(row.leftLine < 0, row.kind == Kind::Added);
            QCOMPARE(row.rightLine < 0, row.kind == Kind::Removed);
        }
        QCOMPARE(got, kinds);
        QCOMPARE(diff.addedLines(), added);
        QCOMPARE(diff.removedLines(), removed);
        QCOMPARE(diff.hunks().size(), hunks);
        QCOMPARE(diff.identical(), hunks == 0);
    }

    void intraLineSpans()
    {
        SideBySideDiff diff;
        diff.compute(QStringLiteral("    softmax_kernel<256><<<rows, 256>>>(x, y);\n"),
                     QStringLiteral("    softmax_kernel<512><<<rows, 512>>>(x, y);\n"));
        QCOMPARE(diff.rows().size(), 1);
        const SideBySideDiff::Row &row = diff.rows().first();
        QCOMPARE(row.kind, Kind::Changed);
        // Only the block sizes differ: "2" vs "1" in two places (the shared "5" and "6"/"2"...).
        QVERIFY(!row.leftSpans.isEmpty());
        QVERIFY(!row.rightSpans.isEmpty());
        int changed = 0;
        for (const SideBySideDiff::Span &s : row.rightSpans) {
            changed += s.length;
            const QString text = diff.rightLines().first().mid(s.start, s.length);
            for (QChar c : text)
                QVERIFY2(QStringLiteral("512").contains(c), qPrintable(text));
        }
        QVERIFY(changed <= 6);
    }

    void rewrittenLineIsOneSpan()
    {
        SideBySideDiff diff;
        diff.compute(QStringLiteral("abcdefgh\n"), QStringLiteral("zyxwvuts\n"));
        const SideBySideDiff::Row &row = diff.rows().first();
        QCOMPARE(row.leftSpans.size(), 1);
        QCOMPARE(row.leftSpans.first(), (SideBySideDiff::Span{0, 8}));
    }

    void navigation()
    {
        SideBySideDiff diff;
        diff.compute(QStringLiteral("1\n2\n3\n4\n5\n6\n"), QStringLiteral("1\nx\n3\n4\n5\ny\n"));
        QCOMPARE(diff.hunks(), QVector<int>({1, 5}));
        QCOMPARE(diff.nextHunk(-1), 1);
        QCOMPARE(diff.nextHunk(1), 5);
        QCOMPARE(diff.nextHunk(5), -1);
        QCOMPARE(diff.previousHunk(5), 1);
        QCOMPARE(diff.previousHunk(1), -1);
    }
};

QTEST_GUILESS_MAIN(TstSideBySideDiff)
#include "tst_sidebysidediff.moc"
