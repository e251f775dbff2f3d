// The certified accountant end to end: closed forms, brute force and the papers' reference values.
//
// Logic of the Gaussian checks: the table of a Gaussian on grid cells is the output of the continuous
// Gaussian mechanism rounded to the grid, a post-processing, so its true delta is <= the analytic
// delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), mu = s sqrt(n) / sigma, and approaches it as
// the step h -> 0 (the information lost by rounding is O((h/sigma)^2)). Hence, rigorously, lower <= analytic,
// and upper ~ analytic within the rounding loss.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "accounting/heterogeneous_composition.hpp"
#include "accounting/pair_accountant.hpp"
#include "brute_force.hpp"
#include "core/baselines.hpp"
#include "core/dominating_pair.hpp"

using namespace noiselearn;

namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / M_SQRT2); }

double analytic_gaussian_delta(double eps, double mu) {
  return normal_cdf(-eps / mu + mu / 2) - std::exp(eps) * normal_cdf(-eps / mu - mu / 2);
}

// eps(delta) of the analytic Gaussian by bisection (delta is decreasing in eps).
double analytic_gaussian_epsilon(double delta, double mu) {
  double lo = 0.0, hi = 100.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (analytic_gaussian_delta(mid, mu) > delta ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

PairBounds account_table(const NoiseTable& table, double sensitivity, int64_t n,
                         ShiftPolicy shifts = ShiftPolicy::kAuto, const AccountantOptions& options = {},
                         NeighbourRelation neighbours = NeighbourRelation::kAnySequence) {
  PairSpecification specification;
  specification.sensitivity = sensitivity;
  specification.shifts = shifts;
  specification.neighbours = neighbours;
  return account(make_pair_family(table, specification), n, options);
}

}  // namespace

TEST_CASE("Gaussian tables match the analytic Gaussian delta for several (sigma, n)", "[accountant][gaussian]") {
  struct Case {
    double sigma;
    int64_t n;
    double step;
  };
  for (const Case c : {Case{2.0, 1, 0.005}, Case{5.0, 10, 0.01}, Case{10.0, 128, 1.0 / 60.0}, Case{30.0, 1000, 0.05},
                       Case{1.0, 3, 0.002}}) {
    const NoiseTable table = gaussian_table(Grid::symmetric(40.0 * c.sigma, c.step), c.sigma);
    const PairBounds bounds = account_table(table, 1.0, c.n);
    const double mu = std::sqrt(static_cast<double>(c.n)) / c.sigma;
    INFO("sigma " << c.sigma << " n " << c.n);
    for (double eps : {0.0, 0.25, 0.5, 1.0, 2.0, 3.0}) {
      const double analytic = analytic_gaussian_delta(eps, mu);
      if (analytic < 1e-12) continue;
      INFO("eps " << eps);
      CHECK(bounds.delta_lower(eps) <= analytic * (1 + 1e-12));
      CHECK(bounds.delta_lower(eps) <= bounds.delta_upper(eps));
      // Horizontal distance between the curves: the certified upper curve lies between the analytic curve
      // moved by +-1e-4 max(1, eps) (rounding to the grid loses O((h/sigma)^2) of the information).
      const double shift = 1e-4 * std::max(1.0, eps);
      CHECK(bounds.delta_upper(eps) >= analytic_gaussian_delta(eps + shift, mu));
      CHECK(bounds.delta_upper(eps) <= analytic_gaussian_delta(eps - shift, mu));
    }
    for (double delta : {1e-3, 1e-6}) {
      const double analytic = analytic_gaussian_epsilon(delta, mu);
      const double lower = bounds.epsilon_lower(delta), upper = bounds.epsilon_upper(delta);
      INFO("delta " << delta << " analytic eps " << analytic << " bracket [" << lower << ", " << upper << "]");
      CHECK(lower <= analytic + 1e-9);
      // The accuracy target of the default discretisation.
      CHECK(upper - lower <= 1e-3 * std::max(1.0, analytic));
      CHECK(std::abs(upper - analytic) <= 1e-3 * std::max(1.0, analytic));
    }
  }
}

TEST_CASE("Gilani et al. Fig. 1 reference points (sigma = 5, s = 1, n = 10, delta = 1e-6)", "[accountant][paper]") {
  // Gaussian eps = 2.9216 and Laplace (b = 5/sqrt 2, the same standard deviation) eps = 2.8274, to 3 decimals.
  const Grid grid = Grid::symmetric(200.0, 0.005);
  const PairBounds gaussian = account_table(gaussian_table(grid, 5.0), 1.0, 10);
  CHECK(gaussian.epsilon_lower(1e-6) == Approx(2.9216).margin(5e-4));
  CHECK(gaussian.epsilon_upper(1e-6) == Approx(2.9216).margin(5e-4));
  const PairBounds laplace = account_table(laplace_table(grid, 5.0 / std::sqrt(2.0)), 1.0, 10);
  CHECK(laplace.epsilon_lower(1e-6) == Approx(2.8274).margin(5e-4));
  CHECK(laplace.epsilon_upper(1e-6) == Approx(2.8274).margin(5e-4));
}

TEST_CASE("randomized response matches the binomial closed form", "[accountant][closed-form]") {
  // RR with parameter eps0: A = (p, 1-p), B = (1-p, p), p = e^eps0 / (1 + e^eps0). After n releases the loss
  // is (2K - n) eps0 with K ~ Binomial(n, p) under A, so delta(eps) = sum_k C(n,k) p^k (1-p)^{n-k}
  // (1 - e^{eps - (2k - n) eps0})_+.
  for (double eps0 : {0.5, 0.3137, 1.2}) {
    const double p = 1.0 / (1.0 + std::exp(-eps0));
    DominatingPair pair{Grid{0.0, 1.0, 2}, {p, 1.0 - p}, {1.0 - p, p}, "randomized response", {}, {}};
    PairFamily family;
    family.pairs.push_back(pair);
    family.sensitivity_cells = 1;
    for (int64_t n : {1, 7, 50, 333}) {
      const PairBounds bounds = account(family, n, AccountantOptions{});
      for (double eps : {0.0, 0.5, 1.0, 3.0, 6.0}) {
        long double exact = 0.0L;
        for (int64_t k = 0; k <= n; ++k) {
          const long double log_binomial = std::lgamma(n + 1.0L) - std::lgamma(k + 1.0L) - std::lgamma(n - k + 1.0L);
          const long double probability =
              std::exp(log_binomial + k * std::log((long double)p) + (n - k) * std::log1p(-(long double)p));
          const long double loss = (2.0L * k - n) * eps0;
          if (loss > eps) exact += probability * (1.0L - std::exp(eps - loss));
        }
        INFO("eps0 " << eps0 << " n " << n << " eps " << eps);
        CHECK(bounds.delta_lower(eps) <= static_cast<double>(exact) + 1e-14);
        CHECK(bounds.delta_upper(eps) >= static_cast<double>(exact) - 1e-14);
        // Two outcomes only, so merge-to-grid cannot beat rounding down: the lower bound may lose up to one step
        // of loss per release, and (1 - e^{eps - l}) has slope <= 1 in l: delta moves by at most n * step.
        CHECK(bounds.delta_upper(eps) - bounds.delta_lower(eps) <= n * 1e-4 + 1e-12);
      }
    }
  }
}

TEST_CASE("the discrete Gaussian matches brute-force summation on the integers", "[accountant][closed-form]") {
  // p(x) ~ exp(-x^2/(2 sigma^2)) on {-R..R}, sensitivity 1. The loss of x (x > -R) is (1 - 2x) / (2 sigma^2),
  // linear in x, so the n-fold loss depends only on S = x_1 + ... + x_n (over releases with no distinguishing
  // event); S's distribution is the n-fold convolution of p on {-R+1..R}, summed here directly in long double.
  const double sigma = 2.0;
  const int R = 40;
  const NoiseTable table = discrete_gaussian_table(Grid::symmetric(R, 1.0), sigma);
  const std::vector<double>& p = table.probabilities();
  for (int n : {1, 3, 12}) {
    std::vector<long double> sum_distribution{1.0L};  // S = n * (-R + 1) + index
    for (int r = 0; r < n; ++r) {
      std::vector<long double> next(sum_distribution.size() + 2 * R - 1, 0.0L);
      for (size_t s = 0; s < sum_distribution.size(); ++s)
        for (int x = -R + 1; x <= R; ++x)
          next[s + static_cast<size_t>(x + R - 1)] += sum_distribution[s] * p[static_cast<size_t>(x + R)];
      sum_distribution.swap(next);
    }
    const long double omega = p[0];  // x = -R has no counterpart under B
    const PairBounds bounds = account_table(table, 1.0, n);
    for (double eps : {0.0, 0.5, 1.0, 2.0, 4.0}) {
      long double delta = 1.0L - std::pow(1.0L - omega, n);
      for (size_t i = 0; i < sum_distribution.size(); ++i) {
        const long double s = static_cast<long double>(n) * (-R + 1) + static_cast<long double>(i);
        const long double loss = (n - 2.0L * s) / (2.0L * sigma * sigma);
        if (loss > eps) delta += sum_distribution[i] * (1.0L - std::exp(eps - loss));
      }
      INFO("n " << n << " eps " << eps);
      CHECK(bounds.delta_lower(eps) <= static_cast<double>(delta) * (1 + 1e-12) + 1e-15);
      CHECK(bounds.delta_upper(eps) >= static_cast<double>(delta) * (1 - 1e-12) - 1e-15);
      CHECK(bounds.delta_upper(eps) == Approx(static_cast<double>(delta)).epsilon(1e-4).margin(1e-13));
    }
  }
}

TEST_CASE("lower <= exact <= upper on random small pairs, both directions, by brute force",
          "[accountant][brute-force]") {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 10; ++trial) {
    // A general (asymmetric) table on 6 points; sensitivity 1 cell so a single shift is exact (Lemma 14).
    std::vector<double> p(6);
    double s = 0;
    for (double& v : p) s += (v = 0.02 + u(rng));
    for (double& v : p) v /= s;
    const NoiseTable table(Grid{0.0, 1.0, 6}, p);
    const int64_t n = 1 + trial % 4;
    // Same-direction relation: every release moves the same way, so the exact worst case is the worse of the
    // two directions of the same pair composed n times.
    const PairBounds bounds = account_table(table, 1.0, n, ShiftPolicy::kAuto, {}, NeighbourRelation::kSameDirection);
    REQUIRE(bounds.upper.second_to_first.has_value());  // asymmetric: both directions computed
    const DominatingPair pair = additive_shift_pair(table, 1);
    for (double eps : {0.0, 0.2, 0.7, 1.5, 3.0}) {
      const double exact = std::max(testing::brute_force_delta(pair.a, pair.b, n, eps),
                                    testing::brute_force_delta(pair.b, pair.a, n, eps));
      CHECK(bounds.delta_lower(eps) <= exact + 1e-13);
      CHECK(bounds.delta_upper(eps) >= exact - 1e-13);
    }
  }
}

