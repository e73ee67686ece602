// The judgements of the PyTorch backend's audit (TorchAudit) that need neither torch nor a GPU:
// kernel names and shares from a profile, and op records compared for precision downgrades and
// substituted library ops. tst_torchbackend runs the audit itself on a GPU, tst_torchcpu on
// torch's CPU device.
#include "verifier/screen/flagcatalog.h"
#include "verifier/screen/native/macroexpander.h"
#include "verifier/torch/torchkernelshare.h"
#include "verifier/torch/torchoprecord.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace kiln;
using namespace Qt::StringLiterals;

namespace {

QJsonObject json(const char *text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

// A record of ops: [[op, [in], [out], n] ...] as the worker's "dtypes" reply holds them.
TorchOpRecord record(const char *ops, const char *settings = "[]")
{
    return TorchOpRecord(json(QStringLiteral(R"({"ops": %1, "settings": %2})")
                                  .arg(QString::fromUtf8(ops), QString::fromUtf8(settings))
                                  .toUtf8()
                                  .constData()));
}

const char *kMatmulReference = R"([["aten.mm.default", ["float32"], ["float32"], 1]])";

} // namespace

class TstTorchAudit : public QObject
{
    Q_OBJECT

private slots:
    void kernelNames_data();
    void kernelNames();
    void kernelShares();
    void pastedKernelNamesAreOwn();
    void precisionDowngrades();
    void honestDtypesAreNoDowngrade();
    void referencePrecisionIsAllowed();
    void substitutedFamilies();
    void catalogue();
};

void TstTorchAudit::kernelNames_data()
{
    QTest::addColumn<QString>("demangled");
    QTest::addColumn<QString>("qualified");
    QTest::addColumn<QString>("base");
    QTest::addColumn<bool>("library");
    QTest::newRow("own") << u"void matmul_tiled_kernel(float const*, float const*, float*, int)"_s
                         << u"matmul_tiled_kernel"_s << u"matmul_tiled_kernel"_s << false;
    QTest::newRow("own template")
        << u"void (anonymous namespace)::softmax_kernel<float, 4>(float const*, float*, int)"_s
        << u"anonymous::softmax_kernel"_s << u"softmax_kernel"_s << false;
    QTest::newRow("own named like a GEMM")
        << u"void my_gemm_kernel(float*)"_s << u"my_gemm_kernel"_s << u"my_gemm_kernel"_s << false;
    QTest::newRow("aten") << u"void at::native::vectorized_elementwise_kernel<4, "
                             "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
                             "at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"_s
                          << u"at::native::vectorized_elementwise_kernel"_s
                          << u"vectorized_elementwise_kernel"_s << true;
    QTest::newRow("aten lambda")
        << u"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::"
           "native::AddFunctor<float> >(at::TensorIteratorBase&, at::native::AddFunctor<float> "
           "const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::AddFunctor<"
           "float> >(at::TensorIteratorBase&)::{lambda(int)#1})"_s
        << u"at::native::elementwise_kernel"_s << u"elementwise_kernel"_s << true;
    QTest::newRow("cublas") << u"ampere_sgemm_128x64_nn"_s << u"ampere_sgemm_128x64_nn"_s
                            << u"ampere_sgemm_128x64_nn"_s << true;
    QTest::newRow("cublas hopper")
        << u"sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_warpgroupsize1x1x1_kernel"_s
        << u"sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_warpgroupsize1x1x1_kernel"_s
        << u"sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8_warpgroupsize1x1x1_kernel"_s
        << true;
    QTest::newRow("cutlass")
        << u"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_nn_align1>("
           "cutlass_80_simt_sgemm_128x64_8x5_nn_align1::Params)"_s
        << u"cutlass::Kernel2"_s << u"Kernel2"_s << true;
    QTest::newRow("cudnn") << u"void cudnn::cnn::conv2d_grouped_direct_kernel<float>(float*)"_s
                           << u"cudnn::cnn::conv2d_grouped_direct_kernel"_s
                           << u"conv2d_grouped_direct_kernel"_s << true;
    QTest::newRow("nvjet") << u"nvjet_sss_128x128_32x6_2x1_v_bz_NNN"_s
                           << u"nvjet_sss_128x128_32x6_2x1_v_bz_NNN"_s
                           << u"nvjet_sss_128x128_32x6_2x1_v_bz_NNN"_s << true;
}

void TstTorchAudit::kernelNames()
{
    QFETCH(QString, demangled);
    QFETCH(QString, qualified);
    QFETCH(QString, base);
    QFETCH(bool, library);
    const auto [gotQualified, gotBase] = TorchKernelShare::kernelName(demangled);
    QCOMPARE(gotQualified, qualified);
    QCOMPARE(gotBase, base);
    QCOMPARE(TorchKernelShare::isLibraryKernel(demangled), library);
}

// Own kernels are named in the candidate's source and by no library; ATen's kernels stay the
// library's even when the source mentions their names; copies count as library time.
void TstTorchAudit::kernelShares()
{
    const QString source = u"__global__ void relu_kernel(float* x) {}\n"
                           "# not ours: vectorized_elementwise_kernel, ampere_sgemm_128x64_nn\n"
                           "DEFINE_KERNEL(fused_bias)\n"_s;
    const QJsonObject profile = json(R"j({"kernels": [
        {"name": "ampere_sgemm_128x64_nn", "cat": "kernel", "us": 60.0, "n": 5},
        {"name": "void at::native::vectorized_elementwise_kernel<4>(int)", "cat": "kernel",
         "us": 20.0, "n": 5},
        {"name": "void relu_kernel(float*)", "cat": "kernel", "us": 6.0, "n": 5},
        {"name": "void fused_bias<float>(float*)", "cat": "kernel", "us": 2.0, "n": 5},
        {"name": "sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_kernel", "cat": "kernel", "us": 10.0,
         "n": 5},
        {"name": "Memcpy DtoD (Device -> Device)", "cat": "memcpy", "us": 1.0, "n": 1}],
        "rest_us": 1.0, "total_us": 99.0, "calls": 5})j");
    const TorchKernelShare share(profile, source);
    QCOMPARE(share.totalUs(), 100.0);
    QCOMPARE(share.ownUs(), 8.0);
    QCOMPARE(share.libraryGemmUs(), 70.0);
    QVERIFY(qAbs(share.ownShare() - 0.08) < 1e-9);
    QCOMPARE(share.tf32Kernels(), QStringList{u"sm80_xmma_gemm_f32f32_tf32f32_f32_nn_n_kernel"_s});
    QCOMPARE(share.kernels().first().name, u"ampere_sgemm_128x64_nn"_s);
    QVERIFY2(share.summary().startsWith(u"own kernels 8 % of 100.0 us"_s),
             qPrintable(share.summary()));
    const QJsonObject data = share.toJson();
    QCOMPARE(data.value(u"kernels"_s).toArray().size(), 6);
    QCOMPARE(TorchKernelShare(QJsonObject{}, source).ownShare(), 0.0);
}

