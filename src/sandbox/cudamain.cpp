// kiln-cuda-sandbox: the persistent process that runs untrusted CUDA candidates on one GPU for
// the engine (protocol.h, "CUDA sandbox"). Qt-free: it links the CUDA runtime (shared, so a
// candidate's object imports the same runtime and shares this context) and NVRTC. It returns
// raw event times, wall-clock times and outputs copied back into the shared buffer; every
// conclusion is drawn by the engine.

#include "channel.h"
#include "devicechecker.h"
#include "harnessclock.h"
#include "isolation.h"
#include "nvrtccompile.h"
#include "protocol.h"
#include "sharedmemoryscrub.h"

#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace kiln::sandbox {
namespace {

using Clock = std::chrono::steady_clock;
using CudaShim = void (*)(void *const *, const long long *, const double *, cudaStream_t);

struct LaunchArguments : ArgumentSet
{
    // NVRTC kernels are launched here: parameter kinds in signature order (P pointer, I int32,
    // F float32) and the launch geometry the engine computed for this shape.
    std::string signature;
    dim3 grid{1, 1, 1};
    dim3 block{1, 1, 1};
    unsigned sharedBytes = 0;
};

// One loaded entry: a shared object from nvcc (host launch code) or an NVRTC cubin.
struct Slot
{
    void *library = nullptr; // dlopen handle
    CudaShim shim = nullptr;
    cudaLibrary_t cubin = nullptr;
    cudaKernel_t kernel = nullptr;
    bool loaded() const { return shim || kernel; }
};

long long nanoseconds(Clock::duration d)
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

std::string oneLine(std::string text)
{
    for (char &c : text)
        if (c == '\n' || c == '\r')
            c = ' ';
    return text;
}

// A sticky error (illegal address, launch failure after a trap) poisons the context for good:
// the engine must restart the sandbox. cudaGetLastError clears only non-sticky ones.
bool isSticky(cudaError_t error)
{
    if (error == cudaSuccess)
        return false;
    cudaGetLastError();
    return cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess;
}

std::string describe(cudaError_t error)
{
    const bool sticky = isSticky(error);
    return "cuda " + std::to_string(int(error)) + " " + (sticky ? "1 " : "0 ") +
           cudaGetErrorName(error) + " " + cudaGetErrorString(error);
}

class CudaSandbox
{
public:
    CudaSandbox(int device, int bufferFd, bool launcher)
        : m_device(device), m_bufferFd(bufferFd), m_launcher(launcher)
    {
    }

    // Device memory that cudaMalloc is likely to hand out next, filled with the poison and freed.
    cudaError_t poisonHeap()
    {
        constexpr std::size_t kBytes = 256u << 20;
        void *heap = nullptr;
        cudaError_t error = cudaMalloc(&heap, kBytes);
        if (error == cudaErrorMemoryAllocation) {
            cudaGetLastError(); // a full device: nothing to poison, and no sticky error
            return cudaSuccess;
        }
        if (error == cudaSuccess)
            error = cudaMemsetAsync(heap, kPoisonFills[0], kBytes, m_stream);
        if (error == cudaSuccess)
            error = cudaStreamSynchronize(m_stream);
        if (heap)
            cudaFree(heap);
        return error;
    }

