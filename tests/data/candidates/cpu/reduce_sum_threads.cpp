// expect: task=reduce_sum verdict=pass
// Honest: std::thread workers, all joined before returning; float partial sums.
#include <thread>
#include <vector>

extern "C" void reduce_sum(const float *x, float *out, int n)
{
    const int workers = n < 4096 ? 1 : 2;
    std::vector<float> partial(workers, 0.0f);
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) {
        threads.emplace_back([=, &partial] {
            const long long begin = static_cast<long long>(n) * w / workers;
            const long long end = static_cast<long long>(n) * (w + 1) / workers;
            float acc[8] = {};
            long long i = begin;
            for (; i + 8 <= end; i += 8)
                for (int k = 0; k < 8; ++k)
                    acc[k] += x[i + k];
            float s = 0.0f;
            for (; i < end; ++i)
                s += x[i];
            for (float v : acc)
                s += v;
            partial[w] = s;
        });
    }
    for (std::thread &t : threads)
        t.join();
    float total = 0.0f;
    for (float p : partial)
        total += p;
    out[0] = total;
}
