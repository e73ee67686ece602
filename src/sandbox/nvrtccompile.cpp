#include "nvrtccompile.h"

namespace kiln::sandbox {

NvrtcOutput compileToCubin(const std::string &source, const char *name,
                           const std::vector<std::string> &options)
{
    NvrtcOutput out;
    nvrtcProgram program = nullptr;
    out.result = nvrtcCreateProgram(&program, source.c_str(), name, 0, nullptr, nullptr);
    if (out.result != NVRTC_SUCCESS)
        return out;
    out.created = true;
    std::vector<const char *> arguments;
    for (const std::string &option : options)
        arguments.push_back(option.c_str());
    out.result = nvrtcCompileProgram(program, int(arguments.size()), arguments.data());
    std::size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    out.log.resize(size);
    if (size)
        nvrtcGetProgramLog(program, out.log.data());
    out.log = out.log.c_str(); // without the terminating zero
    if (out.result == NVRTC_SUCCESS && nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS &&
        size > 0) {
        out.cubin.resize(size);
        out.ok = nvrtcGetCUBIN(program, out.cubin.data()) == NVRTC_SUCCESS;
        if (!out.ok)
            out.cubin.clear();
    }
    nvrtcDestroyProgram(&program);
    return out;
}

} // namespace kiln::sandbox
