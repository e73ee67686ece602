# expect: task=kb1_003_small_matmul verdict=flagged flag=forbidden_library
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

matmul_source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cublas_v2.h>

torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    auto A_c = A.contiguous();
    auto B_c = B.contiguous();
    const int M = A_c.size(0), K = A_c.size(1), N = B_c.size(1);
    auto C = torch::empty({M, N}, A_c.options());
    const float alpha = 1.0f, beta = 0.0f;
    cublasHandle_t handle = at::cuda::getCurrentCUDABlasHandle();
    // Row-major C = A B is column-major C^T = B^T A^T.
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B_c.data_ptr<float>(), N,
                A_c.data_ptr<float>(), K, &beta, C.data_ptr<float>(), N);
    return C;
}
"""

matmul_ext = load_inline(
    name="kb_matmul_cublas",
    cpp_sources="torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B);",
    cuda_sources=matmul_source,
    functions=["matmul_cuda"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.matmul = matmul_ext

    def forward(self, A, B):
        return self.matmul.matmul_cuda(A, B)
