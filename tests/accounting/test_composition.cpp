// Composition: brute-force enumeration of small products, n then m equals n+m, heterogeneous composition.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "accounting/composition.hpp"
#include "accounting/loss_discretisation.hpp"
#include "brute_force.hpp"

using namespace noiselearn;
using noiselearn::testing::brute_force_delta;

namespace {

std::vector<double> random_distribution(std::mt19937_64& rng, size_t size, double zero_probability = 0.0) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> p(size);
  double s = 0.0;
  for (double& v : p) s += (v = u(rng) < zero_probability ? 0.0 : 0.05 + u(rng));
  if (s == 0.0) p[0] = s = 1.0;
  for (double& v : p) v /= s;
  return p;
}

}  // namespace

TEST_CASE("n-fold composition brackets the brute-force delta of the product pair", "[composition]") {
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 12; ++trial) {
    // Pairs with zeros on either side: distinguishing events in both directions.
    const size_t size = 3 + trial % 4;
    const auto a = random_distribution(rng, size, 0.2), b = random_distribution(rng, size, 0.2);
    const int n = 1 + trial % 5;
    AccountantOptions options;
    options.loss_step = trial % 2 ? 1e-3 : 0.02;
    for (bool reverse : {false, true}) {
      const auto& first = reverse ? b : a;
      const auto& second = reverse ? a : b;
      const PrivacyLossAtoms atoms = privacy_loss_atoms(first, second);
      const auto upper = self_compose(discretise(atoms, BoundKind::kUpper, options), n, options);
      const auto lower = self_compose(discretise(atoms, BoundKind::kLower, options), n, options);
      for (double eps : {0.0, 0.1, 0.5, 1.0, 2.0, 4.0}) {
        const double exact = brute_force_delta(first, second, n, eps);
        INFO("trial " << trial << " n " << n << " eps " << eps << " reverse " << reverse);
        CHECK(lower.delta_for_epsilon(eps) <= exact + 1e-13);
        CHECK(upper.delta_for_epsilon(eps) >= exact - 1e-13);
        // Sparse distributions (few outcomes): the bracket is O(n step) wide.
        CHECK(upper.delta_for_epsilon(eps) - lower.delta_for_epsilon(eps) <= 2.0 * n * options.loss_step + 1e-12);
      }
    }
  }
}

TEST_CASE("composing n then m equals composing n+m", "[composition]") {
  std::vector<double> a, b;
  for (int i = -400; i <= 400; ++i) {
    a.push_back(std::exp(-std::abs(i * 0.01)));
    b.push_back(std::exp(-std::abs(i * 0.01 - 0.3)));
  }
  double sa = 0, sb = 0;
  for (size_t i = 0; i < a.size(); ++i) sa += a[i], sb += b[i];
  for (size_t i = 0; i < a.size(); ++i) a[i] /= sa, b[i] /= sb;
  AccountantOptions options;
  const PrivacyLossAtoms atoms = privacy_loss_atoms(a, b);
  for (BoundKind bound : {BoundKind::kUpper, BoundKind::kLower}) {
    const auto single = discretise(atoms, bound, options);
    auto whole = self_compose(single, 23, options);
    auto parts = compose(self_compose(single, 9, options), self_compose(single, 14, options), options);
    CHECK(whole.compositions == 23);
    CHECK(parts.compositions == 23);
    // The two paths take different convolutions, so their rounding allowances differ; both are small.
    CHECK(whole.numerical_error < 1e-11);
    CHECK(parts.numerical_error < 1e-11);
    whole.numerical_error = parts.numerical_error = 0.0;
    for (double delta : {1e-2, 1e-4, 1e-6, 1e-8}) {
      // Both are exact convolutions of the same single-release PLD up to tail truncation (1e-15 per step)
      // and rounding: the same epsilon to many digits.
      CHECK(parts.epsilon_for_delta(delta) == Approx(whole.epsilon_for_delta(delta)).epsilon(1e-8));
    }
  }
}

