// kiln_inline_launch.h: what the CUDA source's host part needs in Kiln's fast inline build
// (kiln_inline_build.py, kiln_inline_split.py): exactly what load_inline puts at the top of its
// cuda.cu (torch/types.h, cuda.h, cuda_runtime.h), what nvcc's pass declares that g++ does not,
// and the launch of a kernel of the device part by its address. Precompiled for that file.
#ifndef KILN_INLINE_LAUNCH_H
#define KILN_INLINE_LAUNCH_H

#include <torch/types.h>

#include <cuda.h>
#include <cuda_runtime.h>

#include <tuple>
#include <type_traits>
#include <utility>

#if !defined(__CUDACC__)
// torch declares it for nvcc only, and load_inline's host code, inside a .cu file, saw it.
namespace at {
template <typename T> struct RestrictPtrTraits
{
    typedef T *__restrict__ PtrType;
};
} // namespace at
#endif

namespace kiln::inline_module {

// A parameter initialised from an argument as a call initialises it (no explicit casts).
template <typename P> std::remove_cv_t<P> implicitly(std::remove_cv_t<P> value)
{
    return value;
}

// kernel<<<grid, block, shared, stream>>>(args...): the arguments converted to the kernel's
// parameter types as a call converts them, then launched by address. A failed launch is left
// for cudaGetLastError, as <<<>>> leaves it.
template <typename Kernel> struct Launch;

template <typename... P> struct Launch<void(P...)>
{
    template <typename... A>
    static void run(void *address, dim3 grid, dim3 block, size_t shared, cudaStream_t stream,
                    A &&...args)
    {
        static_assert(sizeof...(P) == sizeof...(A), "a kernel launched with the wrong arity");
        std::tuple<std::remove_cv_t<P>...> values(implicitly<P>(std::forward<A>(args))...);
        std::apply(
            [&](auto &...value) {
                void *pointers[] = {static_cast<void *>(&value)..., nullptr};
                cudaLaunchKernel(address, grid, block, pointers, shared, stream);
            },
            values);
    }
};

template <typename Kernel, typename... A>
void launch(void *address, dim3 grid, dim3 block, size_t shared, cudaStream_t stream, A &&...args)
{
    Launch<Kernel>::run(address, grid, block, shared, stream, std::forward<A>(args)...);
}

} // namespace kiln::inline_module

#endif // KILN_INLINE_LAUNCH_H
