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

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011), a
// counter-based generator: the call's key is the Philox key and the element group the counter,
// so any element of any draw is computed on its own, on the host or on the device. One block
// of 128 bits gives the table indices of 128 / bits consecutive elements (8 for the usual
// 16-bit tables; `bits` divides 32 or leaves the rest of each word unused).
// The rounds are written out here rather than taken from Random123's r123::Philox4x32, whose
// words they match bit for bit (tst_freshinputs compares the two), because the CUDA sandbox
// compiles this text with NVRTC at run time, without the CUDA runtime's headers or a C++
// standard library, and Random123's philox.h needs both (its features/nvccfeatures.h stops with
// #error when CUDART_VERSION is undefined, and its array.h includes <algorithm>, <stdexcept> and
// <iostream>).
#define KILN_FRESH_INDEX_DEFINITION(QUALIFIERS)                                                    \
    QUALIFIERS void kilnPhilox(unsigned long long key, unsigned long long counter,                 \
                               unsigned int out[4])                                                \
    {                                                                                              \
        unsigned int c0 = (unsigned int)counter, c1 = (unsigned int)(counter >> 32), c2 = 0u,      \
                     c3 = 0u;                                                                      \
        unsigned int k0 = (unsigned int)key, k1 = (unsigned int)(key >> 32);                       \
        for (int round = 0; round < 10; ++round) {                                                 \
            const unsigned long long p0 = 0xD2511F53ull * c0;                                      \
            const unsigned long long p1 = 0xCD9E8D57ull * c2;                                      \
            const unsigned int n0 = (unsigned int)(p1 >> 32) ^ c1 ^ k0;                            \
            const unsigned int n2 = (unsigned int)(p0 >> 32) ^ c3 ^ k1;                            \
            c1 = (unsigned int)p1;                                                                 \
            c3 = (unsigned int)p0;                                                                 \
            c0 = n0;                                                                               \
            c2 = n2;                                                                               \
            k0 += 0x9E3779B9u;                                                                     \
            k1 += 0xBB67AE85u;                                                                     \
        }                                                                                          \
        out[0] = c0;                                                                               \
        out[1] = c1;                                                                               \
        out[2] = c2;                                                                               \
        out[3] = c3;                                                                               \
    }                                                                                              \
    QUALIFIERS unsigned int kilnFreshIndex(unsigned long long key, unsigned long long i,           \
                                           unsigned int bits)                                      \
    {                                                                                              \
        const unsigned int perWord = 32u / bits;                                                   \
        const unsigned long long per = 4ull * perWord;                                             \
        const unsigned int e = (unsigned int)(i % per);                                            \
        unsigned int words[4];                                                                     \
        kilnPhilox(key, i / per, words);                                                           \
        return (words[e / perWord] >> ((e % perWord) * bits)) & ((1u << bits) - 1u);               \
    }

namespace kiln::fresh {

KILN_FRESH_INDEX_DEFINITION(inline)

#define KILN_FRESH_STRING2(...) #__VA_ARGS__
#define KILN_FRESH_STRING(...) KILN_FRESH_STRING2(__VA_ARGS__)
// The same function for device code.
inline constexpr const char *kFreshIndexSource =
    "#define kiln_device_function __device__ __forceinline__\n" KILN_FRESH_STRING(
        KILN_FRESH_INDEX_DEFINITION(kiln_device_function)) "\n";
#undef KILN_FRESH_STRING
#undef KILN_FRESH_STRING2

// Table sizes: 2^16 values per (parameter, distribution) keep the tables in cache and every
// draw a fresh combination.
inline constexpr unsigned int kTableBits = 16;

// out[i] = table[kilnFreshIndex(key, i, bits)] for n 32-bit words, a Philox block at a time
// for the usual 16-bit tables.
inline void fill(std::uint32_t *out, std::uint64_t n, const std::uint32_t *table, unsigned bits,
                 std::uint64_t key)
{
    std::uint64_t i = 0;
    if (bits == 16)
        for (; i + 8 <= n; i += 8) {
            unsigned int words[4];
            kilnPhilox(key, i / 8, words);
            for (int w = 0; w < 4; ++w) {
                out[i + 2 * w] = table[words[w] & 0xffff];
                out[i + 2 * w + 1] = table[words[w] >> 16];
            }
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
