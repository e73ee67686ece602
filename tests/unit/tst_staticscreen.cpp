#include "tasks/taskloader.h"
#include "verifier/screen/flagcatalog.h"
#include "verifier/screen/native/elfsymbols.h"
#include "verifier/screen/native/staticscreen.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace kiln;

namespace {

// Preprocessed text as g++ -E writes it: header lines, then the candidate with line markers.
QString preprocessed(const QString &body, int firstLine = 1)
{
    return QStringLiteral(
               "# 1 \"cand.cpp\"\n# 1 \"<built-in>\"\n# 1 \"/usr/include/stdlib.h\" 1 3\n"
               "extern \"C\" void exit(int);\nextern \"C\" void *dlopen(const char*, int);\n"
               "# %1 \"cand.cpp\" 2\n")
               .arg(firstLine) +
           body;
}

QStringList ids(const QList<CheatFlag> &flags)
{
    QStringList result;
    for (const CheatFlag &flag : flags)
        result << flag.id;
    return result;
}

QStringList blockingIds(const QList<CheatFlag> &flags)
{
    QStringList result;
    for (const CheatFlag &flag : flags) {
        if (flag.blocking)
            result << flag.id;
    }
    return result;
}

// Preprocessed text as `nvcc -E -x cu` writes it (gcc 12 markers): the runtime header is
// force-included from the command line and declares every name the candidate might use, then
// the candidate follows from its line 1.
QString cudaPreprocessed(const QString &body)
{
    return QStringLiteral(
               "# 0 \"cand.cu\"\n# 0 \"<built-in>\"\n# 0 \"<command-line>\"\n"
               "# 1 \"/usr/include/stdc-predef.h\" 1 3 4\n# 0 \"<command-line>\" 2\n"
               "# 1 \"/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime.h\" 1\n"
               "# 61 \"/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime.h\"\n"
               "#pragma GCC diagnostic push\n"
               "extern \"C\" cudaError_t cudaStreamCreate(cudaStream_t *s);\n"
               "extern \"C\" cudaError_t cudaMemcpy(void *, const void *, size_t, int);\n"
               "struct __half { unsigned short x; }; typedef __half half;\n"
               "extern \"C\" int cublasSgemm_v2(void *);\n"
               "static __inline__ void f() { k<<<1, 1>>>(); cudaAccessPolicyWindow w; }\n"
               "# 2621 \"/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime.h\"\n"
               "#pragma GCC diagnostic pop\n"
               "# 0 \"<command-line>\" 2\n# 1 \"cand.cu\"\n") +
           body;
}

QString sourceFile(const QString &relative)
{
    QFile file(QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cuda/") + relative);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

QString nvccPath()
{
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("nvcc"));
    if (!onPath.isEmpty())
        return onPath;
    const QString usual = QStringLiteral("/usr/local/cuda/bin/nvcc");
    return QFileInfo::exists(usual) ? usual : QString();
}

} // namespace

class TestStaticScreen : public QObject
{
    Q_OBJECT

private:
    Task m_task;

    // The flag with this id, or an invalid one (empty id).
    static CheatFlag flagOf(const QList<CheatFlag> &flags, const QString &id)
    {
        for (const CheatFlag &flag : flags) {
            if (flag.id == id)
                return flag;
        }
        return {};
    }

    static QString describe(const QList<CheatFlag> &flags)
    {
        QStringList parts;
        for (const CheatFlag &flag : flags) {
            QStringList lines;
            for (int line : flag.lines)
                lines << QString::number(line);
            parts << flag.id + QLatin1Char('@') + lines.join(QLatin1Char(',')) +
                         QStringLiteral(" [") + flag.message + QLatin1Char(']');
        }
        return parts.join(QStringLiteral("; "));
    }

private slots:
    void initTestCase()
    {
        const TaskLoader::Result loaded =
            TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/matmul"));
        QVERIFY2(loaded.ok(), qPrintable(loaded.errorStrings().join(QLatin1Char('\n'))));
        m_task = *loaded.task;
    }

    void tokensKeepCandidateLines()
    {
        const QList<StaticScreen::Token> tokens = StaticScreen::candidateTokens(
            preprocessed(QStringLiteral("int a;\n\nconst char *s = \"/proc/self\";\n"), 10),
            QStringLiteral("cand.cpp"));
        // Header declarations (exit, dlopen) are not the candidate's.
        QCOMPARE(tokens.first().text, QStringLiteral("int"));
        QCOMPARE(tokens.first().line, 10);
        QCOMPARE(tokens.last().text, QStringLiteral(";"));
        QCOMPARE(tokens.last().line, 12);
        bool sawString = false;
        for (const StaticScreen::Token &token : tokens)
            sawString = sawString || (token.kind == StaticScreen::Token::Kind::String &&
                                      token.text == QLatin1String("/proc/self"));
        QVERIFY(sawString);
    }

    void tokenFlags_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("flag"); // empty: no flag expected
        QTest::addColumn<int>("line");
        QTest::newRow("dlopen call") << "void f() {\n  dlopen(0, 0);\n}\n"
                                     << "dynamic_loading" << 2;
        QTest::newRow("member named exit is fine")
            << "struct S { int exit; };\nint g(S s) { return s.exit; }\n"
            << "" << 0;
        QTest::newRow("exit call") << "void f() {\n  std::exit(0);\n}\n"
                                   << "process_exit" << 2;
        QTest::newRow("variable named half")
            << "int f(int n) {\n  int half = n / 2;\n  return half;\n}\n"
            << "" << 0;
        QTest::newRow("half as a type") << "void f() {\n  half h;\n}\n"
                                        << "precision_downgrade" << 2;
        QTest::newRow("_Float16") << "_Float16 x;\n"
                                  << "precision_downgrade" << 1;
        QTest::newRow("detach member") << "void f(T t) {\n  t.detach();\n}\n"
                                       << "threads_detached" << 2;
        QTest::newRow("proc path") << "const char *p =\n  \"/proc/self/maps\";\n"
                                   << "proc_access" << 2;
        QTest::newRow("cblas") << "void f() {\n cblas_sgemm(1);\n}\n"
                               << "forbidden_library" << 2;
        QTest::newRow("constructor attribute") << "__attribute__((constructor)) void init() {}\n"
                                               << "load_time_code" << 1;
        QTest::newRow("inline asm") << "void f() { asm volatile(\"\"); }\n"
                                    << "inline_asm" << 1;
        QTest::newRow("raw syscall") << "void f() {\n  syscall(39);\n}\n"
                                     << "raw_system_calls" << 2;
        QTest::newRow("asm syscall") << "void f() {\n  asm volatile(\"syscall\");\n}\n"
                                     << "raw_system_calls" << 2;
        QTest::newRow("write to a descriptor") << "void f() {\n  write(501, \"x\", 1);\n}\n"
                                               << "raw_system_calls" << 2;
        QTest::newRow("fork") << "void f() {\n\n  fork();\n}\n"
                              << "process_spawn" << 3;
        QTest::newRow("honest openmp")
            << "#pragma omp parallel for\nfor (int i = 0; i < n; ++i) c[i] = a[i];\n"
            << "" << 0;
    }

