#include "sandbox/protocol.h"
#include "verifier/harness/outputchecker.h"

#include <QTest>
#include <cmath>
#include <cstring>
#include <limits>

using namespace kiln;

Q_DECLARE_METATYPE(std::vector<float>)

namespace {

float sentinel()
{
    float v;
    std::memcpy(&v, &sandbox::kSentinelWord, 4);
    return v;
}

} // namespace

class TestOutputChecker : public QObject
{
    Q_OBJECT

private slots:
    void compare_data()
    {
        QTest::addColumn<std::vector<float>>("got");
        QTest::addColumn<std::vector<float>>("expected");
        QTest::addColumn<std::vector<float>>("scale");
        QTest::addColumn<double>("abs");
        QTest::addColumn<double>("rel");
        QTest::addColumn<double>("scaled");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<qint64>("first");
        QTest::addColumn<qint64>("unwritten");
        QTest::addColumn<qint64>("nonFinite");
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        using V = std::vector<float>;
        QTest::newRow("exact") << V{1, 2, 3} << V{1, 2, 3} << V{} << 0.0 << 0.0 << 0.0 << true
                               << qint64(-1) << qint64(0) << qint64(0);
        QTest::newRow("within abs") << V{1.0005f, 2} << V{1, 2} << V{} << 1e-3 << 0.0 << 0.0 << true
                                    << qint64(-1) << qint64(0) << qint64(0);
        QTest::newRow("beyond abs") << V{1, 2.01f} << V{1, 2} << V{} << 1e-3 << 0.0 << 0.0 << false
                                    << qint64(1) << qint64(0) << qint64(0);
        QTest::newRow("within rel") << V{1000.5f} << V{1000} << V{} << 0.0 << 1e-3 << 0.0 << true
                                    << qint64(-1) << qint64(0) << qint64(0);
        QTest::newRow("rel is relative") << V{1.5f} << V{1} << V{} << 0.0 << 1e-3 << 0.0 << false
                                         << qint64(0) << qint64(0) << qint64(0);
        QTest::newRow("scaled term") << V{0.01f} << V{0} << V{100} << 0.0 << 0.0 << 1e-3 << true
                                     << qint64(-1) << qint64(0) << qint64(0);
        QTest::newRow("scaled too small") << V{0.5f} << V{0} << V{100} << 0.0 << 0.0 << 1e-3
                                          << false << qint64(0) << qint64(0) << qint64(0);
        QTest::newRow("nan meets nan") << V{nan} << V{nan} << V{} << 0.0 << 0.0 << 0.0 << true
                                       << qint64(-1) << qint64(0) << qint64(0);
        QTest::newRow("nan where finite") << V{1, nan} << V{1, 2} << V{} << 1.0 << 1.0 << 0.0
                                          << false << qint64(1) << qint64(0) << qint64(1);
        QTest::newRow("inf sign") << V{-inf} << V{inf} << V{} << 0.0 << 0.0 << 0.0 << false
                                  << qint64(0) << qint64(0) << qint64(1);
        QTest::newRow("inf meets inf") << V{inf} << V{inf} << V{} << 0.0 << 0.0 << 0.0 << true
                                       << qint64(-1) << qint64(0) << qint64(0);
        QTest::newRow("unwritten") << V{1, sentinel(), sentinel()} << V{1, 2, 3} << V{} << 1.0
                                   << 1.0 << 0.0 << false << qint64(1) << qint64(2) << qint64(0);
    }

    void compare()
    {
        QFETCH(std::vector<float>, got);
        QFETCH(std::vector<float>, expected);
        QFETCH(std::vector<float>, scale);
        QFETCH(double, abs);
        QFETCH(double, rel);
        QFETCH(double, scaled);
        QFETCH(bool, ok);
        QFETCH(qint64, first);
        QFETCH(qint64, unwritten);
        QFETCH(qint64, nonFinite);
        const CheckResult result = OutputChecker::compare(
            got.data(), expected.data(), scale.empty() ? nullptr : scale.data(), qint64(got.size()),
            QStringLiteral("f32"), Tolerance{abs, rel, scaled});
        QCOMPARE(result.ok, ok);
        QCOMPARE(result.firstMismatch, first);
        QCOMPARE(result.unwritten, unwritten);
        QCOMPARE(result.nonFinite, nonFinite);
        QVERIFY(!result.describe().isEmpty());
    }

