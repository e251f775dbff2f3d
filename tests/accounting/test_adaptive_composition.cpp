// The exact adaptive accountant (accounting/adaptive_composition.hpp) against brute force over every adaptive
// strategy (brute_force.hpp: the adversary picks each query difference from the outputs so far, the history tree
// enumerated with long-double probabilities, no privacy loss and no discretisation).
//
// Invariants checked: lower <= exact adaptive worst case <= upper at every epsilon and delta asked; the bracket is
// at most 1e-3 relative wide; the adaptive value is at least the worst fixed sequence; a mirror-symmetric table gains
// nothing from adaptivity (the programme equals the single pair's composition).
#include <catch2/catch.hpp>

#include <random>

#include "accounting/accountant_threads.hpp"
#include "accounting/adaptive_composition.hpp"
#include "accounting/loss_discretisation.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/profile_envelope.hpp"
#include "brute_force.hpp"
#include "core/dominating_pair.hpp"
#include "core/errors.hpp"

using namespace noiselearn;

namespace {

std::vector<int> differences_up_to(int k) {
  std::vector<int> d;
  for (int j = -k; j <= k; ++j)
    if (j != 0) d.push_back(j);
  return d;
}

PairBounds account_any(const std::vector<double>& p, int k, int64_t n, AccountantOptions options = {}) {
  PairSpecification specification;
  specification.sensitivity = static_cast<double>(k);
  specification.shifts = ShiftPolicy::kAll;
  options.several_pairs = SeveralPairsMethod::kAdaptive;
  const NoiseTable table(Grid{0.0, 1.0, static_cast<int64_t>(p.size())}, p);
  return account(make_pair_family(table, specification), n, options);
}

std::vector<double> skewed_table(std::mt19937_64& rng, size_t size) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> p(size);
  double total = 0.0;
  for (size_t i = 0; i < size; ++i) total += (p[i] = (0.03 + u(rng)) * std::exp(0.4 * static_cast<double>(i) * u(rng)));
  for (double& v : p) v /= total;
  return p;
}

}  // namespace

TEST_CASE("adaptive: the 5-point table of the neighbour-relation reproducer, n = 2, eps = 1",
          "[adaptive][brute-force]") {
  // x = -2..2, s = 1 cell. Exact adaptive worst case 0.4020482 (the adversary picks the second difference from the
  // first output); the best fixed sequence is 0.383848; the envelope gives 0.407289.
  const std::vector<double> p{0.04, 0.10, 0.41, 0.28, 0.17};
  const double exact = testing::brute_force_adaptive(p, differences_up_to(1), 2, 1.0);
  CHECK(exact == Approx(0.4020482).margin(5e-8));
  const double fixed = testing::brute_force_worst_sequence(p, 1, 2, 1.0);
  CHECK(fixed == Approx(0.383848).margin(5e-7));
  const PairBounds bounds = account_any(p, 1, 2);
  REQUIRE(bounds.alternatives.adaptive.size() == 1);
  CHECK(bounds.delta_lower(1.0) <= exact);
  CHECK(bounds.delta_upper(1.0) >= exact);
  CHECK(bounds.delta_upper(1.0) - bounds.delta_lower(1.0) <= 1e-3 * exact);
  // The envelope alone is looser (0.407289); the certificate takes the programme's bound.
  CHECK(bounds.upper.first_to_second.delta_for_epsilon(1.0) > exact + 4e-3);
  CHECK(bounds.adaptive_upper_wins_at_epsilon(1.0));
}