// A kernel named by token pasting is the candidate's own, and one pasted to read "gemm" is not
// a library GEMM (that would be a hard torch_library_gemm on an honest kernel).
void TstTorchAudit::pastedKernelNamesAreOwn()
{
    if (MacroExpander::preprocessor().isEmpty())
        QSKIP("no host preprocessor to expand the macros");
    const QString source = u"source = \"\"\"\n#define KERNEL_NAME(op) op##_kernel\n"
                           "#define CHECK(t) \\\\\n    TORCH_CHECK(t)\n"
                           "__global__ void KERNEL_NAME(my_gemm)(float* x) {}\n\"\"\"\n"_s;
    const QJsonObject profile = json(R"j({"kernels": [
        {"name": "void my_gemm_kernel(float*)", "cat": "kernel", "us": 9.0, "n": 5},
        {"name": "ampere_sgemm_128x64_nn", "cat": "kernel", "us": 1.0, "n": 5}],
        "rest_us": 0.0, "total_us": 10.0, "calls": 5})j");
    const TorchKernelShare share(profile, source);
    QCOMPARE(share.ownUs(), 9.0);
    QCOMPARE(share.libraryGemmUs(), 1.0);
    // Without the pasting the name is a library's, as before.
    QString plain = source;
    plain.replace(u"##"_s, u" "_s);
    QCOMPARE(TorchKernelShare(profile, plain).ownUs(), 0.0);
}

void TstTorchAudit::precisionDowngrades()
{
    const TorchOpRecord reference = record(kMatmulReference);
    const TorchOpRecord int8 = record(R"([
        ["aten._to_copy.default", ["float32"], ["int8"], 4],
        ["aten._int_mm.default", ["int8"], ["int32"], 3]])");
    const QStringList evidence = TorchOpRecord::downgrades(reference, int8);
    QVERIFY2(evidence.contains(u"aten._to_copy.default on int8"_s),
             qPrintable(evidence.join(u';')));
    QVERIFY2(evidence.contains(u"aten._int_mm.default on int8"_s), qPrintable(evidence.join(u';')));

    const TorchOpRecord half = record(R"([["aten.mm.default", ["float16"], ["float16"], 1]])");
    QCOMPARE(TorchOpRecord::downgrades(reference, half),
             QStringList{u"aten.mm.default on float16"_s});
    const TorchOpRecord fp8 =
        record(R"([["aten._scaled_mm.default", ["float8_e4m3fn", "float32"], ["float32"], 1]])");
    QCOMPARE(TorchOpRecord::downgrades(reference, fp8),
             QStringList{u"aten._scaled_mm.default on float8_e4m3fn"_s});
    const TorchOpRecord bytes = record(R"([["aten._to_copy.default", ["float32"], ["uint8"], 1]])");
    QCOMPARE(TorchOpRecord::downgrades(reference, bytes),
             QStringList{u"aten._to_copy.default turns floats into uint8"_s});

    const TorchOpRecord tf32 =
        record(kMatmulReference, R"(["TF32 for cuBLAS matmuls was True after a call"])");
    QCOMPARE(TorchOpRecord::downgrades(reference, tf32),
             QStringList{u"TF32 for cuBLAS matmuls was True after a call"_s});
}

