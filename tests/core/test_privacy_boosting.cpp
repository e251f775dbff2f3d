// The privacy-boosting mechanism of Jiang et al. (core/privacy_boosting.hpp): the densities of eq. (2) integrate
// to 1, meet the confidence rho where the kernel's region mass is least (eq. 3) and exceed it elsewhere, and the
// sampler draws from that density.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "core/errors.hpp"
#include "core/log_math.hpp"
#include "core/privacy_boosting.hpp"

using namespace noiselearn;

namespace {

// Composite Simpson integral of g over [a, b] with n (even) intervals.
template <class F>
double simpson(F g, double a, double b, int n) {
  const double h = (b - a) / n;
  double sum = g(a) + g(b);
  for (int k = 1; k < n; ++k) sum += (k % 2 ? 4.0 : 2.0) * g(a + k * h);
  return sum * h / 3.0;
}

// The integral of g over the real line, split at the given breakpoints (the density jumps there).
template <class F>
double integrate(F g, std::vector<double> cuts, double centre, double sd) {
  cuts.push_back(centre - 60.0 * sd);
  cuts.push_back(centre + 60.0 * sd);
  std::sort(cuts.begin(), cuts.end());
  double total = 0.0;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const double a = cuts[i], b = cuts[i + 1];
    if (b - a < 1e-14) continue;
    const double nudge = 1e-12 * (1.0 + std::abs(a) + std::abs(b));
    total += simpson(g, a + nudge, b - nudge, 20000);
  }
  return total;
}

std::vector<PrivacyBoostingMechanism> mechanisms() {
  std::vector<PrivacyBoostingMechanism> all;
  for (auto kernel :
       {BoostingKernel{BoostingKernelKind::kGaussian, 6.5}, BoostingKernel{BoostingKernelKind::kLaplace, 5.0}}) {
    PreferredRegion interval{PreferredRegionKind::kInterval, 10.0, 0.0, 0.0, 0.0};
    PreferredRegion fixed{PreferredRegionKind::kFixed, 0.0, 0.0, -10.0, 10.0};
    PreferredRegion relative{PreferredRegionKind::kRelative, 2.0, 0.1, 0.0, 0.0};
    for (const auto& region : {interval, fixed, relative}) all.emplace_back(kernel, region, 0.9);
  }
  return all;
}

}  // namespace

TEST_CASE("normal quantile inverts the normal CDF from 1e-300 to 1 - 1e-16", "[privacy-boosting]") {
  for (double u : {1e-300, 1e-100, 1e-20, 1e-5, 0.025, 0.3, 0.5, 0.7, 0.95, 1.0 - 1e-12}) {
    const double x = normal_quantile(u);
    CHECK(std::exp(log_normal_cdf(x)) == Approx(u).epsilon(1e-12));
  }
  // z_{0.95} = 1.6448536269514722 (the Gaussian that puts 90 % within +-tau has sigma = tau / z_0.95).
  CHECK(normal_quantile(0.95) == Approx(1.6448536269514722).epsilon(1e-15));
}

TEST_CASE("the boosting rate q of eq. 3 is 0 when the kernel already meets rho and solves Pr[S] = rho otherwise",
          "[privacy-boosting]") {
  const PreferredRegion interval{PreferredRegionKind::kInterval, 10.0, 0.0, 0.0, 0.0};
  // sigma = 6: Pr[|X| <= 10] = 0.9044 >= 0.9, no boosting.
  CHECK(PrivacyBoostingMechanism({BoostingKernelKind::kGaussian, 6.0}, interval, 0.9).q() == 0.0);
  // sigma = 6.5: p_S = 2 Phi(10 / 6.5) - 1; q = (rho - p_S) / (rho (1 - p_S)).
  const double p_s = std::erf(10.0 / 6.5 / std::sqrt(2.0));
  const PrivacyBoostingMechanism m({BoostingKernelKind::kGaussian, 6.5}, interval, 0.9);
  CHECK(m.q() == Approx((0.9 - p_s) / (0.9 * (1.0 - p_s))).epsilon(1e-13));
  CHECK(m.region_probability(0.0) == Approx(0.9).epsilon(1e-13));
  // rho = 1: q = 1, nothing outside the region.
  CHECK(PrivacyBoostingMechanism({BoostingKernelKind::kGaussian, 6.5}, interval, 1.0).q() == 1.0);
}

