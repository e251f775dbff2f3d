// The exact adaptive programme in blocks (accounting/adaptive_blocks.hpp): the convex hull of a block's adaptive
// profile as a dominating pair, composed over the blocks.
//
// Checked: the hull PLD reproduces a convex profile at its grid points and is a valid pair (A-mass 1, B-mass <= 1);
// the block bound holds the exact adaptive worst case (brute force over every strategy) for every block size; one
// block of all n releases is the programme itself; blocks are never looser than the one-release envelope composed n
// times (Blackwell order survives composition); the block size chosen for a budget is the largest within it.
#include <catch2/catch.hpp>

#include <random>

#include "accounting/adaptive_blocks.hpp"
#include "accounting/adaptive_composition.hpp"
#include "accounting/heterogeneous_composition.hpp"
#include "accounting/pair_accountant.hpp"
#include "brute_force.hpp"
#include "core/dominating_pair.hpp"
#include "core/errors.hpp"

using namespace noiselearn;

namespace {

std::vector<double> skewed_table(std::mt19937_64& rng, size_t size) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> p(size);
  double total = 0.0;
  for (size_t i = 0; i < size; ++i) total += (p[i] = (0.03 + u(rng)) * std::exp(0.4 * static_cast<double>(i) * u(rng)));
  for (double& v : p) v /= total;
  return p;
}

// The programme's candidates of an asymmetric table under the any-sequence relation (s = 1 cell), n releases.
AdaptiveReleases candidates_of(const std::vector<double>& p, int64_t n, const AccountantOptions& options) {
  const NoiseTable table(Grid{0.0, 1.0, static_cast<int64_t>(p.size())}, p);
  const PairBounds single = single_release_bounds(make_pair_family(table, PairSpecification{}), options);
  REQUIRE(single.candidates.adaptive.size() == 1);
  AdaptiveReleases releases = single.candidates.adaptive.front();
  releases.count = n;
  return releases;
}

double pld_b_mass(const PrivacyLossDistribution& pld) {
  double b = 0.0;
  for (size_t i = 0; i < pld.masses.size(); ++i) b += pld.masses[i] * std::exp(-pld.loss(i));
  return b;
}

}  // namespace

TEST_CASE("blocks: the hull PLD of a convex profile reproduces it and is a valid pair", "[adaptive][blocks]") {
  std::mt19937_64 rng(7);
  AccountantOptions options;
  options.loss_step = 1e-3;
  for (int trial = 0; trial < 4; ++trial) {
    const std::vector<double> p = skewed_table(rng, 8);
    const AdaptiveReleases releases = candidates_of(p, 3, options);
    const AdaptiveCurves curve = adaptive_composition({releases}, options);
    const PrivacyLossDistribution hull = profile_dominating_pld(curve);
    // A-mass 1 (up to the stored rounding), B-mass at most 1.
    CHECK(hull.finite_mass() + hull.infinity_mass == Approx(1.0).margin(1e-15));
    CHECK(pld_b_mass(hull) <= 1.0 + 1e-15);
    // The programme's curve is convex in e^eps, so its hull passes through every grid value: the hull PLD's delta
    // is at least each value, and equal to it up to rounding.
    for (size_t j = 0; j < curve.upper.size(); j += 97) {
      const double eps =
          static_cast<double>(curve.first_index + static_cast<int64_t>(j)) * curve.loss_step + curve.loss_shift.upper;
      const double value = curve.upper[j];
      const double from_hull = hull.delta_for_epsilon(eps);
      INFO("trial " << trial << " eps " << eps << " value " << value << " hull " << from_hull);
      CHECK(from_hull >= value);
      CHECK(from_hull <= value * (1.0 + 1e-9) + 1e-15);
    }
  }
}

