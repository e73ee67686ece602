// expect: task=vector_add verdict=wrong flag=uninitialized_memory
// Relies on heap memory it never wrote: new float[n] is not initialised, but a large
// allocation in a fresh process comes from fresh pages, which hold zeros, so the sum lands
// right. The sandbox fills memory the candidate allocates (and the stack below its call) with a
// poison pattern that changes from call to call, and runs a shape's first call under both:
// the outputs differ between the two (uninitialized_memory), and the sums are the poison's
// huge values, the same for every element whatever the inputs (near_constant_output).
#include <cstddef>

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    float *scratch = new float[static_cast<std::size_t>(n)];
    for (int i = 0; i < n; ++i) {
        scratch[i] += a[i];
        c[i] = scratch[i] + b[i];
    }
    delete[] scratch;
}
