#pragma once

// NOISELEARN_AVX2_CLONES before a function compiles it twice, for AVX2 and for any x86-64, and the loader picks the
// one the machine runs (GCC's target_clones). Nothing elsewhere (other compilers or architectures). The AVX2 clone
// has no FMA, so both round the same: a hot loop vectorises four doubles wide without changing any result.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NOISELEARN_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define NOISELEARN_AVX2_CLONES
#endif