    // Context, stream, events and flush buffer; before Landlock confines the device files.
    std::string initialise()
    {
        cudaError_t error = cudaSetDevice(m_device);
        if (error == cudaSuccess)
            error = cudaFree(nullptr);
        if (error == cudaSuccess)
            error = cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking);
        if (error == cudaSuccess)
            error = cudaEventCreate(&m_start);
        if (error == cudaSuccess)
            error = cudaEventCreate(&m_stop);
        int l2 = 0;
        if (error == cudaSuccess)
            error = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, m_device);
        // At least twice the L2 (verifier.md), rounded up to whole MiB.
        m_flushBytes = ((2ull * std::uint64_t(l2) + (1u << 20) - 1) >> 20) << 20;
        if (m_flushBytes < (8u << 20))
            m_flushBytes = 8u << 20;
        if (error == cudaSuccess)
            error = cudaMalloc(&m_flush, m_flushBytes);
        // The stream-ordered allocator (cudaMallocAsync, which candidates may use for scratch)
        // sets itself up on first use; do it now, before Landlock and seccomp confine the
        // process.
        // Both allocators' first memory holds the poison, not the zeros of fresh pages: a
        // candidate whose result depends on scratch it never wrote shows (protocol.h).
        // The pool keeps what is freed into it: with the default threshold of 0 it handed its
        // memory back at the next synchronisation, so the poison was gone and every scratch
        // came fresh and zeroed again (game_uninitialized_scratch.cu passed on an H100).
        // The launcher runs no host code, so nothing in it allocates: no pool, no freed heap
        // left mapped in a device-only candidate's reach.
        if (error == cudaSuccess)
            error = m_launcher ? prepareScrub() : poisonAllocators();
        if (error == cudaSuccess)
            error = cudaStreamSynchronize(m_stream);
        if (error != cudaSuccess)
            return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
        cudaDeviceProp props{};
        cudaGetDeviceProperties(&props, m_device);
        // The checker's kernels are compiled on first use: a candidates' sandbox never needs
        // them, and starts sooner without.
        m_checker = std::make_unique<DeviceChecker>(m_device, m_stream, props.multiProcessorCount);
        m_description = "device=" + std::to_string(m_device) +
                        " cc=" + std::to_string(props.major) + std::to_string(props.minor) +
                        " l2=" + std::to_string(l2) + " flush=" + std::to_string(m_flushBytes);
        return {};
    }

    cudaError_t poisonAllocators()
    {
        cudaMemPool_t pool = nullptr;
        cudaError_t error = cudaDeviceGetDefaultMemPool(&pool, m_device);
        std::uint64_t keep = UINT64_MAX;
        if (error == cudaSuccess)
            error = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
        void *scratch = nullptr;
        if (error == cudaSuccess)
            error = cudaMallocAsync(&scratch, 64u << 20, m_stream);
        if (error == cudaSuccess)
            error = cudaMemsetAsync(scratch, kPoisonFills[0], 64u << 20, m_stream);
        if (error == cudaSuccess)
            error = cudaFreeAsync(scratch, m_stream);
        if (error == cudaSuccess)
            error = poisonHeap();
        return error;
    }

    cudaError_t prepareScrub()
    {
        const cudaError_t error = m_sharedScrub.prepare(m_device);
        return error == cudaSuccess ? m_sharedScrub.run(m_stream) : error;
    }

    const std::string &description() const { return m_description; }
    std::string prepareChecker() { return m_checker->prepare(); }

    void serve()
    {
        serveRequests([this](const std::vector<std::string> &words) {
            const std::string &command = words[0];
            if (command == "nvrtc")
                compileWithNvrtc(words);
            else if (command == "load" && m_launcher)
                reply("err the launcher runs no host code");
            else if (command == "load")
                loadSharedObject(words);
            else if (command == "loadcubin")
                loadCubin(words);
            else if (command == "kernels")
                kernelAttributes(words);
            else if (command == "unload")
                unload(words);
            else if (command == "scrub" && m_launcher)
                scrub();
            else if (command == "map")
                map();
            else if (command == "alloc")
                allocate(words);
            else if (command == "args")
                storeArguments(words, m_deviceSize, m_arguments);
            else if (command == "dims")
                storeGeometry(words);
            else if (command == "batch")
                batch(words);
            else if (command == "export")
                exportMirror();
            else if (command == "import")
                importMirror(words);
            else if (command == "bandwidth")
                bandwidth(words);
            else if (command == "probe")
                probe(words);
            else
                return false;
            return true;
        });
    }

    // Maps the shared (host) buffer; quiet at startup, answering when the engine asks.
    void map(bool answer = true)
    {
        // Pinned while mapped, so the copies to and from the device run at full speed.
        if (m_base && m_checker)
            cudaHostUnregister(m_base);
        const bool mapped = mapSharedBuffer(m_bufferFd, m_base, m_size);
        if (mapped && m_checker &&
            cudaHostRegister(m_base, m_size, cudaHostRegisterDefault) != cudaSuccess)
            cudaGetLastError(); // pageable copies still work
        if (answer)
            reply(mapped ? "ok " + std::to_string(m_size) : std::string("err no buffer"));
    }

