// Discretisation of one release onto the loss grid: the upper and lower constructions must bracket the exact
// privacy curve for every epsilon, keep the masses they claim to keep, and be at least as tight as rounding.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "accounting/loss_discretisation.hpp"

using namespace noiselearn;

namespace {

// Exact delta(eps) of a list of outcomes (no grid).
double exact_delta(const PrivacyLossAtoms& atoms, double eps) {
  long double delta = atoms.infinity_mass;
  for (size_t i = 0; i < atoms.losses.size(); ++i)
    delta += atoms.masses[i] * std::max(0.0L, 1.0L - std::exp(static_cast<long double>(eps - atoms.losses[i])));
  return static_cast<double>(delta);
}

PrivacyLossAtoms random_atoms(std::mt19937_64& rng, size_t count, double spread) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> a(count), b(count);
  double sa = 0, sb = 0;
  for (size_t i = 0; i < count; ++i) {
    sa += (a[i] = std::exp(spread * u(rng)));
    sb += (b[i] = std::exp(spread * u(rng)));
  }
  for (size_t i = 0; i < count; ++i) {
    a[i] /= sa;
    b[i] /= sb;
  }
  b[0] = 0.0;  // one distinguishing event
  return privacy_loss_atoms(a, b);
}

double b_mass(const PrivacyLossDistribution& pld) {
  double s = 0.0;
  for (size_t i = 0; i < pld.masses.size(); ++i) s += pld.masses[i] * std::exp(-pld.loss(i));
  return s;
}

}  // namespace

TEST_CASE("privacy-loss atoms: finite losses, infinite-loss mass, outcomes impossible under A dropped",
          "[discretisation]") {
  const PrivacyLossAtoms atoms = privacy_loss_atoms({0.5, 0.3, 0.2, 0.0}, {0.25, 0.0, 0.5, 0.25});
  REQUIRE(atoms.losses.size() == 2);
  CHECK(atoms.losses[0] == Approx(std::log(2.0)));
  CHECK(atoms.losses[1] == Approx(std::log(0.4)));
  CHECK(atoms.infinity_mass == 0.3);
}

TEST_CASE("upper and lower discretisations bracket the exact curve at every epsilon", "[discretisation]") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const PrivacyLossAtoms atoms = random_atoms(rng, 200, trial % 2 ? 6.0 : 1.0);
    for (auto upper_method : {PessimisticMethod::kConnectTheDots, PessimisticMethod::kRoundUp}) {
      for (auto lower_method : {OptimisticMethod::kMergeToGrid, OptimisticMethod::kRoundDown}) {
        AccountantOptions options;
        options.loss_step = trial % 3 == 0 ? 0.013 : 0.2;
        options.tail_mass = trial % 4 == 0 ? 1e-4 : 0.0;
        options.upper_method = upper_method;
        options.lower_method = lower_method;
        const auto upper = discretise(atoms, BoundKind::kUpper, options);
        const auto lower = discretise(atoms, BoundKind::kLower, options);
        for (double eps = -2.0; eps < 6.0; eps += 0.0917) {
          const double exact = exact_delta(atoms, eps);
          // Rounding of 200 terms: allow a few ulps.
          CHECK(lower.delta_for_epsilon(eps) <= exact + 1e-14);
          CHECK(upper.delta_for_epsilon(eps) >= exact - 1e-14);
        }
      }
    }
  }
}

TEST_CASE("connect-the-dots keeps A- and B-mass and is exact at grid epsilons", "[discretisation]") {
  std::mt19937_64 rng(12);
  const PrivacyLossAtoms atoms = random_atoms(rng, 500, 3.0);
  AccountantOptions options;
  options.loss_step = 0.05;
  options.tail_mass = 0.0;
  const auto upper = discretise(atoms, BoundKind::kUpper, options);
  double a_total = 0.0, b_total = 0.0;
  for (size_t i = 0; i < atoms.losses.size(); ++i) {
    a_total += atoms.masses[i];
    b_total += atoms.masses[i] * std::exp(-atoms.losses[i]);
  }
  CHECK(upper.finite_mass() == Approx(a_total).epsilon(1e-13));
  CHECK(b_mass(upper) == Approx(b_total).epsilon(1e-12));
  CHECK(upper.infinity_mass >= atoms.infinity_mass);  // rounded up, by a few u
  CHECK(upper.infinity_mass <= atoms.infinity_mass * (1.0 + 16 * std::numeric_limits<double>::epsilon()));
  for (size_t i = 0; i < upper.masses.size(); i += 7)
    CHECK(upper.delta_for_epsilon(upper.loss(i)) ==
          Approx(exact_delta(atoms, upper.loss(i))).epsilon(1e-11).margin(1e-15));
}

