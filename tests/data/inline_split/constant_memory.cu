// expect: split
// Constant memory written by the host with cudaMemcpyToSymbol, a static kernel launched with
// the default stream, an inline host-and-device helper, a #pragma inside a kernel.
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TAPS 7
__constant__ float taps[TAPS];

__host__ __device__ inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

static __global__ void conv1d_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
#pragma unroll
    for (int t = 0; t < TAPS; ++t) acc += taps[t] * x[clamp_index(i + t - TAPS / 2, n)];
    y[i] = acc;
}

torch::Tensor conv1d(torch::Tensor x, torch::Tensor w) {
    TORCH_CHECK(w.numel() == TAPS, "seven taps");
    auto wc = w.contiguous().cpu();
    cudaMemcpyToSymbol(taps, wc.data_ptr<float>(), TAPS * sizeof(float));
    auto y = torch::empty_like(x);
    const int n = (int)x.numel();
    conv1d_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