private:
    Slot &slot(const std::string &name)
    {
        if (name == "r")
            return m_reference;
        if (name == "b")
            return m_library;
        return m_candidate;
    }

    static void release(Slot &slot)
    {
        if (slot.cubin)
            cudaLibraryUnload(slot.cubin);
        if (slot.library)
            ::dlclose(slot.library);
        slot = Slot{};
    }

    // nvrtc <arch> <source> <cubin-out> <log-out> [include-dir] -> "ok <0|1> <ms>" (1: error)
    void compileWithNvrtc(const std::vector<std::string> &words)
    {
        if (words.size() < 5) {
            reply("err usage: nvrtc ARCH SOURCE CUBIN LOG");
            return;
        }
        std::ifstream in(words[2]);
        const std::string source((std::istreambuf_iterator<char>(in)),
                                 std::istreambuf_iterator<char>());
        const auto start = Clock::now();
        std::vector<std::string> options{"--gpu-architecture=" + words[1], "--std=c++17",
                                         "-default-device", "--extra-device-vectorization"};
        if (words.size() > 5)
            options.push_back("--include-path=" + words[5]);
        const NvrtcOutput built = compileToCubin(source, "cand.cu", options);
        if (!built.created) {
            reply("err nvrtc could not create a program");
            return;
        }
        std::ofstream(words[4]) << built.log;
        bool ok = built.ok;
        if (ok) {
            std::ofstream out(words[3], std::ios::binary);
            out.write(built.cubin.data(), std::streamsize(built.cubin.size()));
            ok = bool(out);
        }
        reply("ok " + std::string(ok ? "0 " : "1 ") +
              std::to_string(nanoseconds(Clock::now() - start) / 1e6));
    }

    // load c|r|b <symbol> <path.so>
    void loadSharedObject(const std::vector<std::string> &words)
    {
        if (words.size() < 4) {
            reply("err usage: load c|r|b SYMBOL PATH");
            return;
        }
        Slot &target = slot(words[1]);
        release(target);
        void *handle = ::dlopen(words[3].c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char *error = ::dlerror();
            reply("err " + oneLine(error ? error : "dlopen failed"));
            return;
        }
        void *symbol = ::dlsym(handle, words[2].c_str());
        if (!symbol) {
            ::dlclose(handle);
            reply("err missing symbol " + words[2]);
            return;
        }
        target.library = handle;
        target.shim = reinterpret_cast<CudaShim>(symbol);
        // Static initialisers may have launched work or failed: report it now.
        const cudaError_t error = cudaDeviceSynchronize();
        reply(error == cudaSuccess ? "ok" : "err " + describe(error));
    }

    // loadcubin c|r <kernel-name> <path.cubin> [<global>...]: the named module variables (those
    // with no initial value) start as zeros, as in a fresh context, whatever memory a module
    // unloaded before left there.
    void loadCubin(const std::vector<std::string> &words)
    {
        if (words.size() < 4) {
            reply("err usage: loadcubin c|r KERNEL PATH [GLOBAL...]");
            return;
        }
        Slot &target = slot(words[1]);
        release(target);
        std::ifstream in(words[3], std::ios::binary);
        const std::vector<char> image((std::istreambuf_iterator<char>(in)),
                                      std::istreambuf_iterator<char>());
        cudaError_t error = image.empty()
                                ? cudaErrorInvalidValue
                                : cudaLibraryLoadData(&target.cubin, image.data(), nullptr, nullptr,
                                                      0, nullptr, nullptr, 0);
        if (error == cudaSuccess)
            error = cudaLibraryGetKernel(&target.kernel, target.cubin, words[2].c_str());
        if (error != cudaSuccess) {
            release(target);
            reply("err cannot load the kernel " + words[2] + ": " + cudaGetErrorName(error));
            return;
        }
        error = zeroGlobals(target, words);
        reply(error == cudaSuccess ? "ok" : "err " + describe(error));
    }

    cudaError_t zeroGlobals(Slot &target, const std::vector<std::string> &words)
    {
        for (std::size_t w = 4; w < words.size(); ++w) {
            void *address = nullptr;
            std::size_t bytes = 0;
            // A name the library does not export by that name (a static the compiler renamed)
            // cannot be reached by it either: nothing to zero.
            if (cudaLibraryGetGlobal(&address, &bytes, target.cubin, words[w].c_str()) !=
                cudaSuccess) {
                cudaGetLastError();
                continue;
            }
            const cudaError_t error = cudaMemsetAsync(address, 0, bytes, m_stream);
            if (error != cudaSuccess)
                return error;
        }
        return cudaStreamSynchronize(m_stream);
    }

    // kernels c|r -> "ok name:registers:shared:local:max-threads ..." (NVRTC slots)
    void kernelAttributes(const std::vector<std::string> &words)
    {
        Slot &target = slot(words.size() > 1 ? words[1] : "c");
        if (!target.cubin) {
            reply("err no cubin in this slot");
            return;
        }
        unsigned count = 0;
        cudaLibraryGetKernelCount(&count, target.cubin);
        std::vector<cudaKernel_t> kernels(count);
        if (count)
            cudaLibraryEnumerateKernels(kernels.data(), count, target.cubin);
        std::string text = "ok";
        for (cudaKernel_t kernel : kernels) {
            cudaFuncAttributes attributes{};
            if (cudaFuncGetAttributes(&attributes, reinterpret_cast<const void *>(kernel)) !=
                cudaSuccess)
                continue;
            const char *name = nullptr;
            if (cudaFuncGetName(&name, reinterpret_cast<const void *>(kernel)) != cudaSuccess ||
                !name)
                name = "?";
            text += " " + std::string(name) + ":" + std::to_string(attributes.numRegs) + ":" +
                    std::to_string(attributes.sharedSizeBytes) + ":" +
                    std::to_string(attributes.localSizeBytes) + ":" +
                    std::to_string(attributes.maxThreadsPerBlock);
        }
        reply(text);
    }

    // unload c -> drops the candidate between evaluations; "ok <threads>"
    void unload(const std::vector<std::string> &words)
    {
        release(slot(words.size() > 1 ? words[1] : "c"));
        const cudaError_t error = cudaDeviceSynchronize();
        if (error != cudaSuccess) {
            reply("err " + describe(error));
            return;
        }
        reply("ok " + std::to_string(countThreads()));
    }

    // scrub (launcher): after a device-only candidate, nothing its kernels wrote stays where the
    // next candidate's kernels could read it. A kernel still running holds the synchronisation
    // until it ends or the engine's watchdog ends this process (the candidate's timeout).
    void scrub()
    {
        const auto start = Clock::now();
        release(m_candidate);
        cudaError_t error = cudaDeviceSynchronize();
        if (error == cudaSuccess && m_device_base)
            error = cudaMemsetAsync(m_device_base, 0, m_deviceSize, m_stream);
        if (error == cudaSuccess)
            error = cudaMemsetAsync(m_flush, 0, m_flushBytes, m_stream);
        if (error == cudaSuccess)
            error = m_sharedScrub.run(m_stream);
        if (error == cudaSuccess)
            error = resetPersistingL2();
        if (error == cudaSuccess)
            error = cudaStreamSynchronize(m_stream);
        // The sentinel's source is rebuilt from the host pattern at the next fill.
        if (m_sentinel)
            cudaFree(m_sentinel);
        m_sentinel = nullptr;
        m_sentinelBytes = 0;
        if (error != cudaSuccess) {
            reply("err " + describe(error));
            return;
        }
        reply("ok " + std::to_string(countThreads()) + " " +
              std::to_string(nanoseconds(Clock::now() - start) / 1e6));
    }

    // alloc <bytes>: the device mirror of the shared buffer (same offsets), zeroed.
    void allocate(const std::vector<std::string> &words)
    {
        const std::uint64_t bytes =
            words.size() > 1 ? std::strtoull(words[1].c_str(), nullptr, 10) : 0;
        if (bytes > m_deviceSize) {
            if (m_device_base)
                cudaFree(m_device_base);
            m_device_base = nullptr;
            m_deviceSize = 0;
            const cudaError_t error = cudaMalloc(&m_device_base, bytes);
            if (error != cudaSuccess) {
                reply("err " + describe(error));
                return;
            }
            m_deviceSize = bytes;
        }
        cudaMemsetAsync(m_device_base, 0, m_deviceSize, m_stream);
        const cudaError_t error = cudaStreamSynchronize(m_stream);
        reply(error == cudaSuccess ? "ok " + std::to_string(m_deviceSize)
                                   : "err " + describe(error));
    }

    // export -> "ok <hex>": the CUDA IPC handle of the device mirror, for the GPU checker.
    void exportMirror()
    {
        cudaIpcMemHandle_t handle{};
        const cudaError_t error =
            m_device_base ? cudaIpcGetMemHandle(&handle, m_device_base) : cudaErrorInvalidValue;
        if (error != cudaSuccess) {
            reply("err " + describe(error));
            return;
        }
        std::string hex;
        char digits[3];
        for (const char byte : handle.reserved) {
            std::snprintf(digits, sizeof digits, "%02x",
                          unsigned(static_cast<unsigned char>(byte)));
            hex += digits;
        }
        reply("ok " + hex);
    }

    // import <hex> <bytes> | import -: the checker reaches a candidates' sandbox's mirror.
    void importMirror(const std::vector<std::string> &words)
    {
        const std::string failed = m_checker->importRegion(
            words.size() > 1 ? words[1] : "-",
            words.size() > 2 ? std::strtoull(words[2].c_str(), nullptr, 10) : 0);
        reply(failed.empty() ? std::string("ok") : "err " + failed);
    }

    // dims <args-id> <signature> gx gy gz bx by bz shared
    void storeGeometry(const std::vector<std::string> &words)
    {
        const std::size_t id =
            words.size() > 1 ? std::strtoull(words[1].c_str(), nullptr, 10) : ~std::size_t(0);
        if (words.size() < 10 || id >= m_arguments.size()) {
            reply("err usage: dims ID SIGNATURE GX GY GZ BX BY BZ SHARED");
            return;
        }
        auto number = [&](int k) { return unsigned(std::strtoul(words[k].c_str(), nullptr, 10)); };
        LaunchArguments &set = m_arguments[id];
        set.signature = words[2];
        set.grid = dim3(number(3), number(4), number(5));
        set.block = dim3(number(6), number(7), number(8));
        set.sharedBytes = number(9);
        reply("ok");
    }

    bool insideHost(std::uint64_t offset, std::uint64_t bytes) const
    {
        return offset <= m_size && bytes <= m_size - offset;
    }
    bool insideDevice(std::uint64_t offset, std::uint64_t bytes) const
    {
        return offset <= m_deviceSize && bytes <= m_deviceSize - offset;
    }

    cudaError_t fillSentinel(std::uint64_t offset, std::uint64_t bytes)
    {
        if (bytes > m_sentinelBytes) {
            if (m_sentinel)
                cudaFree(m_sentinel);
            std::vector<std::uint32_t> pattern(bytes / 4 + 1, kSentinelWord);
            cudaError_t error = cudaMalloc(&m_sentinel, pattern.size() * 4);
            if (error == cudaSuccess)
                error = cudaMemcpy(m_sentinel, pattern.data(), pattern.size() * 4,
                                   cudaMemcpyHostToDevice);
            if (error != cudaSuccess) {
                m_sentinel = nullptr;
                m_sentinelBytes = 0;
                return error;
            }
            m_sentinelBytes = pattern.size() * 4;
        }
        return cudaMemcpyAsync(m_device_base + offset, m_sentinel, bytes & ~3ull,
                               cudaMemcpyDeviceToDevice, m_stream);
    }

    // Before every timed call: no persisting lines or access window survive a candidate, and
    // the L2 holds the flush buffer's lines, not the inputs.
    cudaError_t resetPersistingL2()
    {
        cudaStreamAttrValue window{};
        window.accessPolicyWindow.num_bytes = 0;
        cudaStreamSetAttribute(m_stream, cudaStreamAttributeAccessPolicyWindow, &window);
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
        cudaCtxResetPersistingL2Cache();
        return cudaGetLastError();
    }

    cudaError_t flushL2()
    {
        resetPersistingL2();
        ++m_flushRound;
        return cudaMemsetAsync(m_flush, int(m_flushRound & 0xff), m_flushBytes, m_stream);
    }

    cudaError_t launch(Slot &target, LaunchArguments *set)
    {
        void *pointers[16] = {};
        const long long *ints = nullptr;
        const double *reals = nullptr;
        if (set) {
            for (std::size_t i = 0; i < set->offsets.size() && i < 16; ++i)
                pointers[i] = m_device_base + set->offsets[i];
            ints = set->ints.data();
            reals = set->reals.data();
        }
        if (!set)
            return cudaSuccess; // the empty call: events around nothing
        if (target.shim) {
            target.shim(pointers, ints, reals, m_stream);
            return cudaGetLastError();
        }
        // NVRTC kernel: parameters in signature order from the three arrays.
        int ints32[16] = {};
        float reals32[16] = {};
        void *parameters[48] = {};
        std::size_t p = 0, n = 0, r = 0, k = 0;
        for (char kind : set->signature) {
            if (k >= 48)
                break;
            if (kind == 'P' && p < 16)
                parameters[k++] = &pointers[p++];
            else if (kind == 'I' && n < set->ints.size() && n < 16) {
                ints32[n] = int(set->ints[n]);
                parameters[k++] = &ints32[n++];
            } else if (kind == 'F' && r < set->reals.size() && r < 16) {
                reals32[r] = float(set->reals[r]);
                parameters[k++] = &reals32[r++];
            }
        }
        return cudaLaunchKernel(reinterpret_cast<const void *>(target.kernel), set->grid,
                                set->block, parameters, set->sharedBytes, m_stream);
    }

    // One timed call: "<event-ns>/<wall-ns>/<tail-ns>". event: between two events on the
    // harness stream; wall: from before the call until the whole device is idle; tail: how
    // long the device stayed busy after the harness stream's stop event completed (work on
    // other streams).
    std::string timedCall(Slot *target, LaunchArguments *set, cudaError_t &error)
    {
        const std::int64_t t0 = harnessNowNs();
        error = cudaEventRecord(m_start, m_stream);
        if (error == cudaSuccess && target)
            error = launch(*target, set);
        if (error == cudaSuccess)
            error = cudaEventRecord(m_stop, m_stream);
        if (error == cudaSuccess)
            error = cudaEventSynchronize(m_stop);
        const std::int64_t t1 = harnessNowNs();
        if (error == cudaSuccess)
            error = cudaDeviceSynchronize();
        const std::int64_t t2 = harnessNowNs();
        if (error != cudaSuccess)
            return {};
        float ms = 0.0f;
        error = cudaEventElapsedTime(&ms, m_start, m_stop);
        return std::to_string(static_cast<long long>(double(ms) * 1e6)) + "/" +
               std::to_string(t2 - t0) + "/" + std::to_string(t2 - t1);
    }

    using Op = std::vector<std::string>;
    static std::uint64_t field(const Op &op, std::size_t k)
    {
        return std::strtoull(op[k].c_str(), nullptr, 10);
    }
    unsigned int *local(std::uint64_t offset) const
    {
        return reinterpret_cast<unsigned int *>(m_device_base + offset);
    }
    unsigned int *remote(std::uint64_t offset) const
    {
        return reinterpret_cast<unsigned int *>(m_checker->remote() + offset);
    }

    // Untimed preparation inside this process: copies, sentinel fills, fresh draws, |x|.
    // Returns false for an op it does not know; *failure for one outside the buffers.
    bool stagingOp(const Op &op, cudaError_t &error, std::string &failure)
    {
        if ((op[0] == "h2d" || op[0] == "d2h") && op.size() == 3) {
            const std::uint64_t offset = field(op, 1), bytes = field(op, 2);
            if (!insideHost(offset, bytes) || !insideDevice(offset, bytes))
                failure = "copy outside the buffers";
            else if (op[0] == "h2d")
                error = cudaMemcpyAsync(m_device_base + offset, m_base + offset, bytes,
                                        cudaMemcpyHostToDevice, m_stream);
            else
                error = cudaMemcpyAsync(m_base + offset, m_device_base + offset, bytes,
                                        cudaMemcpyDeviceToHost, m_stream);
        } else if (op[0] == "cp" && op.size() == 4) {
            const std::uint64_t src = field(op, 1), dst = field(op, 2), bytes = field(op, 3);
            if (!insideDevice(src, bytes) || !insideDevice(dst, bytes))
                failure = "copy outside the device buffer";
            else
                error = cudaMemcpyAsync(m_device_base + dst, m_device_base + src, bytes,
                                        cudaMemcpyDeviceToDevice, m_stream);
        } else if (op[0] == "fill" && op.size() == 3) {
            if (!insideDevice(field(op, 1), field(op, 2)))
                failure = "fill outside the device buffer";
            else
                error = fillSentinel(field(op, 1), field(op, 2));
        } else if (op[0] == "fresh" && op.size() == 6) {
            const std::uint64_t dst = field(op, 1), bytes = field(op, 2), table = field(op, 3);
            const unsigned bits = unsigned(field(op, 4));
            if (bits < 1 || bits > 24 || !insideDevice(dst, bytes) ||
                !insideDevice(table, (std::uint64_t(4) << bits)))
                failure = "fresh values outside the device buffer";
            else
                error = m_checker->fresh(local(dst), bytes / 4, local(table), bits, field(op, 5));
        } else if (op[0] == "abs" && op.size() == 5) {
            const std::uint64_t src = field(op, 1), dst = field(op, 2), bytes = field(op, 3);
            if (!insideDevice(src, bytes) || !insideDevice(dst, bytes))
                failure = "abs outside the device buffer";
            else
                error = m_checker->absolute(local(src), local(dst), bytes / 4, op[4] == "i");
        } else {
            return false;
        }
        return true;
    }

    // The checker's ops on the imported mirror of a candidates' sandbox (r = remote offset,
    // l = offset here): put:l:r:bytes, rset:r:bytes:word, rcount:r:bytes:word,
    // same:r:l:bytes, cmp:r:l:scale-l|-:bytes:f|i:abs:rel:scaled. Counts and comparisons
    // answer when the batch ends ("n,count,first" / "m,mismatches,first,got,expected,
    // max-abs,max-rel,unwritten,non-finite").
    bool checkerOp(const Op &op, cudaError_t &error, std::string &failure)
    {
        const std::string &name = op[0];
        if (name == "put" && op.size() == 4) {
            const std::uint64_t src = field(op, 1), dst = field(op, 2), bytes = field(op, 3);
            if (!insideDevice(src, bytes) || !m_checker->insideRemote(dst, bytes))
                failure = "put outside the buffers";
            else
                error = cudaMemcpyAsync(remote(dst), local(src), bytes, cudaMemcpyDeviceToDevice,
                                        m_stream);
        } else if ((name == "rset" || name == "rcount") && op.size() == 4) {
            const std::uint64_t at = field(op, 1), bytes = field(op, 2);
            const unsigned word = unsigned(field(op, 3));
            if (!m_checker->insideRemote(at, bytes))
                failure = name + " outside the imported buffer";
            else if (name == "rset")
                error = m_checker->set(remote(at), bytes / 4, word);
            else
                error = m_checker->count(remote(at), nullptr, word, bytes / 4);
        } else if (name == "same" && op.size() == 4) {
            const std::uint64_t at = field(op, 1), against = field(op, 2), bytes = field(op, 3);
            if (!m_checker->insideRemote(at, bytes) || !insideDevice(against, bytes))
                failure = "same outside the buffers";
            else
                error = m_checker->count(remote(at), local(against), 0, bytes / 4);
        } else if (name == "cmp" && op.size() == 9) {
            const std::uint64_t at = field(op, 1), expected = field(op, 2), bytes = field(op, 4);
            const bool scaled = op[3] != "-";
            if (!m_checker->insideRemote(at, bytes) || !insideDevice(expected, bytes) ||
                (scaled && !insideDevice(field(op, 3), bytes)))
                failure = "cmp outside the buffers";
            else
                error = m_checker->compare(
                    remote(at), local(expected), scaled ? local(field(op, 3)) : nullptr, bytes / 4,
                    op[5] == "i", std::strtod(op[6].c_str(), nullptr),
                    std::strtod(op[7].c_str(), nullptr), std::strtod(op[8].c_str(), nullptr));
        } else {
            return false;
        }
        return true;
    }

    // A flush right before a timed call is still running on the device when the call's start
    // event and launch are enqueued behind it: the window then opens as the kernel can start,
    // not while the host is still launching it (which added 7-11 us to every median against
    // Nsight Compute on the H200).
    bool timedOp(const Op &op, bool afterFlush, bool &flushInFlight, std::string &times,
                 cudaError_t &error, std::string &failure)
    {
        if (op[0] == "flush") {
            // The preparation (copies, fills) ends first, so only the flush is in flight.
            error = cudaStreamSynchronize(m_stream);
            if (error == cudaSuccess)
                error = flushL2();
            flushInFlight = error == cudaSuccess;
        } else if (op[0] == "sync") {
            error = cudaDeviceSynchronize();
        } else if (op[0] == "nop") {
            // Events around nothing: the timer's own overhead.
            if (!afterFlush)
                error = cudaStreamSynchronize(m_stream);
            times += ' ' + timedCall(nullptr, nullptr, error);
        } else if (op[0] == "call" && op.size() == 3) {
            Slot &target = slot(op[1]);
            const std::size_t id = field(op, 2);
            if (!target.loaded() || id >= m_arguments.size()) {
                failure = "call before load or with unknown arguments";
                return true;
            }
            // Preparation is outside the window: stream order after a flush, else a wait.
            if (!afterFlush)
                error = cudaStreamSynchronize(m_stream);
            if (error == cudaSuccess)
                times += ' ' + timedCall(&target, &m_arguments[id], error);
        } else {
            return false;
        }
        return true;
    }

    void batch(const std::vector<std::string> &words)
    {
        if (!m_checker) {
            reply("err no device in this sandbox");
            return;
        }
        std::string times;
        bool flushInFlight = false;
        m_checker->beginBatch();
        for (std::size_t w = 1; w < words.size(); ++w) {
            const Op op = splitFields(words[w]);
            const bool afterFlush = flushInFlight;
            flushInFlight = false;
            cudaError_t error = cudaSuccess;
            std::string failure;
            const bool known = stagingOp(op, error, failure) || checkerOp(op, error, failure) ||
                               timedOp(op, afterFlush, flushInFlight, times, error, failure);
            if (!known || !failure.empty()) {
                reply("err " + (known ? failure : "bad batch op " + words[w]));
                return;
            }
            if (error != cudaSuccess) {
                reply("err " + describe(error) + " during " + op[0]);
                return;
            }
        }
        cudaError_t error = cudaStreamSynchronize(m_stream);
        if (error == cudaSuccess)
            times += m_checker->collect(error);
        if (error != cudaSuccess) {
            reply("err " + describe(error) + " during the batch");
            return;
        }
        reply("ok " + std::to_string(countThreads()) + times);
    }

    // bandwidth <bytes> <repeats>: best device-to-device copy rate, bytes read + written per
    // second (the roofline's achievable bandwidth).
    void bandwidth(const std::vector<std::string> &words)
    {
        const std::uint64_t bytes =
            words.size() > 1 ? std::strtoull(words[1].c_str(), nullptr, 10) : (256u << 20);
        const int repeats = words.size() > 2 ? std::atoi(words[2].c_str()) : 10;
        char *a = nullptr, *b = nullptr;
        cudaError_t error = cudaMalloc(&a, bytes);
        if (error == cudaSuccess)
            error = cudaMalloc(&b, bytes);
        double best = 0.0;
        for (int i = 0; i < repeats + 1 && error == cudaSuccess; ++i) {
            cudaEventRecord(m_start, m_stream);
            cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, m_stream);
            cudaEventRecord(m_stop, m_stream);
            error = cudaEventSynchronize(m_stop);
            float ms = 0.0f;
            cudaEventElapsedTime(&ms, m_start, m_stop);
            if (i > 0 && ms > 0.0f)
                best = std::max(best, 2.0 * double(bytes) / (double(ms) / 1e3));
        }
        cudaFree(a);
        cudaFree(b);
        reply(error == cudaSuccess ? "ok " + std::to_string(best) : "err " + describe(error));
    }

    void probe(const std::vector<std::string> &words) { reply(probeOtherThreads(words)); }

    int m_device;
    int m_bufferFd;
    bool m_launcher;
    SharedMemoryScrub m_sharedScrub; // the launcher's
    std::string m_description;
    cudaStream_t m_stream = nullptr;
    std::unique_ptr<DeviceChecker> m_checker;
    cudaEvent_t m_start = nullptr;
    cudaEvent_t m_stop = nullptr;
    char *m_flush = nullptr;
    std::uint64_t m_flushBytes = 0;
    unsigned m_flushRound = 0;
    char *m_sentinel = nullptr;
    std::uint64_t m_sentinelBytes = 0;
    char *m_base = nullptr;
    std::uint64_t m_size = 0;
    char *m_device_base = nullptr;
    std::uint64_t m_deviceSize = 0;
    std::vector<LaunchArguments> m_arguments;
    Slot m_candidate, m_reference, m_library;
};

