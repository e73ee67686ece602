// expect: task=vector_add verdict=pass
// 16-byte loads and stores (the buffers are 256-byte aligned), a grid-stride loop, and a scalar
// tail for the last n % 4 elements.
#include <cuda_runtime.h>

__global__ void vector_add_vec4(const float *a, const float *b, float *c, int n)
{
    const int quads = n / 4;
    const float4 *a4 = reinterpret_cast<const float4 *>(a);
    const float4 *b4 = reinterpret_cast<const float4 *>(b);
    float4 *c4 = reinterpret_cast<float4 *>(c);
    const int stride = gridDim.x * blockDim.x;
    for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += stride) {
        const float4 x = a4[q];
        const float4 y = b4[q];
        c4[q] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    // Tail: at most three elements, handled by the first threads of block 0.
    if (blockIdx.x == 0 && threadIdx.x < n - quads * 4) {
        const int i = quads * 4 + threadIdx.x;
        c[i] = a[i] + b[i];
    }
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    const int threads = 256;
    int blocks = (n / 4 + threads - 1) / threads;
    if (blocks < 1)
        blocks = 1;
    if (blocks > 4096)
        blocks = 4096;
    vector_add_vec4<<<blocks, threads, 0, stream>>>(a, b, c, n);
}
