// The closed forms (accounting/closed_forms.hpp) against the same mathematics computed another way:
// - Balle and Wang's Gaussian delta(eps) written directly from its definition in long double (11 more bits, no
//   log-space rearrangement), and at a known value;
// - Gaussian compositions against their mu (sums of n d / z^2) and, through account_events, against the numerical
//   accountant composing the releases one by one;
// - the Laplace's single release against the numerical accountant's discretised bracket;
// - epsilon(delta) by inversion: each end on its side of the target.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <vector>

#include "accounting/certificate.hpp"
#include "accounting/closed_forms.hpp"
#include "accounting/continuous_mechanisms.hpp"
#include "accounting/heterogeneous_composition.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/release_events.hpp"
#include "core/errors.hpp"
#include "event_helpers.hpp"

using namespace noiselearn;
using namespace noiselearn::testing;

namespace {

// Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), each Phi as erfc in long double.
long double reference_gaussian_delta(long double mu, long double eps) {
  const long double root2 = std::sqrt(2.0L);
  return 0.5L * std::erfc((eps / mu - mu / 2.0L) / root2) -
         std::exp(eps) * 0.5L * std::erfc((eps / mu + mu / 2.0L) / root2);
}

ClosedFormBounds exact_mu(double mu) { return gaussian_closed_form(GaussianMu{mu, mu}); }

}  // namespace

TEST_CASE("closed form: the Gaussian's bracket holds delta(eps) computed directly in long double, within 1e-8",
          "[accountant][closed-form]") {
  for (double mu : {0.05, 0.3, 1.0, 2.0, 5.0, 12.0})
    for (double eps : {0.0, 0.01, 0.5, 1.0, 3.0, 10.0, 30.0}) {
      const long double reference = reference_gaussian_delta(mu, eps);
      const DeltaInterval d = exact_mu(mu).delta(eps);
      INFO("mu " << mu << ", eps " << eps << ": [" << d.lower << ", " << d.upper << "], reference "
                 << static_cast<double>(reference));
      CHECK(static_cast<long double>(d.lower) <= reference);
      CHECK(static_cast<long double>(d.upper) >= reference);
      // Where delta is a normal double the bracket is its rounding's: 1e-13 relative where ln Phi's arguments are
      // small, growing with their square (ln Phi(x) ~ -x^2 / 2 is held to u x^2 absolute) to 1e-9 at |x| = 30.
      if (reference > 1e-200L) CHECK(d.upper - d.lower <= 1e-8 * static_cast<double>(reference));
      // Where it underflows, the upper end is still above it (the least subnormal at worst), never 0.
      CHECK(d.upper > 0.0);
    }
  // mu = 1 at eps = 0: Phi(1/2) - Phi(-1/2) = erf(1 / (2 sqrt 2)).
  const DeltaInterval at_zero = exact_mu(1.0).delta(0.0);
  CHECK(at_zero.lower <= 0.38292492254802620727);
  CHECK(at_zero.upper >= 0.38292492254802620727);
  CHECK(at_zero.upper - at_zero.lower <= 1e-13);
}

TEST_CASE("closed form: Gaussian compositions add n d / z^2 under mu^2, bracketed for the rounding",
          "[accountant][closed-form]") {
  // 3 releases of z = 1 and 8 of z = 2: mu^2 = 3 + 2 = 5; 4 coordinates of z = 2: mu = 1.
  const GaussianMu five = composed_gaussian_mu({{1.0, 3.0, 1.0}, {2.0, 8.0, 1.0}});
  CHECK(five.lower <= std::sqrt(5.0));
  CHECK(five.upper >= std::sqrt(5.0));
  CHECK(five.upper - five.lower <= 1e-14);
  const GaussianMu one = composed_gaussian_mu({{2.0, 1.0, 4.0}});
  CHECK(one.lower <= 1.0);
  CHECK(one.upper >= 1.0);
  CHECK_THROWS_AS(composed_gaussian_mu({{0.0, 1.0, 1.0}}), InputError);
  // mu beyond the largest double: refused; terms that underflow: the upper end still above the true mu (3e-300 here).
  CHECK_THROWS_AS(composed_gaussian_mu({{1e-200, 1.0, 1.0}}), InputError);
  const GaussianMu tiny = composed_gaussian_mu({{1e300, 9.0, 1.0}});
  CHECK(tiny.upper >= 3e-300);
  CHECK(tiny.lower <= 3e-300);
  CHECK(gaussian_closed_form(tiny).delta_upper(0.0) >= 0.39 * 3e-300);
  // Its epsilon at any delta is tiny but finite (Phi's argument far below -1e150 is handled, not NaN).
  CHECK(std::isfinite(gaussian_closed_form(tiny).epsilon_upper(1e-10)));
  CHECK_THROWS_AS(composed_gaussian_mu({}), InputError);
}

