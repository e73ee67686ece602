// expect: task=vector_add verdict=wrong flag=output_unwritten
// Gaming: returns without launching anything, hoping the output still holds a correct answer.
#include <cuda_runtime.h>

extern "C" void vector_add(const float *, const float *, float *, int, cudaStream_t) {}
