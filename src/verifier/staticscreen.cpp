#include "staticscreen.h"

#include "screenflags.h"

#include "flagcatalog.h"

#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <dlfcn.h>

namespace kiln {

namespace {

// Whether name begins with one of the prefixes.
bool startsWithAny(const QString &name, const QStringList &prefixes)
{
    for (const QString &prefix : prefixes) {
        if (name.startsWith(prefix))
            return true;
    }
    return false;
}

using Token = StaticScreen::Token;

// Calls that matter when they appear as `name (` in the candidate's own code, and as imports.
struct CallRule
{
    const char *flag;
    QList<const char *> names;
};

const QList<CallRule> &callRules()
{
    static const QList<CallRule> rules = {
        {"dynamic_loading", {"dlopen", "dlsym", "dlvsym", "dlmopen", "dladdr", "dlinfo"}},
        {"memory_protection", {"mprotect", "pkey_mprotect"}},
        {"process_inspection", {"ptrace", "process_vm_readv", "process_vm_writev"}},
        {"process_exit", {"exit", "_exit", "_Exit", "quick_exit", "abort", "terminate"}},
        {"signals",
         {"raise", "kill", "signal", "sigaction", "alarm", "setitimer", "pthread_kill", "tgkill",
          "sigqueue", "ualarm", "timer_create"}},
        {"process_spawn",
         {"fork", "vfork", "execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
          "system", "popen", "posix_spawn", "posix_spawnp", "clone", "daemon"}},
        {"file_access",
         {"fopen",    "fopen64", "freopen",  "open",   "open64",  "openat",   "openat64", "creat",
          "creat64",  "unlink",  "unlinkat", "remove", "rename",  "renameat", "mkdir",    "rmdir",
          "truncate", "symlink", "link",     "chmod",  "mkstemp", "tmpfile"}},
        {"network",
         {"socket", "connect", "bind", "listen", "accept", "sendto", "recvfrom", "getaddrinfo",
          "gethostbyname"}},
        {"threads_detached", {"pthread_detach"}},
        // State that survives between calls without a static variable pointing at it.
        {"hidden_state",
         {"pthread_key_create", "pthread_setspecific", "pthread_getspecific", "setenv", "putenv",
          "unsetenv", "clearenv", "shm_open", "memfd_create", "shmget", "shmat"}},
        {"memory_mapping", {"mmap", "mmap64", "mremap", "munmap", "sbrk", "brk"}},
        // Raw descriptors and system calls reach the sandbox's own channels (its reply pipe)
        // and bypass every name screened above.
        {"raw_system_calls",
         {"syscall", "write", "writev", "pwrite", "pwrite64", "dup", "dup2", "dup3", "close",
          "close_range", "fcntl", "ioctl", "prctl", "seccomp"}},
    };
    return rules;
}

// Imports that count even though the source never spells them (libstdc++ wrappers).
const QList<QPair<const char *, const char *>> &importPrefixes()
{
    static const QList<QPair<const char *, const char *>> prefixes = {
        {"threads_detached", "_ZNSt6thread6detachEv"}, {"file_access", "_ZNSt14basic_ofstream"},
        {"file_access", "_ZNSt14basic_ifstream"},      {"file_access", "_ZNSt13basic_fstream"},
        {"file_access", "_ZNSt13basic_filebuf"},       {"process_exit", "_ZSt4exit"},
        {"precision_downgrade", "__extendhfsf2"},      {"precision_downgrade", "__truncsfhf2"},
        {"precision_downgrade", "__truncsfbf2"},       {"precision_downgrade", "__extendbfsf2"},
    };
    return prefixes;
}

// Library prefixes per forbidden-library name of task.json.
const QMap<QString, QStringList> &libraryPrefixes()
{
    static const QMap<QString, QStringList> prefixes = {
        {QStringLiteral("blas"),
         {QStringLiteral("cblas_"), QStringLiteral("sgemm_"), QStringLiteral("dgemm_"),
          QStringLiteral("sgemv_"), QStringLiteral("saxpy_"), QStringLiteral("sdot_"),
          QStringLiteral("openblas_"), QStringLiteral("blis_"), QStringLiteral("bli_")}},
        {QStringLiteral("mkl"), {QStringLiteral("mkl_"), QStringLiteral("MKL_")}},
        {QStringLiteral("eigen"), {QStringLiteral("_ZN5Eigen"), QStringLiteral("Eigen")}},
    };
    return prefixes;
}

const QSet<QString> &timerSymbols()
{
    static const QSet<QString> names = {
        QStringLiteral("clock_gettime"),
        QStringLiteral("__clock_gettime"),
        QStringLiteral("gettimeofday"),
        QStringLiteral("clock"),
        QStringLiteral("time"),
        QStringLiteral("clock_getres"),
        QStringLiteral("timespec_get"),
        QStringLiteral("__vdso_clock_gettime"),
        QStringLiteral("omp_get_wtime"),
        QStringLiteral("_ZNSt6chrono3_V212steady_clock3nowEv"),
        QStringLiteral("_ZNSt6chrono3_V212system_clock3nowEv"),
        QStringLiteral("_ZNSt6chrono12system_clock3nowEv"),
        QStringLiteral("_ZNSt6chrono3_V214high_resolution_clock3nowEv")};
    return names;
}

// Runtime prefixes that are interposition even when the engine has not loaded that runtime.
const QStringList &runtimePrefixes()
{
    static const QStringList prefixes = {QStringLiteral("GOMP_"),    QStringLiteral("omp_"),
                                         QStringLiteral("pthread_"), QStringLiteral("__libc_"),
                                         QStringLiteral("_dl_"),     QStringLiteral("__cxa_")};
    return prefixes;
}

// The readable name inside a mangled symbol, for finding its lines: "_ZZ3fooE5cache" -> cache.
QString plainName(const QString &symbol)
{
    if (!symbol.startsWith(QLatin1String("_Z")))
        return symbol;
    QString last;
    for (int i = 2; i < symbol.size();) {
        if (!symbol[i].isDigit()) {
            ++i;
            continue;
        }
        int length = 0;
        while (i < symbol.size() && symbol[i].isDigit())
            length = length * 10 + symbol[i++].digitValue();
        last = symbol.mid(i, length);
        i += length;
    }
    return last.isEmpty() ? symbol : last;
}

bool isIdentifierStart(QChar c)
{
    return c.isLetter() || c == QLatin1Char('_');
}

bool isIdentifierPart(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

// ---- CUDA rules -------------------------------------------------------------------------------

// API names without the suffixes the headers add: cudaMemcpyAsync_ptsz, cuMemcpyDtoD_v2.
QString cudaApiName(QString name)
{
    for (const char *suffix : {"_ptsz", "_ptds"}) {
        if (name.endsWith(QLatin1String(suffix)))
            name.chop(5);
    }
    static const QRegularExpression version(QStringLiteral("_v\\d+$"));
    return name.remove(version);
}

bool isCudaApiName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^(cuda[A-Z]|cu[A-Z]|__cuda)"));
    return pattern.match(name).hasMatch();
}

// Streams and contexts of the candidate's own: work there is not ordered with the harness's stream.
bool createsStream(const QString &api)
{
    static const QStringList prefixes = {
        QStringLiteral("cudaStreamCreate"), QStringLiteral("cuStreamCreate"),
        QStringLiteral("cuCtxCreate"), QStringLiteral("cuGreenCtx"),
        QStringLiteral("cudaGreenCtx")};
    return startsWithAny(api, prefixes);
}

// Synchronous copies and fills run on the legacy default stream.
bool isSynchronousCopy(const QString &api)
{
    static const QRegularExpression pattern(
        QStringLiteral("^(cudaMemcpy|cudaMemset|cuMemcpy|cuMemset)"));
    return pattern.match(api).hasMatch() && !api.contains(QLatin1String("Async")) &&
           !api.endsWith(QLatin1String("Kind")) && !api.contains(QLatin1String("Parms")) &&
           !api.contains(QLatin1String("Attributes")) && !api.contains(QLatin1String("Node"));
}

// Calls that take a stream: the argument index (0-based) of the stream. A call with fewer
// arguments uses the default argument, stream 0.
int streamArgument(const QString &api, int argumentCount)
{
    static const QMap<QString, int> index = {
        {QStringLiteral("cudaMemcpyAsync"), 4},
        {QStringLiteral("cudaMemsetAsync"), 3},
        {QStringLiteral("cudaMemcpy2DAsync"), 7},
        {QStringLiteral("cudaMemset2DAsync"), 5},
        {QStringLiteral("cudaMemcpy3DAsync"), 1},
        {QStringLiteral("cudaMemset3DAsync"), 3},
        {QStringLiteral("cudaMemcpyToSymbolAsync"), 5},
        {QStringLiteral("cudaMemcpyFromSymbolAsync"), 5},
        {QStringLiteral("cudaMemcpyPeerAsync"), 5},
        {QStringLiteral("cudaMallocAsync"), 2},
        {QStringLiteral("cudaMallocFromPoolAsync"), 3},
        {QStringLiteral("cudaFreeAsync"), 1},
        {QStringLiteral("cudaLaunchKernel"), 5},
        {QStringLiteral("cudaLaunchCooperativeKernel"), 5},
        {QStringLiteral("cudaLaunchHostFunc"), 0},
        {QStringLiteral("cudaGraphLaunch"), 1},
        {QStringLiteral("cuLaunchKernel"), 8},
        {QStringLiteral("cuLaunchCooperativeKernel"), 8},
        {QStringLiteral("cuLaunchHostFunc"), 0},
        {QStringLiteral("cuGraphLaunch"), 1},
        {QStringLiteral("cuMemcpyAsync"), 3},
        {QStringLiteral("cuMemcpyDtoDAsync"), 3},
        {QStringLiteral("cuMemcpyHtoDAsync"), 3},
        {QStringLiteral("cuMemcpyDtoHAsync"), 3},
        {QStringLiteral("cuMemsetD8Async"), 3},
        {QStringLiteral("cuMemsetD16Async"), 3},
        {QStringLiteral("cuMemsetD32Async"), 3},
        {QStringLiteral("cuMemAllocAsync"), 2},
        {QStringLiteral("cuMemFreeAsync"), 1},
    };
    // cudaMallocAsync(ptr, size, pool, stream): the overload with a memory pool.
    if (api == QLatin1String("cudaMallocAsync") && argumentCount == 4)
        return 3;
    return index.value(api, -1);
}

// Loading code at run time through the CUDA driver (what dlopen/dlsym are on the host).
bool loadsCode(const QString &api)
{
    static const QStringList prefixes = {QStringLiteral("cudaGetDriverEntryPoint"),
                                         QStringLiteral("cuGetProcAddress"),
                                         QStringLiteral("cuModuleLoad"),
                                         QStringLiteral("cuLibraryLoad"),
                                         QStringLiteral("cudaLibraryLoad"),
                                         QStringLiteral("cuLinkCreate"),
                                         QStringLiteral("nvrtcCreateProgram"),
                                         QStringLiteral("nvrtcCompileProgram"),
                                         QStringLiteral("nvJitLink")};
    return startsWithAny(api, prefixes);
}

bool isPersistingL2Name(const QString &name)
{
    static const QSet<QString> names = {
        QStringLiteral("cudaAccessPolicyWindow"),
        QStringLiteral("accessPolicyWindow"),
        QStringLiteral("cudaStreamAttrValue"),
        QStringLiteral("cudaStreamAttributeAccessPolicyWindow"),
        QStringLiteral("cudaLaunchAttributeAccessPolicyWindow"),
        QStringLiteral("cudaKernelNodeAttributeAccessPolicyWindow"),
        QStringLiteral("cudaLimitPersistingL2CacheSize"),
        QStringLiteral("cudaCtxResetPersistingL2Cache"),
        QStringLiteral("cudaAccessPropertyPersisting"),
        QStringLiteral("CUaccessPolicyWindow"),
        QStringLiteral("CUaccessPolicyWindow_st"),
        QStringLiteral("CU_LIMIT_PERSISTING_L2_CACHE_SIZE"),
        QStringLiteral("CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW"),
        QStringLiteral("CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW"),
        QStringLiteral("CU_KERNEL_NODE_ATTRIBUTE_ACCESS_POLICY_WINDOW"),
        QStringLiteral("CU_ACCESS_PROPERTY_PERSISTING"),
        QStringLiteral("cuCtxResetPersistingL2Cache")};
    return names.contains(name);
}

// Clock-like runtime functions: defining one replaces what the harness measures with.
bool isCudaTimerApi(const QString &api)
{
    return api.startsWith(QLatin1String("cudaEvent")) || api.startsWith(QLatin1String("cuEvent")) ||
           api.endsWith(QLatin1String("Synchronize")) || api == QLatin1String("cudaStreamQuery") ||
           api == QLatin1String("cuStreamQuery");
}

// Runtime functions whose definition is interposition even without `extern "C"` in sight.
bool isCoreCudaApi(const QString &api)
{
    return isCudaTimerApi(api) || api.startsWith(QLatin1String("cudaLaunch")) ||
           api.startsWith(QLatin1String("cuLaunch")) ||
           api.startsWith(QLatin1String("cudaMemcpy")) ||
           api.startsWith(QLatin1String("cudaMalloc")) ||
           api.startsWith(QLatin1String("cudaFree")) ||
           api.startsWith(QLatin1String("cudaGraphLaunch")) ||
           api.startsWith(QLatin1String("cudaStream")) ||
           api.startsWith(QLatin1String("cuStream")) ||
           api.startsWith(QLatin1String("cudaDevice")) || api.startsWith(QLatin1String("cuCtx"));
}

// Half, bfloat16, fp8 and TF32 types and intrinsics (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, mma.h).
bool isReducedPrecisionName(const QString &name)
{
    static const QSet<QString> exact = {QStringLiteral("__half"),
                                        QStringLiteral("__half2"),
                                        QStringLiteral("half2"),
                                        QStringLiteral("__half_raw"),
                                        QStringLiteral("__half2_raw"),
                                        QStringLiteral("__nv_bfloat16"),
                                        QStringLiteral("__nv_bfloat162"),
                                        QStringLiteral("nv_bfloat16"),
                                        QStringLiteral("nv_bfloat162"),
                                        QStringLiteral("__nv_bfloat16_raw"),
                                        QStringLiteral("__float_to_tf32"),
                                        QStringLiteral("_Float16"),
                                        QStringLiteral("__fp16"),
                                        QStringLiteral("__bf16"),
                                        QStringLiteral("__hadd"),
                                        QStringLiteral("__hadd2"),
                                        QStringLiteral("__hadd_sat"),
                                        QStringLiteral("__hadd2_sat"),
                                        QStringLiteral("__hsub"),
                                        QStringLiteral("__hsub2"),
                                        QStringLiteral("__hmul"),
                                        QStringLiteral("__hmul2"),
                                        QStringLiteral("__hmul_sat"),
                                        QStringLiteral("__hmul2_sat"),
                                        QStringLiteral("__hfma"),
                                        QStringLiteral("__hfma2"),
                                        QStringLiteral("__hfma_sat"),
                                        QStringLiteral("__hfma2_sat"),
                                        QStringLiteral("__hfma_relu"),
                                        QStringLiteral("__hfma2_relu"),
                                        QStringLiteral("__hdiv"),
                                        QStringLiteral("__h2div"),
                                        QStringLiteral("__hneg"),
                                        QStringLiteral("__hneg2"),
                                        QStringLiteral("__habs"),
                                        QStringLiteral("__habs2"),
                                        QStringLiteral("__hmax"),
                                        QStringLiteral("__hmin"),
                                        QStringLiteral("__hmax2"),
                                        QStringLiteral("__hmin2"),
                                        QStringLiteral("hexp"),
                                        QStringLiteral("h2exp"),
                                        QStringLiteral("hexp2"),
                                        QStringLiteral("h2exp2"),
                                        QStringLiteral("hlog"),
                                        QStringLiteral("h2log"),
                                        QStringLiteral("hsqrt"),
                                        QStringLiteral("h2sqrt"),
                                        QStringLiteral("hrsqrt"),
                                        QStringLiteral("h2rsqrt"),
                                        QStringLiteral("hrcp"),
                                        QStringLiteral("h2rcp")};
    static const QStringList prefixes = {
        QStringLiteral("__float2half"),     QStringLiteral("__float2bfloat16"),
        QStringLiteral("__floats2half2"),   QStringLiteral("__floats2bfloat162"),
        QStringLiteral("__float22half2"),   QStringLiteral("__float22bfloat162"),
        QStringLiteral("__half2float"),     QStringLiteral("__half22float2"),
        QStringLiteral("__bfloat162float"), QStringLiteral("__bfloat1622float2"),
        QStringLiteral("__nv_fp8"),         QStringLiteral("__nv_fp6"),
        QStringLiteral("__nv_fp4"),         QStringLiteral("__nv_cvt_")};
    if (exact.contains(name))
        return true;
    return startsWithAny(name, prefixes);
}

// Inline PTX that computes in reduced precision: f16/bf16/tf32/fp8 operands, tensor-core mma.
bool isReducedPrecisionPtx(const QString &text)
{
    static const QRegularExpression types(
        QStringLiteral("\\.(f16|f16x2|bf16|bf16x2|tf32|e4m3|e5m2|e4m3x2|e5m2x2)\\b"));
    if (types.match(text).hasMatch())
        return true;
    return (text.contains(QLatin1String("mma.sync")) || text.contains(QLatin1String("wgmma"))) &&
           !text.contains(QLatin1String(".f64"));
}

// CUDA libraries per forbidden-library name of task.json: C prefixes (tokens and imports).
const QMap<QString, QStringList> &cudaLibraryPrefixes()
{
    static const QMap<QString, QStringList> prefixes = {
        {QStringLiteral("cublas"), {QStringLiteral("cublas")}},
        {QStringLiteral("cublaslt"), {QStringLiteral("cublasLt")}},
        {QStringLiteral("cudnn"), {QStringLiteral("cudnn")}},
        {QStringLiteral("cufft"), {QStringLiteral("cufft")}},
        {QStringLiteral("cusparse"), {QStringLiteral("cusparse")}},
        {QStringLiteral("cusolver"), {QStringLiteral("cusolver")}},
    };
    return prefixes;
}

// C++ template libraries per forbidden-library name: their namespaces.
const QMap<QString, QStringList> &cudaLibraryNamespaces()
{
    static const QMap<QString, QStringList> namespaces = {
        {QStringLiteral("thrust"), {QStringLiteral("thrust")}},
        {QStringLiteral("cutlass"), {QStringLiteral("cutlass"), QStringLiteral("cute")}},
    };
    return namespaces;
}

// CUB's device-wide algorithms (cub_device); block- and warp-level CUB (cub_block) stay allowed.
bool isCubDeviceName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral(
        "^Device(Reduce|SegmentedReduce|Scan|SegmentedScan|RadixSort|SegmentedRadixSort|"
        "MergeSort|SegmentedSort|Select|Partition|Histogram|RunLengthEncode|Spmv|"
        "AdjacentDifference|Copy|Memcpy|For|Transform|TopK|Find)\\w*$"));
    return pattern.match(name).hasMatch();
}