    void tokenFlags()
    {
        QFETCH(QString, body);
        QFETCH(QString, flag);
        QFETCH(int, line);
        const QList<CheatFlag> flags = StaticScreen::screen(
            m_task, preprocessed(body), QStringLiteral("cand.cpp"), ElfSymbols());
        if (flag.isEmpty()) {
            QVERIFY2(flags.isEmpty(), qPrintable(ids(flags).join(QLatin1Char(' '))));
            return;
        }
        QVERIFY2(ids(flags).contains(flag), qPrintable(ids(flags).join(QLatin1Char(' '))));
        for (const CheatFlag &f : flags) {
            if (f.id == flag) {
                QVERIFY(f.lines.contains(line));
                QCOMPARE(f.blocking, FlagCatalog::find(flag)->blocking);
            }
        }
    }

    void symbolFlags_data()
    {
        QTest::addColumn<QStringList>("undefined");
        QTest::addColumn<QStringList>("defined");
        QTest::addColumn<QStringList>("objects");
        QTest::addColumn<QString>("flag");
        QTest::newRow("imported dlsym") << QStringList{QStringLiteral("dlsym")} << QStringList{}
                                        << QStringList{} << "dynamic_loading";
        QTest::newRow("imported sgemm") << QStringList{QStringLiteral("cblas_sgemm")}
                                        << QStringList{} << QStringList{} << "forbidden_library";
        QTest::newRow("thread detach") << QStringList{QStringLiteral("_ZNSt6thread6detachEv")}
                                       << QStringList{} << QStringList{} << "threads_detached";
        QTest::newRow("ofstream")
            << QStringList{QStringLiteral(
                   "_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode")}
            << QStringList{} << QStringList{} << "file_access";
        QTest::newRow("defines clock_gettime")
            << QStringList{} << QStringList{QStringLiteral("clock_gettime")} << QStringList{}
            << "timer_tampering";
        QTest::newRow("defines steady_clock::now")
            << QStringList{} << QStringList{QStringLiteral("_ZNSt6chrono3_V212steady_clock3nowEv")}
            << QStringList{} << "timer_tampering";
        QTest::newRow("defines memcpy") << QStringList{} << QStringList{QStringLiteral("memcpy")}
                                        << QStringList{} << "symbol_interposition";
        QTest::newRow("defines GOMP_parallel")
            << QStringList{} << QStringList{QStringLiteral("GOMP_parallel")} << QStringList{}
            << "symbol_interposition";
        QTest::newRow("static state")
            << QStringList{} << QStringList{} << QStringList{QStringLiteral("_ZZ6matmulE5cache")}
            << "static_state";
    }

    void symbolFlags()
    {
        QFETCH(QStringList, undefined);
        QFETCH(QStringList, defined);
        QFETCH(QStringList, objects);
        QFETCH(QString, flag);
        ElfSymbols symbols;
        symbols.valid = true;
        symbols.undefined = undefined;
        symbols.defined = defined + QStringList{QStringLiteral("matmul")};
        symbols.mutableObjects = objects;
        const QList<CheatFlag> flags =
            StaticScreen::screen(m_task, preprocessed(QStringLiteral("static float cache;\n")),
                                 QStringLiteral("cand.cpp"), symbols);
        QVERIFY2(ids(flags).contains(flag), qPrintable(ids(flags).join(QLatin1Char(' '))));
    }

    void honestSymbolsAreQuiet()
    {
        ElfSymbols symbols;
        symbols.valid = true;
        symbols.undefined = {QStringLiteral("GOMP_parallel"), QStringLiteral("omp_get_thread_num"),
                             QStringLiteral("expf"), QStringLiteral("_ZSt9terminatev"),
                             QStringLiteral("pthread_create")};
        symbols.defined = {QStringLiteral("matmul"), QStringLiteral("_Z6helperPKfi")};
        symbols.mutableObjects = {QStringLiteral("_ZGVZ6matmulE5table"),
                                  QStringLiteral("DW.ref.__gxx_personality_v0")};
        QVERIFY(StaticScreen::screen(m_task, preprocessed(QString()), QStringLiteral("cand.cpp"),
                                     symbols)
                    .isEmpty());
    }

    // The real thing: g++ output read back by ElfSymbols.
    void readsARealObject()
    {
        QTemporaryDir dir;
        QFile source(dir.filePath(QStringLiteral("cand.cpp")));
        QVERIFY(source.open(QIODevice::WriteOnly));
        source.write(
            "#include <dlfcn.h>\n"
            "static int calls;\n"
            "extern \"C\" int clock_gettime(int, void *) { return 0; }\n"
            "extern \"C\" void matmul(const float *, const float *, float *C, int, int, int)\n"
            "{ ++calls; C[0] = dlsym(0, \"x\") ? 1.0f : 0.0f; }\n");
        source.close();
        QProcess compiler;
        compiler.setWorkingDirectory(dir.path());
        compiler.start(QStringLiteral("g++"), {QStringLiteral("-O2"), QStringLiteral("-fPIC"),
                                               QStringLiteral("-c"), QStringLiteral("cand.cpp")});
        QVERIFY(compiler.waitForFinished(60000));
        QCOMPARE(compiler.exitCode(), 0);
        QFile object(dir.filePath(QStringLiteral("cand.o")));
        QVERIFY(object.open(QIODevice::ReadOnly));
        const ElfSymbols symbols = ElfSymbols::read(object.readAll());
        QVERIFY(symbols.valid);
        QVERIFY(symbols.undefined.contains(QStringLiteral("dlsym")));
        QVERIFY(symbols.defined.contains(QStringLiteral("matmul")));
        QVERIFY(symbols.defined.contains(QStringLiteral("clock_gettime")));
        QVERIFY(symbols.mutableObjects.contains(QStringLiteral("_ZL5calls")));
        QVERIFY(!ElfSymbols::read(QByteArray("not an elf file")).valid);
    }

