// The PAC-privacy truncated Gaussian (Xiao et al. Thm 5, Alg. 3, eq. 31 corrected): the moments against quadrature,
// the reference optima, a fine direct search over (mu, sigma), and the optimality conditions.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "core/one_sided_baselines.hpp"
#include "solvers/pac_privacy.hpp"

using namespace noiselearn;

namespace {

constexpr double kOutputVariance = 20.6;  // the AES cache-miss variance of section 6

// Composite Simpson on [0, R] of f(z) times the unnormalised density exp(-(z - mu)^2 / (2 sigma^2)).
template <class F>
double simpson(double mu, double sigma, double range, F f) {
  const int intervals = 20000;
  const double h = range / intervals;
  double total = 0.0;
  for (int k = 0; k <= intervals; ++k) {
    const double z = k * h, weight = (k == 0 || k == intervals) ? 1.0 : (k % 2 ? 4.0 : 2.0);
    total += weight * f(z) * std::exp(-0.5 * (z - mu) * (z - mu) / (sigma * sigma));
  }
  return total * h / 3.0;
}

}  // namespace

TEST_CASE("pac: truncated Gaussian moments and entropy against quadrature, mu inside and below [0, R]",
          "[solvers][pac]") {
  for (const auto& [mu, sigma, range] : std::vector<std::tuple<double, double, double>>{{7.94, 6.28, 20.0},
                                                                                        {2.5, 4.75, 5.0},
                                                                                        {0.03, 0.98, 5.0},
                                                                                        {-3.0, 1.5, 10.0},
                                                                                        {12.0, 30.0, 10.0},
                                                                                        {1.0, 0.2, 3.0}}) {
    INFO("mu " << mu << ", sigma " << sigma << ", R " << range);
    const auto m = truncated_gaussian_moments(mu, sigma, range);
    const double z = simpson(mu, sigma, range, [](double) { return 1.0; });
    const double mean = simpson(mu, sigma, range, [](double x) { return x; }) / z;
    const double second = simpson(mu, sigma, range, [](double x) { return x * x; }) / z;
    // h = -E[ln p] with ln p = -(z - mu)^2 / (2 sigma^2) - ln Z'.
    // Init-captures: a lambda may capture a structured binding itself only from C++20 on (clang refuses).
    const double entropy = std::log(z) + simpson(mu, sigma, range, [mu = mu, sigma = sigma](double x) {
                                           return 0.5 * (x - mu) * (x - mu) / (sigma * sigma);
                                         }) / z;
    CHECK(m.mean == Approx(mean).epsilon(1e-10));
    CHECK(m.second_moment == Approx(second).epsilon(1e-10));
    CHECK(m.variance == Approx(second - mean * mean).epsilon(1e-8));
    CHECK(m.entropy == Approx(entropy).epsilon(1e-10).margin(1e-12));
    // The one-sided baseline of the core computes the same moments where it applies (0 <= mu <= R).
    if (mu >= 0.0 && mu <= range) {
      const TruncatedBiasedGaussian tbg{mu, sigma, range};
      CHECK(m.mean == Approx(tbg.mean()).epsilon(1e-13));
      CHECK(m.second_moment == Approx(tbg.second_moment()).epsilon(1e-13));
    }
  }
  // Far below 0 both Phi terms underflow; the log-space ratios keep the exponential limit: mean -> sigma^2 / |mu|.
  const auto deep = truncated_gaussian_moments(-400.0, 1.0, 10.0);
  CHECK(std::isfinite(deep.entropy));
  CHECK(deep.mean == Approx(1.0 / 400.0).epsilon(1e-4));
}

TEST_CASE("pac: the issue's reference optima (sigma_Y^2 = 20.6, nats)", "[solvers][pac]") {
  SECTION("R = 20, B = 100") {
    const auto s = solve_pac_privacy(kOutputVariance, 20.0, 100.0);
    CHECK(s.mu == Approx(7.9401).margin(5e-5));
    CHECK(s.sigma == Approx(6.2751).margin(5e-5));
    CHECK(s.mutual_information == Approx(0.38952).margin(2e-5));
    CHECK(s.budget_binding);
  }
  SECTION("R = 10, B = 10") {
    const auto s = solve_pac_privacy(kOutputVariance, 10.0, 10.0);
    CHECK(s.mu == Approx(0.8488).margin(5e-5));
    CHECK(s.sigma == Approx(2.8118).margin(5e-5));
    CHECK(s.mutual_information == Approx(1.13421).margin(2e-5));
  }
  SECTION("R = 5: mu = R/2 and the budget stops binding at B = 8.2576") {
    for (double budget : {8.2576, 9.0, 100.0, 1e6}) {
      INFO("B = " << budget);
      const auto s = solve_pac_privacy(kOutputVariance, 5.0, budget);
      CHECK(s.mu == 2.5);
      CHECK(!s.budget_binding);
      CHECK(s.mutual_information == Approx(1.36948).margin(2e-5));
      CHECK(s.moments.second_moment == Approx(8.2576).margin(1e-4));
      CHECK(s.multiplier == Approx(0.0).margin(1e-7));
    }
    // Just below the turning point the budget binds and the bound rises.
    const auto tight = solve_pac_privacy(kOutputVariance, 5.0, 8.0);
    CHECK(tight.budget_binding);
    CHECK(tight.mutual_information > 1.36948);
  }
}