// The length-prefixed names inside a mangled symbol: "_ZN3cub12DeviceReduce3SumE..." ->
// cub, DeviceReduce, Sum.
QStringList mangledParts(const QString &symbol)
{
    QStringList parts;
    if (!symbol.startsWith(QLatin1String("_Z")))
        return parts;
    for (int i = 2; i < symbol.size();) {
        if (!symbol[i].isDigit()) {
            ++i;
            continue;
        }
        int length = 0;
        while (i < symbol.size() && symbol[i].isDigit())
            length = length * 10 + symbol[i++].digitValue();
        if (length <= 0 || i + length > symbol.size())
            continue; // a number of a template argument (Li256E), not a name
        parts << symbol.mid(i, length);
        i += length;
    }
    return parts;
}

// Objects nvcc generates in every host object (fatbinary handles, launch stubs' statics) and
// header-owned constants of libcu++/CUB/Thrust: not the candidate's state.
bool isGeneratedCudaObject(const QString &object)
{
    static const QStringList markers = {
        QStringLiteral("__cudaFatCubinHandle"), QStringLiteral("__fatDeviceText"),
        QStringLiteral("__device_stub__"),      QStringLiteral("__nv_"),
        QStringLiteral("__cudaPrelinked"),      QStringLiteral("__cudaRegister")};
    for (const QString &marker : markers) {
        if (object.contains(marker))
            return true;
    }
    return object.startsWith(QLatin1String("_ZN4cuda")) ||
           object.startsWith(QLatin1String("_ZN6thrust")) ||
           object.startsWith(QLatin1String("_ZN3cub"));
}

} // namespace

