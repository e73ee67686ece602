#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstddef>
#include <cmath>
#include <cfloat>
#include <climits>
#include <algorithm>
#include <limits>
#include <type_traits>
#include <utility>
#include <c10/util/Half.h>
#include <c10/util/BFloat16.h>
#include <ATen/core/TensorAccessor.h>
namespace torch { using namespace at; }

namespace kiln_anonymous_1 {
constexpr int kBlock = 256;
template <typename scalar_t>
__global__ void __launch_bounds__(kBlock) leaky_relu_kernel(const scalar_t* __restrict__ x,
                                                            scalar_t* __restrict__ y,
                                                            scalar_t slope, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const scalar_t v = x[i];
        y[i] = v > scalar_t(0) ? v : v * slope;
    }
}
template <typename scalar_t> void* kiln_kernel_leaky_relu_kernel() { return reinterpret_cast<void*>(&leaky_relu_kernel<scalar_t>); }
} using namespace kiln_anonymous_1;
template void* kiln_anonymous_1::kiln_kernel_leaky_relu_kernel<float>();
template void* kiln_anonymous_1::kiln_kernel_leaky_relu_kernel<double>();
template void* kiln_anonymous_1::kiln_kernel_leaky_relu_kernel<c10::Half>();
