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

TEST_CASE(
    "FFT power: the floating-point allowance is weighted per frequency, so a million releases stay tight untilted "
    "around Balle and Wang's delta",
    "[accountant][fft-power][closed-form]") {
  // One Gaussian release of multiplier 1000 spans about 160 loss steps; 10^6 of them compose to one Gaussian of
  // multiplier 1 (mu = 1). The power errs at frequency k by about n |X_k|^(n-1) E, negligible but for the few
  // frequencies where |X_k|^n is not: the window's allowance is about n u log2 N, not n u log2 N sqrt(N) ||x||_2
  // sqrt(window) (about 0.4 here, which no bracket survives). What remains of the bracket is the discretisation's: a
  // release spans only ten loss steps a standard deviation.
  AccountantOptions options;
  options.fft_power = true;
  const PairBounds single = single_of("gaussian", {{"noise_multiplier", "1000"}}, options);
  const int64_t n = 1000000;
  const auto upper = self_compose_by_fft_power(single.upper.first_to_second, n, options);
  const auto lower = self_compose_by_fft_power(single.lower.front().first_to_second, n, options);
  REQUIRE(upper);
  REQUIRE(lower);
  CHECK(upper->numerical_error < 1e-6);
  CHECK(lower->numerical_error < 1e-6);
  for (double eps : {0.5, 1.5, 3.0}) {  // delta about 0.13, 0.03, 0.002
    const double exact = gaussian_mechanism_delta(1000.0, 1.0, n, eps);
    INFO("eps " << eps << ": exact " << exact << ", bracket [" << lower->delta_for_epsilon(eps) << ", "
                << upper->delta_for_epsilon(eps) << "]");
    CHECK(lower->delta_for_epsilon(eps) <= exact * (1.0 + 1e-12));
    CHECK(upper->delta_for_epsilon(eps) >= exact * (1.0 - 1e-12));
    CHECK(upper->delta_for_epsilon(eps) - lower->delta_for_epsilon(eps) <= 3e-2 * exact);
  }
}

TEST_CASE("FFT power: the masses differ from the exact composition by at most the allowance it reports",
          "[accountant][fft-power][brute-force]") {
  // The exact n-fold composition of the computed single release (direct convolution in long double, whose relative
  // error is about n 1e-19) against the power's masses, slot by slot: the l1 distance over the window must stay
  // within numerical_error (which also holds the aliased mass). At a loss step of 0.01 the release has about 270
  // points, so the direct convolution stays cheap (at 1e-4 it has 27,000, and 40 releases take minutes).
  AccountantOptions options;
  options.fft_power = true;
  options.loss_step = 0.01;
  const PairBounds single =
      single_of("discrete_laplace", {{"scale", "1.5"}, {"sensitivity", "2"}, {"sampling_rate", "0.3"}}, options);
  const PrivacyLossDistribution& x = single.lower.front().first_to_second;
  for (int64_t n : {7, 40}) {
    const auto result = self_compose_by_fft_power(x, n, options);
    REQUIRE(result);
    std::vector<long double> exact(1, 1.0L);
    for (int64_t r = 0; r < n; ++r) {
      std::vector<long double> next(exact.size() + x.masses.size() - 1, 0.0L);
      for (size_t i = 0; i < exact.size(); ++i)
        for (size_t j = 0; j < x.masses.size(); ++j) next[i + j] += exact[i] * x.masses[j];
      exact = std::move(next);
    }
    long double distance = 0.0L;
    for (size_t j = 0; j < result->masses.size(); ++j) {
      const int64_t index = result->first_index + static_cast<int64_t>(j) - n * x.first_index;
      const long double e = index >= 0 && index < static_cast<int64_t>(exact.size()) ? exact[index] : 0.0L;
      distance += std::fabs(static_cast<long double>(result->masses[j]) - e);
    }
    INFO("n " << n << ": l1 distance " << static_cast<double>(distance) << ", allowance " << result->numerical_error);
    CHECK(static_cast<double>(distance) <= result->numerical_error);
    CHECK(result->numerical_error < 1e-9);
  }
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

TEST_CASE("FFT power: zero masses at a release's ends (atoms far apart) still give the window and the exact power") {
  // Two atoms with zeros around them: the Chernoff window's log-moment once multiplied a zero mass by an overflowed
  // weight (0 * inf = NaN) and the power was declined. The 3-fold power is the trinomial, by enumeration.
  PrivacyLossDistribution single;
  single.bound = BoundKind::kUpper;
  single.loss_step = 1e-3;
  single.first_index = -400;
  single.masses.assign(3001, 0.0);
  single.masses[100] = 0.3;   // loss -0.3
  single.masses[2900] = 0.7;  // loss 2.5
  const std::optional<PrivacyLossDistribution> power = self_compose_by_fft_power(single, 3, AccountantOptions{});
  REQUIRE(power);
  for (int a = 0; a <= 3; ++a) {  // a atoms of the first kind, 3 - a of the second
    const int64_t index = a * (100 - 400) + (3 - a) * (2900 - 400);
    const double exact =
        std::tgamma(4.0) / (std::tgamma(a + 1.0) * std::tgamma(4.0 - a)) * std::pow(0.3, a) * std::pow(0.7, 3 - a);
    const auto at = static_cast<size_t>(index - power->first_index);
    REQUIRE(at < power->masses.size());
    CHECK(std::abs(power->masses[at] - exact) <= power->numerical_error + 1e-15);
  }
}
