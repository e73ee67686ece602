// The kernel languages' facts (src/languages): which language a source is written in, which
// functions are its kernels and how a profiler trace names them.
#include "languages/kernellanguages.h"

#include <QTest>

using namespace Qt::StringLiterals;

namespace kiln {

class TstKernelLanguages : public QObject
{
    Q_OBJECT

private slots:
    void registry()
    {
        QCOMPARE(KernelLanguages::ids(),
                 (QStringList{u"cuda"_s, u"triton"_s, u"cute"_s, u"tilelang"_s}));
        QCOMPARE(KernelLanguages::defaultLanguage().id(), u"cuda"_s);
        QVERIFY(!KernelLanguages::find(u"hip"_s));
        QCOMPARE(KernelLanguages::owningModule(u"triton"_s)->id(), u"triton"_s);
        QCOMPARE(KernelLanguages::owningModule(u"cutlass"_s)->id(), u"cute"_s);
        QVERIFY(!KernelLanguages::owningModule(u"torch"_s));
    }

    void detect_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("language"); // empty: none
        QTest::newRow("load_inline")
            << u"from torch.utils.cpp_extension import load_inline\n"_s << u"cuda"_s;
        QTest::newRow("triton") << u"import torch\nimport triton.language as tl\n"_s << u"triton"_s;
        QTest::newRow("triton beside cpp_extension")
            << u"import triton\nfrom torch.utils import cpp_extension\n"_s << u"triton"_s;
        QTest::newRow("cute") << u"import cutlass\nimport cutlass.cute as cute\n"_s << u"cute"_s;
        QTest::newRow("tilelang") << u"import tilelang.language as T\n"_s << u"tilelang"_s;
        QTest::newRow("a comment is no import")
            << u"import torch\n# we could import triton here\n"_s << QString();
        QTest::newRow("plain torch") << u"import torch\nx = torch.relu\n"_s << QString();
    }

    void detect()
    {
        QFETCH(QString, source);
        QFETCH(QString, language);
        const KernelLanguage *found = KernelLanguages::detect(source);
        QCOMPARE(found ? found->id() : QString(), language);
    }

    void tritonKernels()
    {
        const QString source =
            u"@triton.autotune(\n    configs=[],\n    key=['n'],\n)\n"
            "@triton.jit\ndef tuned(x_ptr):\n    pass\n\n"
            "@tr.jit(do_not_specialize=['n'])\ndef aliased(x_ptr, n):\n    pass\n\n"
            "@functools.cache\ndef helper():\n    pass\n\n"
            "def plain():\n    pass\n"_s;
        QCOMPARE(KernelLanguages::find(u"triton"_s)->kernelNames(source),
                 (QStringList{u"tuned"_s, u"aliased"_s}));
    }

    void cudaKernels()
    {
        const QString source =
            u"__global__ void __launch_bounds__(256) softmax_kernel(float* x) {}\n"
            "template <int N> __global__ void tiled(const float* a) {}\n"
            "__device__ float helper(float v) { return v; }\n"_s;
        QCOMPARE(KernelLanguages::find(u"cuda"_s)->kernelNames(source),
                 (QStringList{u"softmax_kernel"_s, u"tiled"_s}));
    }

    void traceNames()
    {
        const KernelLanguage &tilelang = *KernelLanguages::find(u"tilelang"_s);
        QVERIFY(tilelang.ownsTraceKernel(u"main_kernel"_s, {u"main"_s}));
        QVERIFY(!tilelang.ownsTraceKernel(u"other_kernel"_s, {u"main"_s}));
        const KernelLanguage &cute = *KernelLanguages::find(u"cute"_s);
        QVERIFY(cute.ownsTraceKernel(u"kernel_cutlass_add_kernel_0"_s, {u"add_kernel"_s}));
        const KernelLanguage &triton = *KernelLanguages::find(u"triton"_s);
        QVERIFY(triton.ownsTraceKernel(u"add_kernel"_s, {u"add_kernel"_s}));
        QVERIFY(!triton.ownsTraceKernel(u"triton_poi_fused_add_0"_s, {u"add_kernel"_s}));
    }

    void tritonEnvironment()
    {
        const QStringList environment =
            KernelLanguages::find(u"triton"_s)->environment(u"/work/x"_s);
        QVERIFY(environment.contains(u"TRITON_CACHE_DIR=/work/x/triton-cache"_s));
        QVERIFY(environment.contains(u"TRITON_F32_DEFAULT=ieee"_s));
    }
};

} // namespace kiln

QTEST_GUILESS_MAIN(kiln::TstKernelLanguages)
#include "tst_kernellanguages.moc"
