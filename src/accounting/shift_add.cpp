#include "accounting/shift_add.hpp"

#include <algorithm>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace noiselearn {

namespace {

// out[p] += sum_j masses[j] source[p + offsets[j]] for p in [0, width), in tiles of the window that stay in the L1
// cache while every atom is added; four atoms are added per pass. The kernel is compiled twice, for x86-64
// with AVX2 and FMA and for the baseline, and the processor's features pick one; a fused multiply-add only removes
// a rounding, so the error bound (m + 2) u of a sum of m products holds either way.
template <int kTile>
inline void shift_add_tiles(const double* __restrict masses, const int64_t* __restrict offsets, size_t atoms,
                            const double* __restrict source, int64_t width, double* __restrict out) {
  for (int64_t begin = 0; begin < width; begin += kTile) {
    const int64_t length = std::min<int64_t>(width, begin + kTile) - begin;
    double* __restrict target = out + begin;
    size_t j = 0;
    // Four atoms per pass over the tile: one load and store of the sums per four products.
    for (; j + 4 <= atoms; j += 4) {
      const double m0 = masses[j], m1 = masses[j + 1], m2 = masses[j + 2], m3 = masses[j + 3];
      const double* __restrict f0 = source + offsets[j] + begin;
      const double* __restrict f1 = source + offsets[j + 1] + begin;
      const double* __restrict f2 = source + offsets[j + 2] + begin;
      const double* __restrict f3 = source + offsets[j + 3] + begin;
#pragma GCC ivdep
      for (int64_t p = 0; p < length; ++p) target[p] += ((m0 * f0[p] + m1 * f1[p]) + (m2 * f2[p] + m3 * f3[p]));
    }
    for (; j < atoms; ++j) {
      const double m = masses[j];
      const double* __restrict from = source + offsets[j] + begin;
#pragma GCC ivdep
      for (int64_t p = 0; p < length; ++p) target[p] += m * from[p];
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// The AVX2 kernel keeps 32 consecutive sums in eight registers while every atom is added (one broadcast, eight loads
// and eight fused multiply-adds per atom, no loads or stores of the sums in between); eight independent chains hide
// the multiply-add latency. Each sum is accumulated in atom order, the same on every thread.
__attribute__((target("avx2,fma"))) void shift_add_avx2(const double* masses, const int64_t* offsets, size_t atoms,
                                                        const double* source, int64_t width, double* out) {
  constexpr int64_t kBlock = 32;
  int64_t p = 0;
  for (; p + kBlock <= width; p += kBlock) {
    double* target = out + p;
    __m256d a0 = _mm256_loadu_pd(target), a1 = _mm256_loadu_pd(target + 4), a2 = _mm256_loadu_pd(target + 8),
            a3 = _mm256_loadu_pd(target + 12), a4 = _mm256_loadu_pd(target + 16), a5 = _mm256_loadu_pd(target + 20),
            a6 = _mm256_loadu_pd(target + 24), a7 = _mm256_loadu_pd(target + 28);
    for (size_t j = 0; j < atoms; ++j) {
      const __m256d m = _mm256_broadcast_sd(masses + j);
      const double* f = source + offsets[j] + p;
      a0 = _mm256_fmadd_pd(m, _mm256_loadu_pd(f), a0);
      a1 = _mm256_fmadd_pd(m, _mm256_loadu_pd(f + 4), a1);
      a2 = _mm256_fmadd_pd(m, _mm256_loadu_pd(f + 8), a2);
      a3 = _mm256_fmadd_pd(m, _mm256_loadu_pd(f + 12), a3);
      a4 = _mm256_fmadd_pd(m, _mm256_loadu_pd(f + 16), a4);
      a5 = _mm256_fmadd_pd(m, _mm256_loadu_pd(f + 20), a5);
      a6 = _mm256_fmadd_pd(m, _mm256_loadu_pd(f + 24), a6);
      a7 = _mm256_fmadd_pd(m, _mm256_loadu_pd(f + 28), a7);
    }
    _mm256_storeu_pd(target, a0), _mm256_storeu_pd(target + 4, a1), _mm256_storeu_pd(target + 8, a2);
    _mm256_storeu_pd(target + 12, a3), _mm256_storeu_pd(target + 16, a4), _mm256_storeu_pd(target + 20, a5);
    _mm256_storeu_pd(target + 24, a6), _mm256_storeu_pd(target + 28, a7);
  }
  if (p < width) shift_add_tiles<512>(masses, offsets, atoms, source + p, width - p, out + p);
}
#endif

}  // namespace

void shift_add(const double* masses, const int64_t* offsets, size_t atoms, const double* source, int64_t width,
               double* out) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2) return shift_add_avx2(masses, offsets, atoms, source, width, out);
#endif
  shift_add_tiles<512>(masses, offsets, atoms, source, width, out);
}

}  // namespace noiselearn