TEST_CASE("blocks: the block bound holds the exact adaptive worst case (brute force), every block size",
          "[adaptive][blocks][brute-force]") {
  std::mt19937_64 rng(23);
  AccountantOptions options;
  options.loss_step = 1e-3;
  const std::vector<int> differences{-1, 1};
  int finite_inverses = 0;
  for (int trial = 0; trial < 4; ++trial) {
    const std::vector<double> p = skewed_table(rng, 7);
    for (int64_t n : {2, 3, 4}) {
      const AdaptiveReleases releases = candidates_of(p, n, options);
      const AdaptiveCurves exact_programme = adaptive_composition({releases}, options);
      // The envelope of one release composed n times: what blocks of one release give at most.
      const NoiseTable table(Grid{0.0, 1.0, static_cast<int64_t>(p.size())}, p);
      AccountantOptions envelope_options = options;
      envelope_options.several_pairs = SeveralPairsMethod::kEnvelope;
      const PairBounds envelope = account(make_pair_family(table, PairSpecification{}), n, envelope_options);
      for (int64_t m = 1; m <= n; ++m) {
        const AdaptiveCurves blocks = adaptive_block_composition(releases, m, options);
        CHECK(blocks.blocks.size == m);
        CHECK(blocks.blocks.count == n / m);
        CHECK(blocks.blocks.remainder == n % m);
        CHECK(blocks.lower.empty());
        for (double eps : {0.0, 0.3, 1.0}) {
          const double exact = testing::brute_force_adaptive(p, differences, n, eps);
          const double bound = blocks.delta_upper(eps);
          INFO("trial " << trial << " n " << n << " m " << m << " eps " << eps << " exact " << exact << " block "
                        << bound << " programme " << exact_programme.delta_upper(eps) << " envelope "
                        << envelope.upper.first_to_second.delta_for_epsilon(eps));
          CHECK(bound >= exact);
          CHECK(bound >= exact_programme.delta_lower(eps));
          CHECK(bound <= envelope.upper.first_to_second.delta_for_epsilon(eps) * (1.0 + 1e-6) + 1e-12);
          if (m == n) CHECK(bound <= exact_programme.delta_upper(eps) * (1.0 + 1e-9) + 1e-12);
        }
        // eps(delta) is the inverse of the same bound (infinite when delta is below the bound's distinguishing-event
        // mass, which these tables, with mass at the edge of the support, often have).
        const double delta = 0.9 * testing::brute_force_adaptive(p, differences, n, 0.5);
        const double eps_up = blocks.epsilon_upper(delta);
        INFO("delta " << delta << " eps_up " << eps_up);
        if (std::isfinite(eps_up)) {
          ++finite_inverses;
          CHECK(blocks.delta_upper(eps_up) <= delta * (1.0 + 1e-12));
          CHECK(testing::brute_force_adaptive(p, differences, n, std::max(0.0, eps_up)) <= delta * (1.0 + 1e-9));
        } else {
          CHECK(blocks.delta_upper(1e6) > delta);
        }
      }
    }
  }
  CHECK(finite_inverses >= 5);
}

