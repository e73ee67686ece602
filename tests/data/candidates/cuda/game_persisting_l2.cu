// expect: task=vector_add verdict=flagged flag=persisting_l2
// Gaming: reserves persisting L2 and pins the inputs there with an access policy window on the
// harness's stream, so repeated timed calls find them cached.
#include <cuda_runtime.h>

__global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream)
{
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 8u << 20);
    cudaStreamAttrValue attribute = {};
    attribute.accessPolicyWindow.base_ptr = const_cast<float *>(a);
    attribute.accessPolicyWindow.num_bytes = sizeof(float) * n;
    attribute.accessPolicyWindow.hitRatio = 1.0f;
    attribute.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attribute.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attribute);
    vector_add_kernel<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