TEST_CASE("PB densities integrate to 1 and meet rho at the least-mass answer, more elsewhere", "[privacy-boosting]") {
  for (const auto& m : mechanisms()) {
    INFO(to_string(m.kernel().kind) << " kernel, " << to_string(m.region().kind) << " region");
    REQUIRE(m.q() > 0.0);
    for (double query : {m.region().least_mass_query(), 3.0, -37.0}) {
      INFO("answer " << query);
      const double centre = m.region().effective_query(query);
      // Plain variables, not a structured binding: a lambda may capture a binding only from C++20 on (clang refuses).
      const auto bounds = m.region().at(centre);
      const double first = bounds.first, second = bounds.second;
      const double sd = m.kernel().standard_deviation();
      const double total =
          integrate([&](double y) { return std::exp(m.log_density(y, query)); }, {first, second, centre}, centre, sd);
      CHECK(total == Approx(1.0).epsilon(1e-9));
      const double inside =
          integrate([&](double y) { return y >= first && y <= second ? std::exp(m.log_density(y, query)) : 0.0; },
                    {first, second, centre}, centre, sd);
      CHECK(inside == Approx(m.region_probability(query)).epsilon(1e-9));
      if (query == m.region().least_mass_query())
        CHECK(inside == Approx(0.9).epsilon(1e-9));
      else
        CHECK(inside >= 0.9 - 1e-9);
      const double mse =
          integrate([&](double y) { return (y - query) * (y - query) * std::exp(m.log_density(y, query)); },
                    {first, second, centre}, centre, sd);
      CHECK(mse == Approx(m.mean_squared_error(query)).epsilon(1e-8));
    }
  }
}

TEST_CASE("PB sampling: the fraction inside the region and the mean squared error match the density",
          "[privacy-boosting]") {
  std::mt19937_64 generator(20261123);  // test seed
  for (const auto& m : mechanisms()) {
    INFO(to_string(m.kernel().kind) << " kernel, " << to_string(m.region().kind) << " region");
    const double query = m.region().least_mass_query();
    const auto [first, second] = m.region().at(m.region().effective_query(query));
    const int draws = 200000;
    int inside = 0;
    double squares = 0.0, fourth = 0.0;
    for (int i = 0; i < draws; ++i) {
      const double e = m.sample(query, generator) - query;
      inside += (e + query >= first && e + query <= second);
      squares += e * e;
      fourth += e * e * e * e;
    }
    // Five standard errors: a false alarm has probability below 1e-6 per check.
    const double p = m.region_probability(query);
    CHECK(std::abs(inside / double(draws) - p) <= 5.0 * std::sqrt(p * (1 - p) / draws));
    const double mean_sq = squares / draws, var_sq = fourth / draws - mean_sq * mean_sq;
    CHECK(std::abs(mean_sq - m.mean_squared_error(query)) <= 5.0 * std::sqrt(var_sq / draws));
  }
}

TEST_CASE("PB mechanism refuses bad parameters with a message naming them", "[privacy-boosting]") {
  const PreferredRegion interval{PreferredRegionKind::kInterval, 10.0, 0.0, 0.0, 0.0};
  CHECK_THROWS_AS(PrivacyBoostingMechanism({BoostingKernelKind::kGaussian, -1.0}, interval, 0.9), InputError);
  CHECK_THROWS_AS(PrivacyBoostingMechanism({BoostingKernelKind::kGaussian, 1.0}, interval, 1.5), InputError);
  CHECK_THROWS_AS(PrivacyBoostingMechanism({BoostingKernelKind::kGaussian, 1.0},
                                           PreferredRegion{PreferredRegionKind::kRelative, 2.0, 0.0, 0, 0}, 0.9),
                  InputError);
  CHECK_THROWS_AS(PrivacyBoostingMechanism({BoostingKernelKind::kGaussian, 1.0},
                                           PreferredRegion{PreferredRegionKind::kFixed, 0, 0, 3.0, 1.0}, 0.9),
                  InputError);
  CHECK_THROWS_WITH(parse_preferred_region("absolute"), Catch::Contains("absolute"));
}