    // ---- CUDA screen -------------------------------------------------------------------------

    void cudaRawSourceKeepsLines()
    {
        // No line markers (NVRTC): every token is the candidate's, on its physical line; comments
        // are not code.
        const QString raw = QStringLiteral("// cudaStreamCreate in a comment\n"
                                           "/* cudaMemcpy(\n   a, b) */\n"
                                           "extern \"C\" __global__ void k(float *y)\n"
                                           "{\n  y[0] = 1.0f;\n}\n");
        QVERIFY(!StaticScreen::isPreprocessed(raw));
        QVERIFY(StaticScreen::isPreprocessed(cudaPreprocessed(QString())));
        const QList<StaticScreen::Token> tokens =
            StaticScreen::candidateTokens(raw, QStringLiteral("cand.cu"));
        QVERIFY(!tokens.isEmpty());
        QCOMPARE(tokens.first().text, QStringLiteral("extern"));
        QCOMPARE(tokens.first().line, 4);
        QCOMPARE(tokens.last().text, QStringLiteral("}"));
        QCOMPARE(tokens.last().line, 7);
        QVERIFY(StaticScreen::screen(m_task, Backend::Cuda, raw, QStringLiteral("cand.cu"),
                                     ElfSymbols())
                    .isEmpty());
        // Header tokens of nvcc's output (a launch without a stream, __half, cublas) are skipped.
        const QList<StaticScreen::Token> none =
            StaticScreen::candidateTokens(cudaPreprocessed(QString()), QStringLiteral("cand.cu"));
        QVERIFY2(none.isEmpty(), qPrintable(none.value(0).text));
    }

    void cudaLineDirectives()
    {
        const QString raw = QStringLiteral("int a;\n#line 40 \"other.cu\"\nint b;\n"
                                           "  # 7 \"/usr/include/x.h\" 1 3\n/**/ #  line 3\n"
                                           "#li\\\nne 9\n#define LINE 1\n#pragma unroll\n");
        QCOMPARE(StaticScreen::lineDirectiveLines(raw), (QList<int>{2, 4, 5, 6}));
        const QList<CheatFlag> flags = StaticScreen::screen(
            m_task, Backend::Cuda, raw, QStringLiteral("cand.cu"), ElfSymbols());
        const CheatFlag flag = flagOf(flags, QStringLiteral("line_directive"));
        QCOMPARE(flag.lines, (QList<int>{2, 4, 5, 6}));
        QVERIFY(flag.blocking);
    }

    void cudaTokenFlags_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<bool>("raw");     // true: the source as NVRTC gets it, no line markers
        QTest::addColumn<QString>("flag"); // empty: no blocking flag expected
        QTest::addColumn<int>("line");

        // Streams of the candidate's own.
        QTest::newRow("cudaStreamCreate")
            << "void f() {\n  cudaStream_t s;\n  cudaStreamCreate(&s);\n}\n"
            << false << "stream_creation" << 3;
        QTest::newRow("cudaStreamCreateWithFlags")
            << "void f(cudaStream_t *s) {\n  cudaStreamCreateWithFlags(s, 1);\n}\n"
            << false << "stream_creation" << 2;
        QTest::newRow("cudaStreamCreateWithPriority")
            << "void f(cudaStream_t *s) {\n\n  cudaStreamCreateWithPriority(s, 1, -1);\n}\n"
            << false << "stream_creation" << 3;
        QTest::newRow("cuStreamCreate") << "void f(CUstream *s) {\n  cuStreamCreate(s, 0);\n}\n"
                                        << false << "stream_creation" << 2;
        QTest::newRow("stream creation in a raw #define")
            << "#define MAKE cudaStreamCreate\nvoid f() {}\n"
            << true << "stream_creation" << 1;

