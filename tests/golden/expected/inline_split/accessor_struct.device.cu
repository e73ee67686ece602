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
#include <c10/util/Half.h>
#include <c10/util/BFloat16.h>
#include <ATen/core/TensorAccessor.h>
namespace torch { using namespace at; }

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
 void* kiln_kernel_clamp_rows_kernel() { return reinterpret_cast<void*>(&clamp_rows_kernel); }