TEST_CASE("adaptive: brackets hold the exact adaptive worst case on random skewed tables (k = 1..2, n = 1..3)",
          "[adaptive][brute-force]") {
  std::mt19937_64 rng(19);
  struct Case {
    int k, n;
    size_t size;
  };
  int checked = 0;
  for (const Case c : {Case{1, 1, 7}, Case{1, 2, 7}, Case{1, 2, 9}, Case{1, 3, 7}, Case{1, 3, 8}, Case{2, 1, 8},
                       Case{2, 2, 7}, Case{2, 2, 9}, Case{2, 3, 7}}) {
    for (int repeat = 0; repeat < 2; ++repeat) {
      const std::vector<double> p = skewed_table(rng, c.size);
      const PairBounds bounds = account_any(p, c.k, c.n);
      for (double eps : {0.0, 0.3, 1.0, 2.5}) {
        const double exact = testing::brute_force_adaptive(p, differences_up_to(c.k), c.n, eps);
        if (exact < 1e-9) continue;
        INFO("k = " << c.k << ", n = " << c.n << ", size " << c.size << ", eps = " << eps << ", exact " << exact);
        CHECK(bounds.delta_lower(eps) <= exact * (1.0 + 1e-12));
        CHECK(bounds.delta_upper(eps) >= exact * (1.0 - 1e-12));
        CHECK(bounds.delta_upper(eps) - bounds.delta_lower(eps) <= 1e-3 * exact);
        // Adaptivity never loses against the worst fixed sequence.
        CHECK(exact >= testing::brute_force_worst_sequence(p, c.k, c.n, eps) * (1.0 - 1e-12));
        ++checked;
      }
      // eps(delta) at the exact delta of eps = 1: the bracket holds 1.
      const double delta = testing::brute_force_adaptive(p, differences_up_to(c.k), c.n, 1.0);
      INFO("k = " << c.k << ", n = " << c.n << ", size " << c.size << ", delta(1) = " << delta);
      // Away from the distinguishing-event floor, where eps(delta) jumps.
      const double floor = testing::brute_force_adaptive(p, differences_up_to(c.k), c.n, 40.0);
      if (delta > 1e-6 && delta < 0.5 && delta > floor * (1.0 + 1e-3) + 1e-9) {
        CHECK(bounds.epsilon_lower(delta) <= 1.0 + 1e-12);
        CHECK(bounds.epsilon_upper(delta) >= 1.0 - 1e-12);
        CHECK(bounds.epsilon_upper(delta) - bounds.epsilon_lower(delta) <= 1e-3);
      }
    }
  }
  CHECK(checked > 50);
}

TEST_CASE("adaptive: delta between grid epsilons stays bracketed (chord above, convexity below)",
          "[adaptive][brute-force]") {
  const std::vector<double> p{0.04, 0.10, 0.41, 0.28, 0.17};
  AccountantOptions coarse;
  coarse.loss_step = 0.05;  // few grid points, so most epsilons fall between them
  const PairBounds bounds = account_any(p, 1, 2, coarse);
  for (double eps = 0.0; eps <= 3.0; eps += 0.0371) {
    const double exact = testing::brute_force_adaptive(p, differences_up_to(1), 2, eps);
    INFO("eps = " << eps);
    CHECK(bounds.alternatives.adaptive.front().delta_lower(eps) <= exact * (1.0 + 1e-12));
    CHECK(bounds.alternatives.adaptive.front().delta_upper(eps) >= exact * (1.0 - 1e-12));
  }
}

TEST_CASE("adaptive: a mirror-symmetric table gains nothing from adaptivity", "[adaptive]") {
  // p symmetric and unimodal: shifting up or down is the same pair, so the programme's candidates collapse to one
  // and the account is the single pair's n-fold composition; brute force agrees.
  const std::vector<double> p{0.05, 0.15, 0.3, 0.3, 0.15, 0.05};
  const double exact = testing::brute_force_adaptive(p, differences_up_to(1), 3, 0.5);
  const double fixed = testing::brute_force_worst_sequence(p, 1, 3, 0.5);
  CHECK(exact == Approx(fixed).epsilon(1e-12));
  const PairBounds bounds = account_any(p, 1, 3);
  CHECK(bounds.alternatives.adaptive.empty());  // one undominated candidate
  CHECK(bounds.delta_lower(0.5) <= exact);
  CHECK(bounds.delta_upper(0.5) >= exact);
}

