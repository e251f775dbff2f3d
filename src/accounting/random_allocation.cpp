#include "accounting/random_allocation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "accounting/allocation_lattice.hpp"
#include "accounting/composition.hpp"
#include "accounting/fft_power.hpp"
#include "accounting/loss_discretisation.hpp"
#include "core/directed_rounding.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

// The epoch's ratio sum S for each direction and bound, as distributions on the lattice of S (PrivacyLossDistribution
// with loss_step the lattice step: index i is S = i g; negated for add, index i is S = -i g).
struct EpochRatioSums {
  PrivacyLossDistribution remove_upper, add_upper, remove_lower, add_lower;
  LatticeChoice lattice;
  double ratio_error = 0.0;  // the upper pair's ratios are the lattice's to this relative error
  int64_t cells_upper = 0, cells_lower = 0;
  double lower_step = 0.0;  // the lower bound's lattice step
  bool trivial = false;     // no lattice fits: the bounds are delta <= 1 and delta >= 0
};

PrivacyLossDistribution lattice_distribution(const std::vector<double>& masses, const RatioLattice& lattice,
                                             BoundKind bound, bool negated, double infinity_mass = 0.0) {
  PrivacyLossDistribution pld;
  pld.bound = bound;
  pld.loss_step = lattice.step;
  pld.masses = masses;
  if (negated) {
    std::reverse(pld.masses.begin(), pld.masses.end());
    pld.first_index = -static_cast<int64_t>(masses.size()) + 1;
  }
  pld.infinity_mass = infinity_mass;
  pld.relative_error = lattice.relative_error;
  pld.numerical_error = lattice.absolute_error;
  return pld;
}

// The n-fold sum of a lattice distribution (n >= 1); nothing when its window would be wider than 8 max_points.
std::optional<PrivacyLossDistribution> lattice_power(const PrivacyLossDistribution& single, int64_t n,
                                                     const AccountantOptions& options) {
  if (n == 1) return single;
  return self_compose_by_fft_power(single, n, options, false);
}

using RatioSums = std::pair<PrivacyLossDistribution, PrivacyLossDistribution>;

// S under A (one step drawn from P, the others from Q) and under Q (all k from Q, negated); nothing when a window
// does not fit.
std::optional<RatioSums> ratio_sums(const RatioLattice& lattice, int64_t k, BoundKind bound,
                                    const AccountantOptions& options) {
  const PrivacyLossDistribution q_step = lattice_distribution(lattice.q_masses, lattice, bound, false);
  const PrivacyLossDistribution p_step =
      lattice_distribution(lattice.p_masses, lattice, bound, false, lattice.p_infinity);
  std::optional<PrivacyLossDistribution> others = k == 1 ? std::nullopt : lattice_power(q_step, k - 1, options);
  std::optional<PrivacyLossDistribution> without_record =
      lattice_power(lattice_distribution(lattice.q_masses, lattice, bound, true), k, options);
  if ((k > 1 && !others) || !without_record) return std::nullopt;
  // compose() coarsens beyond max_points, which these grids (ratios, not losses) must never be: room for the sum.
  AccountantOptions wide = options;
  wide.max_points =
      static_cast<int64_t>(others ? others->masses.size() : 0) + 2 * static_cast<int64_t>(p_step.masses.size()) + 16;
  PrivacyLossDistribution with_record = k == 1 ? p_step : compose(*others, p_step, wide);
  return RatioSums{std::move(with_record), std::move(*without_record)};
}

