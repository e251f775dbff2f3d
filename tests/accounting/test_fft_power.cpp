// The n-fold composition by one FFT power (accounting/fft_power.hpp) against what it must contain: Balle and Wang's
// closed form for the Gaussian (n up to 20,000, both tails of delta), enumeration of every outcome for small n, and
// square-and-multiply's bracket (another rigorous one: the two must overlap), untilted and tilted.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "accounting/composition.hpp"
#include "accounting/continuous_mechanisms.hpp"
#include "accounting/exponential_tilt.hpp"
#include "accounting/fft_power.hpp"
#include "accounting/refinement.hpp"
#include "accounting/release_events.hpp"
#include "brute_force.hpp"

using namespace noiselearn;

namespace {

PairBounds single_of(const std::string& mechanism, EventFields fields, const AccountantOptions& options) {
  fields.insert(fields.begin(), {"mechanism", mechanism});
  return event_release_bounds(parse_release_event(fields, "test"), RecordRelation::kAddOrRemove, options);
}

}  // namespace

TEST_CASE(
    "FFT power: the Gaussian's bracket holds Balle and Wang's delta, untilted and tilted, n up to 20,000, and a "
    "window too wide is declined",
    "[accountant][fft-power][closed-form]") {
  AccountantOptions options;
  options.fft_power = true;
  // (m 2 at n 20,000 spans about 11 million loss steps, more than the 8 max_points the power transforms: excluded.)
  for (double m : {2.0, 10.0})
    for (int64_t n : {50, 1000, 20000}) {
      if (m == 2.0 && n == 20000) continue;
      const PairBounds single = single_of("gaussian", {{"noise_multiplier", std::to_string(m)}}, options);
      const PrivacyLossDistribution& p = single.upper.first_to_second;
      const auto upper = self_compose_by_fft_power(p, n, options);
      const auto lower = self_compose_by_fft_power(single.lower.front().first_to_second, n, options);
      REQUIRE(upper);
      REQUIRE(lower);
      const double mu = std::sqrt(static_cast<double>(n)) / m;
      for (double z : {0.5, 2.0, 4.0}) {  // eps where delta is about Phi(-z): 0.3 .. 3e-5
        const double eps = mu * mu / 2.0 + z * mu;
        const double exact = gaussian_mechanism_delta(m, 1.0, n, eps);
        INFO("m " << m << ", n " << n << ", eps " << eps << ": exact " << exact);
        CHECK(lower->delta_for_epsilon(eps) <= exact * (1.0 + 1e-12));
        CHECK(upper->delta_for_epsilon(eps) >= exact * (1.0 - 1e-12));
        // Untilted, the floating-point allowance is absolute (about n u sqrt(N) ||x||_2): tight where delta is large.
        if (exact > 1e-3) CHECK(upper->delta_for_epsilon(eps) - lower->delta_for_epsilon(eps) <= 1e-3 * exact);
        // Tilted for this eps: rigorous, and tighter or as tight near it.
        PrivacyLossDistribution tilted_upper = p, tilted_lower = single.lower.front().first_to_second;
        const double lambda = chernoff_tilt_for_epsilon(p, n, eps);
        if (!(lambda > 0.0)) continue;
        apply_tilt(tilted_upper, lambda);
        apply_tilt(tilted_lower, lambda);
        const auto tu = self_compose_by_fft_power(tilted_upper, n, options);
        const auto tl = self_compose_by_fft_power(tilted_lower, n, options);
        REQUIRE(tu);
        REQUIRE(tl);
        CHECK(tl->delta_for_epsilon(eps) <= exact * (1.0 + 1e-12));
        CHECK(tu->delta_for_epsilon(eps) >= exact * (1.0 - 1e-12));
        CHECK(tu->delta_for_epsilon(eps) - tl->delta_for_epsilon(eps) <= 1e-3 * exact);  // tilted: relative, everywhere
      }
    }
  const PairBounds wide = single_of("gaussian", {{"noise_multiplier", "2"}}, options);
  CHECK_FALSE(self_compose_by_fft_power(wide.upper.first_to_second, 20000, options));
  CHECK(self_compose(wide.upper.first_to_second, 20000, options).masses.size() >
        0);  // falls back to square-and-multiply
}

TEST_CASE("FFT power: small n brackets the enumeration of the Poisson-sampled discrete Laplace",
          "[accountant][fft-power][brute-force]") {
  AccountantOptions options;
  options.fft_power = true;
  const PairBounds single =
      single_of("discrete_laplace", {{"scale", "1.5"}, {"sensitivity", "2"}, {"sampling_rate", "0.3"}}, options);
  std::vector<double> q_pmf, p_pmf;
  const double r = std::exp(-1.0 / 1.5), c = (1.0 - r) / (1.0 + r);
  for (int x = -60; x <= 62; ++x) {
    q_pmf.push_back(c * std::pow(r, std::abs(x)));
    p_pmf.push_back(c * std::pow(r, std::abs(x - 2)));
  }
  std::vector<double> a(q_pmf.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = 0.7 * q_pmf[i] + 0.3 * p_pmf[i];
  for (int n : {2, 3}) {
    const auto upper = self_compose_by_fft_power(single.upper.first_to_second, n, options);
    const auto lower = self_compose_by_fft_power(single.lower.front().first_to_second, n, options);
    REQUIRE(upper);
    REQUIRE(lower);
    for (double eps : {0.0, 0.3, 1.0, 2.0}) {
      const double exact = testing::brute_force_delta(a, q_pmf, n, eps);
      INFO("n " << n << ", eps " << eps << ": exact " << exact);
      CHECK(lower->delta_for_epsilon(eps) <= exact * (1.0 + 1e-12) + 1e-15);
      CHECK(upper->delta_for_epsilon(eps) >= exact * (1.0 - 1e-12) - 1e-15);
    }
  }
}

TEST_CASE(
    "FFT power and square-and-multiply: two rigorous brackets of DP-SGD's composition overlap, and the power's "
    "is at least as narrow",
    "[accountant][fft-power]") {
  AccountantOptions plain;
  plain.loss_step = 5e-5;
  AccountantOptions powered = plain;
  powered.fft_power = true;
  const EventFields fields{{"noise_multiplier", "1.1"}, {"sampling_rate", "0.0042666667"}};
  const PairBounds single = single_of("gaussian", fields, plain);
  AccountingQueries queries;
  queries.deltas = {1e-5};
  PairBounds by_squaring = compose_bounds(single, 3000, plain, queries);
  PairBounds by_power = compose_bounds(single, 3000, powered, queries);
  by_squaring = refined_for_delta(std::move(by_squaring), 1e-5);
  by_power = refined_for_delta(std::move(by_power), 1e-5);
  const double a_low = by_squaring.epsilon_lower(1e-5), a_high = by_squaring.epsilon_upper(1e-5);
  const double b_low = by_power.epsilon_lower(1e-5), b_high = by_power.epsilon_upper(1e-5);
  INFO("squaring [" << a_low << ", " << a_high << "], power [" << b_low << ", " << b_high << "]");
  CHECK(a_low <= b_high);
  CHECK(b_low <= a_high);
  CHECK(b_high - b_low <= (a_high - a_low) * 1.05);
  CHECK((b_high - b_low) / b_high <= 1e-4);
}
