#include "policies/sseparser.h"

#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

// Feeding a stream whole, byte by byte, or in odd-sized pieces must give the same events.
class TestSseParser : public QObject
{
    Q_OBJECT

private slots:
    void events_data();
    void events();
    void partialEventIsDetected();
    void splitUtf8DecodesWhole();
};

void TestSseParser::events_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<QStringList>("expected"); // "event|data" per event

    QTest::newRow("single") << QByteArray("data: hello\n\n") << QStringList{u"|hello"_s};
    QTest::newRow("named events")
        << QByteArray(
               "event: message_start\ndata: {}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\n")
        << QStringList{u"message_start|{}"_s, u"ping|{\"type\":\"ping\"}"_s};
    QTest::newRow("crlf") << QByteArray("data: a\r\n\r\ndata: b\r\n\r\n")
                          << QStringList{u"|a"_s, u"|b"_s};
    QTest::newRow("cr only") << QByteArray("data: a\r\rdata: b\r\r")
                             << QStringList{u"|a"_s, u"|b"_s};
    QTest::newRow("multi-line data") << QByteArray("data: line1\ndata: line2\ndata:line3\n\n")
                                     << QStringList{u"|line1\nline2\nline3"_s};
    QTest::newRow("comments and keep-alives")
        << QByteArray(": keep-alive\n\n: OPENROUTER PROCESSING\ndata: x\n\n:\n\n")
        << QStringList{u"|x"_s};
    QTest::newRow("event without data is dropped")
        << QByteArray("event: ping\n\ndata: y\n\n") << QStringList{u"|y"_s};
    QTest::newRow("field without colon, unknown fields, retry")
        << QByteArray("retry: 100\nfoo: bar\ndata\n\ndata: z\nid: 7\n\n")
        << QStringList{u"|"_s, u"|z"_s};
    QTest::newRow("only one leading space stripped")
        << QByteArray("data:  two\n\n") << QStringList{u"| two"_s};
    QTest::newRow("BOM") << QByteArray("\xEF\xBB\xBF"
                                       "data: bom\n\n")
                         << QStringList{u"|bom"_s};
    QTest::newRow("done marker") << QByteArray("data: {\"a\":1}\n\ndata: [DONE]\n\n")
                                 << QStringList{u"|{\"a\":1}"_s, u"|[DONE]"_s};
    QTest::newRow("unfinished event is not emitted")
        << QByteArray("data: a\n\ndata: b\n") << QStringList{u"|a"_s};
}

void TestSseParser::events()
{
    QFETCH(QByteArray, stream);
    QFETCH(QStringList, expected);
    for (int piece : {0, 1, 2, 3, 7}) {
        SseParser parser;
        QList<SseEvent> events;
        if (piece == 0) {
            events = parser.feed(stream);
        } else {
            for (qsizetype i = 0; i < stream.size(); i += piece)
                events += parser.feed(stream.mid(i, piece));
        }
        QStringList got;
        for (const SseEvent &e : events)
            got << e.event + QLatin1Char('|') + e.data;
        QVERIFY2(
            got == expected,
            qPrintable(
                QStringLiteral("piece %1: %2").arg(piece).arg(got.join(QStringLiteral(" ; ")))));
        QCOMPARE(parser.bytesFed(), stream.size());
    }
}

void TestSseParser::partialEventIsDetected()
{
    SseParser parser;
    parser.feed("data: {\"a\":1}\n\n");
    QVERIFY(!parser.hasPartialEvent());
    parser.feed("data: {\"cho");
    QVERIFY(parser.hasPartialEvent());
    SseParser second;
    second.feed("data: complete line\n");
    QVERIFY(second.hasPartialEvent()); // the line ended but the event did not
    second.feed("\n");
    QVERIFY(!second.hasPartialEvent());
    SseParser comments;
    comments.feed(": ping\n\n: ping\n");
    QVERIFY(!comments.hasPartialEvent());
    QCOMPARE(comments.commentCount(), 2);
}

void TestSseParser::splitUtf8DecodesWhole()
{
    const QString text = QStringLiteral("Gr\u00f6\u00dfe \U0001F680 \u2014 ok");
    const QByteArray stream = "data: " + text.toUtf8() + "\n\n";
    // Every split position, including inside each multi-byte sequence.
    for (qsizetype at = 1; at < stream.size(); ++at) {
        SseParser parser;
        QList<SseEvent> events = parser.feed(stream.left(at));
        events += parser.feed(stream.mid(at));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().data, text);
    }
}

QTEST_GUILESS_MAIN(TestSseParser)
#include "tst_sseparser.moc"