TEST_CASE("closed form: epsilon(delta) by inversion lies on each side of the target, to 1e-9 relative",
          "[accountant][closed-form]") {
  for (double mu : {0.01, 0.5, 1.0, 10.0, 200.0})
    for (double delta : {1e-2, 1e-5, 1e-10, 1e-18, 1e-300}) {
      const ClosedFormBounds c = exact_mu(mu);
      const double upper = c.epsilon_upper(delta), lower = c.epsilon_lower(delta);
      INFO("mu " << mu << ", delta " << delta << ": eps in [" << lower << ", " << upper << "]");
      REQUIRE(std::isfinite(upper));
      CHECK(lower <= upper);
      CHECK(c.delta_upper(upper) <= delta);
      if (lower > 0.0) CHECK(c.delta_lower(lower) > delta);
      CHECK(upper - lower <= 1e-9 * upper + 1e-12);
      // Where long double resolves delta(eps) directly, the reference agrees: delta <= target at the upper end, above
      // it at the lower end.
      if (mu <= 10.0 && upper < 2000.0) {
        CHECK(reference_gaussian_delta(mu, upper) <= static_cast<long double>(delta) * (1.0L + 1e-12L));
        if (lower > 0.0)
          CHECK(reference_gaussian_delta(mu, lower) >= static_cast<long double>(delta) * (1.0L - 1e-12L));
      }
    }
}

TEST_CASE("closed form: account_events answers unsampled Gaussians by it, inside the numerical accountant's bracket",
          "[accountant][closed-form][events]") {
  ReleaseDescription phases;
  phases.events.push_back(event("gaussian", {{"noise_multiplier", "1"}, {"count", "3"}}));
  phases.events.push_back(event("gaussian", {{"noise_multiplier", "2"}, {"count", "8"}}));
  const PairBounds closed = account_events(phases, AccountantOptions{});
  REQUIRE(closed.alternatives.closed_form);
  CHECK(closed.compositions == 11);
  // The numerical accountant on the same releases, each event composed and the two composed together.
  AccountantOptions options;
  options.fft_power = true;
  std::vector<std::pair<PairBounds, int64_t>> parts;
  for (const auto& e : phases.events) parts.emplace_back(event_release_bounds(e, phases.relation, options), e.count);
  const PairBounds numerical = compose_heterogeneous_bounds(parts, options);
  for (double eps : {0.0, 0.5, 1.0, 2.0, 5.0}) {
    INFO("eps " << eps);
    CHECK(closed.delta_lower(eps) >= numerical.delta_lower(eps));
    CHECK(closed.delta_upper(eps) <= numerical.delta_upper(eps));
    CHECK(closed.delta_upper(eps) - closed.delta_lower(eps) <= 1e-10 * closed.delta_upper(eps) + 1e-300);
  }
  for (double delta : {1e-3, 1e-6, 1e-9}) {
    CHECK(closed.epsilon_lower(delta) >= numerical.epsilon_lower(delta));
    CHECK(closed.epsilon_upper(delta) <= numerical.epsilon_upper(delta));
  }
  // The certificate names the method and prints no discretisation.
  const Certificate c = make_certificate(closed, CertificateRequest{11, {1.0}, {1e-5}}, AccountantOptions{});
  CHECK(c.closed_form == "closed form (Balle and Wang 2018, Gaussian)");
  CHECK(c.epsilons.front().upper_method == c.closed_form);
  CHECK(c.report().find("discretisation") == std::string::npos);
}

