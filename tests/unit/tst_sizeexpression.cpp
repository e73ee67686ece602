#include "tasks/sizeexpression.h"

#include <QTest>

#include <cmath>

using kiln::SizeExpression;

class TstSizeExpression : public QObject
{
    Q_OBJECT

private slots:
    void evaluates_data();
    void evaluates();
    void rejectsMalformed_data();
    void rejectsMalformed();
    void evaluationErrors_data();
    void evaluationErrors();
    void listsIdentifiers();
    void survivesPathologicalInput();
};

namespace {

QMap<QString, qint64> sizes()
{
    return {{QStringLiteral("M"), 2048},    {QStringLiteral("N"), 3},
            {QStringLiteral("K"), 5},       {QStringLiteral("rows"), 7},
            {QStringLiteral("cols"), 1000}, {QStringLiteral("zero_"), 0}};
}

} // namespace

void TstSizeExpression::evaluates_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("expected");
    QTest::newRow("integer") << QStringLiteral("42") << 42.0;
    QTest::newRow("identifier") << QStringLiteral("cols") << 1000.0;
    QTest::newRow("precedence") << QStringLiteral("2 + 3 * 4") << 14.0;
    QTest::newRow("left-assoc minus") << QStringLiteral("10 - 4 - 3") << 3.0;
    QTest::newRow("left-assoc divide") << QStringLiteral("100 / 10 / 5") << 2.0;
    QTest::newRow("float division") << QStringLiteral("7 / 2") << 3.5;
    QTest::newRow("parentheses") << QStringLiteral("(2 + 3) * 4") << 20.0;
    QTest::newRow("nested") << QStringLiteral("((rows))*(cols-(1))") << 6993.0;
    QTest::newRow("unary minus") << QStringLiteral("-rows + 10") << 3.0;
    QTest::newRow("double negation") << QStringLiteral("--3") << 3.0;
    QTest::newRow("unary plus") << QStringLiteral("+3") << 3.0;
    QTest::newRow("scientific") << QStringLiteral("1e-5") << 1e-5;
    QTest::newRow("scientific upper") << QStringLiteral("2.5E+3") << 2500.0;
    QTest::newRow("leading dot") << QStringLiteral(".5 * 4") << 2.0;
    QTest::newRow("trailing dot") << QStringLiteral("3. * 2") << 6.0;
    QTest::newRow("no spaces") << QStringLiteral("4*(M*K+K*N+M*N)")
                               << 4.0 * (2048 * 5 + 5 * 3 + 2048 * 3);
    QTest::newRow("flops beyond int32")
        << QStringLiteral("2 * M * M * M") << 2.0 * 2048 * 2048 * 2048;
    QTest::newRow("underscore name") << QStringLiteral("zero_ + 1") << 1.0;
    QTest::newRow("whitespace") << QStringLiteral("  \t rows \n ") << 7.0;
}

void TstSizeExpression::evaluates()
{
    QFETCH(QString, text);
    QFETCH(double, expected);
    const SizeExpression expression(text);
    QVERIFY2(expression.isValid(), qPrintable(expression.error()));
    QString error;
    const auto value = expression.evaluate(sizes(), &error);
    QVERIFY2(value.has_value(), qPrintable(error));
    QCOMPARE(*value, expected);
}

void TstSizeExpression::rejectsMalformed_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("errorPart");
    QTest::newRow("empty") << QString() << QStringLiteral("empty");
    QTest::newRow("blank") << QStringLiteral("   ") << QStringLiteral("empty");
    QTest::newRow("dangling operator") << QStringLiteral("n +") << QStringLiteral("end");
    QTest::newRow("double operator")
        << QStringLiteral("n * * 2") << QStringLiteral("unexpected '*'");
    QTest::newRow("unbalanced open") << QStringLiteral("(n + 1") << QStringLiteral("unbalanced");
    QTest::newRow("unbalanced close")
        << QStringLiteral("n + 1)") << QStringLiteral("unexpected ')'");
    QTest::newRow("empty parens") << QStringLiteral("()") << QStringLiteral("unexpected ')'");
    QTest::newRow("unknown operator")
        << QStringLiteral("n % 2") << QStringLiteral("unexpected '%'");
    QTest::newRow("shift") << QStringLiteral("1 << 20") << QStringLiteral("unexpected '<'");
    QTest::newRow("juxtaposition") << QStringLiteral("2 n") << QStringLiteral("unexpected 'n'");
    QTest::newRow("number glued to name")
        << QStringLiteral("2n") << QStringLiteral("malformed number");
    QTest::newRow("lone dot") << QStringLiteral(".") << QStringLiteral("malformed number");
    QTest::newRow("bad exponent") << QStringLiteral("1e") << QStringLiteral("exponent");
    QTest::newRow("two dots") << QStringLiteral("1.2.3") << QStringLiteral("unexpected '.'");
    QTest::newRow("huge literal") << QStringLiteral("1e999") << QStringLiteral("malformed number");
    QTest::newRow("function call")
        << QStringLiteral("max(n, 2)") << QStringLiteral("unexpected '('");
}