TEST_CASE("a mirrored table swaps the directions", "[accountant]") {
  const std::vector<double> p{0.05, 0.1, 0.4, 0.25, 0.2};
  std::vector<double> mirrored(p.rbegin(), p.rend());
  const NoiseTable left(Grid{-2.0, 1.0, 5}, p), right(Grid{-2.0, 1.0, 5}, mirrored);
  const auto same = NeighbourRelation::kSameDirection;
  const PairBounds a = account_table(left, 1.0, 5, ShiftPolicy::kAuto, {}, same),
                   b = account_table(right, 1.0, 5, ShiftPolicy::kAuto, {}, same);
  for (double delta : {1e-2, 1e-4})
    CHECK(a.upper.first_to_second.epsilon_for_delta(delta) ==
          Approx(b.upper.second_to_first->epsilon_for_delta(delta)).epsilon(1e-9));
  // A symmetric table shifted is its own mirror image: one direction suffices.
  const NoiseTable symmetric = laplace_table(Grid::symmetric(20.0, 0.1), 1.0);
  CHECK_FALSE(account_table(symmetric, 1.0, 3).upper.second_to_first.has_value());
}

TEST_CASE("infinity mass of a truncated Gaussian against its closed form", "[accountant][closed-form]") {
  // Truncated to [-r, r] on a grid of step h with sensitivity s: the outputs in [-r, -r + s) cannot occur
  // under B; their A-mass is (Phi((-r+s-h/2)/sigma) - Phi((-r-h/2)/sigma)) / (Phi((r+h/2)/sigma) -
  // Phi((-r-h/2)/sigma)).
  const double sigma = 1.0, r = 3.0, h = 0.01, s = 1.0;
  const NoiseTable table = truncated_gaussian_table(Grid::symmetric(4.0, h), sigma, r);
  const double omega = (normal_cdf((-r + s - h / 2) / sigma) - normal_cdf((-r - h / 2) / sigma)) /
                       (normal_cdf((r + h / 2) / sigma) - normal_cdf((-r - h / 2) / sigma));
  const PairBounds single = account_table(table, s, 1);
  CHECK(single.single_release_infinity_mass.first == Approx(omega).epsilon(1e-10));
  for (int64_t n : {1, 10, 100}) {
    const PairBounds bounds = account_table(table, s, n);
    // Above every finite loss, delta is the composed infinity mass 1 - (1 - omega)^n.
    const double expected = -std::expm1(static_cast<double>(n) * std::log1p(-omega));
    CHECK(bounds.delta_upper(1e3) == Approx(expected).epsilon(1e-9));
    CHECK(bounds.delta_lower(1e3) == Approx(expected).epsilon(1e-9));
  }
}

