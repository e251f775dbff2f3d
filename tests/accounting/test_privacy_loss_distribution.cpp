// Queries on a discretised PLD: delta(eps) by the hockey-stick sum, eps(delta) by exact inversion.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "accounting/privacy_loss_distribution.hpp"

using namespace noiselearn;

namespace {

PrivacyLossDistribution random_pld(std::mt19937_64& rng, BoundKind bound, double infinity_mass) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  PrivacyLossDistribution pld;
  pld.bound = bound;
  pld.loss_step = 0.05;
  pld.first_index = -40;
  pld.masses.resize(100);
  double total = 0.0;
  for (double& m : pld.masses) total += (m = std::pow(u(rng), 3.0));
  for (double& m : pld.masses) m *= (1.0 - infinity_mass) / total;
  pld.infinity_mass = infinity_mass;
  return pld;
}

// delta(eps) straight from the definition, one term per grid point.
double delta_by_definition(const PrivacyLossDistribution& pld, double eps) {
  double delta = pld.infinity_mass;
  for (size_t i = 0; i < pld.masses.size(); ++i)
    delta += pld.masses[i] * std::max(0.0, 1.0 - std::exp(eps - pld.loss(i)));
  return delta;
}

}  // namespace

TEST_CASE("delta(eps) is the hockey-stick sum over the losses above eps", "[pld]") {
  std::mt19937_64 rng(1);
  for (double omega : {0.0, 1e-3}) {
    const PrivacyLossDistribution pld = random_pld(rng, BoundKind::kUpper, omega);
    for (double eps = -3.0; eps <= 4.0; eps += 0.0371) {
      // Sums of 100 positive terms: agreement to a few ulps of the result.
      CHECK(pld.delta_for_epsilon(eps) == Approx(delta_by_definition(pld, eps)).epsilon(1e-13).margin(1e-16));
    }
    // Above the largest loss only the infinity mass is left.
    CHECK(pld.delta_for_epsilon(pld.loss(99) + 1.0) == Approx(omega).epsilon(1e-13));
  }
}

TEST_CASE("the one-pass curve equals point queries at every epsilon, in any order", "[pld]") {
  std::mt19937_64 rng(2);
  const PrivacyLossDistribution pld = random_pld(rng, BoundKind::kUpper, 2e-4);
  std::vector<double> epsilons;
  std::uniform_real_distribution<double> u(-4.0, 5.0);
  for (int i = 0; i < 300; ++i) epsilons.push_back(u(rng));
  epsilons.push_back(pld.loss(10));  // exactly on grid points too
  epsilons.push_back(pld.loss(0));
  const std::vector<double> curve = pld.delta_for_epsilons(epsilons);
  for (size_t i = 0; i < epsilons.size(); ++i)
    CHECK(curve[i] == Approx(delta_by_definition(pld, epsilons[i])).epsilon(1e-12).margin(1e-16));
}

TEST_CASE("eps(delta) inverts delta(eps) exactly and is the smallest such eps", "[pld]") {
  std::mt19937_64 rng(3);
  const PrivacyLossDistribution pld = random_pld(rng, BoundKind::kUpper, 1e-7);
  for (double delta : {0.5, 0.1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 2e-7}) {
    const double eps = pld.epsilon_for_delta(delta);
    REQUIRE(std::isfinite(eps));
    CHECK(delta_by_definition(pld, eps) == Approx(delta).epsilon(1e-10));
    // Slightly smaller eps must violate delta (delta(eps) is strictly decreasing where it exceeds omega).
    CHECK(delta_by_definition(pld, eps - 1e-7) > delta);
  }
  // Below the infinity mass no epsilon suffices.
  CHECK(pld.epsilon_for_delta(5e-8) == std::numeric_limits<double>::infinity());
}

TEST_CASE("the numerical-error allowance widens upper and lower bounds outwards", "[pld]") {
  std::mt19937_64 rng(4);
  PrivacyLossDistribution upper = random_pld(rng, BoundKind::kUpper, 0.0);
  PrivacyLossDistribution lower = upper;
  lower.bound = BoundKind::kLower;
  const double exact = upper.delta_for_epsilon(1.0);
  upper.numerical_error = lower.numerical_error = 1e-6;
  CHECK(upper.delta_for_epsilon(1.0) == Approx(exact + 1e-6).epsilon(1e-12));
  CHECK(lower.delta_for_epsilon(1.0) == Approx(exact - 1e-6).epsilon(1e-12));
  CHECK(upper.epsilon_for_delta(1e-3) > lower.epsilon_for_delta(1e-3));
}

TEST_CASE("eps(delta) of a tilted PLD is the bisection's smallest verified eps, on long grids too", "[pld]") {
  // With a tilt the allowance falls with eps and eps(delta) is found by bisection; its comparisons are decided from a
  // one-pass estimate with a rigorous slack where that is clear and by the full sum otherwise. Either way the answer
  // must be, for an upper bound, an eps whose delta_for_epsilon is at most delta with one a bisection step below it
  // above delta; for a lower bound, one whose lower curve is above delta just below it.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (BoundKind bound : {BoundKind::kUpper, BoundKind::kLower})
    for (double step : {1e-2, 1e-4}) {
      PrivacyLossDistribution pld;
      pld.bound = bound;
      pld.loss_step = step;
      pld.first_index = static_cast<int64_t>(std::llround(-3.0 / step));
      pld.masses.resize(static_cast<size_t>(std::llround(12.0 / step)));
      double total = 0.0;
      for (size_t i = 0; i < pld.masses.size(); ++i) {
        const double l = pld.loss(i) - 1.0;
        total += (pld.masses[i] = std::exp(-l * l) * (0.5 + u(rng)));  // smooth, positive, noisy
      }
      for (double& m : pld.masses) m /= total;
      pld.tilt.lambda = 2.0;
      pld.tilt.reference = 1.5;
      pld.tilt.error = 1e-13;
      pld.tilt.infinity_error = 1e-15;
      pld.numerical_error =
          bound == BoundKind::kUpper ? 1e-9 : 1e-3;  // the lower bound's bisection needs error >= delta
      for (double delta : {1e-2, 1e-4, 1e-6, 1e-8}) {
        const double eps = pld.epsilon_for_delta(delta);
        INFO("bound " << to_string(bound) << ", step " << step << ", delta " << delta << ", eps " << eps);
        REQUIRE(std::isfinite(eps));
        const double below = eps - 4e-14 * std::max(1.0, std::abs(eps));
        if (bound == BoundKind::kUpper) {
          CHECK(pld.delta_for_epsilon(eps) <= delta);
          CHECK(pld.delta_for_epsilon(below) > delta);
        } else {
          CHECK(pld.delta_for_epsilon(below) > delta);  // the true eps(delta) is above every such point
        }
      }
    }
}