void TstSizeExpression::rejectsMalformed()
{
    QFETCH(QString, text);
    QFETCH(QString, errorPart);
    const SizeExpression expression(text);
    QVERIFY(!expression.isValid());
    QVERIFY2(expression.error().contains(errorPart), qPrintable(expression.error()));
    QString error;
    QVERIFY(!expression.evaluate(sizes(), &error).has_value());
    QCOMPARE(error, expression.error());
}

void TstSizeExpression::evaluationErrors_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("errorPart");
    QTest::newRow("unknown size") << QStringLiteral("rows * depth")
                                  << QStringLiteral("unknown size 'depth'");
    QTest::newRow("case matters") << QStringLiteral("m") << QStringLiteral("unknown size 'm'");
    QTest::newRow("division by zero")
        << QStringLiteral("rows / zero_") << QStringLiteral("division by zero");
    QTest::newRow("division by zero expr")
        << QStringLiteral("1 / (rows - 7)") << QStringLiteral("division by zero");
    QTest::newRow("overflow") << QStringLiteral("1e300 * 1e300") << QStringLiteral("not finite");
}

void TstSizeExpression::evaluationErrors()
{
    QFETCH(QString, text);
    QFETCH(QString, errorPart);
    const SizeExpression expression(text);
    QVERIFY2(expression.isValid(), qPrintable(expression.error()));
    QString error;
    QVERIFY(!expression.evaluate(sizes(), &error).has_value());
    QVERIFY2(error.contains(errorPart), qPrintable(error));
}

void TstSizeExpression::listsIdentifiers()
{
    const SizeExpression expression(QStringLiteral("4 * (M * K + K * N + M * N) + 1e-5"));
    QCOMPARE(expression.identifiers(),
             (QStringList{QStringLiteral("M"), QStringLiteral("K"), QStringLiteral("N")}));
    QVERIFY(SizeExpression(QStringLiteral("2 * 3")).identifiers().isEmpty());
    QVERIFY(SizeExpression(QStringLiteral("2 *")).identifiers().isEmpty());
}

void TstSizeExpression::survivesPathologicalInput()
{
    // Nesting and length are bounded so hostile task files cannot exhaust the stack.
    const QString deep =
        QString(100000, QLatin1Char('(')) + QStringLiteral("1") + QString(100000, QLatin1Char(')'));
    QVERIFY(!SizeExpression(deep).isValid());
    QString chain = QStringLiteral("1");
    for (int i = 0; i < 50000; ++i)
        chain += QStringLiteral("+1");
    QVERIFY(!SizeExpression(chain).isValid());
    QVERIFY(!SizeExpression(QString(200, QLatin1Char('-')) + QStringLiteral("1")).isValid());

    // Within the limits, a long chain still evaluates.
    QString moderate = QStringLiteral("1");
    for (int i = 0; i < 300; ++i)
        moderate += QStringLiteral("+1");
    QCOMPARE(SizeExpression::evaluate(moderate, {}), std::optional<double>(301.0));
    const QString nested =
        QString(50, QLatin1Char('(')) + QStringLiteral("2") + QString(50, QLatin1Char(')'));
    QCOMPARE(SizeExpression::evaluate(nested, {}), std::optional<double>(2.0));
}

QTEST_GUILESS_MAIN(TstSizeExpression)
#include "tst_sizeexpression.moc"