TEST_CASE("Thm 15: for a symmetric monotone table the maximal shift dominates smaller ones", "[accountant][theorem]") {
  const NoiseTable table = laplace_table(Grid::symmetric(30.0, 0.1), 2.0);
  REQUIRE(table.is_symmetric_monotone());
  const PairBounds full =
      account(PairFamily{PairKind::kAdditive, {additive_shift_pair(table, 10)}, 10, true, ""}, 4, {});
  for (int64_t j : {1, 3, 5}) {
    const PairBounds smaller =
        account(PairFamily{PairKind::kAdditive, {additive_shift_pair(table, j)}, j, true, ""}, 4, {});
    for (double eps : {0.0, 0.5, 1.0, 2.0}) CHECK(smaller.delta_upper(eps) <= full.delta_lower(eps));
  }
}

TEST_CASE("every-shift envelope bounds releases with different query differences (brute force)",
          "[accountant][brute-force]") {
  // A non-monotone table: auto policy must check every shift and build the envelope. With n = 2 releases whose
  // differences (j1, j2) range over {-2, -1, 1, 2}^2, the exact worst case is found by enumeration.
  const std::vector<double> p{0.1, 0.3, 0.05, 0.1, 0.05, 0.3, 0.1};
  const NoiseTable table(Grid{-3.0, 1.0, 7}, p);
  REQUIRE_FALSE(table.is_symmetric_monotone());
  PairSpecification specification;
  specification.sensitivity = 2.0;
  const PairFamily family = make_pair_family(table, specification);
  REQUIRE(family.pairs.size() == 2);
  const int n = 2;
  const PairBounds bounds = account(family, n, AccountantOptions{});
  // Every release pair on a common grid [-3, 5]: A = p, B = p shifted by j (negative j: A shifted instead).
  auto release = [&](int j) {
    std::vector<double> a(9, 0.0), b(9, 0.0);
    for (int i = 0; i < 7; ++i) {
      a[static_cast<size_t>(i + (j < 0 ? -j : 0))] = p[static_cast<size_t>(i)];
      b[static_cast<size_t>(i + (j > 0 ? j : 0))] = p[static_cast<size_t>(i)];
    }
    return std::pair{a, b};
  };
  for (double eps : {0.0, 0.3, 1.0, 2.0, 4.0}) {
    double worst_any = 0.0, worst_same = 0.0;
    for (int j1 : {-2, -1, 1, 2})
      for (int j2 : {-2, -1, 1, 2}) {
        const auto [a1, b1] = release(j1);
        const auto [a2, b2] = release(j2);
        const double delta = testing::brute_force_delta_mixed({a1, a2}, {b1, b2}, eps);
        worst_any = std::max(worst_any, delta);
        if (j1 == j2) worst_same = std::max(worst_same, delta);
      }
    INFO("eps " << eps);
    CHECK(bounds.delta_upper(eps) >= worst_any - 1e-13);
    CHECK(bounds.delta_lower(eps) <= worst_same + 1e-13);
  }
}

