#include "devicechecker.h"

#include "elementcheck.h"
#include "freshvalues.h"
#include "nvrtccompile.h"
#include "protocol.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kiln::sandbox {

namespace {

// Grid-stride loops over 32-bit words; results reduced per warp, then one atomic per warp.
const char *kKernels = R"cuda(
#define KILN_LOOP(n) \
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; \
         i < (n); i += (unsigned long long)gridDim.x * blockDim.x)
__device__ __forceinline__ void kilnReduce(unsigned long long *out, unsigned long long bad,
                                           unsigned long long notFirst, unsigned long long unwritten,
                                           unsigned long long nonFinite, double absError,
                                           double relError)
{
    for (int o = 16; o > 0; o >>= 1) {
        bad += __shfl_xor_sync(0xffffffffu, bad, o);
        unwritten += __shfl_xor_sync(0xffffffffu, unwritten, o);
        nonFinite += __shfl_xor_sync(0xffffffffu, nonFinite, o);
        const unsigned long long f = __shfl_xor_sync(0xffffffffu, notFirst, o);
        notFirst = f > notFirst ? f : notFirst;
        absError = fmax(absError, __shfl_xor_sync(0xffffffffu, absError, o));
        relError = fmax(relError, __shfl_xor_sync(0xffffffffu, relError, o));
    }
    if ((threadIdx.x & 31) != 0)
        return;
    if (bad) atomicAdd(&out[0], bad);
    if (notFirst) atomicMax(&out[1], notFirst);
    if (unwritten) atomicAdd(&out[2], unwritten);
    if (nonFinite) atomicAdd(&out[3], nonFinite);
    if (absError > 0) atomicMax(&out[4], (unsigned long long)__double_as_longlong(absError));
    if (relError > 0) atomicMax(&out[5], (unsigned long long)__double_as_longlong(relError));
}
extern "C" __global__ void kiln_fresh(unsigned int *out, unsigned long long n,
                                      const unsigned int *table, unsigned int bits,
                                      unsigned long long key)
{
    KILN_LOOP(n) out[i] = table[kilnFreshIndex(key, i, bits)];
}
extern "C" __global__ void kiln_abs_f32(const float *in, float *out, unsigned long long n)
{
    KILN_LOOP(n) out[i] = fabsf(in[i]);
}
extern "C" __global__ void kiln_abs_i32(const int *in, int *out, unsigned long long n)
{
    KILN_LOOP(n) out[i] = in[i] < 0 ? -in[i] : in[i];
}
extern "C" __global__ void kiln_set(unsigned int *out, unsigned long long n, unsigned int word)
{
    KILN_LOOP(n) out[i] = word;
}
extern "C" __global__ void kiln_count(const unsigned int *at, const unsigned int *against,
                                      unsigned int word, unsigned long long n,
                                      unsigned long long *out)
{
    unsigned long long bad = 0, notFirst = 0;
    KILN_LOOP(n)
    {
        if (at[i] != (against ? against[i] : word)) {
            ++bad;
            notFirst = ~i > notFirst ? ~i : notFirst;
        }
    }
    kilnReduce(out, bad, notFirst, 0, 0, 0.0, 0.0);
}
extern "C" __global__ void kiln_compare(const unsigned int *got, const unsigned int *expected,
                                        const unsigned int *scale, int integer,
                                        unsigned int sentinel, double tolAbs, double tolRel,
                                        double tolScaled, unsigned long long n,
                                        unsigned long long *out)
{
    unsigned long long bad = 0, notFirst = 0, unwritten = 0, nonFinite = 0;
    double absError = 0.0, relError = 0.0;
    KILN_LOOP(n)
    {
        const KilnElementVerdict v =
            kilnCheckElement(got[i], expected[i], scale ? scale[i] : 0u, scale != 0, integer,
                             sentinel, tolAbs, tolRel, tolScaled);
        if (v.bad) {
            ++bad;
            notFirst = ~i > notFirst ? ~i : notFirst;
        }
        unwritten += v.unwritten;
        nonFinite += v.nonFinite;
        absError = fmax(absError, v.absError);
        relError = fmax(relError, v.relError);
    }
    kilnReduce(out, bad, notFirst, unwritten, nonFinite, absError, relError);
}
)cuda";

