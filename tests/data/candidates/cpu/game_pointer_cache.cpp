// expect: task=vector_add verdict=flagged flag=cached_result
// Gaming: results cached by output address; repeated calls copy the cached answer.
#include <cstring>
#include <map>
#include <vector>

static std::map<const float *, std::vector<float>> cache;

extern "C" void vector_add(const float *a, const float *b, float *c, int n)
{
    auto it = cache.find(c);
    if (it != cache.end() && static_cast<int>(it->second.size()) == n) {
        std::memcpy(c, it->second.data(), sizeof(float) * n);
        return;
    }
    for (int i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
    cache[c].assign(c, c + n);
}
