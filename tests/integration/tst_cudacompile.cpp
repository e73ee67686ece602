// Every CUDA compilation path, for real, without a GPU: the task references and the cuBLAS
// baseline through nvcc in the compile sandbox (with ptxas's per-kernel registers, shared
// memory and spills), device-only candidates through NVRTC in kiln-cuda-sandbox --compile-only,
// compile errors with the candidate's line, and the CUDA screen on real nvcc output (the
// preprocessed text and the object's imports).

#include "candidateexpectation.h"
#include "tasks/tasklibrary.h"
#include "verifier/cuda/cudacompiler.h"
#include "verifier/cuda/cudasandboxslot.h"
#include "verifier/cuda/launcheradmission.h"
#include "verifier/harness/entryshim.h"
#include "verifier/screen/flagcatalog.h"
#include "verifier/screen/native/elfsymbols.h"
#include "verifier/screen/native/staticscreen.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <algorithm>
#include <thread>

using namespace kiln;
using namespace kiln::testing;

namespace {

// The candidates the CUDA execution test runs (tests/data/candidates/cuda), by name.
QStringList cudaCandidates()
{
    const QDir dir(QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cuda"));
    QStringList paths;
    for (const QString &name : dir.entryList({QStringLiteral("*.cu")}, QDir::Files))
        paths.append(dir.filePath(name));
    return paths;
}

} // namespace

class TestCudaCompile : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_options = VerifierOptions::defaults();
        if (m_options.nvcc.isEmpty())
            QSKIP("no CUDA toolkit (nvcc) on this machine");
        QVERIFY(m_cacheDir.isValid());
        m_options.cacheDirectory = m_cacheDir.path();
        m_cache = std::make_unique<CompileCache>(m_options.cacheDirectory);
        QVERIFY(m_tasks.loadDirectory(QStringLiteral(KILN_SOURCE_DIR "/tasks")) >= 6);
    }

    void referencesBuildWithResourceUsage_data()
    {
        QTest::addColumn<QString>("task");
        for (const char *name :
             {"vector_add", "reduce_sum", "softmax", "layernorm", "matmul", "transpose"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void referencesBuildWithResourceUsage()
    {
        QFETCH(QString, task);
        const Task *t = m_tasks.task(task);
        QVERIFY(t);
        const CudaCompiler::Outcome outcome = CudaCompiler::nvcc(
            m_options, *m_cache, t->name, t->referenceSource.value(Backend::Cuda),
            EntryShim::cudaSource(*t), QStringLiteral("sm_90"), {}, nullptr);
        QVERIFY2(outcome.artifact.ok, qPrintable(outcome.error + outcome.artifact.log.left(2000)));
        QVERIFY(QFile::exists(outcome.artifact.sharedObject));
        QVERIFY(!outcome.kernels.isEmpty());
        for (const QJsonValue &kernel : outcome.kernels)
            QVERIFY(kernel[QStringLiteral("registers")].toInt() > 0);
        // The shared object imports the shared CUDA runtime, never a static copy of it.
        const ElfSymbols symbols = ElfSymbols::read(outcome.artifact.object);
        QVERIFY(symbols.valid);
        QVERIFY(symbols.undefined.contains(QStringLiteral("__cudaRegisterFatBinary")));
        // The screen finds nothing blocking in a task's own reference.
        const QList<CheatFlag> flags = StaticScreen::screen(
            *t, Backend::Cuda, outcome.artifact.preprocessed, CudaCompiler::sourceName(), symbols);
        for (const CheatFlag &flag : flags)
            QVERIFY2(!flag.blocking, qPrintable(flag.id + QLatin1Char(' ') + flag.message));
        // A second build is a cache hit.
        const CudaCompiler::Outcome again = CudaCompiler::nvcc(
            m_options, *m_cache, t->name, t->referenceSource.value(Backend::Cuda),
            EntryShim::cudaSource(*t), QStringLiteral("sm_90"), {}, nullptr);
        QVERIFY(again.artifact.cached);
        QCOMPARE(again.kernels, outcome.kernels);
    }

    void cublasBaselineLinks()
    {
        const Task *t = m_tasks.task(QStringLiteral("matmul"));
        const CudaCompiler::Outcome outcome = CudaCompiler::nvcc(
            m_options, *m_cache, t->name, t->libraryBaselineSource.value(Backend::Cuda),
            EntryShim::cudaSource(*t), QStringLiteral("sm_90"),
            t->libraryBaselineLibraries.value(Backend::Cuda), nullptr);
        QVERIFY2(outcome.artifact.ok, qPrintable(outcome.artifact.log.left(2000)));
        // The same source without the library is what a candidate gets: the link fails on the
        // unresolved cuBLAS symbol, which the screen names.
        const CudaCompiler::Outcome unlinked = CudaCompiler::nvcc(
            m_options, *m_cache, t->name, t->libraryBaselineSource.value(Backend::Cuda),
            EntryShim::cudaSource(*t), QStringLiteral("sm_90"), {}, nullptr);
        QVERIFY(!unlinked.artifact.ok);
        QVERIFY(unlinked.artifact.log.contains(QLatin1String("cublas")));
        const QList<CheatFlag> flags = StaticScreen::screen(
            *t, Backend::Cuda, unlinked.artifact.preprocessed, CudaCompiler::sourceName(),
            ElfSymbols::read(unlinked.artifact.object));
        bool forbidden = false;
        for (const CheatFlag &flag : flags)
            forbidden =
                forbidden || (flag.id == QLatin1String("forbidden_library") && flag.blocking);
        QVERIFY(forbidden);
    }

    void compileErrorNamesTheLine()
    {
        const Task *t = m_tasks.task(QStringLiteral("vector_add"));
        const QString source = QStringLiteral(
            "#include <cuda_runtime.h>\n"
            "__global__ void k(const float *a, const float *b, float *c, int n)\n"
            "{\n"
            "    c[0] = a[0] + undeclared;\n"
            "}\n"
            "extern \"C\" void vector_add(const float *a, const float *b, float *c, int n,\n"
            "                           cudaStream_t s) { k<<<1, 1, 0, s>>>(a, b, c, n); }\n");
        const CudaCompiler::Outcome outcome =
            CudaCompiler::nvcc(m_options, *m_cache, t->name, source, EntryShim::cudaSource(*t),
                               QStringLiteral("sm_90"), {}, nullptr);
        QVERIFY(!outcome.artifact.ok);
        const QJsonArray diagnostics = CudaCompiler::parseDiagnostics(outcome.artifact.log);
        bool found = false;
        for (const QJsonValue &d : diagnostics)
            found = found ||
                    (d[QStringLiteral("line")].toInt() == 4 &&
                     d[QStringLiteral("message")].toString().contains(QLatin1String("undeclared")));
        QVERIFY2(found, qPrintable(outcome.artifact.log));
    }

    // The GPU checker's kernels (fresh draws, the element rule, counts) are built from texts the
    // host code shares; they must compile as device code whatever the host headers defined.
    void checkerKernelsCompile()
    {
        QTemporaryDir work;
        SandboxProcess sandbox(CudaSandboxSlot::settings(
            m_options, {QStringLiteral("--compile-only"), QStringLiteral("--checker")}));
        QString error;
        QVERIFY2(sandbox.start(work.path(), 4096, 20000, &error), qPrintable(error));
    }

    void nvrtcDeviceOnly()
    {
        const Task *t = m_tasks.task(QStringLiteral("vector_add"));
        const QString good = QStringLiteral(
            "// kiln-launch: grid=((n + 255) / 256) block=(256)\n"
            "extern \"C\" __global__ void vector_add(const float *a, const float *b, float *c, "
            "int n)\n"
            "{\n"
            "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (i < n)\n"
            "        c[i] = a[i] + b[i];\n"
            "}\n");
        const CudaCompiler::Outcome ok = CudaCompiler::nvrtc(m_options, *m_cache, t->name, good,
                                                             QStringLiteral("sm_90"), nullptr);
        QVERIFY2(ok.artifact.ok, qPrintable(ok.error + ok.artifact.log));
        QFile cubin(ok.artifact.sharedObject);
        QVERIFY(cubin.open(QIODevice::ReadOnly));
        QCOMPARE(cubin.read(4), QByteArray("\x7f"
                                           "ELF")); // a cubin is an ELF image
        QVERIFY(ok.artifact.compileMs < 10000);

        QString broken = good;
        broken.replace(QStringLiteral("a[i] + b[i]"), QStringLiteral("a[i] + b[j]"));
        const CudaCompiler::Outcome bad = CudaCompiler::nvrtc(m_options, *m_cache, t->name, broken,
                                                              QStringLiteral("sm_90"), nullptr);
        QVERIFY(!bad.artifact.ok);
        const QJsonArray diagnostics = CudaCompiler::parseDiagnostics(bad.artifact.log);
        QVERIFY2(!diagnostics.isEmpty() && diagnostics[0][QStringLiteral("line")].toInt() == 6,
                 qPrintable(bad.artifact.log));
    }

    // Which device-only candidates the trusted launcher takes, read from the cubins NVRTC
    // makes: the device heap (malloc, free) keeps a candidate in a single-use process;
    // printing and assertions do not; a module variable with no initial value (stash) is listed
    // for zeroing at load, used or not, an initialised one (counter) is not.
    void launcherAdmissionReadsTheCubin_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<bool>("admitted");
        QTest::addColumn<QString>("detail"); // the refusal's import, or the zeroed variables
        QTest::newRow("plain") << QString() << true << QStringLiteral("stash");
        QTest::newRow("module variables used")
            << QStringLiteral("stash[i % 64] = c[i] + counter;") << true << QStringLiteral("stash");
        QTest::newRow("printf and assert")
            << QStringLiteral("if (i == 0) printf(\"%d\\n\", n); assert(n > 0);") << true
            << QStringLiteral("stash");
        QTest::newRow("device heap")
            << QStringLiteral("float *p = (float *)malloc(4); if (p) { *p = c[i]; free(p); }")
            << false << QStringLiteral("malloc");
    }

    void launcherAdmissionReadsTheCubin()
    {
        QFETCH(QString, body);
        QFETCH(bool, admitted);
        QFETCH(QString, detail);
        const QString source =
            QStringLiteral("// kiln-launch: grid=((n + 255) / 256) block=(256)\n"
                           "__device__ float stash[64];\n"
                           "__device__ float counter = 1.0f;\n"
                           "extern \"C\" __global__ void vector_add(const float *a, const float "
                           "*b, float *c, int n)\n"
                           "{\n"
                           "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "    if (i < n) {\n"
                           "        c[i] = a[i] + b[i];\n"
                           "        %1\n"
                           "    }\n"
                           "}\n")
                .arg(body);
        const CudaCompiler::Outcome built = buildDeviceOnly(source);
        QVERIFY2(built.artifact.ok, qPrintable(built.error + built.artifact.log));
        const QByteArray image = cubinOf(built);
        QVERIFY(!image.isEmpty());
        const LauncherAdmission admission = LauncherAdmission::judge(image, m_options);
        QVERIFY2(admission.admitted == admitted, qPrintable(admission.reason));
        if (admitted) {
            QCOMPARE(admission.zeroFilled.join(QLatin1Char(' ')), detail);
            QCOMPARE(admission.toJson().value(QStringLiteral("process")).toString(),
                     QStringLiteral("launcher"));
        } else {
            QVERIFY2(admission.reason.contains(detail), qPrintable(admission.reason));
            QVERIFY(admission.imports.contains(detail));
        }

        // Whatever the cubin holds: not with the launcher off, not without timing, and not
        // from an image that is no ELF.
        VerifierOptions off = m_options;
        off.cudaLauncher = false;
        QVERIFY(!LauncherAdmission::judge(image, off).admitted);
        VerifierOptions untimed = m_options;
        untimed.runTiming = false;
        QVERIFY(!LauncherAdmission::judge(image, untimed).admitted);
        QVERIFY(!LauncherAdmission::judge(image.mid(0, 40), m_options).admitted);
    }

    // Work that outlives its launch from device code alone needs a kernel launched by a kernel
    // (dynamic parallelism). NVRTC does not process such a launch without the device runtime's
    // declarations, and with them ptxas cannot resolve the runtime (no relocatable code); were
    // it ever built, its cubin would import the device runtime, which the launcher refuses.
    void deviceSideLaunchNeverReachesTheLauncher_data()
    {
        QTest::addColumn<QString>("declarations");
        QTest::newRow("launch") << QString();
        QTest::newRow("launch, runtime declared") << QStringLiteral(
            "struct CUstream_st; typedef CUstream_st *cudaStream_t;\n"
            "extern \"C\" __device__ void *cudaGetParameterBufferV2(void *, dim3, dim3, "
            "unsigned int);\n"
            "extern \"C\" __device__ int cudaLaunchDeviceV2(void *, cudaStream_t);\n");
    }

    void deviceSideLaunchNeverReachesTheLauncher()
    {
        QFETCH(QString, declarations);
        const QString source =
            QStringLiteral("// kiln-launch: grid=((n + 255) / 256) block=(256)\n%1"
                           "__global__ void spin(float *c) { while (true) c[0] = c[0] + 1.0f; }\n"
                           "extern \"C\" __global__ void vector_add(const float *a, const float "
                           "*b, float *c, int n)\n"
                           "{\n"
                           "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "    if (i < n)\n"
                           "        c[i] = a[i] + b[i];\n"
                           "    if (i == 0)\n"
                           "        spin<<<1, 1>>>(c);\n"
                           "}\n")
                .arg(declarations);
        const CudaCompiler::Outcome built = buildDeviceOnly(source);
        if (!built.artifact.ok) {
            // Without declarations the front end refuses the launch; with them ptxas finds the
            // device runtime unresolved (NVRTC builds no relocatable code).
            QVERIFY2(built.artifact.log.contains(QStringLiteral("device-side kernel launch")) ||
                         built.artifact.log.contains(QStringLiteral("cudaGetParameterBuffer")),
                     qPrintable(built.error + built.artifact.log));
            return;
        }
        QVERIFY2(!declarations.isEmpty(), "a device-side launch compiled without declarations");
        const LauncherAdmission admission = LauncherAdmission::judge(cubinOf(built), m_options);
        QVERIFY2(!admission.admitted, qPrintable(admission.imports.join(QLatin1Char(' '))));
        QVERIFY2(admission.reason.contains(QStringLiteral("cudaLaunchDevice")) ||
                     admission.reason.contains(QStringLiteral("cudaGetParameterBuffer")),
                 qPrintable(admission.reason));
    }

    // The GPU sandbox is persistent: it is started by whichever evaluation thread needs it
    // first, and must outlive that thread (a search's rounds end their threads). It ends with
    // the engine instead, and running() tells when it has gone.
    void sandboxOutlivesTheThreadThatStartedIt()
    {
        QTemporaryDir work;
        SandboxProcess sandbox(
            CudaSandboxSlot::settings(m_options, {QStringLiteral("--compile-only")}));
        QString error;
        bool started = false;
        std::thread starter([&] { started = sandbox.start(work.path(), 4096, 10000, &error); });
        starter.join();
        QVERIFY2(started, qPrintable(error));
        QThread::msleep(300); // a parent-death signal would have arrived by now
        QVERIFY(sandbox.running());
        const SandboxProcess::Reply reply = sandbox.request("probe 1", 5000);
        QVERIFY2(reply.status == SandboxProcess::Status::Ok, qPrintable(sandbox.describeEnd()));
        QVERIFY(sandbox.cpuSecondsUsed() >= 0.0);

        QCOMPARE(sandbox.request("quit", 5000).status, SandboxProcess::Status::Ok);
        QElapsedTimer timer;
        timer.start();
        while (sandbox.running() && timer.elapsed() < 5000)
            QThread::msleep(20);
        QVERIFY(!sandbox.running());
        QVERIFY(sandbox.exited());
        QCOMPARE(sandbox.exitCode(), 0);
    }

    // The corpus below is really there: an empty or misplaced folder would give
    // testCandidatesCompile no rows, and rows that all skip (device-only) check nothing.
    void candidateCorpusIsThere()
    {
        const QStringList paths = cudaCandidates();
        QVERIFY2(paths.size() >= 20, qPrintable(QStringLiteral("%1 candidates").arg(paths.size())));
        const auto viaNvcc = std::count_if(paths.cbegin(), paths.cend(), [](const QString &path) {
            return !readFile(path).contains(QLatin1String("kiln-launch:"));
        });
        QVERIFY(viaNvcc > 0);
    }

    // Every candidate the CUDA execution test runs compiles (or fails to) as it expects, here.
    void testCandidatesCompile_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString &path : cudaCandidates())
            QTest::newRow(qPrintable(QFileInfo(path).fileName())) << path;
    }
    void testCandidatesCompile()
    {
        QFETCH(QString, path);
        const QString source = readFile(path);
        const Expectation expected = readExpectation(path);
        QVERIFY(!expected.task.isEmpty());
        const Task *t = m_tasks.task(expected.task);
        QVERIFY(t);
        if (source.contains(QLatin1String("kiln-launch:")))
            QSKIP("device-only (NVRTC): covered by nvrtcDeviceOnly and the GPU test");
        const CudaCompiler::Outcome outcome =
            CudaCompiler::nvcc(m_options, *m_cache, t->name, source, EntryShim::cudaSource(*t),
                               QStringLiteral("sm_90"), {}, nullptr);
        const QString verdict = expected.verdict;
        if (verdict == QLatin1String("compile_error")) {
            QVERIFY(!outcome.artifact.ok);
            return;
        }
        const QList<CheatFlag> flags = StaticScreen::screen(
            *t, Backend::Cuda, outcome.artifact.preprocessed, CudaCompiler::sourceName(),
            ElfSymbols::read(outcome.artifact.object));
        const QString flag = expected.flag;
        const FlagInfo *info = flag.isEmpty() ? nullptr : FlagCatalog::find(flag);
        if (info && info->stage == QLatin1String("screen")) {
            bool raised = false;
            for (const CheatFlag &f : flags)
                raised = raised || f.id == flag;
            QVERIFY2(raised, qPrintable(QStringLiteral("expected the screen to raise ") + flag));
        } else {
            QVERIFY2(outcome.artifact.ok, qPrintable(outcome.artifact.log.left(2000)));
        }
        if (verdict == QLatin1String("pass"))
            for (const CheatFlag &f : flags)
                QVERIFY2(!f.blocking, qPrintable(f.id + QLatin1Char(' ') + f.message));
    }

private:
    // The NVRTC path's build of a device-only vector_add, and the cubin it wrote.
    CudaCompiler::Outcome buildDeviceOnly(const QString &source)
    {
        return CudaCompiler::nvrtc(m_options, *m_cache, QStringLiteral("vector_add"), source,
                                   QStringLiteral("sm_90"), nullptr);
    }
    static QByteArray cubinOf(const CudaCompiler::Outcome &built)
    {
        QFile cubin(built.artifact.sharedObject);
        return cubin.open(QIODevice::ReadOnly) ? cubin.readAll() : QByteArray();
    }

    VerifierOptions m_options;
    QTemporaryDir m_cacheDir;
    std::unique_ptr<CompileCache> m_cache;
    TaskLibrary m_tasks;
};

QTEST_GUILESS_MAIN(TestCudaCompile)
#include "tst_cudacompile.moc"