std::string number(double value)
{
    char text[40];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

std::string index(unsigned long long count, unsigned long long first)
{
    return count ? std::to_string(first) : std::string("-1");
}

double fromBits(unsigned long long bits)
{
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

} // namespace

DeviceChecker::DeviceChecker(int device, cudaStream_t stream, int multiprocessors)
    : m_device(device), m_stream(stream), m_multiprocessors(multiprocessors)
{
}

DeviceChecker::~DeviceChecker()
{
    importRegion("-", 0);
}

std::string DeviceChecker::importRegion(const std::string &handleHex, std::uint64_t bytes)
{
    if (m_remote)
        cudaIpcCloseMemHandle(m_remote);
    m_remote = nullptr;
    m_remoteSize = 0;
    if (handleHex == "-")
        return {};
    cudaIpcMemHandle_t handle{};
    if (handleHex.size() != 2 * sizeof handle.reserved)
        return "a memory handle is " + std::to_string(2 * sizeof handle.reserved) + " hex digits";
    for (std::size_t i = 0; i < sizeof handle.reserved; ++i) {
        char *end = nullptr;
        const std::string digits = handleHex.substr(2 * i, 2);
        handle.reserved[i] = char(std::strtoul(digits.c_str(), &end, 16));
        if (end != digits.c_str() + 2)
            return "a memory handle is hex digits";
    }
    void *mapped = nullptr;
    const cudaError_t error = cudaIpcOpenMemHandle(&mapped, handle, cudaIpcMemLazyEnablePeerAccess);
    if (error != cudaSuccess) {
        cudaGetLastError();
        return std::string("cudaIpcOpenMemHandle: ") + cudaGetErrorName(error);
    }
    m_remote = static_cast<char *>(mapped);
    m_remoteSize = bytes;
    return {};
}

std::string DeviceChecker::compile(const std::string &architecture, std::vector<char> *cubin)
{
    const std::string source =
        std::string(kiln::fresh::kFreshIndexSource) + kiln::check::kElementCheckSource + kKernels;
    NvrtcOutput built =
        compileToCubin(source, "checker.cu", {"--gpu-architecture=" + architecture, "--std=c++17"});
    if (!built.ok) {
        for (char &c : built.log)
            c = c == '\n' ? ' ' : c;
        return "nvrtc could not compile the checker kernels for " + architecture + ": " +
               std::string(nvrtcGetErrorString(built.result)) + " " + built.log.substr(0, 300);
    }
    if (cubin)
        *cubin = std::move(built.cubin);
    return {};
}

std::string DeviceChecker::prepare()
{
    cudaDeviceProp props{};
    cudaGetDeviceProperties(&props, m_device);
    std::vector<char> cubin;
    const std::string failed =
        compile("sm_" + std::to_string(props.major) + std::to_string(props.minor), &cubin);
    if (!failed.empty())
        return failed;
    cudaError_t error =
        cudaLibraryLoadData(&m_library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    const std::pair<cudaKernel_t *, const char *> kernels[] = {
        {&m_fresh, "kiln_fresh"}, {&m_absF32, "kiln_abs_f32"}, {&m_absI32, "kiln_abs_i32"},
        {&m_set, "kiln_set"},     {&m_count, "kiln_count"},    {&m_compare, "kiln_compare"}};
    for (const auto &[kernel, name] : kernels)
        if (error == cudaSuccess)
            error = cudaLibraryGetKernel(kernel, m_library, name);
    if (error == cudaSuccess)
        error = cudaMalloc(&m_results, kMaxChecks * kResultWords * sizeof(unsigned long long));
    if (error == cudaSuccess)
        error =
            cudaMallocHost(&m_hostResults, kMaxChecks * kResultWords * sizeof(unsigned long long));
    if (error != cudaSuccess)
        return std::string("checker kernels: ") + cudaGetErrorName(error);
    m_ready = true;
    return {};
}

cudaError_t DeviceChecker::launch(cudaKernel_t kernel, std::uint64_t words, void **args)
{
    // Enough blocks of 256 threads to fill the device.
    const std::uint64_t wanted = (words + 255) / 256;
    const std::uint64_t most = std::uint64_t(std::max(1, m_multiprocessors)) * 8;
    const dim3 grid(unsigned(std::max<std::uint64_t>(1, std::min(wanted, most))));
    return cudaLaunchKernel(reinterpret_cast<const void *>(kernel), grid, dim3(256), args, 0,
                            m_stream);
}

void DeviceChecker::beginBatch()
{
    m_pending.clear();
}

int DeviceChecker::takeResult(cudaError_t &error)
{
    // Not prepared: this process is a candidates' sandbox, which has no checker ops.
    error = m_ready ? cudaSuccess : cudaErrorNotSupported;
    if (error != cudaSuccess)
        return -1;
    if (m_pending.size() >= std::size_t(kMaxChecks)) {
        error = cudaErrorInvalidValue;
        return -1;
    }
    const int index = int(m_pending.size());
    error = cudaMemsetAsync(m_results + index * kResultWords, 0,
                            kResultWords * sizeof(unsigned long long), m_stream);
    return index;
}

cudaError_t DeviceChecker::fresh(unsigned int *out, std::uint64_t words, const unsigned int *table,
                                 unsigned bits, std::uint64_t key)
{
    if (!m_ready)
        return cudaErrorNotSupported; // a candidates' sandbox has no checker ops
    unsigned long long n = words, k = key;
    void *args[] = {&out, &n, &table, &bits, &k};
    return launch(m_fresh, words, args);
}

cudaError_t DeviceChecker::absolute(const void *in, void *out, std::uint64_t words, bool integers)
{
    if (!m_ready)
        return cudaErrorNotSupported; // a candidates' sandbox has no checker ops
    unsigned long long n = words;
    void *args[] = {&in, &out, &n};
    return launch(integers ? m_absI32 : m_absF32, words, args);
}

cudaError_t DeviceChecker::set(unsigned int *out, std::uint64_t words, unsigned int word)
{
    if (!m_ready)
        return cudaErrorNotSupported; // a candidates' sandbox has no checker ops
    unsigned long long n = words;
    void *args[] = {&out, &n, &word};
    return launch(m_set, words, args);
}

cudaError_t DeviceChecker::count(const unsigned int *at, const unsigned int *against,
                                 unsigned int word, std::uint64_t words)
{
    cudaError_t error = cudaSuccess;
    const int index = takeResult(error);
    if (error != cudaSuccess)
        return error;
    unsigned long long n = words;
    unsigned long long *out = m_results + index * kResultWords;
    void *args[] = {&at, &against, &word, &n, &out};
    m_pending.push_back({Pending::Kind::Count, index, at, against, false});
    return launch(m_count, words, args);
}

cudaError_t DeviceChecker::compare(const unsigned int *got, const unsigned int *expected,
                                   const unsigned int *scale, std::uint64_t words, bool integer,
                                   double tolAbs, double tolRel, double tolScaled)
{
    cudaError_t error = cudaSuccess;
    const int index = takeResult(error);
    if (error != cudaSuccess)
        return error;
    int asInteger = integer ? 1 : 0;
    unsigned int sentinel = kSentinelWord;
    unsigned long long n = words;
    unsigned long long *out = m_results + index * kResultWords;
    void *args[] = {&got,    &expected, &scale,     &asInteger, &sentinel,
                    &tolAbs, &tolRel,   &tolScaled, &n,         &out};
    m_pending.push_back({Pending::Kind::Compare, index, got, expected, integer});
    return launch(m_compare, words, args);
}

std::string DeviceChecker::collect(cudaError_t &error)
{
    error = cudaSuccess;
    std::string words;
    if (m_pending.empty())
        return words;
    error = cudaMemcpy(m_hostResults, m_results,
                       m_pending.size() * kResultWords * sizeof(unsigned long long),
                       cudaMemcpyDeviceToHost);
    for (const Pending &check : m_pending) {
        if (error != cudaSuccess)
            break;
        const unsigned long long *r = m_hostResults + check.result * kResultWords;
        const unsigned long long first = r[0] ? ~r[1] : ~0ull;
        if (check.kind == Pending::Kind::Count) {
            words += " n," + std::to_string(r[0]) + "," + index(r[0], first);
            continue;
        }
        double got = 0.0, expected = 0.0;
        if (r[0]) {
            unsigned int pair[2] = {0, 0};
            error = cudaMemcpy(&pair[0], check.got + first, 4, cudaMemcpyDeviceToHost);
            if (error == cudaSuccess)
                error = cudaMemcpy(&pair[1], check.expected + first, 4, cudaMemcpyDeviceToHost);
            got = kiln::check::kilnWordValue(pair[0], check.integer);
            expected = kiln::check::kilnWordValue(pair[1], check.integer);
        }
        words += " m," + std::to_string(r[0]) + "," + index(r[0], first) + "," + number(got) + "," +
                 number(expected) + "," + number(fromBits(r[4])) + "," + number(fromBits(r[5])) +
                 "," + std::to_string(r[2]) + "," + std::to_string(r[3]);
    }
    m_pending.clear();
    return words;
}

} // namespace kiln::sandbox
