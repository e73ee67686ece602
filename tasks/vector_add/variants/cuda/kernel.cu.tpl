{{! vector_add, CUDA: c = a + b. Knobs: BLOCK VEC ITEMS GRID LOADS STORES UNROLL }}
// vector_add on CUDA: c[i] = a[i] + b[i], {{VEC}}-wide loads, {{ITEMS}} vector(s) per thread.
{{#if GRID != cover}}
#include <cuda_runtime.h>
{{/if}}

{{#if VEC == 4}}
using vec_t = float4;
{{#elif VEC == 2}}
using vec_t = float2;
{{else}}
using vec_t = float;
{{/if}}

__device__ __forceinline__ vec_t load_vec(const vec_t *p)
{
{{#if LOADS == ldg}}
    return __ldg(p);
{{#elif LOADS == ldcs}}
    return __ldcs(p);
{{else}}
    return *p;
{{/if}}
}

__device__ __forceinline__ void store_vec(vec_t *p, vec_t v)
{
{{#if STORES == stcs}}
    __stcs(p, v);
{{else}}
    *p = v;
{{/if}}
}

__device__ __forceinline__ vec_t add_vec(vec_t a, vec_t b)
{
{{#if VEC == 4}}
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
{{#elif VEC == 2}}
    return make_float2(a.x + b.x, a.y + b.y);
{{else}}
    return a + b;
{{/if}}
}

{{#if GRID == cover}}
// kiln-launch: grid=((n + {{VEC}} * {{BLOCK}} * {{ITEMS}} - 1) / ({{VEC}} * {{BLOCK}} * {{ITEMS}})) block=({{BLOCK}})
extern "C" __global__ void __launch_bounds__({{BLOCK}})
    vector_add(const float *a, const float *b, float *c, int n)
{{else}}
__global__ void __launch_bounds__({{BLOCK}})
    vector_add_kernel(const float *a, const float *b, float *c, int n)
{{/if}}
{
    const long long vectors = n / {{VEC}};
    const vec_t *av = reinterpret_cast<const vec_t *>(a);
    const vec_t *bv = reinterpret_cast<const vec_t *>(b);
    vec_t *cv = reinterpret_cast<vec_t *>(c);
    const long long stride = static_cast<long long>(gridDim.x) * {{BLOCK}} * {{ITEMS}};
    for (long long base = static_cast<long long>(blockIdx.x) * {{BLOCK}} * {{ITEMS}} + threadIdx.x;
         base < vectors; base += stride) {
{{#if UNROLL == on}}
#pragma unroll
{{/if}}
        for (int k = 0; k < {{ITEMS}}; ++k) {
            const long long i = base + static_cast<long long>(k) * {{BLOCK}};
            if (i < vectors)
                store_vec(cv + i, add_vec(load_vec(av + i), load_vec(bv + i)));
        }
    }
{{#if VEC != 1}}
    // The last n % {{VEC}} elements do not fill a vector.
    if (blockIdx.x == 0)
        for (long long i = vectors * {{VEC}} + threadIdx.x; i < n; i += {{BLOCK}})
            c[i] = a[i] + b[i];
{{/if}}
}

{{#if GRID != cover}}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    const long long vectors = n / {{VEC}};
    long long blocks = (vectors + {{BLOCK}} * {{ITEMS}} - 1) / ({{BLOCK}} * {{ITEMS}});
    // Grid-stride loop over a grid sized to the GPU.
    int device = 0;
    int sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
{{#if GRID == sm_x1}}
    const long long cap = sms;
{{#elif GRID == sm_x4}}
    const long long cap = 4LL * sms;
{{else}}
    const long long cap = 16LL * sms;
{{/if}}
    if (blocks > cap)
        blocks = cap;
    if (blocks < 1)
        blocks = 1;
    vector_add_kernel<<<static_cast<unsigned>(blocks), {{BLOCK}}, 0, stream>>>(a, b, c, n);
}
{{/if}}