TEST_CASE("merge-to-grid keeps the A-mass, loses B-mass only in the lowest group, and beats rounding down",
          "[discretisation]") {
  std::mt19937_64 rng(13);
  const PrivacyLossAtoms atoms = random_atoms(rng, 500, 3.0);
  AccountantOptions merge, round;
  merge.loss_step = round.loss_step = 0.05;
  merge.tail_mass = round.tail_mass = 0.0;
  round.lower_method = OptimisticMethod::kRoundDown;
  const auto merged = discretise(atoms, BoundKind::kLower, merge);
  const auto rounded = discretise(atoms, BoundKind::kLower, round);
  double a_total = 0.0, b_total = 0.0;
  for (size_t i = 0; i < atoms.losses.size(); ++i) {
    a_total += atoms.masses[i];
    b_total += atoms.masses[i] * std::exp(-atoms.losses[i]);
  }
  CHECK(merged.finite_mass() == Approx(a_total).epsilon(1e-13));
  // B-mass can only grow (the last group is rounded down, which raises B), and by at most its own mass.
  CHECK(b_mass(merged) >= b_total * (1 - 1e-13));
  CHECK(b_mass(rounded) >= b_mass(merged) * (1 - 1e-13));
  for (double eps = -1.0; eps < 5.0; eps += 0.031)
    CHECK(merged.delta_for_epsilon(eps) >= rounded.delta_for_epsilon(eps) - 1e-15);
}

TEST_CASE("second-order methods are much tighter than rounding on a dense distribution", "[discretisation]") {
  // A dense, smooth PLD (many outcomes per grid cell): the error of rounding is O(step), of the two
  // mass-preserving constructions O(step^2). Measured at eps = 0.5 where delta is about 0.1.
  std::vector<double> a, b;
  for (int i = -3000; i <= 3000; ++i) {
    const double x = i * 0.002;
    a.push_back(std::exp(-x * x / 2));
    b.push_back(std::exp(-(x - 1) * (x - 1) / 2));
  }
  double sa = 0, sb = 0;
  for (size_t i = 0; i < a.size(); ++i) sa += a[i], sb += b[i];
  for (size_t i = 0; i < a.size(); ++i) a[i] /= sa, b[i] /= sb;
  const PrivacyLossAtoms atoms = privacy_loss_atoms(a, b);
  AccountantOptions second, first;
  second.loss_step = first.loss_step = 0.01;
  first.upper_method = PessimisticMethod::kRoundUp;
  first.lower_method = OptimisticMethod::kRoundDown;
  const double eps = 0.5, exact = exact_delta(atoms, eps);
  const double ctd_error = discretise(atoms, BoundKind::kUpper, second).delta_for_epsilon(eps) - exact;
  const double up_error = discretise(atoms, BoundKind::kUpper, first).delta_for_epsilon(eps) - exact;
  const double merge_error = exact - discretise(atoms, BoundKind::kLower, second).delta_for_epsilon(eps);
  const double down_error = exact - discretise(atoms, BoundKind::kLower, first).delta_for_epsilon(eps);
  CHECK(ctd_error >= 0.0);
  CHECK(merge_error >= -1e-15);
  CHECK(ctd_error < up_error / 20.0);
  CHECK(merge_error < down_error / 20.0);
}