TEST_CASE("blocks: the snapshot after r releases is the programme of r releases (the remainder block costs nothing)",
          "[adaptive][blocks]") {
  // The programme runs backwards from the last release, so after r of m steps its values are the whole adaptive
  // profile of r releases. Checked against a separate run of r releases with the same window top, at every grid
  // epsilon of the separate run (both bounds), and with the brute force over every strategy.
  std::mt19937_64 rng(41);
  AccountantOptions options;
  options.loss_step = 1e-3;
  const std::vector<int> differences{-1, 1};
  for (int trial = 0; trial < 3; ++trial) {
    const std::vector<double> p = skewed_table(rng, 7);
    for (int64_t r : {1, 2, 3}) {
      AdaptiveReleases releases = candidates_of(p, 5, options);
      AdaptiveOptions with_snapshot;
      with_snapshot.snapshot_after = r;
      const AdaptiveCurves whole = adaptive_composition({releases}, options, with_snapshot);
      REQUIRE(whole.snapshot);
      const AdaptiveCurves& snapshot = *whole.snapshot;
      CHECK(snapshot.compositions == r);
      CHECK(!snapshot.snapshot);
      releases.count = r;
      const AdaptiveCurves alone = adaptive_composition({releases}, options);
      CHECK(snapshot.loss_shift.upper == Approx(alone.loss_shift.upper).epsilon(1e-12).margin(1e-300));
      CHECK(snapshot.loss_shift.lower == Approx(alone.loss_shift.lower).epsilon(1e-12).margin(1e-300));
      for (size_t j = 0; j < alone.upper.size(); j += 7) {
        const double eps = static_cast<double>(alone.first_index + static_cast<int64_t>(j)) * alone.loss_step;
        INFO("trial " << trial << " r " << r << " eps " << eps);
        CHECK(snapshot.delta_upper(eps) == Approx(alone.delta_upper(eps)).epsilon(1e-12).margin(1e-15));
        CHECK(snapshot.delta_lower(eps) == Approx(alone.delta_lower(eps)).epsilon(1e-12).margin(1e-15));
      }
      for (double eps : {0.0, 0.4, 1.0}) {
        const double exact = testing::brute_force_adaptive(p, differences, r, eps);
        INFO("trial " << trial << " r " << r << " eps " << eps << " exact " << exact);
        CHECK(snapshot.delta_upper(eps) >= exact);
        CHECK(snapshot.delta_lower(eps) <= exact);
        CHECK(snapshot.delta_upper(eps) <= exact * (1.0 + 1e-3) + 1e-12);
      }
    }
  }
  // No snapshot unless asked for one within the run.
  std::mt19937_64 rng2(3);
  const AdaptiveReleases releases = candidates_of(skewed_table(rng2, 6), 3, options);
  CHECK(!adaptive_composition({releases}, options).snapshot);
  AdaptiveOptions at_end;
  at_end.snapshot_after = 3;
  CHECK(!adaptive_composition({releases}, options, at_end).snapshot);
}

TEST_CASE("blocks: the block size for a budget is the largest within it", "[adaptive][blocks]") {
  std::mt19937_64 rng(5);
  AccountantOptions options;
  options.loss_step = 1e-3;
  const AdaptiveReleases releases = candidates_of(skewed_table(rng, 9), 1000, options);
  const int64_t m = largest_block_within(releases, 1e8);
  REQUIRE(m >= 1);
  REQUIRE(m < 1000);
  AdaptiveOptions upper_only;
  upper_only.upper_only = true;
  CHECK(largest_block_within(releases, 1e12) == 1000);
  CHECK(largest_block_within(releases, 1.0) == 0);
  CHECK(largest_block_within(releases, 1e9) >= m);
  CHECK_THROWS_AS(adaptive_block_composition(releases, 0, options), InputError);
  CHECK_THROWS_AS(adaptive_block_composition(releases, 1001, options), InputError);
}