// Masks, indices, doubles and an fp32 forward are no downgrade; nor is anything when the
// reference's record is missing (nothing says what the problem allows).
void TstTorchAudit::honestDtypesAreNoDowngrade()
{
    const TorchOpRecord reference = record(kMatmulReference);
    const TorchOpRecord honest = record(R"([
        ["aten.mm.default", ["float32"], ["float32"], 1],
        ["aten.gt.Scalar", ["float32"], ["bool"], 1],
        ["aten._to_copy.default", ["bool"], ["uint8"], 1],
        ["aten.argmax.default", ["float32"], ["int64"], 1],
        ["aten.mul.Tensor", ["float32", "float64"], ["float32"], 1],
        ["aten.empty.memory_format", [], ["int32"], 1]])");
    QCOMPARE(TorchOpRecord::downgrades(reference, honest), QStringList{});
    const TorchOpRecord int8 = record(R"([["aten._int_mm.default", ["int8"], ["int32"], 1]])");
    QCOMPARE(TorchOpRecord::downgrades(TorchOpRecord(json(R"({"unavailable": "no modes"})")), int8),
             QStringList{});
    QVERIFY(!TorchOpRecord(json(R"({"unavailable": "no modes"})")).available());
}

void TstTorchAudit::referencePrecisionIsAllowed()
{
    const TorchOpRecord halfReference =
        record(R"([["aten.mm.default", ["float16"], ["float16"], 1]])");
    const TorchOpRecord half = record(R"([["aten.addmm.default", ["float16"], ["float16"], 1]])");
    QCOMPARE(TorchOpRecord::downgrades(halfReference, half), QStringList{});
    const TorchOpRecord int8Reference =
        record(R"([["aten._int_mm.default", ["int8"], ["int32"], 1]])");
    const TorchOpRecord int8 = record(R"([["aten._to_copy.default", ["float32"], ["int8"], 1]])");
    QCOMPARE(TorchOpRecord::downgrades(int8Reference, int8), QStringList{});
    // A problem whose own code switched TF32 on allows it.
    const TorchOpRecord tf32Reference =
        record(kMatmulReference, R"(["TF32 for cuBLAS matmuls was True before a call"])");
    const TorchOpRecord tf32 =
        record(kMatmulReference, R"(["TF32 for cuBLAS matmuls was True after a call"])");
    QCOMPARE(TorchOpRecord::downgrades(tf32Reference, tf32), QStringList{});
}

void TstTorchAudit::substitutedFamilies()
{
    QCOMPARE(TorchOpRecord::family(u"aten.convolution.default"_s), u"convolution"_s);
    QCOMPARE(TorchOpRecord::family(u"aten._convolution.deprecated"_s), u"convolution"_s);
    QCOMPARE(TorchOpRecord::family(u"aten.conv2d.default"_s), u"convolution"_s);
    QCOMPARE(TorchOpRecord::family(u"aten._convert_indices_from_coo_to_csr.default"_s), QString());
    QCOMPARE(TorchOpRecord::family(u"aten.addmm.default"_s), u"matrix multiplication"_s);
    QCOMPARE(TorchOpRecord::family(u"aten._int_mm.default"_s), u"matrix multiplication"_s);
    QCOMPARE(TorchOpRecord::family(u"aten._scaled_dot_product_flash_attention.default"_s),
             u"attention"_s);
    QCOMPARE(TorchOpRecord::family(u"aten.add.Tensor"_s), QString());

    const TorchOpRecord matmul = record(kMatmulReference);
    const TorchOpRecord conv =
        record(R"([["aten.convolution.default", ["float32"], ["float32"], 1]])");
    const TorchOpRecord linear = record(R"([["aten.addmm.default", ["float32"], ["float32"], 1]])");
    QCOMPARE(TorchOpRecord::substitutedFamilies(matmul, conv), QStringList{u"convolution"_s});
    QCOMPARE(TorchOpRecord::substitutedFamilies(matmul, linear), QStringList{});
    QCOMPARE(TorchOpRecord::substitutedFamilies(conv, conv), QStringList{});
    QCOMPARE(TorchOpRecord::substitutedFamilies(TorchOpRecord{}, conv), QStringList{});
}

void TstTorchAudit::catalogue()
{
    struct Expected
    {
        const char *id;
        bool blocking;
        const char *tier;
        const char *stage;
    };
    for (const Expected &e : {Expected{"torch_ghost_kernel", true, "hard", "correctness"},
                              Expected{"torch_library_gemm", true, "hard", "timing"},
                              Expected{"torch_library_share", false, "suspicious", "timing"},
                              Expected{"precision_downgrade", true, "hard", "screen"}}) {
        const FlagInfo *info = FlagCatalog::find(QString::fromUtf8(e.id));
        QVERIFY2(info, e.id);
        QCOMPARE(info->blocking, e.blocking);
        QCOMPARE(info->tier, QString::fromUtf8(e.tier));
        QCOMPARE(info->stage, QString::fromUtf8(e.stage));
    }
}

QTEST_GUILESS_MAIN(TstTorchAudit)
#include "tst_torchaudit.moc"