// The sums on the finest lattices whose windows fit: the upper bound's with at most max_points / 2 points (its top
// must hold all but tail_mass of P), the lower bound's cut at that top; each step doubled from fine_ratio_step while a
// window of the k-fold sums does not fit (Y's heavy tail at small multipliers). None fits: `trivial`.
EpochRatioSums epoch_ratio_sums(const MechanismPair& mechanism, int64_t k, const AccountantOptions& options) {
  const LossLaw law = mechanism.loss_law(options.tail_mass);
  const double error = mechanism.mass_relative_error(), fine = fine_ratio_step(law);
  const int64_t max_top = options.max_points / 2;
  // Windows of the sums up to max_points (8 times lattice_options.max_points): a step's memory stays near 100 MB.
  AccountantOptions lattice_options = options;
  lattice_options.max_points = std::max<int64_t>(1024, options.max_points / 8);
  EpochRatioSums sums;
  std::optional<RatioSums> upper;
  for (double g = fine; !upper && g < 1e300; g *= 2.0) {
    const LatticeChoice lattice = ratio_lattice(law, options.tail_mass, g, max_top, false);
    if (!(lattice.step > 0.0)) break;
    if (lattice.top > max_top) continue;
    const RatioLattice spread = spread_lattice(law, error, lattice);
    upper = ratio_sums(spread, k, BoundKind::kUpper, lattice_options);
    sums.lattice = lattice;
    sums.lattice.step_wanted = g > fine ? fine : 0.0;
    sums.ratio_error = spread.ratio_error;
    sums.cells_upper = spread.cells;
  }
  std::optional<RatioSums> remove_lower, add_lower;
  for (double g = fine; !(remove_lower && add_lower) && g < 1e300; g *= 2.0) {
    const LatticeChoice lattice = ratio_lattice(law, options.tail_mass, g, max_top, true);
    if (!(lattice.step > 0.0)) break;
    const RatioLattice at_or_above = cell_lattice(law, error, lattice, CellLabel::kMeansAtOrAbove);
    const RatioLattice at_or_below = cell_lattice(law, error, lattice, CellLabel::kMeansAtOrBelow);
    remove_lower = ratio_sums(at_or_above, k, BoundKind::kLower, lattice_options);
    add_lower = ratio_sums(at_or_below, k, BoundKind::kLower, lattice_options);
    sums.lower_step = g;
    sums.cells_lower = at_or_above.cells;
  }
  if (!upper || !remove_lower || !add_lower) {
    sums.trivial = true;
    return sums;
  }
  sums.remove_upper = std::move(upper->first);
  sums.add_upper = std::move(upper->second);
  sums.remove_lower = std::move(remove_lower->first);
  sums.add_lower = std::move(add_lower->second);
  return sums;
}

// One direction's privacy-loss distribution from its ratio sum: ln(S/k) (remove) or -ln(S/k) (add, S negated), each
// moved outward by the ratios' relative error, then onto the loss grid; the sum's errors and truncations carried.
PrivacyLossDistribution epoch_loss(const PrivacyLossDistribution& sum, bool negated, int64_t k, double ratio_error,
                                   const AccountantOptions& options) {
  const bool upper = sum.bound == BoundKind::kUpper;
  const double steps = static_cast<double>(k);
  PrivacyLossAtoms atoms;
  atoms.infinity_mass = sum.infinity_mass;
  atoms.losses.reserve(sum.masses.size());
  atoms.masses.reserve(sum.masses.size());
  for (size_t i = 0; i < sum.masses.size(); ++i) {
    const double mass = sum.masses[i];
    if (!(mass > 0.0)) continue;
    const double s = std::abs(sum.loss(i));
    if (!(s > 0.0)) {
      if (negated) atoms.infinity_mass += mass;  // add: no step's ratio is positive, an infinite loss under Q
      continue;                                  // remove: a loss of -infinity, no delta at any epsilon
    }
    const double loss = negated ? -std::log(s / steps) : std::log(s / steps);
    const double margin = 2.0 * ratio_error + roundings(4.0) * (1.0 + std::abs(loss));
    atoms.losses.push_back(upper ? loss + margin : loss - margin);
    atoms.masses.push_back(mass);
  }
  // Few ratio sums (discrete noise, few steps): their losses are far apart, where merge-to-grid would merge whole
  // neighbours (first order in their distance) and rounding down loses at most a loss step.
  AccountantOptions discretisation = options;
  if (!upper && atoms.losses.size() <= 4096) discretisation.lower_method = OptimisticMethod::kRoundDown;
  PrivacyLossDistribution pld = discretise(atoms, sum.bound, discretisation);
  pld.relative_error = (1.0 + pld.relative_error) * (1.0 + sum.relative_error) * (1.0 + roundings(2.0)) - 1.0;
  pld.numerical_error += sum.numerical_error;
  pld.truncated_mass += sum.truncated_mass;
  pld.compositions = 1;
  return pld;
}

// The ratio sums of the last tail mass and max_points asked for, kept between re-discretisations (the loss step's
// refinements change only the loss grid).
struct RatioSumCache {
  std::mutex lock;
  std::optional<std::pair<double, int64_t>> key;
  std::shared_ptr<const EpochRatioSums> sums;
  std::shared_ptr<const EpochRatioSums> get(const MechanismPair& mechanism, int64_t k,
                                            const AccountantOptions& options) {
    std::lock_guard<std::mutex> guard(lock);
    const std::pair<double, int64_t> wanted{options.tail_mass, options.max_points};
    if (!sums || key != wanted) {
      sums = std::make_shared<const EpochRatioSums>(epoch_ratio_sums(mechanism, k, options));
      key = wanted;
    }
    return sums;
  }
};

