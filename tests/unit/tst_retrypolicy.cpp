#include "policies/retrypolicy.h"

#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

class TestRetryPolicy : public QObject
{
    Q_OBJECT

private slots:
    void retryableStatus_data();
    void retryableStatus();
    void backoffGrowsAndIsCapped();
    void jitterStaysInRange();
    void retryAfter_data();
    void retryAfter();
};

void TestRetryPolicy::retryableStatus_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("retry");
    for (int s : {408, 429, 500, 502, 503, 504, 529})
        QTest::newRow(qPrintable(QString::number(s))) << s << true;
    for (int s : {400, 401, 403, 404, 413, 422})
        QTest::newRow(qPrintable(QString::number(s))) << s << false;
}

void TestRetryPolicy::retryableStatus()
{
    QFETCH(int, status);
    QFETCH(bool, retry);
    QCOMPARE(RetryPolicy::isRetryableStatus(status), retry);
}

void TestRetryPolicy::backoffGrowsAndIsCapped()
{
    RetryPolicy p;
    p.baseDelayMs = 100;
    p.maxDelayMs = 1000;
    p.jitter = 0.0;
    QCOMPARE(p.delayMs(1, std::nullopt, 0.5), 100);
    QCOMPARE(p.delayMs(2, std::nullopt, 0.5), 200);
    QCOMPARE(p.delayMs(3, std::nullopt, 0.5), 400);
    QCOMPARE(p.delayMs(5, std::nullopt, 0.5), 1000);
    QCOMPARE(p.delayMs(30, std::nullopt, 0.5), 1000);
    // A Retry-After replaces the backoff.
    QCOMPARE(p.delayMs(1, 2500, 0.5), 2500);
}

void TestRetryPolicy::jitterStaysInRange()
{
    RetryPolicy p;
    p.baseDelayMs = 1000;
    p.jitter = 0.5;
    QCOMPARE(p.delayMs(1, std::nullopt, 0.0), 1000);
    QCOMPARE(p.delayMs(1, std::nullopt, 0.999999), 500);
    QCOMPARE(p.delayMs(1, std::nullopt, 0.5), 750);
}

void TestRetryPolicy::retryAfter_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<qint64>("expected"); // -1: unparsable
    QTest::newRow("seconds") << QByteArray("120") << qint64(120000);
    QTest::newRow("fraction") << QByteArray(" 1.5 ") << qint64(1500);
    QTest::newRow("zero") << QByteArray("0") << qint64(0);
    QTest::newRow("http date") << QByteArray("Wed, 21 Oct 2015 07:28:30 GMT") << qint64(30000);
    QTest::newRow("date in the past") << QByteArray("Wed, 21 Oct 2015 07:27:00 GMT") << qint64(0);
    QTest::newRow("garbage") << QByteArray("soon") << qint64(-1);
    QTest::newRow("negative") << QByteArray("-5") << qint64(-1);
    QTest::newRow("empty") << QByteArray() << qint64(-1);
}

void TestRetryPolicy::retryAfter()
{
    QFETCH(QByteArray, value);
    QFETCH(qint64, expected);
    const QDateTime now(QDate(2015, 10, 21), QTime(7, 28, 0), Qt::UTC);
    const std::optional<qint64> got = RetryPolicy::parseRetryAfter(value, now);
    QCOMPARE(got.value_or(-1), expected);
}

QTEST_GUILESS_MAIN(TestRetryPolicy)
#include "tst_retrypolicy.moc"
