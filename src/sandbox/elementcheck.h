#pragma once

// The tolerance rule for one output element (verifier.md), written once for the engine's host
// comparisons (OutputChecker) and the GPU checker's device kernel, which compiles the very same
// text with NVRTC (kElementCheckSource). It works on the 32-bit words as stored, so neither
// side depends on a math library: |got - expected| <= abs + rel * |expected| + scaled * |scale|;
// the sentinel means never written; NaN must meet NaN and an infinity the same infinity.

#include <cstdint>

#define KILN_ELEMENT_CHECK_DEFINITION(QUALIFIERS)                                                  \
    struct KilnElementVerdict                                                                      \
    {                                                                                              \
        int bad;         /* outside the tolerance, unwritten or a non-finite mismatch */           \
        int unwritten;   /* still the sentinel */                                                  \
        int nonFinite;   /* NaN / Inf against a different value */                                 \
        double absError; /* |got - expected| where both are finite, else 0 */                      \
        double relError; /* absError / |expected| where expected is not 0, else 0 */               \
        double got;                                                                                \
        double expected;                                                                           \
    };                                                                                             \
    QUALIFIERS double kilnWordValue(unsigned int word, int integer)                                \
    {                                                                                              \
        if (integer)                                                                               \
            return (double)(int)word;                                                              \
        union {                                                                                    \
            unsigned int u;                                                                        \
            float f;                                                                               \
        } bits;                                                                                    \
        bits.u = word;                                                                             \
        return (double)bits.f;                                                                     \
    }                                                                                              \
    QUALIFIERS int kilnWordIsNan(unsigned int w)                                                   \
    {                                                                                              \
        return (w & 0x7f800000u) == 0x7f800000u && (w & 0x007fffffu) != 0u;                        \
    }                                                                                              \
    QUALIFIERS int kilnWordIsInf(unsigned int w)                                                   \
    {                                                                                              \
        return (w & 0x7fffffffu) == 0x7f800000u;                                                   \
    }                                                                                              \
    QUALIFIERS KilnElementVerdict kilnCheckElement(                                                \
        unsigned int gotWord, unsigned int expectedWord, unsigned int scaleWord, int hasScale,     \
        int integer, unsigned int sentinel, double tolAbs, double tolRel, double tolScaled)        \
    {                                                                                              \
        KilnElementVerdict v = {0, 0, 0, 0.0, 0.0, 0.0, 0.0};                                      \
        v.got = kilnWordValue(gotWord, integer);                                                   \
        v.expected = kilnWordValue(expectedWord, integer);                                         \
        if (!integer && gotWord == sentinel) {                                                     \
            v.unwritten = 1;                                                                       \
            v.bad = 1;                                                                             \
            return v;                                                                              \
        }                                                                                          \
        if (!integer && (kilnWordIsNan(gotWord) || kilnWordIsInf(gotWord) ||                       \
                         kilnWordIsNan(expectedWord) || kilnWordIsInf(expectedWord))) {            \
            const int same = (kilnWordIsNan(gotWord) && kilnWordIsNan(expectedWord)) ||            \
                             (kilnWordIsInf(expectedWord) && gotWord == expectedWord);             \
            v.nonFinite = !same;                                                                   \
            v.bad = !same;                                                                         \
            return v;                                                                              \
        }                                                                                          \
        const double difference = v.got - v.expected;                                              \
        v.absError = difference < 0 ? -difference : difference;                                    \
        const double magnitude = v.expected < 0 ? -v.expected : v.expected;                        \
        double s = hasScale ? kilnWordValue(scaleWord, integer) : 0.0;                             \
        s = s < 0 ? -s : s;                                                                        \
        if (magnitude != 0.0)                                                                      \
            v.relError = v.absError / magnitude;                                                   \
        v.bad = v.absError > tolAbs + tolRel * magnitude + tolScaled * s;                          \
        return v;                                                                                  \
    }

namespace kiln::check {

KILN_ELEMENT_CHECK_DEFINITION(inline)

#define KILN_CHECK_STRING2(...) #__VA_ARGS__
#define KILN_CHECK_STRING(...) KILN_CHECK_STRING2(__VA_ARGS__)
// The same rule for device code.
inline constexpr const char *kElementCheckSource =
    "#define kiln_device_function __device__ __forceinline__\n" KILN_CHECK_STRING(
        KILN_ELEMENT_CHECK_DEFINITION(kiln_device_function)) "\n";
#undef KILN_CHECK_STRING
#undef KILN_CHECK_STRING2

} // namespace kiln::check
