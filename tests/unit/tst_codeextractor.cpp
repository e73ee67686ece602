#include "policies/codeextractor.h"

#include <QtTest>

using namespace kiln;
using namespace Qt::StringLiterals;

class TestCodeExtractor : public QObject
{
    Q_OBJECT

private slots:
    void extract_data();
    void extract();
    void definesEntry_data();
    void definesEntry();
    void thinkingIsSplitOff();
};

namespace {
const QString def = QStringLiteral(
    "extern \"C\" void vector_add(const float* a, const float* b, float* c, int n) {\n"
    "    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];\n}\n");
const QString v2 = QStringLiteral(
    "extern \"C\" void vector_add(const float* a, const float* b, float* c, int n) {\n"
    "#pragma omp parallel for\n    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];\n}\n");
} // namespace

void TestCodeExtractor::extract_data()
{
    QTest::addColumn<QString>("answer");
    QTest::addColumn<bool>("found");
    QTest::addColumn<QString>("code"); // expected code, or part of the reason
    QTest::addColumn<QString>("language");

    QTest::newRow("cpp block") << QStringLiteral("Here:\n```cpp\n") + def +
                                      QStringLiteral("```\nDone.")
                               << true << def << u"cpp"_s;
    QTest::newRow("cuda block") << QStringLiteral("```cuda\n") + def + QStringLiteral("```") << true
                                << def << u"cuda"_s;
    QTest::newRow("c++ block") << QStringLiteral("```c++\n") + def + QStringLiteral("```") << true
                               << def << u"c++"_s;
    QTest::newRow("bare fence") << QStringLiteral("```\n") + def + QStringLiteral("```") << true
                                << def << u""_s;
    QTest::newRow("tilde fence") << QStringLiteral("~~~cpp\n") + def + QStringLiteral("~~~") << true
                                 << def << u"cpp"_s;
    QTest::newRow("last defining block wins")
        << QStringLiteral("First try:\n```cpp\n") + def + QStringLiteral("```\nBetter:\n```cpp\n") +
               v2 + QStringLiteral("```\nUsage:\n```cpp\nvector_add(a, b, c, n);\n```\n")
        << true << v2 << u"cpp"_s;
    QTest::newRow("declaration only is no definition")
        << QStringLiteral("```cpp\nextern \"C\" void vector_add(const float*, const float*, "
                          "float*, int);\n```")
        << false << u"none of the 1 fenced block(s) defines `vector_add`"_s << u""_s;
    QTest::newRow("other function only")
        << QStringLiteral("```cpp\nvoid vector_add_kernel(float* x) { }\n```") << false
        << u"defines `vector_add`"_s << u""_s;
    QTest::newRow("no fence") << def << false << u"no fenced code block"_s << u""_s;
    QTest::newRow("empty") << QString() << false << u"the answer is empty"_s << u""_s;
    QTest::newRow("unterminated fence runs to the end")
        << QStringLiteral("```cuda\n") + def << true << def << u"cuda"_s;
    {
        QString crlf = QStringLiteral("```cpp\n") + def + QStringLiteral("```\n");
        crlf.replace(QStringLiteral("\n"), QStringLiteral("\r\n"));
        QTest::newRow("crlf") << crlf << true << def << u"cpp"_s;
    }
    QTest::newRow("longer fence containing a shorter one")
        << QStringLiteral("````cpp\n```\n") + def + QStringLiteral("````") << true
        << QStringLiteral("```\n") + def << u"cpp"_s;
    QTest::newRow("inline triple backticks are not a fence")
        << QStringLiteral("Use ```cpp``` blocks.\n```cpp\n") + def + QStringLiteral("```") << true
        << def << u"cpp"_s;
    QTest::newRow("code in think section is ignored")
        << QStringLiteral("<think>\n```cpp\n") + v2 +
               QStringLiteral("```\n</think>\nFinal:\n```cpp\n") + def + QStringLiteral("```")
        << true << def << u"cpp"_s;
    QTest::newRow("python block is not taken")
        << QStringLiteral("```python\ndef vector_add(a, b):\n    return a + b\n```") << false
        << u"defines `vector_add`"_s << u""_s;
}

void TestCodeExtractor::extract()
{
    QFETCH(QString, answer);
    QFETCH(bool, found);
    QFETCH(QString, code);
    QFETCH(QString, language);
    const ExtractedCode e = CodeExtractor::extract(answer, QStringLiteral("vector_add"));
    QCOMPARE(e.found, found);
    if (found) {
        QCOMPARE(e.code, code);
        QCOMPARE(e.language, language);
        QVERIFY(e.reason.isEmpty());
    } else {
        QVERIFY(e.code.isEmpty());
        QVERIFY2(e.reason.startsWith(QStringLiteral("no code")), qPrintable(e.reason));
        QVERIFY2(e.reason.contains(code), qPrintable(e.reason));
    }
}

void TestCodeExtractor::definesEntry_data()
{
    QTest::addColumn<QString>("code");
    QTest::addColumn<bool>("defines");
    QTest::newRow("definition") << def << true;
    QTest::newRow("newline before brace")
        << QStringLiteral("void vector_add(float* a,\n                int n)\n{\n}") << true;
    QTest::newRow("cuda with stream and restrict")
        << QStringLiteral("extern \"C\" void vector_add(const float* __restrict__ a, cudaStream_t "
                          "stream) noexcept {")
        << true;
    QTest::newRow("prototype") << QStringLiteral("void vector_add(float* a, int n);") << false;
    QTest::newRow("call") << QStringLiteral("int main() { vector_add(a, n); }") << false;
    QTest::newRow("prefix name") << QStringLiteral("void my_vector_add(int n) {}") << false;
    QTest::newRow("suffix name") << QStringLiteral("__global__ void vector_add_k(int n) {}")
                                 << false;
}

void TestCodeExtractor::definesEntry()
{
    QFETCH(QString, code);
    QFETCH(bool, defines);
    QCOMPARE(CodeExtractor::definesEntry(code, QStringLiteral("vector_add")), defines);
}

void TestCodeExtractor::thinkingIsSplitOff()
{
    QString answer = QStringLiteral("  <think>plan it</think>\nanswer");
    QCOMPARE(CodeExtractor::splitThinking(&answer), QStringLiteral("plan it"));
    QCOMPARE(answer.trimmed(), QStringLiteral("answer"));
    QString unclosed = QStringLiteral("<think>still thinking");
    QCOMPARE(CodeExtractor::splitThinking(&unclosed), QStringLiteral("still thinking"));
    QVERIFY(unclosed.isEmpty());
    QString plain = QStringLiteral("no thinking <think>x</think>");
    QVERIFY(CodeExtractor::splitThinking(&plain).isEmpty());
    QCOMPARE(plain, QStringLiteral("no thinking <think>x</think>"));
}

QTEST_GUILESS_MAIN(TestCodeExtractor)
#include "tst_codeextractor.moc"