TEST_CASE("DP-SGD subsampled mixture pair: brute force, q = 1 equals additive, amplification",
          "[accountant][mixture]") {
  const NoiseTable table = gaussian_table(Grid::symmetric(3.0, 0.5), 1.0);
  PairSpecification mixture;
  mixture.kind = PairKind::kSubsampledMixture;
  mixture.sensitivity = 1.0;
  mixture.sampling_rate = 0.3;
  const PairFamily family = make_pair_family(table, mixture);
  const PairBounds bounds = account(family, 3, AccountantOptions{});
  const DominatingPair& pair = family.pairs.front();
  for (double eps : {0.0, 0.2, 0.5, 1.0}) {
    const double exact = std::max(testing::brute_force_delta(pair.a, pair.b, 3, eps),
                                  testing::brute_force_delta(pair.b, pair.a, 3, eps));
    CHECK(bounds.delta_lower(eps) <= exact + 1e-13);
    CHECK(bounds.delta_upper(eps) >= exact - 1e-13);
  }
  // q = 1 is the additive pair; smaller q can only help (privacy amplification by subsampling).
  const NoiseTable wide = gaussian_table(Grid::symmetric(40.0, 0.05), 2.0);
  PairSpecification additive;
  additive.sensitivity = 1.0;
  mixture.sampling_rate = 1.0;
  const PairBounds full = account(make_pair_family(wide, mixture), 16, {});
  const PairBounds plain = account(make_pair_family(wide, additive), 16, {});
  CHECK(full.epsilon_upper(1e-6) == Approx(plain.epsilon_upper(1e-6)).epsilon(1e-9));
  double previous = full.epsilon_upper(1e-6);
  for (double q : {0.5, 0.1, 0.01}) {
    mixture.sampling_rate = q;
    const double eps = account(make_pair_family(wide, mixture), 16, {}).epsilon_upper(1e-6);
    CHECK(eps < previous);
    previous = eps;
  }
}

