// expect: refused __CUDACC__
// A type chosen by __CUDACC__ is float in nvcc's pass and double under g++: the host part
// would pass the kernel the wrong bytes.
#include <torch/extension.h>
#ifdef __CUDACC__
typedef float acc_t;
#else
typedef double acc_t;
#endif
__global__ void fill_kernel(float* x, acc_t v) { x[threadIdx.x] = v; }
torch::Tensor fill(torch::Tensor x, double v) {
    fill_kernel<<<1, 32>>>(x.data_ptr<float>(), (acc_t)v);
    return x;
}
