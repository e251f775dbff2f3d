#pragma once
// Independent reference values for the accountant tests: exact hockey-stick divergences by enumeration of
// every outcome of the n-fold product (no privacy-loss distribution, no discretisation, no FFT).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <utility>
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
inline double brute_force_delta_mixed(const std::vector<std::vector<double>>& a,
                                      const std::vector<std::vector<double>>& b, double eps) {
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

// One release of additive noise p (on cells 0..N-1) whose query moves by j cells (|j| <= k), both distributions
// on the common grid of N + 2k cells: A = p at offset k, B = p at offset k + j.
inline std::pair<std::vector<double>, std::vector<double>> shifted_release(const std::vector<double>& p, int j, int k) {
  std::vector<double> a(p.size() + 2 * static_cast<size_t>(k), 0.0), b(a.size(), 0.0);
  for (size_t i = 0; i < p.size(); ++i) {
    a[i + static_cast<size_t>(k)] = p[i];
    b[i + static_cast<size_t>(k + j)] = p[i];
  }
  return {a, b};
}

// The exact worst case over every sequence of query differences (d_1..d_n), each d_i in `differences`:
// max over sequences of delta(eps) of (prod_i A_i, prod_i B_i). Also returns the worst over constant-sign
// sequences (all d_i > 0 or all d_i < 0) in `same_direction`.
inline double brute_force_worst_sequence(const std::vector<double>& p, int k, int n, double eps,
                                         double* same_direction = nullptr) {
  std::vector<int> differences;
  for (int j = -k; j <= k; ++j)
    if (j != 0) differences.push_back(j);
  std::vector<size_t> choice(static_cast<size_t>(n), 0);
  double worst = 0.0, worst_same = 0.0;
  while (true) {
    std::vector<std::vector<double>> a, b;
    bool all_up = true, all_down = true;
    for (size_t c : choice) {
      auto [ai, bi] = shifted_release(p, differences[c], k);
      a.push_back(ai);
      b.push_back(bi);
      all_up = all_up && differences[c] > 0;
      all_down = all_down && differences[c] < 0;
    }
    const double delta = brute_force_delta_mixed(a, b, eps);
    worst = std::max(worst, delta);
    if (all_up || all_down) worst_same = std::max(worst_same, delta);
    size_t pos = 0;
    while (pos < choice.size() && ++choice[pos] == differences.size()) choice[pos++] = 0;
    if (pos == choice.size()) break;
  }
  if (same_direction) *same_direction = worst_same;
  return worst;
}

// The exact worst case over ADAPTIVE strategies: before each release the adversary picks one of the candidate
// pairs (A_d, B_d) (on a common outcome set) as a function of every output so far. With the strategy fixed, delta(eps)
// of the joint output distributions is the sum over output histories h of (P_A(h) - e^eps P_B(h))_+, and the choices
// at different histories act on disjoint parts of that sum, so the best strategy maximises at every node of the
// history tree:
//   f(h) = max_d sum_y f(h, (d, y)),   f(leaf) = (P_A(h) - e^eps P_B(h))_+,
// with P_A, P_B the products of the per-release probabilities along the history (no privacy loss, no
// discretisation). The tree has (|candidates| outcomes)^n leaves; long double throughout.
inline double brute_force_adaptive_pairs(
    const std::vector<std::pair<std::vector<double>, std::vector<double>>>& candidates, int n, double eps) {
  const long double scale = std::exp(static_cast<long double>(eps));
  std::function<long double(int, long double, long double)> value = [&](int depth, long double pa,
                                                                        long double pb) -> long double {
    if (depth == n) return std::max(0.0L, pa - scale * pb);
    long double best = 0.0L;
    for (const auto& [a, b] : candidates) {
      long double sum = 0.0L;
      for (size_t y = 0; y < a.size(); ++y) {
        if (a[y] == 0.0) continue;  // never happens under A: contributes (0 - e^eps P_B)_+ = 0
        sum += value(depth + 1, pa * a[y], pb * b[y]);
      }
      best = std::max(best, sum);
    }
    return best;
  };
  return static_cast<double>(value(0, 1.0L, 1.0L));
}

// The same with a candidate set of its own for each release (a heterogeneous sequence, released in the order given).
inline double brute_force_adaptive_sequence(
    const std::vector<std::vector<std::pair<std::vector<double>, std::vector<double>>>>& per_release, double eps) {
  const long double scale = std::exp(static_cast<long double>(eps));
  const int n = static_cast<int>(per_release.size());
  std::function<long double(int, long double, long double)> value = [&](int depth, long double pa,
                                                                        long double pb) -> long double {
    if (depth == n) return std::max(0.0L, pa - scale * pb);
    long double best = 0.0L;
    for (const auto& [a, b] : per_release[static_cast<size_t>(depth)]) {
      long double sum = 0.0L;
      for (size_t y = 0; y < a.size(); ++y)
        if (a[y] != 0.0) sum += value(depth + 1, pa * a[y], pb * b[y]);
      best = std::max(best, sum);
    }
    return best;
  };
  return static_cast<double>(value(0, 1.0L, 1.0L));
}

// Additive noise p: the candidates are (p, p shifted by d) for d in `differences` (cells).
inline double brute_force_adaptive(const std::vector<double>& p, const std::vector<int>& differences, int n,
                                   double eps) {
  int k = 0;
  for (int d : differences) k = std::max(k, std::abs(d));
  std::vector<std::pair<std::vector<double>, std::vector<double>>> candidates;
  for (int d : differences) candidates.push_back(shifted_release(p, d, k));
  return brute_force_adaptive_pairs(candidates, n, eps);
}

}  // namespace noiselearn::testing