bool StaticScreen::isPreprocessed(const QString &text)
{
    static const QRegularExpression marker(QStringLiteral("^#\\s*\\d+\\s+\""));
    return marker.match(text).hasMatch();
}

QList<int> StaticScreen::lineDirectiveLines(const QString &source)
{
    // Comments become blanks (their newlines kept), so "/**/ #line" is seen as well.
    QString text = source;
    const qsizetype n = text.size();
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = text[i];
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            for (++i; i < n && text[i] != c && text[i] != QLatin1Char('\n'); ++i) {
                if (text[i] == QLatin1Char('\\'))
                    ++i;
            }
        } else if (c == QLatin1Char('/') && i + 1 < n && text[i + 1] == QLatin1Char('/')) {
            for (; i < n && text[i] != QLatin1Char('\n'); ++i)
                text[i] = QLatin1Char(' ');
        } else if (c == QLatin1Char('/') && i + 1 < n && text[i + 1] == QLatin1Char('*')) {
            const qsizetype close = text.indexOf(QLatin1String("*/"), i + 2);
            const qsizetype end = close < 0 ? n : close + 2;
            for (; i < end; ++i) {
                if (text[i] != QLatin1Char('\n'))
                    text[i] = QLatin1Char(' ');
            }
            --i;
        }
    }
    QList<int> lines;
    const QStringList physical = text.split(QLatin1Char('\n'));
    for (int first = 0; first < physical.size();) {
        // A logical line: physical lines joined where they end in a backslash.
        QString logical;
        int last = first;
        for (;; ++last) {
            QString part = physical[last];
            if (part.endsWith(QLatin1Char('\r')))
                part.chop(1);
            if (part.endsWith(QLatin1Char('\\')) && last + 1 < physical.size()) {
                logical += part.chopped(1);
                continue;
            }
            logical += part;
            break;
        }
        QString directive = logical.trimmed();
        if (directive.startsWith(QLatin1Char('#')) || directive.startsWith(QLatin1String("%:"))) {
            directive = directive.mid(directive.startsWith(QLatin1Char('#')) ? 1 : 2).trimmed();
            if ((directive.startsWith(QLatin1String("line")) &&
                 (directive.size() == 4 || !isIdentifierPart(directive[4]))) ||
                (!directive.isEmpty() && directive[0].isDigit()))
                lines.append(first + 1);
        }
        first = last + 1;
    }
    return lines;
}

