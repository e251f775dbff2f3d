#pragma once

#include <cstdint>

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace noiselearn {

// keep ? kept : otherwise without a branch: a mask from the condition and a blend of the two values in SSE2 registers
// (every x86-64 has them), so that a chain of additions through the select waits for two one-cycle operations, not
// for a branch that mispredicts wherever the condition changes unpredictably (a bucket or a tail centre changing every
// few points). The same value as the plain select, which other architectures get.
inline double select_kept(bool keep, double kept, double otherwise) {
#if defined(__SSE2__) && defined(__x86_64__)
  const __m128d mask = _mm_castsi128_pd(_mm_cvtsi64_si128(-static_cast<int64_t>(keep)));
  return _mm_cvtsd_f64(_mm_or_pd(_mm_and_pd(mask, _mm_set_sd(kept)), _mm_andnot_pd(mask, _mm_set_sd(otherwise))));
#else
  return keep ? kept : otherwise;
#endif
}

}  // namespace noiselearn