TEST_CASE("blocks: under auto, the whole programme within adaptive_budget, else blocks within adaptive_block_budget",
          "[adaptive][blocks]") {
  std::mt19937_64 rng(11);
  AccountantOptions options;
  options.loss_step = 1e-3;
  const std::vector<double> p = skewed_table(rng, 9);
  const int64_t n = 400;
  const AdaptiveReleases releases = candidates_of(p, n, options);
  const double whole_cost = adaptive_composition_cost({releases});
  const NoiseTable table(Grid{0.0, 1.0, static_cast<int64_t>(p.size())}, p);
  const PairFamily family = make_pair_family(table, PairSpecification{});
  auto run_with = [&](double budget, double block_budget) {
    AccountantOptions o = options;
    o.adaptive_budget = budget;
    o.adaptive_block_budget = block_budget;
    return account(family, n, o);
  };
  // Within the whole budget: the whole programme (both bounds), whatever the block budget.
  const PairBounds whole = run_with(whole_cost * 1.01, 1.0);
  REQUIRE(whole.alternatives.adaptive.size() == 1);
  CHECK(whole.alternatives.adaptive.front().blocks.size == 0);
  CHECK(!whole.alternatives.adaptive.front().lower.empty());
  // Over it: blocks as long as the block budget allows, not the whole budget.
  for (double share : {0.02, 0.1}) {
    const double block_budget = whole_cost * share;
    const PairBounds blocks = run_with(whole_cost * 0.99, block_budget);
    REQUIRE(blocks.alternatives.adaptive.size() == 1);
    const int64_t expected = largest_block_within(releases, block_budget);
    INFO("share " << share << " expected block " << expected);
    REQUIRE(expected >= 2);
    REQUIRE(expected < n);
    CHECK(blocks.alternatives.adaptive.front().blocks.size == expected);
    CHECK(blocks.alternatives.several_pairs_note.find("block budget") != std::string::npos);
    // The block bound lies between the whole programme's bounds (upper only) and below the envelope's.
    for (double eps : {0.5, 2.0, 4.0}) {
      const double upper = blocks.delta_upper(eps);
      CHECK(upper >= whole.delta_lower(eps));
      CHECK(upper >= whole.delta_upper(eps) * (1.0 - 1e-9));
    }
  }
  // The block budget is validated like the other options.
  AccountantOptions bad = options;
  bad.adaptive_block_budget = -1.0;
  CHECK_THROWS_AS(bad.validate(), InputError);
  bad.adaptive_block_budget = std::nan("");
  CHECK_THROWS_AS(bad.validate(), InputError);
}

TEST_CASE("blocks: a heterogeneous composition bounds the exact adaptive worst case in every order of its parts",
          "[adaptive][blocks][brute-force]") {
  // Parts: 2 releases of table p and 1 of table q (both asymmetric, s = 1 cell, any sequence). Each part's programme
  // hull is a dominating pair; composed, they must hold the exact adaptive value of every order of the releases
  // (brute force over every strategy), be no looser than the envelope, and stay above the fixed-sequence lower bound.
  std::mt19937_64 rng(41);
  AccountantOptions options;
  options.loss_step = 1e-3;
  options.several_pairs = SeveralPairsMethod::kAdaptive;
  AccountantOptions envelope_options = options;
  envelope_options.several_pairs = SeveralPairsMethod::kEnvelope;
  int tighter = 0;
  for (int trial = 0; trial < 4; ++trial) {
    const std::vector<double> p = skewed_table(rng, 7), q = skewed_table(rng, 6);
    const PairFamily fp = make_pair_family(NoiseTable(Grid{0.0, 1.0, 7}, p), PairSpecification{});
    const PairFamily fq = make_pair_family(NoiseTable(Grid{0.0, 1.0, 6}, q), PairSpecification{});
    const PairBounds bounds = account_heterogeneous({{fp, 2}, {fq, 1}}, options);
    const PairBounds envelope = account_heterogeneous({{fp, 2}, {fq, 1}}, envelope_options);
    REQUIRE(!bounds.alternatives.adaptive.empty());
    CHECK(bounds.alternatives.several_pairs_note.find("per part") != std::string::npos);
    std::vector<std::pair<std::vector<double>, std::vector<double>>> cp, cq;
    for (int d : {-1, 1}) {
      cp.push_back(testing::shifted_release(p, d, 1));
      cq.push_back(testing::shifted_release(q, d, 1));
    }
    for (double eps : {0.0, 0.3, 1.0, 2.0}) {
      double worst = 0.0, least = 1.0;
      for (const auto& order : std::vector<std::vector<int>>{{0, 0, 1}, {0, 1, 0}, {1, 0, 0}}) {
        std::vector<std::vector<std::pair<std::vector<double>, std::vector<double>>>> sequence;
        for (int part : order) sequence.push_back(part == 0 ? cp : cq);
        const double exact = testing::brute_force_adaptive_sequence(sequence, eps);
        worst = std::max(worst, exact);
        least = std::min(least, exact);
      }
      const double upper = bounds.delta_upper(eps), lower = bounds.delta_lower(eps);
      const double envelope_upper = envelope.delta_upper(eps);
      INFO("trial " << trial << " eps " << eps << " exact in [" << least << ", " << worst << "] bounds [" << lower
                    << ", " << upper << "] envelope " << envelope_upper);
      CHECK(upper >= worst);
      CHECK(lower <= least);
      CHECK(upper <= envelope_upper);
      if (upper < envelope_upper * (1.0 - 1e-3)) ++tighter;
    }
  }
  CHECK(tighter >= 4);  // the per-part programme is used, and it narrows the envelope
}