        // The legacy default stream.
        QTest::newRow("launch without a stream")
            << "void f(int n) {\n  k<<<(n + 255) / 256, 256>>>(n);\n}\n"
            << false << "legacy_default_stream" << 2;
        QTest::newRow("launch with shared memory, no stream")
            << "void f() {\n  k<<<dim3(4, 4), 128, 1024>>>();\n}\n"
            << false << "legacy_default_stream" << 2;
        QTest::newRow("launch on stream 0") << "void f() {\n  k<<<1, 32, 0, 0>>>();\n}\n"
                                            << false << "legacy_default_stream" << 2;
        QTest::newRow("launch on nullptr") << "void f() {\n\n  k<<<1, 32, 0, nullptr>>>();\n}\n"
                                           << false << "legacy_default_stream" << 3;
        QTest::newRow("launch on NULL (preprocessed)")
            << "void f() {\n  k<<<1, 32, 0, __null>>>();\n}\n"
            << false << "legacy_default_stream" << 2;
        QTest::newRow("launch on cudaStreamLegacy (preprocessed)")
            << "void f() {\n  k<<<1, 32, 0, ((cudaStream_t)0x1)>>>();\n}\n"
            << false << "legacy_default_stream" << 2;
        QTest::newRow("launch on cudaStreamPerThread")
            << "void f() {\n  k<<<1, 32, 0, cudaStreamPerThread>>>();\n}\n"
            << true << "legacy_default_stream" << 2;
        QTest::newRow("launch on a cast zero")
            << "void f() {\n  k<<<1, 32, 0, static_cast<cudaStream_t>(0)>>>();\n}\n"
            << false << "legacy_default_stream" << 2;
        QTest::newRow("synchronous cudaMemcpy")
            << "void f(float *d, const float *s) {\n  cudaMemcpy(d, s, 4, "
               "cudaMemcpyDeviceToDevice);\n}\n"
            << false << "legacy_default_stream" << 2;
        QTest::newRow("synchronous cudaMemset") << "void f(float *d) {\n  cudaMemset(d, 0, 4);\n}\n"
                                                << false << "legacy_default_stream" << 2;
        QTest::newRow("driver cuMemcpyDtoD_v2")
            << "void f(CUdeviceptr d, CUdeviceptr s) {\n  cuMemcpyDtoD_v2(d, s, 4);\n}\n"
            << false << "legacy_default_stream" << 2;
        QTest::newRow("cudaMemcpyAsync without a stream")
            << "void f(float *d, const float *s) {\n  cudaMemcpyAsync(d, s, 4, "
               "cudaMemcpyDeviceToDevice);\n}\n"
            << false << "legacy_default_stream" << 2;
        QTest::newRow("cudaMemsetAsync without a stream")
            << "void f(float *d) {\n  cudaMemsetAsync(d, 0, 4);\n}\n"
            << false << "legacy_default_stream" << 2;
        QTest::newRow("cudaMemcpyAsync on stream 0")
            << "void f(float *d, const float *s) {\n  cudaMemcpyAsync(d, s, 4,\n"
               "      cudaMemcpyDeviceToDevice, 0);\n}\n"
            << false << "legacy_default_stream" << 2;
        QTest::newRow("cudaLaunchKernel on stream 0")
            << "void f(void **args) {\n  cudaLaunchKernel((const void *)k, dim3(1), dim3(32), "
               "args, 0, 0);\n}\n"
            << false << "legacy_default_stream" << 2;

        // Persisting L2.
        QTest::newRow("access policy window (preprocessed)")
            << "void f(float *p, cudaStream_t s) {\n  cudaLaunchAttributeValue v = {};\n"
               "  v.accessPolicyWindow.base_ptr = p;\n"
               "  cudaStreamSetAttribute(s, cudaLaunchAttributeAccessPolicyWindow, &v);\n}\n"
            << false << "persisting_l2" << 3;
        QTest::newRow("cudaStreamAttrValue (raw)") << "void f() {\n  cudaStreamAttrValue v;\n}\n"
                                                   << true << "persisting_l2" << 2;
        QTest::newRow("persisting L2 limit")
            << "void f() {\n  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20);\n}\n"
            << false << "persisting_l2" << 2;
        QTest::newRow("reset persisting L2")
            << "void f() {\n  cudaCtxResetPersistingL2Cache();\n}\n"
            << false << "persisting_l2" << 2;
        QTest::newRow("access policy by number")
            << "void f(cudaStream_t s, void *v) {\n  cudaStreamSetAttribute(s, "
               "(cudaLaunchAttributeID)1, v);\n}\n"
            << false << "persisting_l2" << 2;

        // Libraries matmul forbids.
        QTest::newRow("cublasSgemm") << "void f(void *h) {\n  cublasSgemm_v2(h, 0);\n}\n"
                                     << false << "forbidden_library" << 2;
        QTest::newRow("cublasLt") << "void f(void *h) {\n  cublasLtMatmul(h);\n}\n"
                                  << false << "forbidden_library" << 2;
        QTest::newRow("cudnn") << "void f() {\n  cudnnHandle_t h;\n}\n"
                               << false << "forbidden_library" << 2;
        QTest::newRow("cub device-wide")
            << "void f(size_t &b) {\n  cub::DeviceReduce::Sum(nullptr, b, x, y, n);\n}\n"
            << false << "forbidden_library" << 2;
        QTest::newRow("cub device-wide after using namespace")
            << "using namespace cub;\nvoid f(size_t &b) {\n  DeviceScan::ExclusiveSum(0, b);\n}\n"
            << false << "forbidden_library" << 3;
        QTest::newRow("thrust")
            << "float f(float *p, int n) {\n  return thrust::reduce(p, p + n);\n}\n"
            << false << "forbidden_library" << 2;
        QTest::newRow("using namespace thrust") << "\nusing namespace thrust;\n"
                                                << false << "forbidden_library" << 2;
        QTest::newRow("cutlass") << "void f() {\n  cutlass::gemm::device::Gemm<float> g;\n}\n"
                                 << false << "forbidden_library" << 2;

        // Definitions of runtime functions.
        QTest::newRow("defines cudaEventElapsedTime")
            << "extern \"C\" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a,\n"
               "                                          cudaEvent_t b)\n{\n  *ms = 0;\n"
               "  return cudaSuccess;\n}\n"
            << false << "timer_tampering" << 1;
        QTest::newRow("defines cudaStreamSynchronize")
            << "cudaError_t cudaStreamSynchronize(cudaStream_t) noexcept { return cudaSuccess; }\n"
            << false << "timer_tampering" << 1;
        QTest::newRow("defines cuLaunchKernel")
            << "\nextern \"C\" int cuLaunchKernel(void) { return 0; }\n"
            << false << "symbol_interposition" << 2;

        // Code loading through the driver.
        QTest::newRow("cudaGetDriverEntryPoint")
            << "void f(void **fn) {\n  cudaGetDriverEntryPoint(\"cuLaunchKernel\", fn, 0, 0);\n}\n"
            << false << "dynamic_loading" << 2;
        QTest::newRow("cuGetProcAddress")
            << "void f(void **fn) {\n  cuGetProcAddress_v2(\"x\", fn, 12000, 0, 0);\n}\n"
            << false << "dynamic_loading" << 2;
        QTest::newRow("dlsym") << "void f() {\n  dlsym(0, \"cudaLaunchKernel\");\n}\n"
                               << false << "dynamic_loading" << 2;
        QTest::newRow("cuModuleLoadData")
            << "void f(CUmodule *m, const void *img) {\n  cuModuleLoadData(m, img);\n}\n"
            << false << "dynamic_loading" << 2;