QList<Token> StaticScreen::candidateTokens(const QString &preprocessed,
                                           const QString &candidateFile)
{
    QList<Token> tokens;
    // Raw source (no line markers): every token is the candidate's.
    const bool raw = !isPreprocessed(preprocessed);
    bool inCandidate = raw;
    int line = 1;
    const qsizetype n = preprocessed.size();
    qsizetype i = 0;
    bool atLineStart = true;
    while (i < n) {
        const QChar c = preprocessed[i];
        if (c == QLatin1Char('\n')) {
            ++line;
            ++i;
            atLineStart = true;
            continue;
        }
        if (c.isSpace()) {
            ++i;
            continue;
        }
        // Comments only occur in raw sources; preprocessor output has none.
        if (c == QLatin1Char('/') && i + 1 < n && preprocessed[i + 1] == QLatin1Char('/')) {
            while (i < n && preprocessed[i] != QLatin1Char('\n'))
                ++i;
            continue;
        }
        if (c == QLatin1Char('/') && i + 1 < n && preprocessed[i + 1] == QLatin1Char('*')) {
            const qsizetype close = preprocessed.indexOf(QLatin1String("*/"), i + 2);
            const qsizetype end = close < 0 ? n : close + 2;
            line += int(QStringView(preprocessed).mid(i, end - i).count(QLatin1Char('\n')));
            i = end;
            continue;
        }
        if (raw && atLineStart &&
            (c == QLatin1Char('#') ||
             (c == QLatin1Char('%') && i + 1 < n && preprocessed[i + 1] == QLatin1Char(':')))) {
            // A directive of a raw source: #define bodies are screened like code (their
            // names would otherwise hide behind the macro), #pragma is kept, the rest skipped.
            qsizetype j = i + (c == QLatin1Char('#') ? 1 : 2);
            while (j < n &&
                   (preprocessed[j] == QLatin1Char(' ') || preprocessed[j] == QLatin1Char('\t')))
                ++j;
            qsizetype wordEnd = j;
            while (wordEnd < n && isIdentifierPart(preprocessed[wordEnd]))
                ++wordEnd;
            const QString word = preprocessed.mid(j, wordEnd - j);
            if (word == QLatin1String("define")) {
                i = wordEnd;
                atLineStart = false;
                continue;
            }
            // The end of the directive, over backslash-continued lines.
            const int directiveLine = line;
            qsizetype end = wordEnd;
            for (;;) {
                end = preprocessed.indexOf(QLatin1Char('\n'), end);
                if (end < 0) {
                    end = n;
                    break;
                }
                qsizetype back = end - 1;
                if (back >= 0 && preprocessed[back] == QLatin1Char('\r'))
                    --back;
                if (back < 0 || preprocessed[back] != QLatin1Char('\\'))
                    break;
                ++line;
                ++end;
            }
            if (word == QLatin1String("pragma")) {
                tokens.append({Token::Kind::Identifier, QStringLiteral("#pragma"), directiveLine});
                const QStringList words = preprocessed.mid(wordEnd, end - wordEnd)
                                              .simplified()
                                              .split(QLatin1Char(' '), Qt::SkipEmptyParts);
                for (const QString &w : words)
                    tokens.append({Token::Kind::Identifier, w, directiveLine});
            }
            i = end;
            continue;
        }
        if (atLineStart && c == QLatin1Char('#')) {
            // Line marker: # <line> "<file>" [flags]  (or a surviving #pragma).
            const qsizetype end = preprocessed.indexOf(QLatin1Char('\n'), i);
            const QString directive =
                preprocessed.mid(i + 1, (end < 0 ? n : end) - i - 1).trimmed();
            const QStringList parts = directive.split(QLatin1Char(' '), Qt::SkipEmptyParts);
            bool isNumber = false;
            const int markerLine = parts.value(0).toInt(&isNumber);
            if (isNumber && parts.size() >= 2) {
                QString file = parts[1];
                file.remove(QLatin1Char('"'));
                inCandidate =
                    file == candidateFile || file.endsWith(QLatin1Char('/') + candidateFile);
                line = markerLine - 1; // the newline ending the marker moves to markerLine
            } else if (inCandidate && directive.startsWith(QLatin1String("pragma"))) {
                tokens.append({Token::Kind::Identifier, QStringLiteral("#pragma"), line});
                const QStringList words =
                    directive.mid(6).split(QLatin1Char(' '), Qt::SkipEmptyParts);
                for (const QString &word : words)
                    tokens.append({Token::Kind::Identifier, word, line});
            }
            i = end < 0 ? n : end;
            continue;
        }
        atLineStart = false;
        Token token;
        token.line = line;
        const qsizetype start = i;
        if (isIdentifierStart(c)) {
            while (i < n && isIdentifierPart(preprocessed[i]))
                ++i;
            // Raw string literal: R"delim( ... )delim"
            if (i < n && preprocessed[i] == QLatin1Char('"') &&
                preprocessed.mid(start, i - start).endsWith(QLatin1Char('R'))) {
                const qsizetype open = preprocessed.indexOf(QLatin1Char('('), i);
                const QString delimiter = preprocessed.mid(i + 1, open - i - 1);
                const QString close = QLatin1Char(')') + delimiter + QLatin1Char('"');
                const qsizetype stop = preprocessed.indexOf(close, open);
                const qsizetype end = stop < 0 ? n : stop + close.size();
                token.kind = Token::Kind::String;
                token.text = preprocessed.mid(open + 1, (stop < 0 ? n : stop) - open - 1);
                line += int(preprocessed.mid(start, end - start).count(QLatin1Char('\n')));
                i = end;
            } else {
                token.kind = Token::Kind::Identifier;
                token.text = preprocessed.mid(start, i - start);
            }
        } else if (c.isDigit() ||
                   (c == QLatin1Char('.') && i + 1 < n && preprocessed[i + 1].isDigit())) {
            while (i < n &&
                   (isIdentifierPart(preprocessed[i]) || preprocessed[i] == QLatin1Char('.') ||
                    ((preprocessed[i] == QLatin1Char('+') || preprocessed[i] == QLatin1Char('-')) &&
                     QStringLiteral("eEpP").contains(preprocessed[i - 1]))))
                ++i;
            token.kind = Token::Kind::Number;
            token.text = preprocessed.mid(start, i - start);
        } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            ++i;
            while (i < n && preprocessed[i] != c && preprocessed[i] != QLatin1Char('\n')) {
                if (preprocessed[i] == QLatin1Char('\\'))
                    ++i;
                ++i;
            }
            ++i;
            token.kind = c == QLatin1Char('"') ? Token::Kind::String : Token::Kind::Number;
            token.text = preprocessed.mid(start + 1, qMax<qsizetype>(0, i - start - 2));
        } else {
            static const QStringList pairs = {QStringLiteral("::"), QStringLiteral("->")};
            const QString two = preprocessed.mid(i, 2);
            token.kind = Token::Kind::Punctuation;
            token.text = pairs.contains(two) ? two : QString(c);
            i += token.text.size();
        }
        if (inCandidate)
            tokens.append(token);
    }
    return tokens;
}