// As nvidia-smi prints it: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, lower-case hex.
std::string uuidText(const cudaUUID_t &uuid)
{
    std::string text = "GPU";
    for (int i = 0; i < 16; ++i) {
        char hex[4];
        std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
        if (i == 0 || i == 4 || i == 6 || i == 8 || i == 10)
            text += '-';
        text += hex;
    }
    return text;
}

// --probe: the versions line, then per visible device a "device" and a "uuid" line, or why
// there is none. Runs no candidate code. A driver version of 0 means no driver is installed.
int probeDevices()
{
    int runtimeVersion = 0, driverVersion = 0, nvrtcMajor = 0, nvrtcMinor = 0;
    cudaRuntimeGetVersion(&runtimeVersion);
    cudaDriverGetVersion(&driverVersion);
    nvrtcVersion(&nvrtcMajor, &nvrtcMinor);
    std::printf("versions %d %d %d.%d\n", runtimeVersion, driverVersion, nvrtcMajor, nvrtcMinor);
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        std::printf("error %s: %s\n", cudaGetErrorName(error), cudaGetErrorString(error));
        return 0;
    }
    if (count == 0)
        std::printf("error no CUDA device is visible\n");
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess)
            continue;
        int clockKhz = 0, memoryClockKhz = 0, busWidth = 0;
        cudaDeviceGetAttribute(&clockKhz, cudaDevAttrClockRate, i);
        cudaDeviceGetAttribute(&memoryClockKhz, cudaDevAttrMemoryClockRate, i);
        cudaDeviceGetAttribute(&busWidth, cudaDevAttrGlobalMemoryBusWidth, i);
        std::printf("device %d %d %d %d %d %zu %d %d %d %s\n", i, p.major, p.minor,
                    p.multiProcessorCount, p.l2CacheSize, p.totalGlobalMem, clockKhz,
                    memoryClockKhz, busWidth, p.name);
        // The same GPU whatever CUDA_VISIBLE_DEVICES says: the engine names its lock and finds
        // it in NVML by this.
        std::printf("uuid %d %s\n", i, uuidText(p.uuid).c_str());
    }
    return 0;
}

