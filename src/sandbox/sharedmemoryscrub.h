#pragma once

// The launcher's shared-memory scrub: a kernel of its own whose blocks each take the most dynamic
// shared memory a block may have, so that one block fills an SM's, and write zeros over all of
// it, in two waves so that every SM runs at least one. Compiled and loaded while the launcher
// starts (NVRTC reads its builtins library, which confinement forbids later).

#include <cuda_runtime.h>

namespace kiln::sandbox {

class SharedMemoryScrub
{
public:
    cudaError_t prepare(int device);
    cudaError_t run(cudaStream_t stream);

private:
    cudaLibrary_t m_library = nullptr;
    cudaKernel_t m_kernel = nullptr;
    unsigned m_bytesPerBlock = 0;
    unsigned m_multiprocessors = 0;
};

} // namespace kiln::sandbox
