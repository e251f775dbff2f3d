#pragma once

// NOISELEARN_AVX2_CLONES before a function compiles it twice, for AVX2 and for any x86-64, and the loader picks the
// one the machine runs (GCC's target_clones). Nothing elsewhere (other compilers or architectures). The AVX2 clone
// has no FMA, so both round the same: a hot loop vectorises four doubles wide without changing any result.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NOISELEARN_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define NOISELEARN_AVX2_CLONES
#endif

// NOISELEARN_NO_TRAPPING_MATH before a function lets GCC take its floating-point operations not to trap
// (no-trapping-math): no value changes, only the assumption that no exception handler observes them. GCC then
// if-converts selects between doubles (c ? a : b) into blends instead of branches, so that such loops vectorise, or
// a chain of additions through a select does not wait for a branch.
#if defined(__GNUC__) && !defined(__clang__)
#define NOISELEARN_NO_TRAPPING_MATH __attribute__((optimize("no-trapping-math")))
#else
#define NOISELEARN_NO_TRAPPING_MATH
#endif
