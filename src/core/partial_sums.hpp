#pragma once
// Σ v_i over a contiguous array in four interleaved partial sums (element i in lane i mod 4, the lanes added as
// (s0 + s1) + (s2 + s3)): independent additions, so a long sum does not wait for each one in turn, and no less
// accurate than one running sum. The training's fused functions use it for their long sums.
#include <cstdint>

namespace noiselearn {

inline double sum_in_four_lanes(const double* v, int64_t n) {
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int lane = 0; lane < 4; ++lane) s[lane] += v[i + lane];
  for (; i < n; ++i) s[0] += v[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

}  // namespace noiselearn
