// expect: task=softmax verdict=pass
// One block per row. A single pass keeps a running (maximum, sum of exp) pair per thread; the
// pairs are merged by warp shuffles and then across warps through shared memory; a second pass
// writes exp(x - max) / sum.
#include <cuda_runtime.h>
#include <math.h>

constexpr int kThreads = 256;

struct MaxSum
{
    float max;
    float sum;
};

__device__ MaxSum merge(MaxSum a, MaxSum b)
{
    if (a.max == -INFINITY)
        return b;
    if (b.max == -INFINITY)
        return a;
    const float m = fmaxf(a.max, b.max);
    return {m, a.sum * expf(a.max - m) + b.sum * expf(b.max - m)};
}

__device__ MaxSum warp_merge(MaxSum value)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        MaxSum other;
        other.max = __shfl_xor_sync(0xffffffffu, value.max, offset);
        other.sum = __shfl_xor_sync(0xffffffffu, value.sum, offset);
        value = merge(value, other);
    }
    return value;
}

__global__ void softmax_online_kernel(const float *x, float *y, int cols)
{
    __shared__ MaxSum warpParts[kThreads / 32];
    const float *in = x + static_cast<long long>(blockIdx.x) * cols;
    float *out = y + static_cast<long long>(blockIdx.x) * cols;

    MaxSum local = {-INFINITY, 0.0f};
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = in[c];
        if (v > local.max) {
            local.sum = local.sum * expf(local.max - v) + 1.0f;
            local.max = v;
        } else {
            local.sum += expf(v - local.max);
        }
    }
    local = warp_merge(local);
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    if (lane == 0)
        warpParts[warp] = local;
    __syncthreads();
    MaxSum row = warpParts[0];
    for (int w = 1; w < kThreads / 32; ++w)
        row = merge(row, warpParts[w]);

    const float inverse = 1.0f / row.sum;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = expf(in[c] - row.max) * inverse;
}

extern "C" void softmax(const float *x, float *y, int rows, int cols, cudaStream_t stream)
{
    softmax_online_kernel<<<rows, kThreads, 0, stream>>>(x, y, cols);
}