TEST_CASE("pac: no (mu, sigma) of a fine direct search beats Alg. 3, and the search comes within its grid's resolution",
          "[solvers][pac]") {
  for (const auto& [range, budget] :
       std::vector<std::pair<double, double>>{{20.0, 100.0}, {10.0, 10.0}, {5.0, 3.0}, {5.0, 50.0}}) {
    INFO("R " << range << ", B " << budget);
    const auto s = solve_pac_privacy(kOutputVariance, range, budget);
    // A 300 x 300 grid over mu in [-R/4, R] and ln sigma over four decades around the optimum; infeasible points
    // (E[e^2] > B) are skipped.
    double best = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 300; ++a) {
      const double mu = -0.25 * range + 1.25 * range * a / 299.0;
      for (int b = 0; b < 300; ++b) {
        const double sigma = s.sigma * std::pow(10.0, -2.0 + 4.0 * b / 299.0);
        if (truncated_gaussian_moments(mu, sigma, range).second_moment > budget) continue;
        const double value = pac_mutual_information_bound(mu, sigma, range, kOutputVariance);
        CHECK(value >= s.mutual_information - 1e-12);
        best = std::min(best, value);
      }
    }
    CHECK(best - s.mutual_information < 2e-3);
  }
}

TEST_CASE("pac: the optimum meets the optimality conditions of eq. 30 over all densities", "[solvers][pac]") {
  for (const auto& [range, budget] : std::vector<std::pair<double, double>>{
           {20.0, 100.0}, {10.0, 10.0}, {5.0, 8.2576}, {5.0, 1.0}, {20.0, 0.5}, {3.0, 400.0}, {50.0, 30.0}}) {
    INFO("R " << range << ", B " << budget);
    const auto s = solve_pac_privacy(kOutputVariance, range, budget);
    CHECK(s.feasibility_slack >= 0.0);
    CHECK(s.multiplier >= -1e-8);
    CHECK(std::abs(s.stationarity_residual) < 1e-5);
    CHECK(std::abs(s.complementary_slackness) < 1e-6);
    // The stationarity condition mu / sigma^2 = E[e] / V puts mu above 0 at the optimum (Thm 5's mu in [0, R]).
    CHECK(s.mu > 0.0);
    CHECK(s.mu <= 0.5 * range);
    // Bounded one-sided noise can never beat the unbounded zero-mean Gaussian of the same second moment.
    CHECK(s.mutual_information >= s.gaussian_reference);
    // The optimum is interior to the searched bracket (the bracket is not what stops the search).
    CHECK(s.sigma > s.sigma_bracket_low * 10.0);
    CHECK(s.sigma < s.sigma_bracket_high / 1.5);
  }
}

TEST_CASE("pac: the optimal sigma may exceed sqrt(B) (Alg. 3's cap would cut it off)", "[solvers][pac]") {
  // R = 5, B = 8.2576: sigma* = 4.755 > sqrt(B) = 2.874; with sigma capped at sqrt(B) the bound would be worse.
  const auto s = solve_pac_privacy(kOutputVariance, 5.0, 8.2576);
  CHECK(s.sigma > std::sqrt(8.2576));
  const double capped = pac_mutual_information_bound(pac_best_mu(std::sqrt(8.2576), 5.0, 8.2576), std::sqrt(8.2576),
                                                     5.0, kOutputVariance);
  CHECK(capped > s.mutual_information + 1e-3);
}

TEST_CASE("pac: the best mean is feasible and symmetric objective about R/2", "[solvers][pac]") {
  for (double sigma : {0.5, 2.0, 8.0}) {
    const double mu = pac_best_mu(sigma, 10.0, 10.0);
    CHECK(truncated_gaussian_moments(mu, sigma, 10.0).second_moment <= 10.0);
    CHECK(truncated_gaussian_moments(mu, sigma, 10.0).second_moment == Approx(10.0).epsilon(1e-10));
    CHECK(pac_mutual_information_bound(3.0, sigma, 10.0, kOutputVariance) ==
          Approx(pac_mutual_information_bound(7.0, sigma, 10.0, kOutputVariance)).epsilon(1e-12));
  }
  // A budget below what mu = 0 gives: the feasible mean is negative.
  CHECK(pac_best_mu(4.0, 10.0, 1.0) < 0.0);
}

TEST_CASE("pac: bad input is an InputError naming the quantity", "[solvers][pac]") {
  CHECK_THROWS_WITH(solve_pac_privacy(-1.0, 5.0, 1.0), Catch::Contains("sigma_Y^2 = -1"));
  CHECK_THROWS_WITH(solve_pac_privacy(20.6, 0.0, 1.0), Catch::Contains("range R = 0"));
  CHECK_THROWS_WITH(solve_pac_privacy(20.6, 5.0, 0.0), Catch::Contains("budget B = 0"));
  CHECK_THROWS_AS(solve_pac_privacy(20.6, std::numeric_limits<double>::infinity(), 1.0), InputError);
}