TEST_CASE("coarsening keeps the bound direction and grid points", "[discretisation]") {
  std::mt19937_64 rng(14);
  const PrivacyLossAtoms atoms = random_atoms(rng, 300, 4.0);
  AccountantOptions options;
  options.loss_step = 0.01;
  options.tail_mass = 0.0;
  for (BoundKind bound : {BoundKind::kUpper, BoundKind::kLower}) {
    const auto fine = discretise(atoms, bound, options);
    const auto coarse = coarsen(fine, 8, options);
    CHECK(coarse.loss_step == Approx(0.08));
    CHECK(coarse.finite_mass() == Approx(fine.finite_mass()).epsilon(1e-13));
    // The coarse grid has fewer points and so a smaller summation allowance ((N + 16) u relative): compare
    // up to that difference.
    for (double eps = -2.0; eps < 6.0; eps += 0.053) {
      if (bound == BoundKind::kUpper)
        CHECK(coarse.delta_for_epsilon(eps) >= fine.delta_for_epsilon(eps) - 1e-12);
      else
        CHECK(coarse.delta_for_epsilon(eps) <= fine.delta_for_epsilon(eps) + 1e-12);
    }
  }
}

TEST_CASE("tail truncation moves mass in the bound's direction and books it", "[discretisation]") {
  PrivacyLossDistribution pld;
  pld.loss_step = 0.1;
  pld.first_index = -5;
  pld.masses = {1e-18, 2e-18, 0.25, 0.5, 0.25 - 4e-18, 1e-18};
  PrivacyLossDistribution upper = pld, lower = pld;
  upper.bound = BoundKind::kUpper;
  lower.bound = BoundKind::kLower;
  truncate_tails(upper, 3.5e-18);
  truncate_tails(lower, 3.5e-18);
  // Upper: bottom tail raised into the lowest kept point, top tail to infinity.
  CHECK(upper.first_index == -3);
  CHECK(upper.masses.front() == Approx(0.25 + 3e-18));
  CHECK(upper.infinity_mass >= 1e-18);  // rounded up, by a few u
  CHECK(upper.infinity_mass == Approx(1e-18).epsilon(1e-14));
  // Lower: top tail lowered into the highest kept point, bottom tail dropped.
  CHECK(lower.first_index == -3);
  CHECK(lower.masses.back() == Approx(0.25 - 3e-18));
  CHECK(lower.truncated_mass == Approx(3e-18));
  CHECK(lower.infinity_mass == 0.0);
}

TEST_CASE("losses a hair above a grid point cost the upper bound their own excess, not a shift of every query",
          "[discretisation]") {
  // A table whose consecutive ratios are e^1 to ~1e-12 (a linear program's optimum is such a table: issue 21).
  // At eps = 1 the curve has a kink of slope -(mass at loss 1) ~ -0.7; the exact delta there is the
  // distinguishing mass plus sum m (1 - e^{1 - l}) over the losses a hair above 1. Shifting every query by the
  // largest hair (what snapping the losses down to the grid point would need) costs 0.7 x 4e-12; connect-the-dots
  // costs nothing at a grid point. The upper bound must be within 1e-9 relative of the exact value at delta 1e-6.
  std::vector<double> p;
  for (int j = 0; j <= 12; ++j) p.push_back(1e-6 * std::exp(static_cast<double>(j)) * (1.0 + 4e-12 * ((j * 7) % 5)));
  for (int j = 1; j <= 14; ++j) p.push_back(p[12] * std::exp(-static_cast<double>(j)));
  double sum = 0.0;
  for (double v : p) sum += v;
  for (double& v : p) v /= sum;
  std::vector<double> a = p, b(1, 0.0);
  a.push_back(0.0);
  b.insert(b.end(), p.begin(), p.end());  // b = p shifted up by one cell
  const PrivacyLossAtoms atoms = privacy_loss_atoms(a, b);
  AccountantOptions options;
  options.loss_step = 1e-4;
  const auto upper = discretise(atoms, BoundKind::kUpper, options);
  const auto lower = discretise(atoms, BoundKind::kLower, options);
  const double exact = exact_delta(atoms, 1.0);
  CHECK(exact > 0.9e-6);
  CHECK(upper.delta_for_epsilon(1.0) >= exact);
  CHECK(upper.delta_for_epsilon(1.0) <= exact * (1.0 + 1e-9));
  CHECK(lower.delta_for_epsilon(1.0) <= exact);
  CHECK(upper.loss_shift == 0.0);
}