TEST_CASE("coarsening during composition stays one-directional", "[composition]") {
  // Forcing the grid to coarsen many times (max_points tiny) must still bracket the uncoarsened result.
  std::vector<double> a, b;
  for (int i = -2000; i <= 2000; ++i) {
    const double x = i * 0.005;
    a.push_back(std::exp(-x * x / 2));
    b.push_back(std::exp(-(x - 0.5) * (x - 0.5) / 2));
  }
  double sa = 0, sb = 0;
  for (size_t i = 0; i < a.size(); ++i) sa += a[i], sb += b[i];
  for (size_t i = 0; i < a.size(); ++i) a[i] /= sa, b[i] /= sb;
  const PrivacyLossAtoms atoms = privacy_loss_atoms(a, b);
  AccountantOptions fine, coarse;
  coarse.max_points = 2048;
  const int n = 300;
  const auto reference_upper = self_compose(discretise(atoms, BoundKind::kUpper, fine), n, fine);
  const auto reference_lower = self_compose(discretise(atoms, BoundKind::kLower, fine), n, fine);
  const auto coarse_upper = self_compose(discretise(atoms, BoundKind::kUpper, coarse), n, coarse);
  const auto coarse_lower = self_compose(discretise(atoms, BoundKind::kLower, coarse), n, coarse);
  CHECK(coarse_upper.loss_step > fine.loss_step);
  CHECK(static_cast<int64_t>(coarse_upper.masses.size()) <= coarse.max_points);
  for (double eps : {0.0, 5.0, 20.0, 37.5, 45.0, 60.0}) {
    CHECK(coarse_upper.delta_for_epsilon(eps) >= reference_lower.delta_for_epsilon(eps) - 1e-15);
    CHECK(coarse_lower.delta_for_epsilon(eps) <= reference_upper.delta_for_epsilon(eps) + 1e-15);
    CHECK(coarse_upper.delta_for_epsilon(eps) >= coarse_lower.delta_for_epsilon(eps));
  }
}

TEST_CASE("heterogeneous composition equals the product of the parts", "[composition]") {
  std::mt19937_64 rng(22);
  const auto a1 = random_distribution(rng, 4, 0.0), b1 = random_distribution(rng, 4, 0.0);
  const auto a2 = random_distribution(rng, 3, 0.3), b2 = random_distribution(rng, 3, 0.0);
  AccountantOptions options;
  options.loss_step = 1e-3;
  std::vector<std::pair<PrivacyLossDistribution, int64_t>> upper_parts, lower_parts;
  for (auto [a, b, count] : {std::tuple{a1, b1, 2}, std::tuple{a2, b2, 3}}) {
    const auto atoms = privacy_loss_atoms(a, b);
    upper_parts.emplace_back(discretise(atoms, BoundKind::kUpper, options), count);
    lower_parts.emplace_back(discretise(atoms, BoundKind::kLower, options), count);
  }
  const auto upper = compose_heterogeneous(upper_parts, options);
  const auto lower = compose_heterogeneous(lower_parts, options);
  CHECK(upper.compositions == 5);
  const std::vector<std::vector<double>> as{a1, a1, a2, a2, a2}, bs{b1, b1, b2, b2, b2};
  for (double eps : {0.0, 0.3, 1.0, 2.5}) {
    const double exact = noiselearn::testing::brute_force_delta_mixed(as, bs, eps);
    CHECK(lower.delta_for_epsilon(eps) <= exact + 1e-13);
    CHECK(upper.delta_for_epsilon(eps) >= exact - 1e-13);
    CHECK(upper.delta_for_epsilon(eps) - lower.delta_for_epsilon(eps) < 0.02);
  }
}

TEST_CASE("infinity mass composes as 1 - (1 - omega)^n", "[composition]") {
  const std::vector<double> a{0.1, 0.6, 0.3, 0.0}, b{0.0, 0.3, 0.6, 0.1};
  AccountantOptions options;
  const auto single = discretise(privacy_loss_atoms(a, b), BoundKind::kUpper, options);
  // An upper bound's masses are rounded up (never below the exact value, above it by a few u per release).
  CHECK(single.infinity_mass >= 0.1);
  CHECK(single.infinity_mass <= 0.1 * (1.0 + 16 * std::numeric_limits<double>::epsilon()));
  for (int64_t n : {1, 2, 7, 64, 1000}) {
    const auto composed = self_compose(single, n, options);
    const double exact = -std::expm1(static_cast<double>(n) * std::log1p(-0.1));
    INFO("n " << n);
    CHECK(composed.infinity_mass >= exact);
    CHECK(composed.infinity_mass - composed.truncated_mass <= exact * (1.0 + static_cast<double>(n) * 1e-14));
  }
}
