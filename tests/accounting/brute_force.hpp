#pragma once
// Independent reference values for the accountant tests: exact hockey-stick divergences by enumeration of
// every outcome of the n-fold product (no privacy-loss distribution, no discretisation, no FFT).
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace noiselearn::testing {

// delta(eps) of the n-fold product pair (A^n, B^n): sum over all outcome tuples of max(0, A(t) - e^eps B(t)).
// Sizes are tiny (|A|^n <= ~1e5), computed in long double.
inline double brute_force_delta(const std::vector<double>& a, const std::vector<double>& b, int n, double eps) {
  const size_t k = a.size();
  std::vector<size_t> index(static_cast<size_t>(n), 0);
  long double delta = 0.0L;
  const long double scale = std::exp(static_cast<long double>(eps));
  while (true) {
    long double pa = 1.0L, pb = 1.0L;
    for (size_t i : index) {
      pa *= a[i];
      pb *= b[i];
    }
    delta += std::max(0.0L, pa - scale * pb);
    size_t pos = 0;
    while (pos < index.size() && ++index[pos] == k) index[pos++] = 0;
    if (pos == index.size()) break;
  }
  return static_cast<double>(delta);
}

// The same for a product of different pairs (one per release): sum over tuples of max(0, prod A_i - e^eps prod B_i).
inline double brute_force_delta_mixed(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
                                      double eps) {
  const size_t n = a.size();
  std::vector<size_t> index(n, 0);
  long double delta = 0.0L;
  const long double scale = std::exp(static_cast<long double>(eps));
  while (true) {
    long double pa = 1.0L, pb = 1.0L;
    for (size_t r = 0; r < n; ++r) {
      pa *= a[r][index[r]];
      pb *= b[r][index[r]];
    }
    delta += std::max(0.0L, pa - scale * pb);
    size_t pos = 0;
    while (pos < n && ++index[pos] == a[pos].size()) index[pos++] = 0;
    if (pos == n) break;
  }
  return static_cast<double>(delta);
}

}  // namespace noiselearn::testing
