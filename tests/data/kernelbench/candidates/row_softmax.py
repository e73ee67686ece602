# expect: task=kb1_002_row_softmax verdict=pass
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# One block per row: block-wide max, then the sum of exp(x - max), then the write.
# Subtracting the row max keeps exp() from overflowing; all accumulation is in float.
row_softmax_source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

constexpr int kThreads = 256;

template <bool IsMax>
__device__ float block_reduce(float v, float* shared) {
    for (int offset = 16; offset > 0; offset /= 2) {
        const float other = __shfl_down_sync(0xffffffff, v, offset);
        v = IsMax ? fmaxf(v, other) : v + other;
    }
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    const float identity = IsMax ? -INFINITY : 0.0f;
    v = (threadIdx.x < blockDim.x / 32) ? shared[lane] : identity;
    if (warp == 0) {
        for (int offset = 16; offset > 0; offset /= 2) {
            const float other = __shfl_down_sync(0xffffffff, v, offset);
            v = IsMax ? fmaxf(v, other) : v + other;
        }
        if (lane == 0) shared[0] = v;
    }
    __syncthreads();
    v = shared[0];
    __syncthreads();
    return v;
}

__global__ void row_softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    __shared__ float shared[32];
    const float* in = x + (int64_t)blockIdx.x * cols;
    float* out = y + (int64_t)blockIdx.x * cols;

    float row_max = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) row_max = fmaxf(row_max, in[c]);
    row_max = block_reduce<true>(row_max, shared);

    float row_sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) row_sum += expf(in[c] - row_max);
    row_sum = block_reduce<false>(row_sum, shared);

    const float inv = 1.0f / row_sum;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(in[c] - row_max) * inv;
}

torch::Tensor row_softmax_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 2 && x.scalar_type() == torch::kFloat32, "x must be 2-D float32");
    auto x_c = x.contiguous();
    auto y = torch::empty_like(x_c);
    const int rows = (int)x_c.size(0);
    const int cols = (int)x_c.size(1);
    if (rows == 0 || cols == 0) return y;
    row_softmax_kernel<<<rows, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x_c.data_ptr<float>(), y.data_ptr<float>(), cols);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

row_softmax_cpp_source = "torch::Tensor row_softmax_cuda(torch::Tensor x);"

row_softmax = load_inline(
    name="kb_row_softmax",
    cpp_sources=row_softmax_cpp_source,
    cuda_sources=row_softmax_source,
    functions=["row_softmax_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.row_softmax = row_softmax

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.row_softmax.row_softmax_cuda(x)
