#pragma once

// One NVRTC compilation to a cubin, for every kernel the CUDA sandbox compiles: candidates' (a
// --compile-only process), the GPU checker's harness kernels and the launcher's scrub kernel.

#include <nvrtc.h>

#include <string>
#include <vector>

namespace kiln::sandbox {

struct NvrtcOutput
{
    bool created = false; // NVRTC accepted the program (false: out of memory, no compiler)
    bool ok = false;
    nvrtcResult result = NVRTC_ERROR_INTERNAL_ERROR;
    std::vector<char> cubin; // empty unless ok
    std::string log;         // the compiler's messages, on success too
};

NvrtcOutput compileToCubin(const std::string &source, const char *name,
                           const std::vector<std::string> &options);

} // namespace kiln::sandbox
