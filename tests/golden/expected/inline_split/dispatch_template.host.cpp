#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
namespace kiln_anonymous_1 {
constexpr int kBlock = 256;
template <typename scalar_t>
 void  kiln_signature_leaky_relu_kernel(const scalar_t* __restrict__ x,
                                                            scalar_t* __restrict__ y,
                                                            scalar_t slope, int64_t n);
template <typename scalar_t> void* kiln_kernel_leaky_relu_kernel();
} using namespace kiln_anonymous_1;
torch::Tensor leaky_relu(torch::Tensor x, double slope) {
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    const int grid = (int)((n + kBlock - 1) / kBlock);
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "leaky_relu", ([&] {
        kiln::inline_module::launch<decltype(kiln_signature_leaky_relu_kernel<scalar_t>)>(kiln_kernel_leaky_relu_kernel<scalar_t>(), grid, kBlock, 0, at::cuda::getCurrentCUDAStream(), x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), (scalar_t)slope, n);
    }));
    return y;
}
