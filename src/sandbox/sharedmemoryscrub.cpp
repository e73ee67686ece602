#include "sharedmemoryscrub.h"

#include "nvrtccompile.h"

#include <string>

namespace kiln::sandbox {

namespace {

// volatile: stores that nothing in the kernel reads again must not be dropped.
constexpr const char *kSource = R"(
extern "C" __global__ void kiln_clear_shared(unsigned words)
{
    extern __shared__ unsigned shared[];
    volatile unsigned *words_ = shared;
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x)
        words_[i] = 0u;
}
)";

} // namespace

cudaError_t SharedMemoryScrub::prepare(int device)
{
    int major = 0, minor = 0, optIn = 0, sms = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    const NvrtcOutput built =
        compileToCubin(kSource, "scrub.cu",
                       {"--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor)});
    if (!built.ok)
        return cudaErrorInvalidSource;
    cudaError_t error = cudaLibraryLoadData(&m_library, built.cubin.data(), nullptr, nullptr, 0,
                                            nullptr, nullptr, 0);
    if (error == cudaSuccess)
        error = cudaLibraryGetKernel(&m_kernel, m_library, "kiln_clear_shared");
    if (error == cudaSuccess)
        error = cudaDeviceGetAttribute(&optIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (error == cudaSuccess)
        error = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const void *kernel = reinterpret_cast<const void *>(m_kernel);
    if (error == cudaSuccess)
        error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optIn);
    if (error == cudaSuccess)
        error = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
    m_bytesPerBlock = unsigned(optIn);
    m_multiprocessors = unsigned(sms);
    return error;
}

cudaError_t SharedMemoryScrub::run(cudaStream_t stream)
{
    unsigned words = m_bytesPerBlock / 4;
    void *parameters[] = {&words};
    return cudaLaunchKernel(reinterpret_cast<const void *>(m_kernel), dim3(2 * m_multiprocessors),
                            dim3(1024), parameters, m_bytesPerBlock, stream);
}

} // namespace kiln::sandbox