namespace {

// Index of the token closing the bracket opened at `open` ("(" / "[" / "{"), or -1.
int matchingClose(const QList<Token> &tokens, int open)
{
    int depth = 0;
    for (int k = open; k < tokens.size(); ++k) {
        const QString &t = tokens[k].text;
        if (tokens[k].kind != Token::Kind::Punctuation)
            continue;
        if (t == QLatin1String("(") || t == QLatin1String("[") || t == QLatin1String("{"))
            ++depth;
        else if (t == QLatin1String(")") || t == QLatin1String("]") || t == QLatin1String("}")) {
            if (--depth == 0)
                return k;
        }
    }
    return -1;
}

// Token ranges [first, last) of the comma-separated arguments between first and last.
QList<QPair<int, int>> splitArguments(const QList<Token> &tokens, int first, int last)
{
    QList<QPair<int, int>> arguments;
    int depth = 0;
    int start = first;
    for (int k = first; k < last; ++k) {
        const QString &t = tokens[k].text;
        if (tokens[k].kind != Token::Kind::Punctuation)
            continue;
        if (t == QLatin1String("(") || t == QLatin1String("[") || t == QLatin1String("{"))
            ++depth;
        else if (t == QLatin1String(")") || t == QLatin1String("]") || t == QLatin1String("}"))
            --depth;
        else if (t == QLatin1String(",") && depth == 0) {
            arguments.append({start, k});
            start = k + 1;
        }
    }
    if (last > start || !arguments.isEmpty())
        arguments.append({start, last});
    return arguments;
}

// A stream argument that names no stream: 0, nullptr, NULL, cudaStreamLegacy,
// cudaStreamPerThread ((cudaStream_t)0x1 once preprocessed), cudaStream_t{} ...
bool isNullStream(const QList<Token> &tokens, QPair<int, int> argument)
{
    static const QSet<QString> constantWords = {QStringLiteral("cudaStream_t"),
                                                QStringLiteral("CUstream"),
                                                QStringLiteral("CUstream_st"),
                                                QStringLiteral("cudaStream_st"),
                                                QStringLiteral("static_cast"),
                                                QStringLiteral("reinterpret_cast"),
                                                QStringLiteral("nullptr"),
                                                QStringLiteral("NULL"),
                                                QStringLiteral("__null"),
                                                QStringLiteral("cudaStreamLegacy"),
                                                QStringLiteral("cudaStreamPerThread"),
                                                QStringLiteral("CU_STREAM_LEGACY"),
                                                QStringLiteral("CU_STREAM_PER_THREAD"),
                                                QStringLiteral("struct")};
    if (argument.first >= argument.second)
        return false;
    for (int k = argument.first; k < argument.second; ++k) {
        if (tokens[k].kind == Token::Kind::Identifier && !constantWords.contains(tokens[k].text))
            return false;
        if (tokens[k].kind == Token::Kind::String)
            return false;
    }
    return true;
}

// The value of an argument that is an integer literal, possibly cast ((cudaStreamAttrID)1);
// -1 otherwise.
qint64 literalValue(const QList<Token> &tokens, QPair<int, int> argument)
{
    qint64 value = -1;
    for (int k = argument.first; k < argument.second; ++k) {
        const Token &token = tokens[k];
        if (token.kind == Token::Kind::Number) {
            bool ok = false;
            const qint64 parsed = token.text.toLongLong(&ok, 0);
            if (!ok || value >= 0)
                return -1;
            value = parsed;
        } else if (token.kind == Token::Kind::String) {
            return -1;
        } else if (token.kind == Token::Kind::Identifier &&
                   !(token.text.endsWith(QLatin1String("ID")) ||
                     token.text == QLatin1String("static_cast") ||
                     token.text == QLatin1String("enum"))) {
            return -1;
        }
    }
    return value;
}

QString joined(const QList<Token> &tokens, QPair<int, int> range)
{
    QStringList words;
    for (int k = range.first; k < range.second; ++k)
        words << tokens[k].text;
    return words.join(QString());
}

// Library detection for CUDA tokens and imports; `name` is an identifier or a C symbol.
bool isForbiddenCudaLibraryName(const QString &name, const QSet<QString> &forbidden)
{
    for (auto it = cudaLibraryPrefixes().cbegin(); it != cudaLibraryPrefixes().cend(); ++it) {
        if (!forbidden.contains(it.key()))
            continue;
        for (const QString &prefix : it.value()) {
            if (!name.startsWith(prefix))
                continue;
            // cuBLASLt is its own entry of task.json.
            if (it.key() == QLatin1String("cublas") && name.startsWith(QLatin1String("cublasLt")) &&
                !forbidden.contains(QStringLiteral("cublaslt")))
                continue;
            return true;
        }
    }
    return false;
}

// Whether the candidate declares a variable of this name ("half" is a type unless it does: the
// reference kernels write `for (int half = blockDim.x / 2; ...)`, OpenMP kernels split rows in
// halves).
bool declaresVariableNamed(const QList<Token> &tokens, const QString &name)
{
    static const QSet<QString> after = {
        QStringLiteral("="), QStringLiteral(";"), QStringLiteral(","), QStringLiteral(")"),
        QStringLiteral("["), QStringLiteral("{"), QStringLiteral(":")};
    for (int k = 1; k + 1 < tokens.size(); ++k) {
        const Token &before = tokens[k - 1];
        if (tokens[k].text == name &&
            (before.kind == Token::Kind::Identifier || before.text == QLatin1String("*") ||
             before.text == QLatin1String("&")) &&
            after.contains(tokens[k + 1].text))
            return true;
    }
    return false;
}

// The CUDA rules over the candidate's tokens (verifier.md: streams, L2 policies, libraries,
// precision, definitions of runtime functions).
void screenCudaTokens(const QList<Token> &tokens, const QSet<QString> &forbidden, bool fp32Task,
                      const QMap<QString, QList<int>> &identifierLines, ScreenFlags &flags)
{
    auto text = [&](int k) { return k >= 0 && k < tokens.size() ? tokens[k].text : QString(); };
    auto isIdentifier = [&](int k) {
        return k >= 0 && k < tokens.size() && tokens[k].kind == Token::Kind::Identifier;
    };

    const bool halfIsVariable = declaresVariableNamed(tokens, QStringLiteral("half"));
    const bool usesCub = identifierLines.contains(QStringLiteral("cub"));

    for (int i = 0; i < tokens.size(); ++i) {
        const Token &token = tokens[i];
        // kernel<<<grid, block[, shared[, stream]]>>>: the stream must be given and not 0.
        if (token.kind == Token::Kind::Punctuation && token.text == QLatin1String("<") &&
            text(i + 1) == QLatin1String("<") && text(i + 2) == QLatin1String("<") &&
            text(i - 1) != QLatin1String("<")) {
            int depth = 0;
            int close = -1;
            for (int k = i + 3; k + 2 < tokens.size(); ++k) {
                const QString &t = tokens[k].text;
                if (tokens[k].kind != Token::Kind::Punctuation)
                    continue;
                if (t == QLatin1String("(") || t == QLatin1String("[") || t == QLatin1String("{"))
                    ++depth;
                else if (t == QLatin1String(")") || t == QLatin1String("]") ||
                         t == QLatin1String("}"))
                    --depth;
                else if (depth == 0 && t == QLatin1String(">") &&
                         text(k + 1) == QLatin1String(">") && text(k + 2) == QLatin1String(">")) {
                    close = k;
                    break;
                }
            }
            if (close > 0) {
                const QList<QPair<int, int>> arguments = splitArguments(tokens, i + 3, close);
                if (arguments.size() < 4)
                    flags.add(QStringLiteral("legacy_default_stream"), token.line,
                              QStringLiteral("<<<...>>> without a stream"));
                else if (isNullStream(tokens, arguments[3]))
                    flags.add(QStringLiteral("legacy_default_stream"), token.line,
                              QStringLiteral("<<<...>>> on stream ") +
                                  joined(tokens, arguments[3]));
            }
        }
        if (token.kind == Token::Kind::String)
            continue;
        if (token.kind != Token::Kind::Identifier)
            continue;
        const QString &name = token.text;
        const QString before = text(i - 1);
        const QString after = text(i + 1);
        const bool member = before == QLatin1String(".") || before == QLatin1String("->");
        const QString api = cudaApiName(name);

        if (!member && createsStream(api))
            flags.add(QStringLiteral("stream_creation"), token.line, name);
        if (!member && after == QLatin1String("(") && isSynchronousCopy(api))
            flags.add(QStringLiteral("legacy_default_stream"), token.line, name);
        if (!member && after == QLatin1String("(")) {
            const int close = matchingClose(tokens, i + 1);
            if (close > 0) {
                const QList<QPair<int, int>> arguments = splitArguments(tokens, i + 2, close);
                const int index = streamArgument(api, int(arguments.size()));
                if (index >= 0 && index >= arguments.size())
                    flags.add(QStringLiteral("legacy_default_stream"), token.line,
                              name + QStringLiteral(" without a stream"));
                else if (index >= 0 && isNullStream(tokens, arguments[index]))
                    flags.add(QStringLiteral("legacy_default_stream"), token.line,
                              name + QStringLiteral(" on stream ") +
                                  joined(tokens, arguments[index]));
                // cudaStreamSetAttribute(stream, 1 /* access policy window */, &value)
                if ((api == QLatin1String("cudaStreamSetAttribute") ||
                     api == QLatin1String("cuStreamSetAttribute") ||
                     api == QLatin1String("cudaGraphKernelNodeSetAttribute") ||
                     api == QLatin1String("cuGraphKernelNodeSetAttribute")) &&
                    arguments.size() >= 2 && literalValue(tokens, arguments[1]) == 1)
                    flags.add(QStringLiteral("persisting_l2"), token.line, name);
                // A definition of a runtime function: name(...) { ... }
                int body = close + 1;
                while (body < tokens.size() && (text(body) == QLatin1String("noexcept") ||
                                                text(body) == QLatin1String("throw") ||
                                                text(body) == QLatin1String("__attribute__"))) {
                    body = text(body + 1) == QLatin1String("(")
                               ? matchingClose(tokens, body + 1) + 1
                               : body + 1;
                    if (body <= 0)
                        break;
                }
                bool externC = false;
                for (int k = qMax(0, i - 8); k < i; ++k)
                    externC = externC || (text(k) == QLatin1String("extern") &&
                                          tokens[k + 1].kind == Token::Kind::String &&
                                          tokens[k + 1].text == QLatin1String("C"));
                if (body > 0 && text(body) == QLatin1String("{") && isCudaApiName(name) &&
                    before != QLatin1String("::") && (externC || isCoreCudaApi(api)))
                    flags.add(isCudaTimerApi(api) ? QStringLiteral("timer_tampering")
                                                  : QStringLiteral("symbol_interposition"),
                              token.line, name);
            }
        }
        if (!member && loadsCode(api))
            flags.add(QStringLiteral("dynamic_loading"), token.line, name);
        if (isPersistingL2Name(name))
            flags.add(QStringLiteral("persisting_l2"), token.line, name);

        if (!member && isForbiddenCudaLibraryName(name, forbidden))
            flags.add(QStringLiteral("forbidden_library"), token.line, name);
        for (auto it = cudaLibraryNamespaces().cbegin(); it != cudaLibraryNamespaces().cend();
             ++it) {
            if (forbidden.contains(it.key()) && it.value().contains(name) && !member &&
                (after == QLatin1String("::") || before == QLatin1String("namespace") ||
                 (before == QLatin1String("=") && after == QLatin1String(";"))))
                flags.add(QStringLiteral("forbidden_library"), token.line, name);
        }
        if (forbidden.contains(QStringLiteral("cub_device")) && isCubDeviceName(name) &&
            ((before == QLatin1String("::") && text(i - 2) == QLatin1String("cub")) || usesCub))
            flags.add(QStringLiteral("forbidden_library"), token.line,
                      QStringLiteral("cub::") + name);

        if (fp32Task) {
            const bool halfType = name == QLatin1String("half") && !member &&
                                  (!halfIsVariable || isIdentifier(i + 1));
            const bool tf32 = name == QLatin1String("tf32") && before == QLatin1String("::");
            if (!member && (isReducedPrecisionName(name) || halfType || tf32))
                flags.add(QStringLiteral("precision_downgrade"), token.line, name);
            if ((name == QLatin1String("asm") || name == QLatin1String("__asm__") ||
                 name == QLatin1String("__asm"))) {
                int open = i + 1;
                while (open < tokens.size() && isIdentifier(open))
                    ++open; // volatile, __volatile__, goto
                const int close =
                    text(open) == QLatin1String("(") ? matchingClose(tokens, open) : -1;
                for (int k = open; k < close; ++k) {
                    if (tokens[k].kind == Token::Kind::String &&
                        isReducedPrecisionPtx(tokens[k].text))
                        flags.add(QStringLiteral("precision_downgrade"), tokens[k].line,
                                  QStringLiteral("PTX ") + tokens[k].text.simplified().left(40));
                }
            }
        }
    }
}

// The CUDA rules over the host object's symbols (nvcc -c).
void screenCudaSymbols(const Task &task, const ElfSymbols &symbols, const QSet<QString> &forbidden,
                       const QMap<QString, QList<int>> &identifierLines, ScreenFlags &flags)
{
    auto linesOf = [&](const QString &symbol) {
        for (const QString &candidate : {symbol, plainName(symbol), cudaApiName(symbol)}) {
            if (identifierLines.contains(candidate))
                return identifierLines.value(candidate);
        }
        return QList<int>();
    };
    for (const QString &import : symbols.undefined) {
        const QString api = cudaApiName(import);
        if (createsStream(api))
            flags.add(QStringLiteral("stream_creation"), linesOf(import), import);
        if (isSynchronousCopy(api))
            flags.add(QStringLiteral("legacy_default_stream"), linesOf(import), import);
        if (api == QLatin1String("cudaCtxResetPersistingL2Cache") ||
            api == QLatin1String("cuCtxResetPersistingL2Cache"))
            flags.add(QStringLiteral("persisting_l2"), linesOf(import), import);
        if (loadsCode(api))
            flags.add(QStringLiteral("dynamic_loading"), linesOf(import), import);
        if (isForbiddenCudaLibraryName(import, forbidden))
            flags.add(QStringLiteral("forbidden_library"), linesOf(import), import);
    }
    const QStringList definitions = symbols.defined + symbols.weakDefined;
    for (const QString &symbol : definitions) {
        if (symbol == task.entry)
            continue;
        if (isCudaApiName(symbol)) {
            const QString api = cudaApiName(symbol);
            flags.add(isCudaTimerApi(api) ? QStringLiteral("timer_tampering")
                                          : QStringLiteral("symbol_interposition"),
                      linesOf(symbol), symbol);
            continue;
        }
        // Template libraries leave their instantiations in the object.
        const QStringList parts = mangledParts(symbol);
        if (parts.isEmpty())
            continue;
        for (auto it = cudaLibraryNamespaces().cbegin(); it != cudaLibraryNamespaces().cend();
             ++it) {
            for (const QString &ns : it.value()) {
                if (forbidden.contains(it.key()) && parts.contains(ns))
                    flags.add(QStringLiteral("forbidden_library"), linesOf(ns),
                              ns + QStringLiteral("::"));
            }
        }
        if (forbidden.contains(QStringLiteral("cub_device")) &&
            parts.contains(QStringLiteral("cub"))) {
            for (const QString &part : parts) {
                if (isCubDeviceName(part))
                    flags.add(QStringLiteral("forbidden_library"), linesOf(part),
                              QStringLiteral("cub::") + part);
            }
        }
    }
}

} // namespace

