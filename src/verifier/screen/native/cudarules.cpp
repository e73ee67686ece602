#include "verifier/screen/native/cudarules.h"

#include "verifier/screen/native/asmstatement.h"
#include "verifier/screen/native/symbolnames.h"

#include <QMap>
#include <QRegularExpression>
#include <QStringList>

namespace kiln {

namespace {

// +1 for an opening bracket, -1 for a closing one, 0 for other punctuation.
int bracketStep(const QString &t)
{
    if (t == QLatin1String("(") || t == QLatin1String("[") || t == QLatin1String("{"))
        return 1;
    if (t == QLatin1String(")") || t == QLatin1String("]") || t == QLatin1String("}"))
        return -1;
    return 0;
}

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

// Streams and contexts of the candidate's own: work there is not ordered with the harness's stream.
bool createsStream(const QString &api)
{
    static const QStringList prefixes = {
        QStringLiteral("cudaStreamCreate"), QStringLiteral("cuStreamCreate"),
        QStringLiteral("cuCtxCreate"), QStringLiteral("cuGreenCtx"),
        QStringLiteral("cudaGreenCtx")};
    return SymbolNames::startsWithAny(api, prefixes);
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
    return SymbolNames::startsWithAny(api, prefixes);
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
    // 8-bit integer compute: dot products, packed signed bytes, SIMD byte/halfword intrinsics.
    static const QRegularExpression eightBit(
        QStringLiteral("^(__dp4a|__dp2a_lo|__dp2a_hi|char[24]|make_char[24]|__v[a-z]+[24])$"));
    if (exact.contains(name) || eightBit.match(name).hasMatch())
        return true;
    return SymbolNames::startsWithAny(name, prefixes);
}

// A WMMA fragment<...> (template arguments from token `open`) of integers: int8/int4 tensor
// cores, whose accumulators are int.
bool isIntegerFragment(const CandidateCode &code, int open)
{
    static const QSet<QString> integers = {QStringLiteral("char"), QStringLiteral("int8_t"),
                                           QStringLiteral("uint8_t"), QStringLiteral("int"),
                                           QStringLiteral("int32_t")};
    int depth = 0;
    for (int k = open; k < code.tokens().size() && k < open + 64; ++k) {
        const QString &text = code.text(k);
        depth += text == QLatin1String("<") ? 1 : 0;
        depth -= text == QLatin1String(">") ? 1 : text == QLatin1String(">>") ? 2 : 0;
        if (depth <= 0)
            return false;
        if (integers.contains(text))
            return true;
    }
    return false;
}

// Inline PTX that computes in reduced precision: f16/bf16/tf32/fp8 operands, tensor-core mma,
// integer dot products and conversions to 8- or 4-bit integers (quantisation).
bool isReducedPrecisionPtx(const QString &text)
{
    static const QRegularExpression types(
        QStringLiteral("\\.(f16|f16x2|bf16|bf16x2|tf32|e4m3|e5m2|e4m3x2|e5m2x2)\\b"));
    static const QRegularExpression integer(
        QStringLiteral("\\bdp[24]a\\.|\\bcvt(\\.\\w+)*\\.[su][48]\\.|\\bcvt\\.pack"));
    if (types.match(text).hasMatch() || integer.match(text).hasMatch())
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

// Token ranges [first, last) of the comma-separated arguments between first and last.
QList<QPair<int, int>> splitArguments(const QList<SourceToken> &tokens, int first, int last)
{
    QList<QPair<int, int>> arguments;
    int depth = 0;
    int start = first;
    for (int k = first; k < last; ++k) {
        const QString &t = tokens[k].text;
        if (tokens[k].kind != SourceToken::Kind::Punctuation)
            continue;
        if (const int step = bracketStep(t))
            depth += step;
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
bool isNullStream(const QList<SourceToken> &tokens, QPair<int, int> argument)
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
        if (tokens[k].kind == SourceToken::Kind::Identifier &&
            !constantWords.contains(tokens[k].text))
            return false;
        if (tokens[k].kind == SourceToken::Kind::String)
            return false;
    }
    return true;
}

// The value of an argument that is an integer literal, possibly cast ((cudaStreamAttrID)1);
// -1 otherwise.
qint64 literalValue(const QList<SourceToken> &tokens, QPair<int, int> argument)
{
    qint64 value = -1;
    for (int k = argument.first; k < argument.second; ++k) {
        const SourceToken &token = tokens[k];
        if (token.kind == SourceToken::Kind::Number) {
            bool ok = false;
            const qint64 parsed = token.text.toLongLong(&ok, 0);
            if (!ok || value >= 0)
                return -1;
            value = parsed;
        } else if (token.kind == SourceToken::Kind::String) {
            return -1;
        } else if (token.kind == SourceToken::Kind::Identifier &&
                   !(token.text.endsWith(QLatin1String("ID")) ||
                     token.text == QLatin1String("static_cast") ||
                     token.text == QLatin1String("enum"))) {
            return -1;
        }
    }
    return value;
}

QString joined(const QList<SourceToken> &tokens, QPair<int, int> range)
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

} // namespace

CudaRules::CudaRules(const Task &task, const CandidateCode &code, bool fp32Task)
    : m_task(task), m_code(code), m_fp32Task(fp32Task),
      m_halfIsVariable(code.declaresVariableNamed(QStringLiteral("half"))),
      m_usesCub(code.mentions(QStringLiteral("cub")))
{
    for (const QString &library : task.forbiddenLibraries)
        m_forbidden.insert(library.toLower());
}

bool CudaRules::isCudaApiName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^(cuda[A-Z]|cu[A-Z]|__cuda)"));
    return pattern.match(name).hasMatch();
}

bool CudaRules::isGeneratedCudaObject(const QString &object)
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

void CudaRules::screenTokens(ScreenFlags &flags) const
{
    for (int i = 0; i < m_code.size(); ++i) {
        const SourceToken &token = m_code.token(i);
        if (token.kind == SourceToken::Kind::Punctuation && token.text == QLatin1String("<") &&
            m_code.text(i + 1) == QLatin1String("<") && m_code.text(i + 2) == QLatin1String("<") &&
            m_code.text(i - 1) != QLatin1String("<"))
            screenLaunch(i, flags);
        if (token.kind == SourceToken::Kind::Identifier)
            screenIdentifier(i, flags);
    }
}

// Index of the ">>>" closing the launch whose "<<<" starts at token i, or -1.
int CudaRules::launchClose(int i) const
{
    const QList<SourceToken> &tokens = m_code.tokens();
    int depth = 0;
    for (int k = i + 3; k + 2 < tokens.size(); ++k) {
        const QString &t = tokens[k].text;
        if (tokens[k].kind != SourceToken::Kind::Punctuation)
            continue;
        if (const int step = bracketStep(t))
            depth += step;
        else if (depth == 0 && t == QLatin1String(">") &&
                 m_code.text(k + 1) == QLatin1String(">") &&
                 m_code.text(k + 2) == QLatin1String(">"))
            return k;
    }
    return -1;
}

// kernel<<<grid, block[, shared[, stream]]>>>: the stream must be given and not 0.
void CudaRules::screenLaunch(int i, ScreenFlags &flags) const
{
    const int close = launchClose(i);
    if (close <= 0)
        return;
    const QList<SourceToken> &tokens = m_code.tokens();
    const int line = tokens[i].line;
    const QList<Range> arguments = splitArguments(tokens, i + 3, close);
    if (arguments.size() < 4)
        flags.add(QStringLiteral("legacy_default_stream"), line,
                  QStringLiteral("<<<...>>> without a stream"));
    else if (isNullStream(tokens, arguments[3]))
        flags.add(QStringLiteral("legacy_default_stream"), line,
                  QStringLiteral("<<<...>>> on stream ") + joined(tokens, arguments[3]));
}

void CudaRules::screenIdentifier(int i, ScreenFlags &flags) const
{
    const SourceToken &token = m_code.token(i);
    const QString &name = token.text;
    const QString before = m_code.text(i - 1);
    const QString after = m_code.text(i + 1);
    const bool member = before == QLatin1String(".") || before == QLatin1String("->");
    const QString api = cudaApiName(name);

    if (!member && createsStream(api))
        flags.add(QStringLiteral("stream_creation"), token.line, name);
    if (!member && after == QLatin1String("(") && isSynchronousCopy(api))
        flags.add(QStringLiteral("legacy_default_stream"), token.line, name);
    if (!member && after == QLatin1String("("))
        screenCall(i, api, flags);
    if (!member && loadsCode(api))
        flags.add(QStringLiteral("dynamic_loading"), token.line, name);
    if (isPersistingL2Name(name))
        flags.add(QStringLiteral("persisting_l2"), token.line, name);
    screenLibraries(i, member, flags);
    if (m_fp32Task)
        screenPrecision(i, member, flags);
}

// A call `name(...)` at token i, or the head of a definition of that name.
void CudaRules::screenCall(int i, const QString &api, ScreenFlags &flags) const
{
    const int close = m_code.matchingClose(i + 1);
    if (close <= 0)
        return;
    const SourceToken &token = m_code.token(i);
    const QList<Range> arguments = splitArguments(m_code.tokens(), i + 2, close);
    screenStreamArgument(i, api, arguments, flags);
    // cudaStreamSetAttribute(stream, 1 /* access policy window */, &value)
    if ((api == QLatin1String("cudaStreamSetAttribute") ||
         api == QLatin1String("cuStreamSetAttribute") ||
         api == QLatin1String("cudaGraphKernelNodeSetAttribute") ||
         api == QLatin1String("cuGraphKernelNodeSetAttribute")) &&
        arguments.size() >= 2 && literalValue(m_code.tokens(), arguments[1]) == 1)
        flags.add(QStringLiteral("persisting_l2"), token.line, token.text);
    if (definesRuntimeFunction(i, api, close))
        flags.add(isCudaTimerApi(api) ? QStringLiteral("timer_tampering")
                                      : QStringLiteral("symbol_interposition"),
                  token.line, token.text);
}

void CudaRules::screenStreamArgument(int i, const QString &api, const QList<Range> &arguments,
                                     ScreenFlags &flags) const
{
    const SourceToken &token = m_code.token(i);
    const int index = streamArgument(api, int(arguments.size()));
    if (index >= 0 && index >= arguments.size())
        flags.add(QStringLiteral("legacy_default_stream"), token.line,
                  token.text + QStringLiteral(" without a stream"));
    else if (index >= 0 && isNullStream(m_code.tokens(), arguments[index]))
        flags.add(QStringLiteral("legacy_default_stream"), token.line,
                  token.text + QStringLiteral(" on stream ") +
                      joined(m_code.tokens(), arguments[index]));
}

// A definition of a runtime function: name(...) { ... }, where `close` ends the parameters.
bool CudaRules::definesRuntimeFunction(int i, const QString &api, int close) const
{
    const QList<SourceToken> &tokens = m_code.tokens();
    int body = close + 1;
    while (body < tokens.size() && (m_code.text(body) == QLatin1String("noexcept") ||
                                    m_code.text(body) == QLatin1String("throw") ||
                                    m_code.text(body) == QLatin1String("__attribute__"))) {
        body = m_code.text(body + 1) == QLatin1String("(") ? m_code.matchingClose(body + 1) + 1
                                                           : body + 1;
        if (body <= 0)
            break;
    }
    bool externC = false;
    for (int k = qMax(0, i - 8); k < i; ++k)
        externC = externC || (m_code.text(k) == QLatin1String("extern") &&
                              tokens[k + 1].kind == SourceToken::Kind::String &&
                              tokens[k + 1].text == QLatin1String("C"));
    return body > 0 && m_code.text(body) == QLatin1String("{") && isCudaApiName(tokens[i].text) &&
           m_code.text(i - 1) != QLatin1String("::") && (externC || isCoreCudaApi(api));
}

void CudaRules::screenLibraries(int i, bool member, ScreenFlags &flags) const
{
    const SourceToken &token = m_code.token(i);
    const QString &name = token.text;
    const QString before = m_code.text(i - 1);
    const QString after = m_code.text(i + 1);
    if (!member && isForbiddenCudaLibraryName(name, m_forbidden))
        flags.add(QStringLiteral("forbidden_library"), token.line, name);
    for (auto it = cudaLibraryNamespaces().cbegin(); it != cudaLibraryNamespaces().cend(); ++it) {
        if (m_forbidden.contains(it.key()) && it.value().contains(name) && !member &&
            (after == QLatin1String("::") || before == QLatin1String("namespace") ||
             (before == QLatin1String("=") && after == QLatin1String(";"))))
            flags.add(QStringLiteral("forbidden_library"), token.line, name);
    }
    if (m_forbidden.contains(QStringLiteral("cub_device")) && isCubDeviceName(name) &&
        ((before == QLatin1String("::") && m_code.text(i - 2) == QLatin1String("cub")) ||
         m_usesCub))
        flags.add(QStringLiteral("forbidden_library"), token.line, QStringLiteral("cub::") + name);
}

void CudaRules::screenPrecision(int i, bool member, ScreenFlags &flags) const
{
    const SourceToken &token = m_code.token(i);
    const QString &name = token.text;
    const bool halfType = name == QLatin1String("half") && !member &&
                          (!m_halfIsVariable || m_code.isIdentifier(i + 1));
    const bool tf32 = name == QLatin1String("tf32") && m_code.text(i - 1) == QLatin1String("::");
    // wmma::experimental::precision::s4 / u4 / b1, and fragments of integers.
    const bool subByte = (name == QLatin1String("s4") || name == QLatin1String("u4") ||
                          name == QLatin1String("b1")) &&
                         m_code.text(i - 2) == QLatin1String("precision");
    const bool integerFragment = name == QLatin1String("fragment") &&
                                 m_code.text(i + 1) == QLatin1String("<") &&
                                 isIntegerFragment(m_code, i + 1);
    if (!member && (isReducedPrecisionName(name) || halfType || tf32 || subByte || integerFragment))
        flags.add(QStringLiteral("precision_downgrade"), token.line, name);
    if (m_code.isAsmKeyword(i))
        screenInlinePtx(i, flags);
}

// The strings of an asm statement at token i: PTX that computes in reduced precision.
void CudaRules::screenInlinePtx(int i, ScreenFlags &flags) const
{
    // The template as ptxas reads it: its strings joined ("cvt.rn.f" "16.f32") and decoded.
    const AsmStatement statement(m_code, i);
    if (isReducedPrecisionPtx(statement.text()))
        flags.add(QStringLiteral("precision_downgrade"), statement.lineAt(0),
                  QStringLiteral("PTX ") + statement.text().simplified().left(40));
}

void CudaRules::screenSymbols(const ElfSymbols &symbols, ScreenFlags &flags) const
{
    screenImports(symbols, flags);
    screenDefinitions(symbols, flags);
}

// The lines of a symbol of the host object: under its own name, its plain name or its API name.
QList<int> CudaRules::linesOfSymbol(const QString &symbol) const
{
    for (const QString &candidate : {symbol, SymbolNames::plainName(symbol), cudaApiName(symbol)}) {
        if (m_code.mentions(candidate))
            return m_code.linesOf(candidate);
    }
    return QList<int>();
}

void CudaRules::screenImports(const ElfSymbols &symbols, ScreenFlags &flags) const
{
    for (const QString &import : symbols.undefined) {
        const QString api = cudaApiName(import);
        if (createsStream(api))
            flags.add(QStringLiteral("stream_creation"), linesOfSymbol(import), import);
        if (isSynchronousCopy(api))
            flags.add(QStringLiteral("legacy_default_stream"), linesOfSymbol(import), import);
        if (api == QLatin1String("cudaCtxResetPersistingL2Cache") ||
            api == QLatin1String("cuCtxResetPersistingL2Cache"))
            flags.add(QStringLiteral("persisting_l2"), linesOfSymbol(import), import);
        if (loadsCode(api))
            flags.add(QStringLiteral("dynamic_loading"), linesOfSymbol(import), import);
        if (isForbiddenCudaLibraryName(import, m_forbidden))
            flags.add(QStringLiteral("forbidden_library"), linesOfSymbol(import), import);
    }
}

void CudaRules::screenDefinitions(const ElfSymbols &symbols, ScreenFlags &flags) const
{
    const QStringList definitions = symbols.defined + symbols.weakDefined;
    for (const QString &symbol : definitions) {
        if (symbol == m_task.entry)
            continue;
        if (isCudaApiName(symbol)) {
            const QString api = cudaApiName(symbol);
            flags.add(isCudaTimerApi(api) ? QStringLiteral("timer_tampering")
                                          : QStringLiteral("symbol_interposition"),
                      linesOfSymbol(symbol), symbol);
            continue;
        }
        // Template libraries leave their instantiations in the object.
        const QStringList parts = SymbolNames::mangledParts(symbol);
        if (parts.isEmpty())
            continue;
        for (auto it = cudaLibraryNamespaces().cbegin(); it != cudaLibraryNamespaces().cend();
             ++it) {
            for (const QString &ns : it.value()) {
                if (m_forbidden.contains(it.key()) && parts.contains(ns))
                    flags.add(QStringLiteral("forbidden_library"), linesOfSymbol(ns),
                              ns + QStringLiteral("::"));
            }
        }
        if (m_forbidden.contains(QStringLiteral("cub_device")) &&
            parts.contains(QStringLiteral("cub"))) {
            for (const QString &part : parts) {
                if (isCubDeviceName(part))
                    flags.add(QStringLiteral("forbidden_library"), linesOfSymbol(part),
                              QStringLiteral("cub::") + part);
            }
        }
    }
}

} // namespace kiln