    void errorStatistics()
    {
        const std::vector<float> expected{1, 2, 4, 8};
        const std::vector<float> got{1, 2.5f, 4, 7};
        const CheckResult result = OutputChecker::compare(
            got.data(), expected.data(), nullptr, 4, QStringLiteral("f32"), Tolerance{0.1, 0, 0});
        QCOMPARE(result.mismatches, qint64(2));
        QCOMPARE(result.firstMismatch, qint64(1));
        QCOMPARE(result.gotAtFirst, 2.5);
        QCOMPARE(result.expectedAtFirst, 2.0);
        QCOMPARE(result.maxAbsError, 1.0);
        QCOMPARE(result.maxRelError, 0.25);
    }

    void halfPrecisionFailsFloatTolerance()
    {
        // fp16 rounding (11 significant bits) must fail a tolerance meant for fp32 sums.
        std::vector<float> expected(256), got(256);
        for (int i = 0; i < 256; ++i) {
            expected[i] = 1.0f + i * 0.001234f;
            got[i] = static_cast<float>(static_cast<_Float16>(expected[i]));
        }
        QVERIFY(!OutputChecker::compare(got.data(), expected.data(), nullptr, 256,
                                        QStringLiteral("f32"), Tolerance{1e-6, 1e-5, 0})
                     .ok);
    }

    void outputShape_data()
    {
        QTest::addColumn<int>("kind"); // of got: 0 follows, 1 constant, 2 noise
        QTest::addColumn<bool>("referenceVaries");
        QTest::addColumn<int>("expected");
        QTest::newRow("follows") << 0 << true << int(OutputChecker::Shape::Follows);
        QTest::newRow("constant") << 1 << true << int(OutputChecker::Shape::Constant);
        QTest::newRow("uncorrelated") << 2 << true << int(OutputChecker::Shape::Uncorrelated);
        QTest::newRow("constant reference") << 1 << false << int(OutputChecker::Shape::Follows);
    }

    void outputShape()
    {
        QFETCH(int, kind);
        QFETCH(bool, referenceVaries);
        QFETCH(int, expected);
        std::vector<float> reference(1000), got(1000);
        for (int i = 0; i < 1000; ++i) {
            reference[i] = referenceVaries ? 0.001f * (1.0f + std::sin(float(i))) : 0.001f;
            got[i] = kind == 0   ? reference[i] * 1.00001f
                     : kind == 1 ? 0.001f
                                 : 0.001f * (1.0f + std::cos(float(i * 7919 % 1000)));
        }
        QCOMPARE(int(OutputChecker::outputShape(got.data(), reference.data(), 1000,
                                                QStringLiteral("f32"))),
                 expected);
    }

    void guards()
    {
        std::vector<char> band(256);
        OutputChecker::fillGuard(band.data(), 256);
        QVERIFY(OutputChecker::guardIntact(band.data(), 256));
        band[200] ^= 1;
        QVERIFY(!OutputChecker::guardIntact(band.data(), 256));
        std::vector<float> output(8);
        OutputChecker::fillSentinel(output.data(), 32);
        const std::vector<float> expected(8, 1.0f);
        QCOMPARE(OutputChecker::compare(output.data(), expected.data(), nullptr, 8,
                                        QStringLiteral("f32"), Tolerance{1e9, 1e9, 0})
                     .unwritten,
                 qint64(8));
    }
};

QTEST_GUILESS_MAIN(TestOutputChecker)
#include "tst_outputchecker.moc"