QList<CheatFlag> StaticScreen::screen(const Task &task, const QString &preprocessed,
                                      const QString &candidateFile, const ElfSymbols &symbols)
{
    return screen(task, Backend::Cpu, preprocessed, candidateFile, symbols);
}

QList<CheatFlag> StaticScreen::screen(const Task &task, Backend backend,
                                      const QString &preprocessed, const QString &candidateFile,
                                      const ElfSymbols &symbols)
{
    const bool cuda = backend == Backend::Cuda;
    const QList<Token> tokens = candidateTokens(preprocessed, candidateFile);
    ScreenFlags flags;
    QMap<QString, QList<int>> identifierLines;
    for (const Token &token : tokens) {
        if (token.kind == Token::Kind::Identifier &&
            !identifierLines.value(token.text).contains(token.line))
            identifierLines[token.text].append(token.line);
    }
    auto next = [&](int i) { return i + 1 < tokens.size() ? tokens[i + 1].text : QString(); };
    auto previous = [&](int i) { return i > 0 ? tokens[i - 1].text : QString(); };

    QMap<QString, QString> callFlag;
    for (const CallRule &rule : callRules()) {
        for (const char *name : rule.names)
            callFlag.insert(QString::fromLatin1(name), QString::fromLatin1(rule.flag));
    }
    bool fp32Task = true;
    for (const TaskParameter &parameter : task.parameters) {
        if (parameter.role != TaskParameter::Role::Scalar &&
            parameter.dtype != QLatin1String("f32"))
            fp32Task = false;
    }
    QStringList forbiddenPrefixes;
    for (const QString &library : task.forbiddenLibraries)
        forbiddenPrefixes += libraryPrefixes().value(library.toLower());
    const bool halfIsVariable = declaresVariableNamed(tokens, QStringLiteral("half"));

    for (int i = 0; i < tokens.size(); ++i) {
        const Token &token = tokens[i];
        if (token.kind == Token::Kind::String) {
            if (token.text.contains(QLatin1String("/proc/")) ||
                token.text == QLatin1String("/proc"))
                flags.add(QStringLiteral("proc_access"), token.line, token.text.left(40));
            continue;
        }
        if (token.kind != Token::Kind::Identifier)
            continue;
        const QString &name = token.text;
        const QString after = next(i);
        const QString before = previous(i);
        const bool member = before == QLatin1String(".") || before == QLatin1String("->");
        if (after == QLatin1String("(") && callFlag.contains(name) && !member)
            flags.add(callFlag.value(name), token.line, name);
        if (name == QLatin1String("thread_local") || name == QLatin1String("__thread"))
            flags.add(QStringLiteral("static_state"), token.line, name);
        if (name == QLatin1String("detach") && member && after == QLatin1String("("))
            flags.add(QStringLiteral("threads_detached"), token.line, QStringLiteral("detach()"));
        if (name == QLatin1String("constructor") || name == QLatin1String("__constructor__")) {
            if (before == QLatin1String("(") || before == QLatin1String(","))
                flags.add(QStringLiteral("load_time_code"), token.line);
        }
        if (name == QLatin1String("asm") || name == QLatin1String("__asm__") ||
            name == QLatin1String("__asm")) {
            flags.add(QStringLiteral("inline_asm"), token.line);
            // System calls and the cycle counter straight from assembly.
            for (int k = i + 1; k < qMin(i + 12, int(tokens.size())); ++k) {
                const QString text = tokens[k].text;
                if (tokens[k].kind == Token::Kind::String &&
                    (text.contains(QLatin1String("syscall")) ||
                     text.contains(QLatin1String("sysenter")) ||
                     text.contains(QLatin1String("int $0x80")) ||
                     text.contains(QLatin1String("int 0x80")) ||
                     text.contains(QLatin1String("svc"))))
                    flags.add(QStringLiteral("raw_system_calls"), tokens[k].line,
                              QStringLiteral("asm"));
            }
        }
        if (fp32Task) {
            static const QSet<QString> halfTypes = {
                QStringLiteral("_Float16"),  QStringLiteral("__fp16"),
                QStringLiteral("__bf16"),    QStringLiteral("bfloat16"),
                QStringLiteral("__half"),    QStringLiteral("__nv_bfloat16"),
                QStringLiteral("float16_t"), QStringLiteral("bfloat16_t"),
                QStringLiteral("__m128bh"),  QStringLiteral("__m256bh"),
                QStringLiteral("__m512bh"),  QStringLiteral("__m512h"),
                QStringLiteral("__m256h"),   QStringLiteral("__m128h")};
            // "half" only where it is used as a type: followed by a name or a pointer, and never
            // when the candidate has a variable of that name (then `half * rows` multiplies).
            const bool halfAsType =
                name == QLatin1String("half") && !halfIsVariable &&
                (after == QLatin1String("*") || (!after.isEmpty() && isIdentifierStart(after[0])));
            const bool conversion = name.startsWith(QLatin1String("_mm")) &&
                                    (name.contains(QLatin1String("cvtps_ph")) ||
                                     name.contains(QLatin1String("cvtneps_pbh")) ||
                                     name.contains(QLatin1String("_ph")));
            // CUDA: "half" is judged by screenCudaTokens (kernels name variables "half").
            if (halfTypes.contains(name) || (halfAsType && !cuda) || conversion)
                flags.add(QStringLiteral("precision_downgrade"), token.line, name);
        }
        for (const QString &prefix : forbiddenPrefixes) {
            if (name.startsWith(prefix) ||
                (prefix.endsWith(QLatin1Char('_')) && name == prefix.chopped(1)))
                flags.add(QStringLiteral("forbidden_library"), token.line, name);
        }
    }

    QSet<QString> forbidden;
    for (const QString &library : task.forbiddenLibraries)
        forbidden.insert(library.toLower());
    if (cuda)
        screenCudaTokens(tokens, forbidden, fp32Task, identifierLines, flags);
    // A raw source (NVRTC) is screened as written; a #line there would mislead the compiler's
    // diagnostics and any later preprocessed screen.
    if (!isPreprocessed(preprocessed)) {
        for (int line : lineDirectiveLines(preprocessed))
            flags.add(QStringLiteral("line_directive"), line);
    }

    if (symbols.valid) {
        if (cuda)
            screenCudaSymbols(task, symbols, forbidden, identifierLines, flags);
        for (const QString &import : symbols.undefined) {
            const QList<int> lines = identifierLines.value(plainName(import));
            const QString flag = callFlag.value(import);
            // nvcc replaces every __device__ function's host body with a call to exit(): the
            // import alone is no finding, a call in the candidate's own code is.
            if (cuda && import == QLatin1String("exit") && lines.isEmpty())
                continue;
            if (!flag.isEmpty() && import != QLatin1String("terminate"))
                flags.add(flag, lines, import);
            for (const auto &[id, prefix] : importPrefixes()) {
                if (import.startsWith(QLatin1String(prefix)))
                    flags.add(QString::fromLatin1(id), lines, import);
            }
            if (startsWithAny(import, forbiddenPrefixes))
                flags.add(QStringLiteral("forbidden_library"), lines, import);
        }
        QStringList definitions = symbols.defined;
        for (const QString &weak : symbols.weakDefined) {
            if (timerSymbols().contains(weak))
                definitions.append(weak);
        }
        for (const QString &symbol : definitions) {
            if (symbol == task.entry || (cuda && isCudaApiName(symbol)))
                continue; // CUDA runtime names: screenCudaSymbols
            const QList<int> lines = identifierLines.value(plainName(symbol));
            if (timerSymbols().contains(symbol)) {
                flags.add(QStringLiteral("timer_tampering"), lines, symbol);
                continue;
            }
            bool runtime = startsWithAny(symbol, runtimePrefixes());
            // Anything the engine's own runtime (libc, libm, libstdc++) exports would be
            // interposed for the candidate's code.
            runtime = runtime || ::dlsym(RTLD_DEFAULT, symbol.toLatin1().constData()) != nullptr;
            if (runtime)
                flags.add(QStringLiteral("symbol_interposition"), lines, symbol);
        }
        for (const QString &object : symbols.mutableObjects) {
            // Guard variables of local statics and <iostream>'s initialiser are not state.
            if (object.startsWith(QLatin1String("_ZGV")) ||
                object.startsWith(QLatin1String("_ZStL")) ||
                object.startsWith(QLatin1String("DW.ref.")) ||
                (cuda && isGeneratedCudaObject(object)))
                continue;
            flags.add(QStringLiteral("static_state"),
                      identifierLines.value(plainName(object)).mid(0, 1), plainName(object));
        }
    }
    return flags.flags();
}

} // namespace kiln
