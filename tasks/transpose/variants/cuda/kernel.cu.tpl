{{! transpose, CUDA: y[c][r] = x[r][c]. Knobs: TILE BLOCK_Y SMEM PAD NAIVE_ORDER LOADS STORES }}
// transpose on CUDA: {{TILE}}x{{TILE}} tiles, {{BLOCK_Y}} thread rows per tile.

constexpr int kTile = {{TILE}};
constexpr int kBlockY = {{BLOCK_Y}};

__device__ __forceinline__ float load_f(const float *p)
{
{{#if LOADS == ldg}}
    return __ldg(p);
{{else}}
    return *p;
{{/if}}
}

__device__ __forceinline__ void store_f(float *p, float v)
{
{{#if STORES == stcs}}
    __stcs(p, v);
{{else}}
    *p = v;
{{/if}}
}

{{#if SMEM == off && NAIVE_ORDER == write_coalesced}}
// kiln-launch: grid=((rows + {{TILE}} - 1) / {{TILE}}, (cols + {{TILE}} - 1) / {{TILE}}) block=({{TILE}}, {{BLOCK_Y}})
{{else}}
// kiln-launch: grid=((cols + {{TILE}} - 1) / {{TILE}}, (rows + {{TILE}} - 1) / {{TILE}}) block=({{TILE}}, {{BLOCK_Y}})
{{/if}}
extern "C" __global__ void __launch_bounds__(kTile * kBlockY)
    transpose(const float *x, float *y, int rows, int cols)
{
{{#if SMEM == on}}
    // Staged through shared memory so both the reads and the writes are coalesced.
    __shared__ float tile[kTile][kTile + {{PAD}}];
    const int c = blockIdx.x * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += kBlockY) {
        const int r = blockIdx.y * kTile + j;
        if (r < rows && c < cols)
            tile[j][threadIdx.x] = load_f(x + static_cast<long long>(r) * cols + c);
    }
    __syncthreads();
    const int outCol = blockIdx.y * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += kBlockY) {
        const int outRow = blockIdx.x * kTile + j;
        if (outRow < cols && outCol < rows)
            store_f(y + static_cast<long long>(outRow) * rows + outCol, tile[threadIdx.x][j]);
    }
{{#elif NAIVE_ORDER == read_coalesced}}
    // Direct copy: neighbouring threads read neighbours, writes are strided.
    const int c = blockIdx.x * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += kBlockY) {
        const int r = blockIdx.y * kTile + j;
        if (r < rows && c < cols)
            store_f(y + static_cast<long long>(c) * rows + r, load_f(x + static_cast<long long>(r) * cols + c));
    }
{{else}}
    // Direct copy: neighbouring threads write neighbours, reads are strided.
    const int r = blockIdx.x * kTile + threadIdx.x;
    for (int j = threadIdx.y; j < kTile; j += kBlockY) {
        const int c = blockIdx.y * kTile + j;
        if (r < rows && c < cols)
            store_f(y + static_cast<long long>(c) * rows + r, load_f(x + static_cast<long long>(r) * cols + c));
    }
{{/if}}
}
