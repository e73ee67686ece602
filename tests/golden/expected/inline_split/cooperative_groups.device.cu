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

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <vector>
namespace cg = cooperative_groups;
using Shape = std::vector<int64_t>;
__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float acc = 0.f;
    for (int c = warp.thread_rank(); c < cols; c += warp.size()) acc += x[blockIdx.x * cols + c];
    acc = cg::reduce(warp, acc, cg::plus<float>());
    if (warp.thread_rank() == 0) out[blockIdx.x] = acc;
}
 void* kiln_kernel_row_sum_kernel() { return reinterpret_cast<void*>(&row_sum_kernel); }