// No lattice fits (the ratios overflow the doubles, or even a coarse lattice's k-fold sum is wider than the windows
// allow): delta <= 1 above (all the mass at an infinite loss) and delta >= 0 below (all of it at loss 0), said so.
PairBounds trivial_epoch(const MechanismPair& mechanism, int64_t k, const AccountantOptions& options) {
  PairBounds bounds;
  bounds.accounted.pair = fmt::format("{}, random allocation: each record in one of {} steps per epoch, one epoch ({})",
                                      mechanism.description(), k, to_string(RecordRelation::kAddOrRemove));
  bounds.accounted.pairs_checked = fmt::format(
      "no lattice of the steps' likelihood ratios fits (their tail is too heavy for max_points {}): only the trivial "
      "bounds delta <= 1 and delta >= 0",
      options.max_points);
  bounds.accounted.neighbours = {NeighbourRelation::kAnySequence, RecordRelation::kAddOrRemove};
  bounds.context.options = options;
  PrivacyLossDistribution upper, lower;
  upper.bound = BoundKind::kUpper;
  upper.loss_step = lower.loss_step = options.loss_step;
  upper.masses = {0.0};
  upper.infinity_mass = 1.0;
  lower.bound = BoundKind::kLower;
  lower.masses = {1.0};
  bounds.upper.name = "remove A||Q, add Q||A";
  bounds.upper.first_to_second = upper;
  bounds.upper.second_to_first = upper;
  DirectionalPLDs low;
  low.name = bounds.upper.name;
  low.first_to_second = lower;
  low.second_to_first = lower;
  bounds.lower.push_back(std::move(low));
  return bounds;
}

PairBounds epoch_bounds(const std::shared_ptr<const MechanismPair>& mechanism, int64_t k,
                        const AccountantOptions& options, const std::shared_ptr<RatioSumCache>& cache) {
  options.validate();
  const std::shared_ptr<const EpochRatioSums> sums = cache->get(*mechanism, k, options);
  if (sums->trivial) return trivial_epoch(*mechanism, k, options);
  PairBounds bounds;
  bounds.accounted.pair = fmt::format("{}, random allocation: each record in one of {} steps per epoch, one epoch ({})",
                                      mechanism->description(), k, to_string(RecordRelation::kAddOrRemove));
  bounds.accounted.pairs_checked = fmt::format(
      "{}, applied step by step (the difference may depend on the earlier steps' outputs); the epoch's likelihood "
      "ratio is the mean of its {} steps' ratios; upper: each step's ratio spread onto a lattice of step {:g} keeping "
      "its mean ({} cells; a more informative pair, Blackwell); lower: each step reduced to cells of the ratio whose "
      "means sit on a lattice of step {:g} ({} cells; a post-processing){}",
      mechanism->worst_case_justification(), k, sums->lattice.step, sums->cells_upper, sums->lower_step,
      sums->cells_lower,
      sums->lattice.step_wanted > 0.0
          ? fmt::format("; the lattice step was limited by max_points ({}): the ratio's spread asks for {:g}",
                        options.max_points, sums->lattice.step_wanted)
          : "");
  bounds.accounted.neighbours = {NeighbourRelation::kAnySequence, RecordRelation::kAddOrRemove};
  bounds.context.options = options;
  bounds.upper.name = "remove A||Q, add Q||A";
  bounds.upper.first_to_second = epoch_loss(sums->remove_upper, false, k, sums->ratio_error, options);
  bounds.upper.second_to_first = epoch_loss(sums->add_upper, true, k, sums->ratio_error, options);
  DirectionalPLDs low;
  low.name = bounds.upper.name;
  low.first_to_second = epoch_loss(sums->remove_lower, false, k, 0.0, options);
  low.second_to_first = epoch_loss(sums->add_lower, true, k, 0.0, options);
  bounds.single_release_infinity_mass.first = low.first_to_second.infinity_mass;
  bounds.single_release_infinity_mass.second = low.second_to_first->infinity_mass;
  bounds.lower.push_back(std::move(low));
  bounds.context.rediscretise = [mechanism, k, cache](const AccountantOptions& refined) {
    return epoch_bounds(mechanism, k, refined, cache);
  };
  return bounds;
}

}  // namespace

PairBounds random_allocation_bounds(std::shared_ptr<const MechanismPair> mechanism, int64_t steps_per_epoch,
                                    const AccountantOptions& options) {
  if (steps_per_epoch < 1) throw InputError(fmt::format("steps_per_epoch {} must be at least 1", steps_per_epoch));
  return epoch_bounds(mechanism, steps_per_epoch, options, std::make_shared<RatioSumCache>());
}

}  // namespace noiselearn
