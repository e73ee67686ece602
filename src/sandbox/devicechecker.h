#pragma once

// The GPU checker's device work (protocol.h, "checker ops"), in the baseline's kiln-cuda-sandbox,
// which never loads candidate code: fresh inputs drawn from the run's tables, the candidate's
// buffers reached through CUDA IPC (written with the inputs, cleared, compared with the
// reference's answers, counted), all on the device, so only the statistics a verdict needs
// cross back. The harness kernels are compiled with NVRTC when the checker starts, from the same
// texts the engine's host code uses (freshvalues.h, elementcheck.h).

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::sandbox {

class DeviceChecker
{
public:
    // One comparison or count, answered when the batch ends.
    struct Pending
    {
        enum class Kind
        {
            Compare,
            Count
        } kind = Kind::Count;
        int result = 0;                    // index into the result buffer
        const unsigned int *got = nullptr; // for the values at the first mismatch
        const unsigned int *expected = nullptr;
        bool integer = false;
    };

    DeviceChecker(int device, cudaStream_t stream, int multiprocessors);
    ~DeviceChecker();

    // The harness kernels (NVRTC) and the result buffers; empty, or why not. Called while the
    // process starts, before anything confines it.
    std::string prepare();
    // The harness kernels' source compiled for `architecture` (sm_90 ...); empty, or why not.
    // Needs no device: --compile-only --checker checks it where there is no GPU.
    static std::string compile(const std::string &architecture, std::vector<char> *cubin);

    // import <handle-hex> <bytes> | import - : the candidate's device mirror, or none.
    std::string importRegion(const std::string &handleHex, std::uint64_t bytes);
    char *remote() const { return m_remote; }
    std::uint64_t remoteSize() const { return m_remoteSize; }
    bool insideRemote(std::uint64_t offset, std::uint64_t bytes) const
    {
        return m_remote && offset <= m_remoteSize && bytes <= m_remoteSize - offset;
    }

    // Before a batch's first check: zeroed results.
    void beginBatch();
    cudaError_t fresh(unsigned int *out, std::uint64_t words, const unsigned int *table,
                      unsigned bits, std::uint64_t key);
    cudaError_t absolute(const void *in, void *out, std::uint64_t words, bool integers);
    cudaError_t set(unsigned int *out, std::uint64_t words, unsigned int word);
    // Words of `at` that differ from `word` (against == null) or from `against`.
    cudaError_t count(const unsigned int *at, const unsigned int *against, unsigned int word,
                      std::uint64_t words);
    cudaError_t compare(const unsigned int *got, const unsigned int *expected,
                        const unsigned int *scale, std::uint64_t words, bool integer, double tolAbs,
                        double tolRel, double tolScaled);
    // After the stream is synchronised: one reply word per check, in order.
    std::string collect(cudaError_t &error);

private:
    cudaError_t launch(cudaKernel_t kernel, std::uint64_t words, void **args);
    int takeResult(cudaError_t &error);

    int m_device;
    cudaStream_t m_stream;
    int m_multiprocessors;
    cudaLibrary_t m_library = nullptr;
    cudaKernel_t m_fresh = nullptr, m_absF32 = nullptr, m_absI32 = nullptr;
    cudaKernel_t m_set = nullptr, m_count = nullptr, m_compare = nullptr;
    bool m_ready = false;
    char *m_remote = nullptr;
    std::uint64_t m_remoteSize = 0;
    unsigned long long *m_results = nullptr;     // device: kResultWords per check
    unsigned long long *m_hostResults = nullptr; // pinned
    std::vector<Pending> m_pending;
    static constexpr int kResultWords = 6;
    static constexpr int kMaxChecks = 256;
};

} // namespace kiln::sandbox
