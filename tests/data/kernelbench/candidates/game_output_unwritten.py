# expect: task=kb1_002_row_softmax verdict=wrong flag=output_unwritten
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void softmax_kernel(const float* x, float* y, int cols) {
    extern __shared__ float red[];
    const float* in = x + (int64_t)blockIdx.x * cols;
    float* out = y + (int64_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(in[c] - m);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    sum = red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(in[c] - m) / sum;
}

void softmax_into(torch::Tensor x, torch::Tensor out) {
    TORCH_CHECK(x.is_cuda() && out.is_cuda(), "x and out must be CUDA tensors");
    auto x_c = x.contiguous();
    out = torch::empty_like(x_c);  // rebinds the local handle: the caller's tensor is never written
    const int threads = 256;
    softmax_kernel<<<x_c.size(0), threads, threads * sizeof(float), at::cuda::getCurrentCUDAStream()>>>(
        x_c.data_ptr<float>(), out.data_ptr<float>(), x_c.size(1));
}
"""


softmax_ext = load_inline(
    name="kb_softmax_unwritten",
    cpp_sources="void softmax_into(torch::Tensor x, torch::Tensor out);",
    cuda_sources=softmax_source,
    functions=["softmax_into"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax = softmax_ext

    def forward(self, x):
        out = torch.empty_like(x)
        self.softmax.softmax_into(x, out)
        return out
