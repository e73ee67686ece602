// expect: split
// A warp reduction with cooperative groups (a header g++ cannot compile, and a namespace alias
// for it: device part only), and a type alias both parts see.
#include <torch/extension.h>
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

torch::Tensor row_sum(torch::Tensor x) {
    const Shape shape{x.size(0)};
    auto out = torch::empty(shape, x.options());
    row_sum_kernel<<<(unsigned)x.size(0), 32>>>(x.data_ptr<float>(), out.data_ptr<float>(), (int)x.size(1));
    return out;
}