TEST_CASE("adaptive: dominated candidates are left out, undominated ones kept", "[adaptive]") {
  // Y is a post-processing of X (its first two outcomes merged), so X's profile dominates Y's at every eps; X2 is a
  // copy of X (one of the two suffices); X's reverse direction is not ordered against X.
  const std::vector<double> a{0.1, 0.2, 0.3, 0.4, 0.0}, b{0.0, 0.1, 0.2, 0.3, 0.4};
  const std::vector<double> merged_a{0.3, 0.3, 0.4, 0.0}, merged_b{0.1, 0.2, 0.3, 0.4};
  const AccountantOptions options;
  const PrivacyLossDistribution x = discretise(privacy_loss_atoms(a, b), BoundKind::kUpper, options);
  const PrivacyLossDistribution y = discretise(privacy_loss_atoms(merged_a, merged_b), BoundKind::kUpper, options);
  const PrivacyLossDistribution reverse = discretise(privacy_loss_atoms(b, a), BoundKind::kUpper, options);
  std::vector<PrivacyLossDistribution> inputs{y, x, x, reverse};
  const std::vector<size_t> kept = undominated_inputs(inputs, {1, 2, 3, 0});
  CHECK(kept == std::vector<size_t>{1, 3});
  // A mirror-symmetric unimodal table with k = 3: the maximal shift dominates the smaller ones (Thm 15 of Sommer et
  // al., at every eps for mirror pairs), so no release has several candidates.
  const std::vector<double> p{0.02, 0.05, 0.1, 0.15, 0.18, 0.18, 0.15, 0.1, 0.05, 0.02};
  const PairBounds symmetric = account_any(p, 3, 4);
  CHECK(symmetric.candidates.adaptive.empty());
  CHECK(symmetric.alternatives.adaptive.empty());
}

TEST_CASE("adaptive: the programme's curve is convex and non-increasing in e^eps, and translation-consistent",
          "[adaptive]") {
  const std::vector<double> p{0.04, 0.10, 0.41, 0.28, 0.17};
  const PairBounds bounds = account_any(p, 1, 3);
  const AdaptiveCurves& c = bounds.alternatives.adaptive.front();
  for (size_t j = 1; j < c.upper.size(); ++j) {
    CHECK(c.lower[j] <= c.upper[j]);
    CHECK(c.upper[j] <= c.upper[j - 1] * (1.0 + 1e-12) + 1e-300);
  }
  // delta at eps = 0 of the adaptive game is the total variation of the worst strategy: brute force.
  const double exact0 = testing::brute_force_adaptive(p, differences_up_to(1), 3, 0.0);
  CHECK(c.delta_lower(0.0) <= exact0);
  CHECK(c.delta_upper(0.0) >= exact0);
}

TEST_CASE("adaptive: bad candidate sets are refused", "[adaptive]") {
  AdaptiveReleases empty;
  CHECK_THROWS_AS(adaptive_composition({empty}, AccountantOptions{}), InputError);
  CHECK_THROWS_AS(adaptive_composition({}, AccountantOptions{}), InputError);
}

TEST_CASE("adaptive: the result does not depend on the number of threads (each value summed by one thread)",
          "[adaptive]") {
  // A window wide enough to be split (a skewed 41-point table, loss step 1e-4, n = 40: tens of thousands of points).
  std::mt19937_64 rng(11);
  const std::vector<double> p = skewed_table(rng, 41);
  AccountantOptions options;
  options.loss_step = 1e-4;
  const int before = accountant_threads();
  set_accountant_threads(1);
  const PairBounds one = account_any(p, 1, 40, options);
  set_accountant_threads(2);
  const PairBounds two = account_any(p, 1, 40, options);
  set_accountant_threads(before);
  REQUIRE(one.alternatives.adaptive.size() == 1);
  REQUIRE(two.alternatives.adaptive.size() == 1);
  CHECK(one.alternatives.adaptive.front().extent.largest_window >
        2 * 16384);  // split into chunks when there are threads
  CHECK(one.alternatives.adaptive.front().upper == two.alternatives.adaptive.front().upper);
  CHECK(one.alternatives.adaptive.front().lower == two.alternatives.adaptive.front().lower);
}

TEST_CASE("adaptive: the accountant's thread count is at least 1, and 0 is refused by name", "[adaptive]") {
  CHECK(accountant_threads() >= 1);
  const int before = accountant_threads();
  CHECK_THROWS_WITH(set_accountant_threads(0), Catch::Contains("thread count 0 must be at least 1"));
  CHECK(accountant_threads() == before);
}