        // Reduced precision in an fp32 task.
        QTest::newRow("__half and __float2half")
            << "__device__ float f(float x) {\n  __half h = __float2half(x);\n  return 0;\n}\n"
            << false << "precision_downgrade" << 2;
        QTest::newRow("half as a type") << "__device__ void f() {\n  half h;\n}\n"
                                        << true << "precision_downgrade" << 2;
        QTest::newRow("half2") << "__device__ void f() {\n\n  half2 h;\n}\n"
                               << false << "precision_downgrade" << 3;
        QTest::newRow("bfloat16") << "__device__ void f() {\n  __nv_bfloat162 b;\n}\n"
                                  << false << "precision_downgrade" << 2;
        QTest::newRow("__hfma") << "__device__ void f(T a, T b, T c) {\n  c = __hfma(a, b, c);\n}\n"
                                << false << "precision_downgrade" << 2;
        QTest::newRow("wmma half fragment")
            << "__device__ void f() {\n  wmma::fragment<wmma::matrix_a, 16, 16, 16, half,\n"
               "                 wmma::row_major> a;\n}\n"
            << false << "precision_downgrade" << 2;
        QTest::newRow("wmma tf32 fragment")
            << "__device__ void f() {\n  wmma::fragment<wmma::matrix_a, 16, 16, 8,\n"
               "      wmma::precision::tf32, wmma::row_major> a;\n}\n"
            << false << "precision_downgrade" << 3;
        QTest::newRow("__float_to_tf32")
            << "__device__ float f(float x) {\n  return wmma::__float_to_tf32(x);\n}\n"
            << false << "precision_downgrade" << 2;
        QTest::newRow("PTX mma.sync tf32")
            << "__device__ void f(float *d, unsigned *a) {\n  asm volatile(\n"
               "    \"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0}, {%1}, {%2}, "
               "{%3};\"\n"
               "    : \"=f\"(d[0]) : \"r\"(a[0]), \"r\"(a[1]), \"f\"(d[0]));\n}\n"
            << false << "precision_downgrade" << 3;
        QTest::newRow("PTX cvt.rn.tf32")
            << "__device__ unsigned f(float x) {\n  unsigned r;\n"
               "  asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(x));\n  return r;\n}\n"
            << true << "precision_downgrade" << 3;

