# expect: task=kb2_001_matmul_bias_relu verdict=pass
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# y = relu(x @ W^T + b) in one kernel: a tiled matmul whose epilogue adds the bias and
# clamps at zero. The weights stay in an nn.Linear built exactly like the reference's,
# so the same seed gives the same parameters.
linear_relu_source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#define TILE 16

__global__ void linear_bias_relu_kernel(const float* __restrict__ X, const float* __restrict__ W,
                                        const float* __restrict__ bias, float* __restrict__ Y,
                                        int batch, int in_features, int out_features) {
    __shared__ float Xs[TILE][TILE];
    __shared__ float Ws[TILE][TILE + 1];
    const int row = blockIdx.y * TILE + threadIdx.y;      // batch index
    const int col = blockIdx.x * TILE + threadIdx.x;      // output feature
    const int w_row = blockIdx.x * TILE + threadIdx.y;    // feature this thread stages
    float acc = 0.0f;
    for (int t = 0; t < in_features; t += TILE) {
        const int k = t + threadIdx.x;
        Xs[threadIdx.y][threadIdx.x] =
            (row < batch && k < in_features) ? X[(int64_t)row * in_features + k] : 0.0f;
        Ws[threadIdx.y][threadIdx.x] =
            (w_row < out_features && k < in_features) ? W[(int64_t)w_row * in_features + k] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE; ++kk) acc += Xs[threadIdx.y][kk] * Ws[threadIdx.x][kk];
        __syncthreads();
    }
    if (row < batch && col < out_features)
        Y[(int64_t)row * out_features + col] = fmaxf(acc + bias[col], 0.0f);
}

torch::Tensor linear_bias_relu_cuda(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && x.size(1) == weight.size(1),
                "shape mismatch");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    auto x_c = x.contiguous();
    auto w_c = weight.contiguous();
    auto b_c = bias.contiguous();
    const int batch = (int)x_c.size(0);
    const int in_features = (int)x_c.size(1);
    const int out_features = (int)w_c.size(0);
    auto y = torch::empty({batch, out_features}, x_c.options());
    if (batch == 0 || out_features == 0) return y;
    dim3 block(TILE, TILE);
    dim3 grid((out_features + TILE - 1) / TILE, (batch + TILE - 1) / TILE);
    linear_bias_relu_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        x_c.data_ptr<float>(), w_c.data_ptr<float>(), b_c.data_ptr<float>(),
        y.data_ptr<float>(), batch, in_features, out_features);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

linear_relu_cpp_source = (
    "torch::Tensor linear_bias_relu_cuda(torch::Tensor x, torch::Tensor weight, torch::Tensor bias);"
)

linear_relu = load_inline(
    name="kb_linear_bias_relu",
    cpp_sources=linear_relu_cpp_source,
    cuda_sources=linear_relu_source,
    functions=["linear_bias_relu_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.fused = linear_relu

    def forward(self, x):
        return self.fused.linear_bias_relu_cuda(x, self.linear.weight, self.linear.bias)
