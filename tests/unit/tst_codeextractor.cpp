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
    void extractModule_data();
    void extractModule();
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

namespace {
const QString moduleV1 = QStringLiteral(
    "import torch\nimport torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n\n"
    "relu = load_inline(name=\"relu\", cpp_sources=CPP, cuda_sources=CUDA, "
    "functions=[\"relu\"])\n\n"
    "class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n\n"
    "    def forward(self, x):\n        return relu.relu(x)\n");
const QString moduleV2 = QStringLiteral("class ModelNew(nn.Module):\n    def forward(self, x):\n"
                                        "        return relu.relu_vec4(x)\n");
const QString cudaSource = QStringLiteral("__global__ void relu_kernel(const float* x, float* y, "
                                          "int n) {\n    y[0] = x[0];\n}\n");
} // namespace

void TestCodeExtractor::extractModule_data()
{
    QTest::addColumn<QString>("answer");
    QTest::addColumn<bool>("found");
    QTest::addColumn<QString>("code"); // expected code, or part of the reason
    QTest::addColumn<QString>("language");

    QTest::newRow("python block") << u"Plan.\n```python\n"_s + moduleV1 + u"```\nDone."_s << true
                                  << moduleV1 << u"python"_s;
    QTest::newRow("py block") << u"```py\n"_s + moduleV1 + u"```"_s << true << moduleV1 << u"py"_s;
    QTest::newRow("bare fence") << u"```\n"_s + moduleV1 + u"```"_s << true << moduleV1 << u""_s;
    QTest::newRow("the kernel shown apart is not the module")
        << u"The kernel:\n```cuda\n"_s + cudaSource + u"```\nThe module:\n```python\n"_s +
               moduleV1 + u"```\nUsage:\n```python\nm = ModelNew()\n```\n"_s
        << true << moduleV1 << u"python"_s;
    QTest::newRow("last defining block wins")
        << u"```python\n"_s + moduleV1 + u"```\nFaster:\n```python\n"_s + moduleV2 + u"```"_s
        << true << moduleV2 << u"python"_s;
    QTest::newRow("unterminated fence runs to the end")
        << u"```python\n"_s + moduleV1 << true << moduleV1 << u"python"_s;
    QTest::newRow("a C kernel is no answer")
        << u"```cuda\n"_s + cudaSource + u"```"_s << false
        << u"none of the 1 fenced block(s) defines `class ModelNew(nn.Module)`"_s << u""_s;
    QTest::newRow("Model alone is no answer")
        << u"```python\nclass Model(nn.Module):\n    pass\n```"_s << false
        << u"a KernelBench answer is one Python module"_s << u""_s;
    QTest::newRow("a longer name is another class")
        << u"```python\nclass ModelNewer(nn.Module):\n    pass\n```"_s << false
        << u"class ModelNew(nn.Module)"_s << u""_s;
    QTest::newRow("a nested class is not top-level")
        << u"```python\ndef make():\n    class ModelNew(nn.Module):\n        pass\n```"_s << false
        << u"class ModelNew(nn.Module)"_s << u""_s;
    QTest::newRow("no fence") << moduleV1 << false << u"no fenced code block"_s << u""_s;
    QTest::newRow("empty") << QString() << false << u"the answer is empty"_s << u""_s;
}

void TestCodeExtractor::extractModule()
{
    QFETCH(QString, answer);
    QFETCH(bool, found);
    QFETCH(QString, code);
    QFETCH(QString, language);
    const ExtractedCode e = CodeExtractor::extractModule(answer);
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
    // The C extraction never takes a Python module for a kernel.
    QVERIFY(!CodeExtractor::extract(answer, QStringLiteral("ModelNew")).found);
}

QTEST_GUILESS_MAIN(TestCodeExtractor)
#include "tst_codeextractor.moc"
