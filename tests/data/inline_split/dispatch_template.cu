// expect: split
// A templated kernel launched inside AT_DISPATCH_FLOATING_TYPES_AND_HALF, in an anonymous
// namespace: the device part instantiates it for float, double and c10::Half.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

namespace {
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
}  // namespace

torch::Tensor leaky_relu(torch::Tensor x, double slope) {
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    const int grid = (int)((n + kBlock - 1) / kBlock);
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "leaky_relu", ([&] {
        leaky_relu_kernel<scalar_t><<<grid, kBlock, 0, at::cuda::getCurrentCUDAStream()>>>(
            x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), (scalar_t)slope, n);
    }));
    return y;
}
