// Extended Moments Accountant (Sommer et al., Prop. 17) as a comparison.
#include <catch2/catch.hpp>

#include <cmath>

#include "accounting/moments_accountant.hpp"
#include "accounting/pair_accountant.hpp"
#include "core/baselines.hpp"

using namespace noiselearn;

TEST_CASE("moments accountant matches the Gaussian closed form", "[moments-accountant]") {
  // For N(0, sigma^2) against N(s, sigma^2) the loss is N(mu^2/2, mu^2) under A (mu = s/sigma), so
  // Gamma_lambda = lambda (lambda + 1) mu^2 / 2 and min_lambda exp(n Gamma - lambda eps) = exp(-(eps - n mu^2/2)^2 / (2
  // n mu^2)) for eps > n mu^2 / 2. The binned table is a post-processing: its moments are slightly smaller.
  const double sigma = 5.0;
  const NoiseTable table = gaussian_table(Grid::symmetric(200.0, 0.01), sigma);
  const auto pairs = make_pair_family(table, PairSpecification{}).pairs;
  const double mu2 = 1.0 / (sigma * sigma);
  for (double lambda : {0.5, 2.0, 10.0})
    CHECK(moments_log_gamma(pairs[0].a, pairs[0].b, lambda) == Approx(lambda * (lambda + 1) * mu2 / 2).epsilon(1e-5));
  for (int64_t n : {1, 10, 100}) {
    for (double eps : {1.0, 2.0, 3.0}) {
      if (eps <= n * mu2 / 2) continue;
      const double closed = std::exp(-std::pow(eps - n * mu2 / 2, 2) / (2 * n * mu2));
      const MomentsBound bound = moments_accountant_delta(pairs, n, eps);
      CHECK(bound.value <= closed * (1 + 1e-9));
      CHECK(bound.value == Approx(closed).epsilon(1e-3));
      CHECK(bound.lambda == Approx(eps / (n * mu2) - 0.5).epsilon(1e-3));
    }
  }
  // Epsilon at delta inverts it: n mu^2 / 2 + sqrt(2 n mu^2 log(1/delta)).
  const MomentsBound eps = moments_accountant_epsilon(pairs, 10, 1e-6);
  CHECK(eps.value == Approx(10 * mu2 / 2 + std::sqrt(2 * 10 * mu2 * std::log(1e6))).epsilon(1e-4));
}

TEST_CASE("moments accountant is a valid but looser bound, and pays for distinguishing events",
          "[moments-accountant]") {
  const NoiseTable table = truncated_gaussian_table(Grid::symmetric(6.0, 0.01), 2.0, 5.0);
  PairSpecification specification;
  const PairFamily family = make_pair_family(table, specification);
  const PairBounds certified = account(family, 8, {});
  for (double eps : {0.5, 1.0, 2.0}) {
    const MomentsBound ma = moments_accountant_delta(family.pairs, 8, eps);
    CHECK(ma.value >= certified.delta_lower(eps));
    CHECK(ma.value >= -std::expm1(8 * std::log1p(-certified.single_release_infinity_mass.first)));
  }
  CHECK(moments_accountant_epsilon(family.pairs, 8, 1e-3).value >= certified.epsilon_lower(1e-3));
  // Below the composed distinguishing mass no epsilon works.
  CHECK(std::isinf(moments_accountant_epsilon(family.pairs, 8, 1e-9).value));
}