TEST_CASE(
    "blocks: the composition of the blocks tilted for a small delta keeps the bound and sheds the FFT's allowance",
    "[adaptive][blocks][small-delta]") {
  // A skewed two-piece table (asymmetric, so the any-sequence relation has two candidates per release), n = 43 in
  // blocks of 8 (5 blocks and a remainder of 3). Far in the tail the untilted composition's bound is its absolute
  // FFT allowance; the tilted one (add_tilted_blocks) must stay above the exact adaptive value (bounded below by the
  // whole programme's lower run) and be far below the untilted one there, and agree with it where delta is large.
  std::vector<double> p;
  double total = 0.0;
  // Mode 100, scales 2 below and 9 above, on 0 .. 700: the edge masses (the distinguishing events) are below 1e-28.
  for (int j = 0; j <= 700; ++j)
    total += p.emplace_back(j <= 100 ? std::exp(-(100.0 - j) / 2.0) : std::exp(-(j - 100.0) / 9.0));
  for (double& v : p) v /= total;
  AccountantOptions options;
  options.loss_step = 1e-3;
  const AdaptiveReleases releases = candidates_of(p, 43, options);
  AdaptiveCurves blocks = adaptive_block_composition(releases, 8, options);
  REQUIRE(blocks.blocks.count == 5);
  REQUIRE(blocks.blocks.remainder == 3);
  const AdaptiveCurves whole = adaptive_composition({releases}, options);
  const double far = whole.epsilon_lower(1e-14);  // the exact adaptive delta there is above 1e-14
  REQUIRE(std::isfinite(far));
  const double untilted_far = blocks.delta_upper(far);
  REQUIRE(add_tilted_blocks(blocks, far, options));
  CHECK_FALSE(add_tilted_blocks(blocks, far, options));  // the same target is not composed twice
  REQUIRE(blocks.blocks.tilted.size() == 1);
  const PrivacyLossDistribution& tilted = *blocks.blocks.tilted.front();
  const double tilted_far = tilted.delta_for_epsilon(far);
  INFO("eps " << far << ": untilted " << untilted_far << ", tilted " << tilted_far << ", whole programme ["
              << whole.delta_lower(far) << ", " << whole.delta_upper(far) << "]");
  CHECK(tilted_far >= whole.delta_lower(far));
  CHECK(tilted_far <= 0.5 * untilted_far);  // the allowance dominated the untilted bound
  CHECK(blocks.delta_upper(far) == std::min(untilted_far, tilted_far));
  CHECK(blocks.epsilon_upper(1e-14) <= blocks.blocks.composed->epsilon_for_delta(1e-14));
  CHECK(blocks.epsilon_upper(1e-14) >= whole.epsilon_lower(1e-14));
  // Where delta is large both compositions are the same PLD up to rounding.
  const double near = whole.epsilon_upper(1e-3);
  CHECK(tilted.delta_for_epsilon(near) == Approx(blocks.blocks.composed->delta_for_epsilon(near)).epsilon(1e-9));
  CHECK(tilted.delta_for_epsilon(near) >= whole.delta_lower(near));
}