TEST_CASE("heterogeneous composition of two Gaussians equals one Gaussian with the combined mu",
          "[accountant][gaussian]") {
  // mu^2 adds under composition: n1 (s/sigma1)^2 + n2 (s/sigma2)^2.
  const NoiseTable g1 = gaussian_table(Grid::symmetric(160.0, 0.01), 4.0);
  const NoiseTable g2 = gaussian_table(Grid::symmetric(320.0, 0.01), 8.0);
  PairSpecification specification;
  const PairBounds bounds =
      account_heterogeneous({{make_pair_family(g1, specification), 5}, {make_pair_family(g2, specification), 20}}, {});
  const double mu = std::sqrt(5.0 / 16.0 + 20.0 / 64.0);
  for (double delta : {1e-3, 1e-6}) {
    const double analytic = analytic_gaussian_epsilon(delta, mu);
    CHECK(bounds.epsilon_lower(delta) <= analytic + 1e-9);
    CHECK(bounds.epsilon_upper(delta) == Approx(analytic).margin(1e-3));
  }
}

TEST_CASE("heterogeneous composition of truncated tables: distinguishing events compose as 1 - prod (1 - omega_i)^n_i",
          "[accountant][closed-form]") {
  // Two Gaussians truncated to different ranges have different single-release omegas (closed form as above);
  // composed, no outcome sequence is distinguishing unless one of its releases is, so the composed mass is
  // 1 - (1 - omega_1)^{n_1} (1 - omega_2)^{n_2}, and delta at a large epsilon equals it.
  const double h = 0.01, s = 1.0;
  auto omega_of = [&](double sigma, double r) {
    return (normal_cdf((-r + s - h / 2) / sigma) - normal_cdf((-r - h / 2) / sigma)) /
           (normal_cdf((r + h / 2) / sigma) - normal_cdf((-r - h / 2) / sigma));
  };
  const NoiseTable t1 = truncated_gaussian_table(Grid::symmetric(4.0, h), 1.0, 3.0);
  const NoiseTable t2 = truncated_gaussian_table(Grid::symmetric(4.0, h), 1.5, 4.0);
  const double omega1 = omega_of(1.0, 3.0), omega2 = omega_of(1.5, 4.0);
  REQUIRE(omega1 != Approx(omega2));
  PairSpecification specification;
  const PairBounds bounds =
      account_heterogeneous({{make_pair_family(t1, specification), 3}, {make_pair_family(t2, specification), 7}}, {});
  const double expected = -std::expm1(3.0 * std::log1p(-omega1) + 7.0 * std::log1p(-omega2));
  CHECK(bounds.compositions == 10);
  CHECK(std::max(bounds.composed_infinity_mass.first, bounds.composed_infinity_mass.second) ==
        Approx(expected).epsilon(1e-10));
  CHECK(bounds.delta_upper(1e3) == Approx(expected).epsilon(1e-9));
  CHECK(bounds.delta_lower(1e3) == Approx(expected).epsilon(1e-9));
  // The same table split into parts is the homogeneous composition, infinity mass included.
  const PairBounds split =
      account_heterogeneous({{make_pair_family(t1, specification), 4}, {make_pair_family(t1, specification), 6}}, {});
  const PairBounds whole = account_table(t1, s, 10);
  CHECK(split.composed_infinity_mass.first == Approx(whole.composed_infinity_mass.first).epsilon(1e-12));
  CHECK(whole.composed_infinity_mass.first == Approx(-std::expm1(10.0 * std::log1p(-omega1))).epsilon(1e-10));
  for (double eps : {0.0, 0.5, 1.0, 2.0}) {
    CHECK(split.delta_upper(eps) == Approx(whole.delta_upper(eps)).epsilon(1e-6));
    CHECK(split.delta_lower(eps) <= whole.delta_upper(eps));
  }
}
