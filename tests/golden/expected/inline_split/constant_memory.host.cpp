#include <torch/extension.h>
#include <cuda_runtime.h>
#define TAPS 7
struct kiln_type_of_taps { float taps[TAPS]; };
void* kiln_symbol_taps();
static decltype(kiln_type_of_taps::taps)& taps = *reinterpret_cast<decltype(kiln_type_of_taps::taps)*>(kiln_symbol_taps());
__host__ __device__ inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
  void kiln_signature_conv1d_kernel(const float* x, float* y, int n);
 void* kiln_kernel_conv1d_kernel();
torch::Tensor conv1d(torch::Tensor x, torch::Tensor w) {
    TORCH_CHECK(w.numel() == TAPS, "seven taps");
    auto wc = w.contiguous().cpu();
    cudaMemcpyToSymbol(taps, wc.data_ptr<float>(), TAPS * sizeof(float));
    auto y = torch::empty_like(x);
    const int n = (int)x.numel();
    kiln::inline_module::launch<decltype(kiln_signature_conv1d_kernel)>(kiln_kernel_conv1d_kernel(), (n + 255) / 256, 256, 0, 0, x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