TEST_CASE("closed form: 10^6 Gaussian releases of multiplier 5 and 10^8 of multiplier 1, tight and fast",
          "[accountant][closed-form][events]") {
  const auto start = std::chrono::steady_clock::now();
  ReleaseDescription million;
  million.events.push_back(event("gaussian", {{"noise_multiplier", "5"}, {"count", "1000000"}}));
  const PairBounds b = account_events(million, AccountantOptions{});
  // mu = 1000 / 5 = 200; the closed-form value at delta 1e-10 is 21271.28376.
  CHECK(b.epsilon_lower(1e-10) <= 21271.283765);
  CHECK(b.epsilon_upper(1e-10) >= 21271.283755);
  CHECK(b.epsilon_upper(1e-10) - b.epsilon_lower(1e-10) <= 1e-8 * 21271.28);
  ReleaseDescription hundred_million;
  hundred_million.events.push_back(event("gaussian", {{"noise_multiplier", "1"}, {"count", "100000000"}}));
  const PairBounds h = account_events(hundred_million, AccountantOptions{});
  CHECK(std::isfinite(h.epsilon_upper(1e-5)));
  // mu = 10^4: with eps = mu^2 / 2 + mu t, delta = Phi(-t) - phi(t) / (mu + t) (to first order), so t is a hair
  // above Phi^-1(1 - 1e-5) = 4.2648908: eps = 5e7 + 42649 (within a few units).
  CHECK(h.epsilon_upper(1e-5) == Approx(5e7 + 42649.0).epsilon(1e-6));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 1.0);
}

TEST_CASE("closed form: the Laplace's single release, inside the discretised bracket and tight",
          "[accountant][closed-form]") {
  for (double m : {0.25, 1.0, 3.0}) {
    const ClosedFormBounds c = laplace_closed_form(m, 1.0);
    const PairBounds numerical = laplace_mechanism_bounds(m, 1.0, AccountantOptions{});
    const double a = 1.0 / m;
    for (double eps : {0.0, 0.1 * a, 0.5 * a, 0.99 * a}) {
      const DeltaInterval d = c.delta(eps);
      INFO("m " << m << ", eps " << eps << ": [" << d.lower << ", " << d.upper << "]");
      CHECK(d.lower >= numerical.delta_lower(eps));
      CHECK(d.upper <= numerical.delta_upper(eps));
      CHECK(d.upper - d.lower <= 1e-13 * d.upper + 1e-300);
    }
    CHECK(c.delta_upper(a * (1.0 + 1e-12)) == 0.0);
    CHECK(c.epsilon_upper(1e-300) >= a * (1.0 - 1e-15));
  }
  // Through account_events: one unsampled Laplace release is answered by the closed form.
  const PairBounds b = account_one(event("laplace", {{"noise_multiplier", "2"}}));
  REQUIRE(b.alternatives.closed_form);
  CHECK(b.delta_upper(0.0) - b.delta_lower(0.0) <= 1e-13);
}

TEST_CASE("closed form: Gaussians beside other events are merged into one release, the bracket as tight or tighter",
          "[accountant][closed-form][events]") {
  ReleaseDescription mixed;
  mixed.events.push_back(event("gaussian", {{"noise_multiplier", "2"}, {"count", "50"}}));
  mixed.events.push_back(event("laplace", {{"noise_multiplier", "4"}, {"count", "3"}}));
  mixed.events.push_back(event("gaussian", {{"noise_multiplier", "3"}, {"count", "20"}}));
  const PairBounds merged = account_events(mixed, AccountantOptions{});
  CHECK_FALSE(merged.alternatives.closed_form);
  AccountantOptions options;
  options.fft_power = true;
  std::vector<std::pair<PairBounds, int64_t>> parts;
  for (const auto& e : mixed.events) parts.emplace_back(event_release_bounds(e, mixed.relation, options), e.count);
  const PairBounds separate = compose_heterogeneous_bounds(parts, options);
  for (double delta : {1e-3, 1e-6}) {
    INFO("delta " << delta);
    // Both rigorous: their brackets overlap; merging composes fewer releases, so its bracket is no wider.
    CHECK(merged.epsilon_lower(delta) <= separate.epsilon_upper(delta));
    CHECK(separate.epsilon_lower(delta) <= merged.epsilon_upper(delta));
    CHECK(merged.epsilon_upper(delta) - merged.epsilon_lower(delta) <=
          separate.epsilon_upper(delta) - separate.epsilon_lower(delta));
  }
}
