// The continuous Gaussian and Laplace mechanisms as certified bounds (accounting/continuous_mechanisms.hpp):
// the Gaussian bracket holds the analytic delta of Balle and Wang (2018) for n releases; the Laplace bracket
// holds its closed form for one release, and for n releases it stays above the binned Laplace (a post-processing
// of the Laplace when the shift is a whole number of bins: its delta can only be smaller).
#include <catch2/catch.hpp>

#include <cmath>

#include "accounting/continuous_mechanisms.hpp"
#include "core/dominating_pair.hpp"

using namespace noiselearn;

TEST_CASE("Gaussian mechanism: lower <= analytic delta (Balle and Wang) <= upper, tight, for n releases",
          "[accountant][continuous][closed-form]") {
  const AccountantOptions options;
  for (double sigma : {1.0, 5.0}) {
    const PairBounds single = gaussian_mechanism_bounds(sigma, 1.0, options);
    for (int64_t n : {1, 10, 100}) {
      const PairBounds bounds = compose_bounds(single, n, options);
      for (double eps : {0.25, 1.0, 2.92}) {
        const double exact = gaussian_mechanism_delta(sigma, 1.0, n, eps);
        INFO("sigma " << sigma << ", n " << n << ", eps " << eps << ": exact " << exact);
        if (exact < 1e-30) continue;
        CHECK(bounds.delta_lower(eps) <= exact * (1.0 + 1e-9));
        CHECK(bounds.delta_upper(eps) >= exact * (1.0 - 1e-9));
        CHECK(bounds.delta_upper(eps) - bounds.delta_lower(eps) <= 1e-3 * exact + 1e-14);
      }
    }
  }
  // Gilani et al., Fig. 1: sigma = 5, s = 1, n = 10, delta = 1e-6 gives eps 2.92 for the Gaussian.
  const PairBounds fig1 = compose_bounds(gaussian_mechanism_bounds(5.0, 1.0, options), 10, options);
  CHECK(fig1.epsilon_upper(1e-6) == Approx(2.92).margin(0.005));
  CHECK(gaussian_mechanism_delta(5.0, 1.0, 10, fig1.epsilon_upper(1e-6)) <= 1e-6);
  CHECK(gaussian_mechanism_delta(5.0, 1.0, 10, fig1.epsilon_lower(1e-6)) >= 1e-6 * (1.0 - 1e-9));
}

TEST_CASE(
    "Laplace mechanism: one release holds the closed form 1 - e^((eps - s/b)/2), and n releases stay above "
    "the binned Laplace's lower bound",
    "[accountant][continuous][closed-form]") {
  const AccountantOptions options;
  const double b = std::sqrt(12.5);  // variance 25 (Gilani et al., Fig. 1)
  const PairBounds one = compose_bounds(laplace_mechanism_bounds(b, 1.0, options), 1, options);
  auto closed_form = [b](double eps) { return std::max(0.0, -std::expm1((eps - 1.0 / b) / 2.0)); };
  // Each bound moves every loss by less than one loss step h plus one interval (h / 8), so it lies between the
  // closed form at eps + 9h/8 and at eps - 9h/8.
  const double h = 1.125 * options.loss_step;
  for (double eps : {0.0, 0.1, 0.2, 0.28}) {
    const double exact = closed_form(eps);
    CHECK(one.delta_lower(eps) <= exact * (1.0 + 1e-9));
    CHECK(one.delta_upper(eps) >= exact * (1.0 - 1e-9));
    CHECK(one.delta_lower(eps) >= closed_form(eps + h) * (1.0 - 1e-9));
    CHECK(one.delta_upper(eps) <= closed_form(eps - h) * (1.0 + 1e-9) + 1e-12);
  }
  CHECK(one.delta_upper(1.0 / b + 1e-3) <= 1e-12);
  // The binned Laplace, 100 bins per unit of sensitivity: bin i has mass (1 - r) / (1 + r) r^|i| with r = e^(-step/b)
  // (the integral of the Laplace density over the bin), a table with geometric tails from the start.
  const double step = 0.01, r = std::exp(-step / b);
  std::vector<double> p;
  for (int i = -1; i <= 1; ++i) p.push_back(i == 0 ? -std::expm1(-step / (2.0 * b)) : 0.0);
  // Bin 0 holds (-step/2, step/2): 1 - e^(-step/(2b)); bins +-1 and beyond: e^(-(|i| - 1/2) step / b) (1 - r) / 2.
  p[0] = p[2] = 0.5 * std::exp(-0.5 * step / b) * -std::expm1(-step / b);
  const NoiseTable binned(Grid{-step, step, 3}, p, std::nullopt, {}, GeometricTails{r});
  PairSpecification specification;
  specification.sensitivity = 1.0;
  for (int64_t n : {2, 10}) {
    const PairBounds continuous = compose_bounds(laplace_mechanism_bounds(b, 1.0, options), n, options);
    const PairBounds discrete = account(make_pair_family(binned, specification), n, options);
    for (double eps : {0.5, 1.5, 2.8}) {
      INFO("n " << n << ", eps " << eps);
      CHECK(continuous.delta_upper(eps) >= discrete.delta_lower(eps));
      // ... and close to it: 100 bins per sensitivity change delta by well under a percent.
      CHECK(continuous.delta_lower(eps) <= discrete.delta_upper(eps) * 1.05);
    }
  }
}
