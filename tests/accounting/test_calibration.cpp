// The calibrations of accounting/dp_sgd.hpp against what they mean, the least value (to the relative tolerance) whose
// certified upper epsilon is at most the target:
// - unsampled Gaussian releases, whose certificate is Balle and Wang's closed form: the least multiplier is known
//   exactly (the n releases of multiplier m are one Gaussian of mu = sqrt(n) / m; mu is found here by bisection on
//   delta(eps) written from its definition in long double), so the value found must lie in [m*, m* (1 + tol)];
// - DP-SGD (Poisson-sampled Gaussian): the value certifies, and the value (1 + tol) below it does not, each checked by
//   a certificate made here;
// - the search's cost on these smooth cases (a few certificates), and its ends: the minimum returned when it already
//   certifies, the maximum's refusal.
#include <catch2/catch.hpp>

#include <cmath>

#include "accounting/dp_sgd.hpp"
#include "core/errors.hpp"
#include "event_helpers.hpp"

using namespace noiselearn;
using namespace noiselearn::testing;
using Catch::Matchers::Contains;

namespace {

// Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), each Phi as erfc in long double.
long double gaussian_delta(long double mu, long double eps) {
  const long double root2 = std::sqrt(2.0L);
  return 0.5L * std::erfc((eps / mu - mu / 2.0L) / root2) -
         std::exp(eps) * 0.5L * std::erfc((eps / mu + mu / 2.0L) / root2);
}

// The mu with delta(eps) = delta (delta rises with mu), by bisection to the last bits.
long double mu_at(double eps, double delta) {
  long double lo = 1e-6L, hi = 1e3L;
  for (int i = 0; i < 200; ++i) {
    const long double mid = 0.5L * (lo + hi);
    (gaussian_delta(mid, eps) > delta ? hi : lo) = mid;
  }
  return 0.5L * (lo + hi);
}

ReleaseDescription gaussian_releases(double multiplier, int64_t count) {
  ReleaseDescription d;
  d.events.push_back(
      event("gaussian", {{"noise_multiplier", std::to_string(multiplier)}, {"count", std::to_string(count)}}));
  return d;
}

}  // namespace

TEST_CASE("calibration: unsampled Gaussian releases get the least multiplier of the closed form, to the tolerance",
          "[accountant][calibration]") {
  struct Case {
    int64_t count;
    double epsilon, delta, tolerance;
  };
  for (const Case c : {Case{1, 1.0, 1e-5, 1e-4}, Case{100, 2.0, 1e-6, 1e-4}, Case{10000, 5.0, 1e-10, 1e-6},
                       Case{3, 0.05, 1e-3, 1e-3}}) {
    CAPTURE(c.count, c.epsilon, c.delta, c.tolerance);
    const double exact = static_cast<double>(std::sqrt(static_cast<long double>(c.count)) / mu_at(c.epsilon, c.delta));
    CalibrationOptions options;
    options.relative_tolerance = c.tolerance;
    options.maximum = 1e4;
    const NoiseCalibration found =
        calibrate_event(gaussian_releases(1.0, c.count), "noise_multiplier", c.epsilon, c.delta, {}, options);
    CAPTURE(exact, found.noise_multiplier, found.below, found.evaluations);
    // The closed form is certified to its rounding (1e-12 relative here): beyond that, m* splits pass from fail.
    CHECK(found.noise_multiplier >= exact * (1.0 - 1e-10));
    CHECK(found.noise_multiplier <= exact * (1.0 + c.tolerance) * (1.0 + 1e-10));
    CHECK(found.below <= exact * (1.0 + 1e-10));
    CHECK(found.noise_multiplier <= found.below * (1.0 + c.tolerance) * (1.0 + 1e-15));
    CHECK(found.epsilon.upper <= c.epsilon);
    // Smooth and exact: Newton steps end it in a few certificates (the maximum's, then two or three).
    CHECK(found.evaluations <= 5);
  }
}

TEST_CASE("calibration: DP-SGD's multiplier certifies the target and the one a tolerance below does not",
          "[accountant][calibration]") {
  struct Case {
    double q;
    int64_t steps;
    double epsilon, tolerance;
  };
  for (const Case c : {Case{0.1, 20, 2.0, 1e-3}, Case{0.01, 500, 0.5, 1e-4}, Case{0.5, 10, 8.0, 1e-3}}) {
    CAPTURE(c.q, c.steps, c.epsilon, c.tolerance);
    CalibrationOptions options;
    options.relative_tolerance = c.tolerance;
    const NoiseCalibration found = calibrate_noise_multiplier(c.epsilon, 1e-5, c.q, c.steps, {}, options);
    CAPTURE(found.noise_multiplier, found.below, found.evaluations);
    const EpsilonBracket at = dp_sgd_epsilon(found.noise_multiplier, c.q, c.steps, 1e-5);
    CHECK(at.upper <= c.epsilon);
    CHECK(found.epsilon.upper == at.upper);
    CHECK(found.below * (1.0 + c.tolerance) >= found.noise_multiplier * (1.0 - 1e-15));
    CHECK(dp_sgd_epsilon(found.below, c.q, c.steps, 1e-5).upper > c.epsilon);
    CHECK(found.evaluations <= 6);
  }
}

TEST_CASE("calibration: the minimum when it certifies already, a refusal when the maximum does not",
          "[accountant][calibration][errors]") {
  CalibrationOptions options;
  options.minimum = 5.0;
  const NoiseCalibration least = calibrate_noise_multiplier(50.0, 1e-5, 0.1, 20, {}, options);
  CHECK(least.noise_multiplier == 5.0);
  CHECK(least.epsilon.upper <= 50.0);
  options = {};
  options.maximum = 2.0;
  CHECK_THROWS_WITH(calibrate_noise_multiplier(0.01, 1e-5, 0.1, 20, {}, options),
                    Contains("no noise multiplier up to 2 reaches epsilon 0.01"));
}
