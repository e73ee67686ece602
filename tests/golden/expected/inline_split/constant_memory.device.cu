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

#include <cuda_runtime.h>
#define TAPS 7
__constant__ float taps[TAPS];
void* kiln_symbol_taps() { return reinterpret_cast<void*>(&taps); }
__host__ __device__ inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
__global__ void conv1d_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
#pragma unroll
    for (int t = 0; t < TAPS; ++t) acc += taps[t] * x[clamp_index(i + t - TAPS / 2, n)];
    y[i] = acc;
}
 void* kiln_kernel_conv1d_kernel() { return reinterpret_cast<void*>(&conv1d_kernel); }
