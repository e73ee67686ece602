# expect: task=kb1_003_small_matmul verdict=flagged flag=precision_downgrade
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# fp16 inputs halve the memory traffic; the products are accumulated in fp32.
matmul_half_source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_fp16.h>

#define TILE 16

__global__ void matmul_half_kernel(const __half* A, const __half* B, float* C, int M, int N, int K) {
    __shared__ __half As[TILE][TILE];
    __shared__ __half Bs[TILE][TILE];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < M && t + threadIdx.x < K) ? A[row * K + t + threadIdx.x] : __float2half(0.0f);
        Bs[threadIdx.y][threadIdx.x] = (t + threadIdx.y < K && col < N) ? B[(t + threadIdx.y) * N + col] : __float2half(0.0f);
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += __half2float(As[threadIdx.y][k]) * __half2float(Bs[k][threadIdx.x]);
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

torch::Tensor matmul_half_cuda(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    const int M = A.size(0), K = A.size(1), N = B.size(1);
    auto C = torch::empty({M, N}, A.options().dtype(torch::kFloat32));
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_half_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
        reinterpret_cast<const __half*>(A.data_ptr<at::Half>()),
        reinterpret_cast<const __half*>(B.data_ptr<at::Half>()), C.data_ptr<float>(), M, N, K);
    return C;
}
"""

matmul_ext = load_inline(
    name="kb_matmul_half",
    cpp_sources="torch::Tensor matmul_half_cuda(torch::Tensor A, torch::Tensor B);",
    cuda_sources=matmul_half_source,
    functions=["matmul_half_cuda"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.matmul = matmul_ext

    def forward(self, A, B):
        return self.matmul.matmul_half_cuda(A.half().contiguous(), B.half().contiguous())