bool hasFlag(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return true;
    return false;
}

// --private-network -- PROGRAM ARGS: PROGRAM (Nsight Compute) in a network namespace of its
// own with loopback up; the profiled sandbox it starts shares it and reaches nothing else. The
// protocol descriptors pass through the exec.
int execInPrivateNetwork(int argc, char **argv)
{
    int program = 1;
    while (program < argc && std::strcmp(argv[program], "--") != 0)
        ++program;
    ++program;
    if (program >= argc) {
        std::fprintf(stderr, "kiln-cuda-sandbox: --private-network -- PROGRAM [ARGS] expected\n");
        return kExitSetupFailed;
    }
    std::string error;
    if (!enterPrivateNetwork(error)) {
        std::fprintf(stderr, "kiln-cuda-sandbox: %s\n", error.c_str());
        return kExitSetupFailed;
    }
    // The protocol's descriptors (0-3) pass on; nothing else of the engine's does (one by one
    // on a kernel without close_range).
    if (::syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
        for (int fd = 4; fd < 65536; ++fd)
            ::close(fd);
    ::execv(argv[program], argv + program);
    std::fprintf(stderr, "kiln-cuda-sandbox: cannot run %s: %s\n", argv[program],
                 std::strerror(errno));
    return kExitSetupFailed;
}

// The environment a confined sandbox starts with. A profiled one (--profiled) keeps what it was
// given, for the profiler's injection variables: the engine starts the profiler with an
// environment of these same few variables, never its own.
void scrubEnvironment(const char *workDir, bool keep)
{
    const char *visible = std::getenv("CUDA_VISIBLE_DEVICES");
    const std::string visibleDevices = visible ? visible : "";
    if (!keep) {
        ::clearenv();
        ::setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 1);
        ::setenv("LANG", "C", 1);
        if (!visibleDevices.empty())
            ::setenv("CUDA_VISIBLE_DEVICES", visibleDevices.c_str(), 1);
    }
    ::setenv("HOME", workDir, 1);
    ::setenv("TMPDIR", workDir, 1);
    ::setenv("CUDA_CACHE_DISABLE", "1", 1);
}

} // namespace
} // namespace kiln::sandbox

