// Certifies one release of a small symmetric table (a discrete Laplace on -30..30, ratio e^-0.2, shift 1 cell) with
// the installed accountant and checks the bracket against the exact hockey-stick divergence
// delta(eps) = sum_y max(0, p(y) - e^eps p(y - 1)), summed here by hand. Exit 0 when lower <= exact <= upper.
#include <cmath>
#include <cstdio>
#include <vector>

#include "accounting/pair_accountant.hpp"
#include "core/dominating_pair.hpp"

int main() {
  using namespace noiselearn;
  std::vector<double> p;
  double total = 0.0;
  for (int j = -30; j <= 30; ++j) total += p.emplace_back(std::exp(-0.2 * std::abs(j)));
  for (double& v : p) v /= total;
  const NoiseTable table(Grid{-30.0, 1.0, static_cast<int64_t>(p.size())}, p);
  const PairBounds bounds = account(make_pair_family(table, PairSpecification{}), 1, AccountantOptions{});
  bool ok = true;
  for (double eps : {0.0, 0.1, 0.15, 0.3}) {
    double exact = 0.0;  // A = p, B = p shifted up by one cell (support -29..31); both directions agree by symmetry
    for (size_t y = 0; y <= p.size(); ++y) {
      const double a = y < p.size() ? p[y] : 0.0, b = y >= 1 ? p[y - 1] : 0.0;
      exact += std::max(0.0, a - std::exp(eps) * b);
    }
    const double lower = bounds.delta_lower(eps), upper = bounds.delta_upper(eps);
    const bool inside = lower <= exact * (1.0 + 1e-12) && exact <= upper * (1.0 + 1e-12);
    std::printf("eps %.2f: exact %.12g in [%.12g, %.12g] %s\n", eps, exact, lower, upper, inside ? "ok" : "WRONG");
    ok = ok && inside;
  }
  return ok ? 0 : 1;
}
