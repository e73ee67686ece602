#pragma once

// Fresh input values for every timed call, shared by the engine (CPU backend and checks) and
// the CUDA sandbox's device kernel: element i of a draw keyed by `key` is
// table[kilnFreshIndex(key, i, bits)], where the table holds 2^bits values of the task's
// distribution. The key changes with every call and derives from the run's secret, so no input
// set is ever seen twice and none can be predicted: a result cached on the inputs never applies.
//
// The index function is written once, as a macro, so the CUDA sandbox compiles the very same
// text with NVRTC (kFreshIndexSource) that the host compiles here.

#include <cstdint>

// splitmix64's finaliser over (key, group): a counter-based generator. One 64-bit word gives
// the table indices of 64 / bits consecutive elements (4 for the usual 16-bit tables), so a
// draw costs a hash per four elements.
#define KILN_FRESH_INDEX_DEFINITION(QUALIFIERS)                                                    \
    QUALIFIERS unsigned long long kilnFreshWord(unsigned long long key, unsigned long long group)  \
    {                                                                                              \
        unsigned long long z = key + (group + 1ull) * 0x9e3779b97f4a7c15ull;                       \
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;                                               \
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;                                               \
        return z ^ (z >> 31);                                                                      \
    }                                                                                              \
    QUALIFIERS unsigned int kilnFreshIndex(unsigned long long key, unsigned long long i,           \
                                           unsigned int bits)                                      \
    {                                                                                              \
        const unsigned int per = 64u / bits;                                                       \
        const unsigned long long word = kilnFreshWord(key, i / per);                               \
        return (unsigned int)((word >> ((i % per) * bits)) & ((1ull << bits) - 1ull));             \
    }

namespace kiln::fresh {

KILN_FRESH_INDEX_DEFINITION(inline)

#define KILN_FRESH_STRING2(...) #__VA_ARGS__
#define KILN_FRESH_STRING(...) KILN_FRESH_STRING2(__VA_ARGS__)
// The same function for device code.
inline constexpr const char *kFreshIndexSource =
    KILN_FRESH_STRING(KILN_FRESH_INDEX_DEFINITION(__device__ __forceinline__));
#undef KILN_FRESH_STRING
#undef KILN_FRESH_STRING2

// Table sizes: 2^16 values per (parameter, distribution) keep the tables in cache and every
// draw a fresh combination.
inline constexpr unsigned int kTableBits = 16;

// out[i] = table[kilnFreshIndex(key, i, bits)] for n 32-bit words, a word of the hash at a time
// (unrolled for the usual 16-bit tables).
inline void fill(std::uint32_t *out, std::uint64_t n, const std::uint32_t *table, unsigned bits,
                 std::uint64_t key)
{
    std::uint64_t i = 0;
    if (bits == 16)
        for (; i + 4 <= n; i += 4) {
            const std::uint64_t word = kilnFreshWord(key, i / 4);
            out[i] = table[word & 0xffff];
            out[i + 1] = table[(word >> 16) & 0xffff];
            out[i + 2] = table[(word >> 32) & 0xffff];
            out[i + 3] = table[word >> 48];
        }
    for (; i < n; ++i)
        out[i] = table[kilnFreshIndex(key, i, bits)];
}

// The key of parameter p's values in timed call `call` of a run whose secret is `secret`.
inline std::uint64_t callKey(std::uint64_t secret, std::uint64_t call, std::uint64_t parameter)
{
    std::uint64_t z = secret ^ (call * 0xd1b54a32d192ed03ull) ^ (parameter * 0xabc98388fb8fac03ull);
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdull;
    z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ull;
    return z ^ (z >> 33);
}

} // namespace kiln::fresh