int main(int argc, char **argv)
{
    using namespace kiln::sandbox;
    if (hasFlag(argc, argv, "--probe"))
        return probeDevices();
    if (argc > 1 && std::strcmp(argv[1], "--private-network") == 0)
        return execInPrivateNetwork(argc, argv);

    const char *workDir = textOption(argc, argv, "--workdir");
    if (!workDir || ::chdir(workDir) != 0) {
        std::fprintf(stderr, "kiln-cuda-sandbox: --workdir DIR is required and must exist\n");
        return kExitSetupFailed;
    }
    const int device = int(numberOption(argc, argv, "--device", 0));
    // --profiling (benchmarks of trusted kernels under Nsight Compute): environment kept, no
    // namespaces, Landlock or seccomp, which would cut the profiler's injection and IPC.
    const bool profiling = hasFlag(argc, argv, "--profiling");
    // --profiled (a candidate under Nsight Compute, kiln-cli profile): confined as always, but
    // in the profiler's private network namespace (entered by --private-network, so none of
    // its own), with the environment and descriptors the profiler's injection was given, and
    // TCP sockets (its injection reports over loopback).
    const bool profiled = hasFlag(argc, argv, "--profiled");
    // Sockets only where nothing but the profiler can be reached, and never unconfined.
    if (profiled && (profiling || !onlyLoopback() || !inUserNamespace())) {
        std::fprintf(stderr, "kiln-cuda-sandbox: --profiled runs only alone, in the private "
                             "user and network namespace of --private-network\n");
        return kExitSetupFailed;
    }
    // A profiler's injection (loaded before main) keeps its descriptors.
    const int bufferFd = takeProtocolDescriptors(!profiling && !profiled);
    if (bufferFd == -1) {
        std::fprintf(stderr, "kiln-cuda-sandbox: protocol descriptors missing\n");
        return kExitSetupFailed;
    }
    const bool userNamespace =
        !profiling && !profiled && numberOption(argc, argv, "--userns", 1) != 0;
    if (!profiling)
        scrubEnvironment(workDir, profiled);
    ::umask(077);

    IsolationReport report;
    // Namespaces while single-threaded; the driver opens its device files before Landlock.
    if (userNamespace)
        isolateNamespaces(report);
    report.userNamespace = report.userNamespace || profiled; // --private-network's, checked
    report.networkNamespace = report.networkNamespace || profiled;
    endWithTheEngine();
    installCrashReporting();
    // --launcher: the persistent process of device-only candidates (no host code is loaded).
    const bool launcher = hasFlag(argc, argv, "--launcher");
    CudaSandbox sandbox(device, bufferFd, launcher);
    // --compile-only: NVRTC without a device (tests and machines without a GPU compile too).
    const bool compileOnly = hasFlag(argc, argv, "--compile-only");
    // --checker: the GPU checker (the baseline's process), which never loads candidate code. It
    // maps candidates' buffers through CUDA IPC, which opens driver files after start-up, so it
    // is not confined by Landlock and seccomp; it keeps the namespaces and the limits.
    const bool checker = hasFlag(argc, argv, "--checker");
    std::string error = compileOnly ? std::string() : sandbox.initialise();
    if (error.empty() && checker)
        error = compileOnly ? DeviceChecker::compile("sm_90", nullptr) : sandbox.prepareChecker();
    if (!error.empty()) {
        reply("err cuda init: " + error);
        return kExitSetupFailed;
    }
    Limits limits;
    // A persistent sandbox outlives many candidates: the engine's watchdog bounds each request.
    limits.cpuSeconds = int(numberOption(argc, argv, "--cpu-seconds", 3600));
    limits.addressSpaceBytes = 0;
    limits.openFiles = 1024;
    if (!profiling) {
        std::vector<std::string> readable = systemReadablePaths(true);
        // The profiler's own libraries, which its injection may load late.
        if (const char *profiler = textOption(argc, argv, "--readable"); profiled && profiler)
            readable.emplace_back(profiler);
        // Root of its user namespace (and host root where Kiln runs as root): no capability.
        if (profiled)
            dropCapabilities();
        confineAndLimit(workDir, limits, report, !checker, {},
                        checker ? std::vector<std::string>{} : readable, !profiled);
        report.seccomp = !checker && forbidProcessesAndNetwork(false, profiled);
    }
    sandbox.map(false);
    reply("ready " + report.describe() + " seccomp=" + (report.seccomp ? "1 " : "0 ") +
          (profiling ? "PROFILING " : "") + (profiled ? "PROFILED " : "") +
          (checker ? "CHECKER " : "") + (launcher ? "LAUNCHER " : "") + sandbox.description());
    sandbox.serve();
    return 0;
}