        // Honest code: no blocking flag.
        QTest::newRow("launch on the given stream")
            << "extern \"C\" void vector_add(const float *a, const float *b, float *c, int n,\n"
               "                           cudaStream_t stream)\n{\n"
               "  k<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);\n"
               "  k2<<<dim3(n, 2), dim3(32, 8), sizeof(float) * 32, stream>>>(a, c);\n}\n"
            << false << "" << 0;
        QTest::newRow("stream-ordered scratch")
            << "void f(float *out, int n, cudaStream_t stream) {\n  float *s = nullptr;\n"
               "  cudaMallocAsync(reinterpret_cast<void **>(&s), 4 * n, stream);\n"
               "  cudaMemsetAsync(out, 0, sizeof(float), stream);\n"
               "  cudaMemcpyAsync(s, out, 4, cudaMemcpyDeviceToDevice, stream);\n"
               "  cudaFreeAsync(s, stream);\n  cudaStreamSynchronize(stream);\n"
               "  cudaDeviceSynchronize();\n  cudaLaunchKernel((const void *)k, 1, 1, 0, 0, "
               "stream);\n}\n"
            << false << "" << 0;
        QTest::newRow("shared-memory tree with a variable named half")
            << "__global__ void k(float *cache) {\n"
               "  for (int half = blockDim.x / 2; half > 0; half /= 2) {\n"
               "    if (threadIdx.x < half)\n"
               "      cache[threadIdx.x] += cache[threadIdx.x + half];\n"
               "    __syncthreads();\n  }\n}\n"
            << false << "" << 0;
        QTest::newRow("warp shuffle and float4")
            << "__device__ float warp_sum(float v) {\n"
               "  for (int o = 16; o > 0; o /= 2)\n    v += __shfl_down_sync(0xffffffffu, v, o);\n"
               "  return v;\n}\n"
               "__global__ void k(const float4 *a, float4 *c) {\n  const float4 x = a[0];\n"
               "  c[0] = make_float4(x.x, x.y, x.z, x.w);\n}\n"
            << false << "" << 0;
        QTest::newRow("tiled matmul with __shared__")
            << "__global__ void k(const float *A, float *C, int n) {\n"
               "  __shared__ float As[32][33];\n  As[threadIdx.y][threadIdx.x] = A[threadIdx.x];\n"
               "  __syncthreads();\n  C[0] = As[0][0];\n}\n"
            << true << "" << 0;
        QTest::newRow("block-level CUB and cooperative groups")
            << "__global__ void k(const float *x, float *y) {\n"
               "  typedef cub::BlockReduce<float, 256> Reduce;\n"
               "  __shared__ typename Reduce::TempStorage tmp;\n"
               "  namespace cg = cooperative_groups;\n  cg::thread_block b = "
               "cg::this_thread_block();\n"
               "  y[0] = Reduce(tmp).Sum(x[threadIdx.x]);\n}\n"
            << false << "" << 0;
        QTest::newRow("a variable named thrust")
            << "__device__ float f(float thrust) {\n  return thrust * 2.0f;\n}\n"
            << false << "" << 0;
        QTest::newRow("a helper named cudaCheck")
            << "static void cudaCheck(cudaError_t e) {\n  if (e != cudaSuccess) return;\n}\n"
            << false << "" << 0;
        QTest::newRow("event timing of its own")
            << "void f(cudaStream_t s, cudaEvent_t e) {\n  cudaEventRecord(e, s);\n"
               "  float ms = 0;\n  cudaEventElapsedTime(&ms, e, e);\n}\n"
            << false << "" << 0;
        QTest::newRow("fp64 mma in PTX")
            << "__device__ void f(double *d) {\n"
               "  asm(\"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0}, {%1}, {%2}, {%3};\"\n"
               "      : \"=d\"(d[0]) : \"d\"(d[1]), \"d\"(d[2]), \"d\"(d[3]));\n}\n"
            << false << "" << 0;
        QTest::newRow("comments are not code (raw)")
            << "// cudaStreamCreate(&s); k<<<1, 1>>>(); __half\n"
               "/* cublasSgemm_v2(h);\n   thrust::reduce */\n"
               "extern \"C\" __global__ void vector_add(const float *a, const float *b, float *c,\n"
               "                                       int n) {}\n"
            << true << "" << 0;
    }

    void cudaTokenFlags()
    {
        QFETCH(QString, body);
        QFETCH(bool, raw);
        QFETCH(QString, flag);
        QFETCH(int, line);
        const QString text = raw ? body : cudaPreprocessed(body);
        const QList<CheatFlag> flags = StaticScreen::screen(
            m_task, Backend::Cuda, text, QStringLiteral("cand.cu"), ElfSymbols());
        if (flag.isEmpty()) {
            QVERIFY2(blockingIds(flags).isEmpty(), qPrintable(describe(flags)));
            return;
        }
        const CheatFlag found = flagOf(flags, flag);
        QVERIFY2(!found.id.isEmpty(), qPrintable(describe(flags)));
        QVERIFY2(found.lines.contains(line), qPrintable(describe(flags)));
        QVERIFY(found.blocking);
        QCOMPARE(found.blocking, FlagCatalog::find(flag)->blocking);
    }

    // The CPU screen is unchanged: CUDA rules only apply to the CUDA backend.
    void cudaRulesStayOffForCpu()
    {
        const QString body = QStringLiteral("void f() {\n  cudaStreamCreate(&s);\n"
                                            "  k<<<1, 1>>>();\n  int half = 2;\n}\n");
        QVERIFY(StaticScreen::screen(m_task, cudaPreprocessed(body), QStringLiteral("cand.cu"),
                                     ElfSymbols())
                    .isEmpty());
        QVERIFY(!StaticScreen::screen(m_task, Backend::Cuda, cudaPreprocessed(body),
                                      QStringLiteral("cand.cu"), ElfSymbols())
                     .isEmpty());
    }

    // Only the libraries the task forbids: a task without a list accepts cuBLAS.
    void cudaLibrariesFollowTheTask()
    {
        Task open = m_task;
        open.forbiddenLibraries = {QStringLiteral("cudnn")};
        const QString body = QStringLiteral("void f(void *h) {\n  cublasSgemm_v2(h);\n"
                                            "  thrust::reduce(0, 0);\n  cudnnCreate(&h);\n}\n");
        const QList<CheatFlag> flags = StaticScreen::screen(
            open, Backend::Cuda, cudaPreprocessed(body), QStringLiteral("cand.cu"), ElfSymbols());
        QCOMPARE(flagOf(flags, QStringLiteral("forbidden_library")).lines, QList<int>{4});
        // cuBLAS forbidden, cuBLASLt allowed.
        open.forbiddenLibraries = {QStringLiteral("cublas")};
        const QList<CheatFlag> lt = StaticScreen::screen(
            open, Backend::Cuda,
            cudaPreprocessed(QStringLiteral("void f() {\n  cublasLtCreate(0);\n}\n")),
            QStringLiteral("cand.cu"), ElfSymbols());
        QVERIFY2(lt.isEmpty(), qPrintable(describe(lt)));
    }

    void cudaSymbolFlags_data()
    {
        QTest::addColumn<QStringList>("undefined");
        QTest::addColumn<QStringList>("defined");
        QTest::addColumn<QStringList>("weak");
        QTest::addColumn<QString>("flag");
        QTest::addColumn<int>("line"); // 0: no line expected
        const QStringList none;
        QTest::newRow("imports cudaStreamCreateWithFlags")
            << QStringList{QStringLiteral("cudaStreamCreateWithFlags")} << none << none
            << "stream_creation" << 0;
        QTest::newRow("imports cuStreamCreate") << QStringList{QStringLiteral("cuStreamCreate")}
                                                << none << none << "stream_creation" << 0;
        QTest::newRow("imports cudaMemcpy") << QStringList{QStringLiteral("cudaMemcpy")} << none
                                            << none << "legacy_default_stream" << 0;
        QTest::newRow("imports cudaMemset_ptds") << QStringList{QStringLiteral("cudaMemset_ptds")}
                                                 << none << none << "legacy_default_stream" << 0;
        QTest::newRow("imports cublasSgemm_v2 (token pasted)")
            << QStringList{QStringLiteral("cublasSgemm_v2")} << none << none << "forbidden_library"
            << 3;
        QTest::newRow("imports cudnnCreate") << QStringList{QStringLiteral("cudnnCreate")} << none
                                             << none << "forbidden_library" << 0;
        QTest::newRow("imports cudaGetDriverEntryPoint")
            << QStringList{QStringLiteral("cudaGetDriverEntryPoint")} << none << none
            << "dynamic_loading" << 0;
        QTest::newRow("imports cuGetProcAddress_v2")
            << QStringList{QStringLiteral("cuGetProcAddress_v2")} << none << none
            << "dynamic_loading" << 0;
        QTest::newRow("imports dlsym")
            << QStringList{QStringLiteral("dlsym")} << none << none << "dynamic_loading" << 0;
        QTest::newRow("imports cudaCtxResetPersistingL2Cache")
            << QStringList{QStringLiteral("cudaCtxResetPersistingL2Cache")} << none << none
            << "persisting_l2" << 0;
        QTest::newRow("defines cudaEventRecord")
            << none << QStringList{QStringLiteral("cudaEventRecord")} << none << "timer_tampering"
            << 0;
        QTest::newRow("defines cudaEventElapsedTime")
            << none << QStringList{QStringLiteral("cudaEventElapsedTime")} << none
            << "timer_tampering" << 0;
        QTest::newRow("defines cudaStreamSynchronize weakly")
            << none << none << QStringList{QStringLiteral("cudaStreamSynchronize")}
            << "timer_tampering" << 0;
        QTest::newRow("defines cudaLaunchKernel")
            << none << QStringList{QStringLiteral("cudaLaunchKernel")} << none
            << "symbol_interposition" << 0;
        QTest::newRow("defines cuLaunchKernel")
            << none << QStringList{QStringLiteral("cuLaunchKernel")} << none
            << "symbol_interposition" << 0;
        QTest::newRow("thrust instantiation")
            << none << none << QStringList{QStringLiteral("_ZN6thrust6reduceIPfEEfT_S2_")}
            << "forbidden_library" << 4;
        QTest::newRow("cub device-wide instantiation")
            << none << none
            << QStringList{QStringLiteral(
                   "_ZN3cub18CUB_300001_SM_900_NS12DeviceReduce3SumIPKfPfiEE9cudaErrorPvRmT_T0_T1_"
                   "P11CUstream_st")}
            << "forbidden_library" << 0;
    }

    void cudaSymbolFlags()
    {
        QFETCH(QStringList, undefined);
        QFETCH(QStringList, defined);
        QFETCH(QStringList, weak);
        QFETCH(QString, flag);
        QFETCH(int, line);
        ElfSymbols symbols;
        symbols.valid = true;
        symbols.undefined = undefined;
        symbols.defined = defined + QStringList{QStringLiteral("matmul")};
        symbols.weakDefined = weak;
        // Line 3 spells the pasted cuBLAS name, line 4 thrust (as preprocessing leaves them).
        const QString body = QStringLiteral("extern \"C\" void matmul(const float *A)\n{\n"
                                            "  cublasSgemm_v2(0);\n  thrust::reduce(A, A);\n}\n");
        const QList<CheatFlag> flags = StaticScreen::screen(
            m_task, Backend::Cuda, cudaPreprocessed(body), QStringLiteral("cand.cu"), symbols);
        const CheatFlag found = flagOf(flags, flag);
        QVERIFY2(!found.id.isEmpty(), qPrintable(describe(flags)));
        QVERIFY(found.blocking);
        if (line > 0)
            QVERIFY2(found.lines.contains(line), qPrintable(describe(flags)));
    }

    // What nvcc -c leaves in every host object: launch stubs, fatbinary registration, libcu++ and
    // Thrust constants from CUB's block-level headers.
    void honestCudaSymbolsAreQuiet()
    {
        ElfSymbols symbols;
        symbols.valid = true;
        symbols.undefined = {QStringLiteral("__cudaGetKernel"),
                             QStringLiteral("__cudaLaunchKernel"),
                             QStringLiteral("__cudaPopCallConfiguration"),
                             QStringLiteral("__cudaPushCallConfiguration"),
                             QStringLiteral("__cudaRegisterFatBinary"),
                             QStringLiteral("__cudaRegisterFatBinaryEnd"),
                             QStringLiteral("__cudaRegisterFunction"),
                             QStringLiteral("__cudaRegisterVar"),
                             QStringLiteral("__cudaUnregisterFatBinary"),
                             QStringLiteral("__cxa_guard_acquire"),
                             QStringLiteral("__cxa_guard_release"),
                             QStringLiteral("__cxa_guard_abort"),
                             QStringLiteral("__gxx_personality_v0"),
                             QStringLiteral("_Unwind_Resume"),
                             QStringLiteral("atexit"),
                             QStringLiteral("cudaLaunchKernel"),
                             QStringLiteral("cudaMallocAsync"),
                             QStringLiteral("cudaFreeAsync"),
                             QStringLiteral("cudaMemsetAsync"),
                             QStringLiteral("cudaMemcpyAsync"),
                             QStringLiteral("cudaStreamSynchronize"),
                             QStringLiteral("cudaGetLastError")};
        symbols.defined = {
            QStringLiteral("vector_add"), QStringLiteral("_Z17vector_add_kernelPKfS0_Pfi"),
            QStringLiteral("_Z44__device_stub__Z17vector_add_kernelPKfS0_PfiPKfS0_Pfi")};
        symbols.weakDefined = {
            QStringLiteral("_ZN3cub18CUB_300001_SM_900_NS11BlockReduceIfLi256ELNS_"
                           "20BlockReduceAlgorithmE1ELi1ELi1ELi0EE3SumEf")};
        symbols.mutableObjects = {
            QStringLiteral("_ZL15__fatDeviceText"),
            QStringLiteral("_ZL20__cudaFatCubinHandle"),
            QStringLiteral("_ZGVZ44__device_stub__Z17vector_add_kernelPKfS0_PfiPKfS0_PfiE5__tmp"),
            QStringLiteral("_ZZ44__device_stub__Z17vector_add_kernelPKfS0_PfiPKfS0_PfiE5__tmp"),
            QStringLiteral("_ZZ44__device_stub__Z17vector_add_kernelPKfS0_PfiPKfS0_PfiE8__handle"),
            QStringLiteral("_ZN4cuda3std3__48in_placeE"),
            QStringLiteral("_ZN6thrust23THRUST_300001_SM_900_NS6system6detail10sequential3seqE"),
            QStringLiteral("DW.ref.__gxx_personality_v0")};
        Task task = m_task;
        task.entry = QStringLiteral("vector_add");
        const QList<CheatFlag> flags = StaticScreen::screen(
            task, Backend::Cuda, cudaPreprocessed(QString()), QStringLiteral("cand.cu"), symbols);
        QVERIFY2(flags.isEmpty(), qPrintable(describe(flags)));
        // A __device__ variable's host shadow is state that survives between calls (advisory).
        symbols.mutableObjects.append(QStringLiteral("_ZL8devState"));
        const QList<CheatFlag> state = StaticScreen::screen(
            task, Backend::Cuda,
            cudaPreprocessed(QStringLiteral("__device__ float devState[4];\n")),
            QStringLiteral("cand.cu"), symbols);
        QCOMPARE(ids(state), QStringList{QStringLiteral("static_state")});
        QCOMPARE(state.first().lines, QList<int>{1});
        QVERIFY(!state.first().blocking);
    }

    // The real thing: nvcc -E and nvcc -c on candidates of tests/data/candidates/cuda.
    void realNvccOutput_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("task");
        QTest::addColumn<QString>("flag"); // empty: no flag at all
        QTest::addColumn<int>("line");
        QTest::newRow("honest reduction") << "reduce_sum_warp_shuffle.cu"
                                          << "reduce_sum"
                                          << "" << 0;
        QTest::newRow("token-pasted cuBLAS") << "game_cublas_token_paste.cu"
                                             << "matmul"
                                             << "forbidden_library" << 25;
        QTest::newRow("side stream") << "game_side_stream.cu"
                                     << "vector_add"
                                     << "stream_creation" << 16;
        QTest::newRow("legacy launch in the host pass only") << "game_legacy_stream_host_pass.cu"
                                                             << "vector_add"
                                                             << "legacy_default_stream" << 16;
    }

    void realNvccOutput()
    {
        QFETCH(QString, file);
        QFETCH(QString, task);
        QFETCH(QString, flag);
        QFETCH(int, line);
        const QString nvcc = nvccPath();
        if (nvcc.isEmpty())
            QSKIP("nvcc not found");
        const TaskLoader::Result loaded =
            TaskLoader::load(QStringLiteral(KILN_SOURCE_DIR "/tasks/") + task);
        QVERIFY(loaded.ok());
        QTemporaryDir dir;
        QFile source(dir.filePath(QStringLiteral("cand.cu")));
        QVERIFY(source.open(QIODevice::WriteOnly));
        source.write(sourceFile(file).toUtf8());
        source.close();
        auto run = [&](const QStringList &arguments) {
            QProcess process;
            process.setWorkingDirectory(dir.path());
            process.start(nvcc, arguments);
            return process.waitForFinished(100000) && process.exitCode() == 0;
        };
        // As the verifier compiles: nvcc -c -keep leaves its device pass (__CUDA_ARCH__
        // defined) and its host pass, where launches and runtime calls live. The screen reads
        // both.
        QVERIFY(
            run({QStringLiteral("-std=c++17"), QStringLiteral("-O3"),
                 QStringLiteral("-Xcompiler=-fPIC"), QStringLiteral("-keep"), QStringLiteral("-c"),
                 QStringLiteral("cand.cu"), QStringLiteral("-o"), QStringLiteral("cand.o")}));
        QFile device(dir.filePath(QStringLiteral("cand.cpp1.ii")));
        QFile host(dir.filePath(QStringLiteral("cand.cpp4.ii")));
        QFile object(dir.filePath(QStringLiteral("cand.o")));
        QVERIFY(device.open(QIODevice::ReadOnly) && host.open(QIODevice::ReadOnly) &&
                object.open(QIODevice::ReadOnly));
        const ElfSymbols symbols = ElfSymbols::read(object.readAll());
        QVERIFY(symbols.valid);
        const QString preprocessed = QString::fromUtf8(device.readAll() + host.readAll());
        const QList<CheatFlag> flags = StaticScreen::screen(
            *loaded.task, Backend::Cuda, preprocessed, QStringLiteral("cand.cu"), symbols);
        if (flag.isEmpty()) {
            QVERIFY2(flags.isEmpty(), qPrintable(describe(flags)));
            return;
        }
        const CheatFlag found = flagOf(flags, flag);
        QVERIFY2(found.lines.contains(line), qPrintable(describe(flags)));
    }

    void cudaCatalogEntries()
    {
        for (const char *id : {"stream_creation", "legacy_default_stream", "persisting_l2",
                               "line_directive", "side_stream_work"}) {
            const FlagInfo *info = FlagCatalog::find(QLatin1String(id));
            QVERIFY2(info, id);
            QVERIFY(info->blocking);
            QCOMPARE(info->stage,
                     QLatin1String(qstrcmp(id, "side_stream_work") == 0 ? "timing" : "screen"));
        }
    }

    void catalogIsComplete()
    {
        QSet<QString> seen;
        for (const FlagInfo &info : FlagCatalog::all()) {
            QVERIFY(!seen.contains(info.id));
            seen.insert(info.id);
            QVERIFY(!info.message.isEmpty());
            QVERIFY(!info.message.contains(QLatin1Char('\n')));
        }
        const CheatFlag made =
            FlagCatalog::make(QStringLiteral("dynamic_loading"), {3}, QStringLiteral("dlsym"));
        QVERIFY(made.blocking);
        QVERIFY(made.message.endsWith(QStringLiteral("(dlsym)")));
        QCOMPARE(made.lines, QList<int>{3});
        QCOMPARE(made.tier, QStringLiteral("hard"));
    }

    void catalogTiers()
    {
        // Exactly the hard flags block; the others are suspicious or telemetry.
        const QStringList tiers{QStringLiteral("hard"), QStringLiteral("suspicious"),
                                QStringLiteral("telemetry")};
        for (const FlagInfo &info : FlagCatalog::all()) {
            QVERIFY2(tiers.contains(info.tier), qPrintable(info.id));
            QVERIFY2(info.blocking == (info.tier == QLatin1String("hard")), qPrintable(info.id));
        }
        const QList<std::pair<const char *, const char *>> expected{
            {"dynamic_loading", "hard"},       {"timer_inconsistent", "hard"},
            {"static_state", "suspicious"},    {"inline_asm", "suspicious"},
            {"memory_mapping", "suspicious"},  {"torch_state_between_calls", "suspicious"},
            {"large_speedup", "telemetry"},    {"timing_disturbed", "telemetry"},
            {"baseline_outlier", "telemetry"}, {"torch_partial_library", "telemetry"}};
        for (const auto &[id, tier] : expected) {
            QCOMPARE(FlagCatalog::find(QLatin1String(id))->tier, QLatin1String(tier));
            const CheatFlag made = FlagCatalog::make(QLatin1String(id), {2});
            QCOMPARE(made.tier, QLatin1String(tier));
            QCOMPARE(made.label(),
                     QStringLiteral("[%1] %2").arg(QLatin1String(tier), QLatin1String(id)));
        }
        // An id the catalogue does not know blocks, so it is hard.
        QCOMPARE(FlagCatalog::make(QStringLiteral("no_such_flag")).tier, QStringLiteral("hard"));
    }
};

QTEST_GUILESS_MAIN(TestStaticScreen)
#include "tst_staticscreen.moc"
