// expect: task=softmax verdict=pass
// Device-only form (NVRTC): one 256-thread block per row; row maximum and sum by warp shuffles
// and a shared-memory step across warps, then one pass to write.
// kiln-launch: grid=(rows) block=(256)

__device__ float warp_max(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

extern "C" __global__ void softmax(const float *x, float *y, int rows, int cols)
{
    __shared__ float parts[8];
    const float *in = x + static_cast<long long>(blockIdx.x) * cols;
    float *out = y + static_cast<long long>(blockIdx.x) * cols;
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;

    float m = -3.402823466e+38f; // lowest finite float: inputs are finite
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, in[c]);
    m = warp_max(m);
    if (lane == 0)
        parts[warp] = m;
    __syncthreads();
    m = parts[0];
    for (int w = 1; w < 8; ++w)
        m = fmaxf(m, parts[w]);
    __syncthreads(); // parts is reused below

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += expf(in[c] - m);
    s = warp_sum(s);
    if (lane == 0)
        parts[warp] = s;
    __syncthreads();
    s = 0.0f;
    for (int w = 0; w < 8; ++w)
        s += parts[w];

    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = expf(in[c] - m) / s;
}
