// expect: split
// A kernel taking torch's packed accessor (the device part needs torch's accessor types), a
// struct both parts use, a non-inline host-and-device helper the host part calls, and dynamic
// shared memory.
#include <torch/extension.h>

struct Range {
    float lo;
    float hi;
};

__host__ __device__ float middle(Range r) { return 0.5f * (r.lo + r.hi); }

__global__ void clamp_rows_kernel(torch::PackedTensorAccessor32<float, 2, torch::RestrictPtrTraits> x,
                                  Range range) {
    extern __shared__ float row[];
    const int r = blockIdx.x;
    for (int c = threadIdx.x; c < x.size(1); c += blockDim.x) {
        row[threadIdx.x] = fminf(fmaxf(x[r][c], range.lo), range.hi);
        x[r][c] = row[threadIdx.x];
    }
}

torch::Tensor clamp_rows(torch::Tensor x, double lo, double hi) {
    Range range{(float)lo, (float)hi};
    TORCH_CHECK(middle(range) >= range.lo, "lo above hi");
    clamp_rows_kernel<<<x.size(0), 128, 128 * sizeof(float)>>>(
        x.packed_accessor32<float, 2, torch::RestrictPtrTraits>(), range);
    return x;
}
