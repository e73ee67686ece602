// Duplicates: sources equal up to comments and whitespace share a fingerprint; different code
// never does.
#include "engine/sourcefingerprint.h"

#include <QtTest>

using namespace kiln;

class TestSourceFingerprint : public QObject
{
    Q_OBJECT

private slots:
    void sameKernel_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::newRow("comments") << "int f(int x) { return x + 1; } // fast"
                                  << "/* version 2 */ int f(int x) { return x + 1; }";
        QTest::newRow("whitespace") << "int f(int x){return x+1;}"
                                    << "int  f( int x )\n{\n    return x + 1;\n}\n";
        QTest::newRow("directive kept apart")
            << "#include <cmath>\nfloat g(float x) { return std::exp(x); }"
            << "#include <cmath>   // exp\n\n\nfloat g(float x)\n{ return std::exp(x); }";
    }

    void sameKernel()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QCOMPARE(SourceFingerprint::normalised(a, Backend::Cpu),
                 SourceFingerprint::normalised(b, Backend::Cpu));
        QCOMPARE(SourceFingerprint::of(a, Backend::Cuda), SourceFingerprint::of(b, Backend::Cuda));
    }

    void differentKernel_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::newRow("operator") << "x = a - -b;"
                                  << "x = a--b;";
        QTest::newRow("names") << "int ab;"
                               << "int a b;";
        QTest::newRow("string with slashes") << "const char *s = \"//x\";"
                                             << "const char *s = \"\";";
        QTest::newRow("constant") << "y = x * 2;"
                                  << "y = x * 3;";
        QTest::newRow("macro line") << "#define N 4\nint a[N];"
                                    << "#define N 4 int a[N];";
    }

    void differentKernel()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QVERIFY(SourceFingerprint::of(a, Backend::Cpu) != SourceFingerprint::of(b, Backend::Cpu));
    }

    void pythonKeepsIndentationAndEveryHash()
    {
        const QString a = QStringLiteral("def f(x):\n    return x + 1   \n\n\n");
        const QString b = QStringLiteral("\ndef f(x):\n    return x + 1\n");
        const QString c = QStringLiteral("def f(x):\nreturn x + 1\n");
        QCOMPARE(SourceFingerprint::of(a, Backend::Torch),
                 SourceFingerprint::of(b, Backend::Torch));
        QVERIFY(SourceFingerprint::of(a, Backend::Torch) !=
                SourceFingerprint::of(c, Backend::Torch));
        // A load_inline source differing only in a #define is another kernel.
        const QString tile16 =
            QStringLiteral("src = '''\n#define TILE 16\n__global__ void k() {}\n'''\n");
        const QString tile32 =
            QStringLiteral("src = '''\n#define TILE 32\n__global__ void k() {}\n'''\n");
        QVERIFY(SourceFingerprint::of(tile16, Backend::Torch) !=
                SourceFingerprint::of(tile32, Backend::Torch));
    }
};

QTEST_GUILESS_MAIN(TestSourceFingerprint)
#include "tst_sourcefingerprint.moc"
