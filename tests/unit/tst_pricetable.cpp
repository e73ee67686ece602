#include "policies/pricetable.h"

#include <QJsonDocument>
#include <QTemporaryFile>
#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

class TestPriceTable : public QObject
{
    Q_OBJECT

private slots:
    void embeddedDefaultsLoad();
    void lookup_data();
    void lookup();
    void badFiles_data();
    void badFiles();
};

void TestPriceTable::embeddedDefaultsLoad()
{
    const PriceTable table = PriceTable::defaults();
    QCOMPARE(table.currency(), QStringLiteral("USD"));
    QVERIFY(table.price(QStringLiteral("gpt-4o")).has_value());
    QVERIFY(table.price(QStringLiteral("claude-sonnet-4-20250514")).has_value());
    QVERIFY(!table.price(QStringLiteral("my-local-qwen")).has_value());
}

void TestPriceTable::lookup_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<double>("cost"); // of 1M prompt + 1M completion + 1M reasoning; -1 unknown
    QTest::newRow("exact") << u"gpt-x"_s << 1.0 + 2.0 + 2.0;
    QTest::newRow("exact beats prefix") << u"gpt-x-mini"_s << 0.1 + 0.2 + 0.2;
    QTest::newRow("prefix") << u"claude-y-2025"_s << 3.0 + 15.0 + 20.0;
    QTest::newRow("longest prefix") << u"claude-y-fast-1"_s << 1.0 + 1.0 + 1.0;
    QTest::newRow("provider prefix") << u"openrouter/gpt-x"_s << 5.0;
    QTest::newRow("unknown") << u"llama"_s << -1.0;
}

void TestPriceTable::lookup()
{
    QFETCH(QString, model);
    QFETCH(double, cost);
    const QJsonObject json = QJsonDocument::fromJson(R"({"currency":"EUR","models":{
        "gpt-x":{"prompt":1,"completion":2},
        "gpt-x-mini":{"prompt":0.1,"completion":0.2},
        "claude-y*":{"prompt":3,"completion":15,"reasoning":20},
        "claude-y-fast*":{"prompt":1,"completion":1}}})")
                                 .object();
    QString error;
    const std::optional<PriceTable> table = PriceTable::fromJson(json, &error);
    QVERIFY2(table, qPrintable(error));
    QCOMPARE(table->currency(), QStringLiteral("EUR"));
    const std::optional<double> got = table->cost(model, 1000000, 1000000, 1000000);
    QCOMPARE(got.value_or(-1.0), cost);
    if (got) {
        // Linear in the tokens.
        QCOMPARE(*table->cost(model, 500000, 500000, 500000), cost / 2);
        // Round trip.
        QCOMPARE(PriceTable::fromJson(table->toJson())->cost(model, 1000000, 1000000, 1000000),
                 got);
    }
}

void TestPriceTable::badFiles_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("error");
    QTest::newRow("not json") << QByteArray("prices: cheap") << u"not a JSON object"_s;
    QTest::newRow("no models") << QByteArray("{\"currency\":\"USD\"}") << u"no \"models\""_s;
    QTest::newRow("negative") << QByteArray("{\"models\":{\"m\":{\"prompt\":-1,\"completion\":1}}}")
                              << u"non-negative"_s;
    QTest::newRow("missing completion")
        << QByteArray("{\"models\":{\"m\":{\"prompt\":1}}}") << u"\"m\""_s;
}

void TestPriceTable::badFiles()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, error);
    QTemporaryFile file;
    QVERIFY(file.open());
    file.write(content);
    file.close();
    QString got;
    QVERIFY(!PriceTable::fromFile(file.fileName(), &got));
    QVERIFY2(got.contains(error), qPrintable(got));
    QVERIFY(!PriceTable::fromFile(QStringLiteral("/nonexistent.json"), &got));
    QVERIFY(got.contains(QStringLiteral("cannot read")));
}

QTEST_GUILESS_MAIN(TestPriceTable)
#include "tst_pricetable.moc"
