#include "accounting/sampled_release.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "accounting/bucketed_test.hpp"
#include "accounting/coordinate_product.hpp"
#include "accounting/loss_discretisation.hpp"
#include "accounting/profile_envelope.hpp"
#include "accounting/random_allocation.hpp"
#include "core/directed_rounding.hpp"
#include "core/enum_names.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"
#include "core/nearest_word.hpp"

namespace noiselearn {

constexpr NameTable<SamplingKind, 4> kSamplingKinds{{{SamplingKind::kNone, "none"},
                                                     {SamplingKind::kPoisson, "poisson"},
                                                     {SamplingKind::kWithoutReplacement, "without_replacement"},
                                                     {SamplingKind::kRandomAllocation, "random_allocation"}}};

std::string to_string(SamplingKind kind) { return std::string(name_of(kSamplingKinds, kind)); }

SamplingKind parse_sampling_kind(const std::string& text) {
  if (const auto kind = find_named(kSamplingKinds, text)) return *kind;
  const auto names = names_of(kSamplingKinds);
  throw InputError(
      fmt::format("unknown sampling '{}'{} (known: {})", text, did_you_mean(text, names), fmt::join(names, ", ")));
}

double Sampling::probability() const {
  switch (kind) {
    case SamplingKind::kNone:
      return 1.0;
    case SamplingKind::kPoisson:
      return rate;
    case SamplingKind::kWithoutReplacement:
      return static_cast<double>(batch_size) / static_cast<double>(dataset_size);
    case SamplingKind::kRandomAllocation:
      return 1.0 / static_cast<double>(steps_per_epoch);
  }
  return 1.0;
}

void Sampling::validate() const {
  if (kind == SamplingKind::kPoisson && !(rate > 0.0 && rate <= 1.0))
    throw InputError(
        fmt::format("sampling_rate {} must be in (0, 1] (the probability that a record is in the batch)", rate));
  if (kind == SamplingKind::kWithoutReplacement) {
    if (dataset_size < 1) throw InputError(fmt::format("dataset_size {} must be at least 1", dataset_size));
    if (batch_size < 1 || batch_size > dataset_size)
      throw InputError(fmt::format("batch_size {} must be between 1 and dataset_size {}", batch_size, dataset_size));
  }
  if (kind == SamplingKind::kRandomAllocation && steps_per_epoch < 1)
    throw InputError(fmt::format("steps_per_epoch {} must be at least 1", steps_per_epoch));
}

std::string Sampling::describe() const {
  switch (kind) {
    case SamplingKind::kNone:
      return "no sampling";
    case SamplingKind::kPoisson:
      return fmt::format("Poisson sampling at rate {:g}", rate);
    case SamplingKind::kWithoutReplacement:
      return fmt::format("batches of {} of {} without replacement", batch_size, dataset_size);
    case SamplingKind::kRandomAllocation:
      return fmt::format("random allocation: each record in one of {} steps per epoch", steps_per_epoch);
  }
  return "?";
}

void check_sampling_relation(const Sampling& sampling, RecordRelation relation) {
  if (sampling.kind == SamplingKind::kPoisson && relation == RecordRelation::kReplaceOne)
    throw InputError(
        "Poisson sampling is accounted under relation add_remove (the batch size varies); for replace_one "
        "use sampling without_replacement (batch_size, dataset_size)");
  if (sampling.kind == SamplingKind::kWithoutReplacement && relation == RecordRelation::kAddOrRemove)
    throw InputError(
        "sampling without_replacement is accounted under relation replace_one (a fixed batch size changes "
        "meaning when a record is added); for add_remove use sampling poisson (sampling_rate)");
  if (sampling.kind == SamplingKind::kRandomAllocation && relation == RecordRelation::kReplaceOne)
    throw InputError(
        "sampling random_allocation is accounted under relation add_remove (a record in exactly one step of each "
        "epoch, or absent); replace_one is not analysed for it");
}

namespace {

// One direction of the sampled pair: its privacy loss g(l) and its masses (A, B) from the masses (P, Q) of l.
struct Direction {
  enum Kind { kForward, kBackward, kRemove, kAdd } kind;
  double q = 1.0;
  double log_keep = -INFINITY, log_q = 0.0;  // ln(1 - q), ln q

  Direction(Kind k, double probability)
      : kind(k), q(probability), log_keep(std::log1p(-probability)), log_q(std::log(probability)) {}

  // f(l) = ln(1 - q + q e^l), increasing, from ln(1 - q) to +infinity.
  double f(double l) const {
    if (l == -INFINITY) return log_keep;
    if (l == INFINITY) return INFINITY;
    return log_add_exp(log_keep, log_q + l);
  }
  double f_inverse(double value) const {  // for value > ln(1 - q)
    return std::log(std::expm1(value) + q) - log_q;
  }
  bool increasing() const { return kind == kForward || kind == kRemove; }
  double g(double l) const {
    switch (kind) {
      case kForward:
        return l;
      case kBackward:
        return -l;
      case kRemove:
        return f(l);
      case kAdd:
        return -f(l);
    }
    return l;
  }
  double g_inverse(double value) const {
    switch (kind) {
      case kForward:
        return value;
      case kBackward:
        return -value;
      case kRemove:
        return f_inverse(value);
      case kAdd:
        return f_inverse(-value);
    }
    return value;
  }
  std::pair<double, double> masses(double p, double qm) const {
    switch (kind) {
      case kForward:
        return {p, qm};
      case kBackward:
        return {qm, p};
      case kRemove:
        return {(1.0 - q) * qm + q * p, qm};
      case kAdd:
        return {qm, (1.0 - q) * qm + q * p};
    }
    return {p, qm};
  }
};

struct DirectionAtoms {
  PrivacyLossAtoms upper, lower;
  // The cells as the bucketed test labels them (bucketed_test.hpp), and the grid step the continuous part was cut at.
  std::vector<BucketCell> cells;
  double step = 0.0;
};

// The cell's outcomes (losses in [low, high] of this direction, masses a under the first and b under the second
// distribution) into the upper and lower atoms (see the header).
void add_cell(DirectionAtoms& out, double low, double high, double a, double b, double relative_error,
              bool lower_at_low_end = false) {
  if (!(a > 0.0)) return;
  // The second mass where it underflowed: at most a e^{-low} (every outcome's loss is at least low).
  const double second = b > 0.0 ? b : std::exp(std::log(a) - low);
  if (low == high) {  // an atom (its second mass may have underflowed to 0 at a finite loss: the loss decides)
    if (low == INFINITY) {
      out.upper.infinity_mass += a;
      out.lower.infinity_mass += a;
    } else {
      out.upper.losses.push_back(low);
      out.upper.masses.push_back(a);
      out.lower.losses.push_back(low);
      out.lower.masses.push_back(a);
      out.cells.push_back({low, a, second});
    }
    return;
  }
  if (high == INFINITY) {  // a cut tail reaching to +infinity: the upper bound counts it infinite, the lower drops it
    out.upper.infinity_mass += a;
    return;
  }
  if (low == -INFINITY) {  // a cut tail reaching to -infinity: at its largest loss (upper), dropped (lower)
    out.upper.losses.push_back(high);
    out.upper.masses.push_back(a);
    return;
  }
  // Split between low and high keeping both masses, the share at `high` padded up by the masses' error. e^low b in
  // log space: at a loss of hundreds of nats e^low overflows where b underflows.
  const double denominator = -std::expm1(low - high);
  const double e_low_b = b > 0.0 ? std::exp(low + std::log(b)) : 0.0;
  double at_high = (a - e_low_b) / denominator + 4.0 * relative_error * (a + e_low_b) / denominator;
  at_high = std::clamp(at_high, 0.0, a);
  out.upper.losses.push_back(high);
  out.upper.masses.push_back(at_high);
  if (a - at_high > 0.0) {
    out.upper.losses.push_back(low);
    out.upper.masses.push_back(a - at_high);
  }
  // Merged: one outcome of loss ln(a / b), kept inside [low, high] against rounding; where b underflowed (losses of
  // hundreds of nats) the merged loss is unknown, and the cell's smallest loss is a lower bound of it.
  // A cell whose outcomes' loss is only known to lie in [low, high] (lower_at_low_end: the coordinate product's merged
  // outcomes, their loss computed from masses with a bounded error) is at its smallest loss.
  const double merged = b > 0.0 && !lower_at_low_end ? std::clamp(std::log(a) - std::log(b), low, high) : low;
  out.lower.losses.push_back(merged);
  out.lower.masses.push_back(a);
  out.cells.push_back({merged, a, second});
}

// The grid step the discretisation will use for a loss range (loss_step doubled while it does not fit max_points).
double cell_step(double range, const AccountantOptions& options) {
  double step = options.loss_step;
  while (range / step > static_cast<double>(options.max_points) / 2.0) step *= 2.0;
  return step;
}

// Every atom must be finite with a finite, non-negative mass: the discretisation indexes the grid by the losses.
void check_atoms(const PrivacyLossAtoms& atoms, const std::string& mechanism) {
  for (size_t i = 0; i < atoms.losses.size(); ++i)
    if (!std::isfinite(atoms.losses[i]) || !std::isfinite(atoms.masses[i]) || atoms.masses[i] < 0.0)
      throw std::logic_error(
          fmt::format("{}: a privacy-loss atom ({}, {}) is not finite", mechanism, atoms.losses[i], atoms.masses[i]));
  if (!std::isfinite(atoms.infinity_mass) || atoms.infinity_mass < 0.0)
    throw std::logic_error(fmt::format("{}: the infinity mass {} is not finite", mechanism, atoms.infinity_mass));
}

DirectionAtoms direction_atoms(const LossLaw& law, const Direction& d, double relative_error,
                               const AccountantOptions& options, bool lower_at_low_end = false) {
  DirectionAtoms out;
  for (const LossCell& cell : law.cells) {
    const auto [a, b] = d.masses(cell.p_mass, cell.q_mass);
    double low = d.g(cell.low), high = d.g(cell.high);
    if (low > high) std::swap(low, high);
    add_cell(out, low, high, a, b, relative_error, lower_at_low_end);
  }
  if (law.continuous) {
    const ContinuousLoss& c = *law.continuous;
    // The fine cells only where this direction's first distribution has mass: the parts below l_low and above l_high
    // (at most 1e-3 of the tail mass each, found by bisection) are one cell each, valid if coarse.
    auto first_mass = [&](double from, double to) {
      const auto [p, qm] = c.mass(from, to);
      return d.masses(p, qm).first;
    };
    const double negligible = 1e-3 * options.tail_mass;
    double l_low = c.low, l_high = c.high;
    if (first_mass(c.low, c.high) > 0.0) {
      double inside = c.high, outside = c.low;  // the largest l_low with mass(low, l_low) <= negligible
      for (int i = 0; i < 100 && inside - outside > 1e-12 * std::max(1.0, std::abs(inside)); ++i) {
        const double middle = 0.5 * (inside + outside);
        (first_mass(c.low, middle) <= negligible ? outside : inside) = middle;
      }
      l_low = outside;
      inside = l_low;
      outside = c.high;  // the smallest l_high with mass(l_high, high) <= negligible
      for (int i = 0; i < 100 && outside - inside > 1e-12 * std::max(1.0, std::abs(outside)); ++i) {
        const double middle = 0.5 * (inside + outside);
        (first_mass(middle, c.high) <= negligible ? outside : inside) = middle;
      }
      l_high = std::max(outside, l_low);
    }
    for (const auto& [from, to] : {std::pair{c.low, l_low}, std::pair{l_high, c.high}}) {
      if (!(to > from)) continue;
      const auto [p, qm] = c.mass(from, to);
      const auto [a, b] = d.masses(p, qm);
      double low = d.g(from), high = d.g(to);
      if (low > high) std::swap(low, high);
      if (low == high) high = std::nextafter(high, INFINITY);
      add_cell(out, low, high, a, b, relative_error);
    }
    if (!(l_high > l_low)) return out;
    double out_low = d.g(l_low), out_high = d.g(l_high);
    if (out_low > out_high) std::swap(out_low, out_high);
    const double step = cell_step(out_high - out_low, options);
    out.step = step;
    // Breakpoints of l: the ends, and where g crosses a grid point.
    std::vector<double> breaks{l_low, l_high};
    const auto first = static_cast<int64_t>(std::ceil(out_low / step)),
               last = static_cast<int64_t>(std::floor(out_high / step));
    breaks.reserve(static_cast<size_t>(std::max<int64_t>(0, last - first + 1)) + 2);
    for (int64_t k = first; k <= last; ++k) {
      const double l = d.g_inverse(static_cast<double>(k) * step);
      if (l > l_low && l < l_high) breaks.push_back(l);
    }
    std::sort(breaks.begin(), breaks.end());
    breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
    out.upper.losses.reserve(out.upper.losses.size() + 2 * breaks.size());
    out.upper.masses.reserve(out.upper.masses.size() + 2 * breaks.size());
    for (size_t i = 0; i + 1 < breaks.size(); ++i) {
      const auto [p, qm] = c.mass(breaks[i], breaks[i + 1]);
      const auto [a, b] = d.masses(p, qm);
      double low = d.g(breaks[i]), high = d.g(breaks[i + 1]);
      if (low > high) std::swap(low, high);
      if (low == high) {  // g flat to rounding here: one outcome, its loss rounded up (upper) and down (lower)
        high = std::nextafter(high, INFINITY);
      }
      add_cell(out, low, high, a, b, relative_error);
    }
  }
  return out;
}

// The release's post-processing to two outcomes in one direction (two_outcome_bound.hpp): H, the cells and the part of
// the continuous law whose loss in this direction is positive (g(l) > 0 exactly where l > 0 for the increasing
// directions, l < 0 for the decreasing ones), and L, the rest. A cell with losses of both signs goes to L whole: any
// partition of the outcomes is a post-processing.
TwoOutcomeComposition two_outcome_of(const LossLaw& law, const Direction& d, double relative_error) {
  // Sums of logarithms: a second mass of outcomes thousands of nats of loss away underflows, and must not read as 0
  // (an infinite loss). Where a computed second mass is below 1e-280 (it may have underflowed), the cell's loss range
  // bounds it from above: b <= a e^{-(its least loss)}; an outcome of infinite loss (a cell at +infinity) has none.
  double log_first_high = -INFINITY, log_first_low = -INFINITY, log_second_high = -INFINITY, log_second_low = -INFINITY;
  auto add = [&](bool high, double p, double qm, double least_loss) {
    const auto [a, b] = d.masses(p, qm);
    double log_b = std::log(b);
    if (!(b > 1e-280)) {
      if (least_loss == INFINITY)
        log_b = -INFINITY;
      else if (a > 0.0 && least_loss > -INFINITY)
        log_b = std::max(log_b, std::log(a) - least_loss);
      else
        log_b = std::max(log_b, std::log(1e-280));
    }
    double& first = high ? log_first_high : log_first_low;
    double& second = high ? log_second_high : log_second_low;
    if (a > 0.0) first = log_add_exp(first, std::log(a));
    if (log_b > -INFINITY) second = log_add_exp(second, log_b);
  };
  size_t terms = 0;
  for (const LossCell& cell : law.cells) {
    const double least = std::min(d.g(cell.low), d.g(cell.high));
    add(least > 0.0, cell.p_mass, cell.q_mass, least);
    ++terms;
  }
  if (law.continuous) {
    const ContinuousLoss& c = *law.continuous;
    const double split = std::clamp(0.0, c.low, c.high);
    const auto below = split > c.low ? c.mass(c.low, split) : std::pair{0.0, 0.0};    // l in (low, 0]
    const auto above = c.high > split ? c.mass(split, c.high) : std::pair{0.0, 0.0};  // l in (0, high]
    const double g_low = d.g(c.low), g_split = d.g(split), g_high = d.g(c.high);
    add(!d.increasing(), below.first, below.second, std::min(g_low, g_split));
    add(d.increasing(), above.first, above.second, std::min(g_split, g_high));
    terms += 2;
  }
  TwoOutcomeComposition out;
  out.log_first_high = log_first_high;
  out.log_first_low = log_first_low;
  out.log_second_high = log_second_high;
  out.log_second_low = log_second_low;
  // The masses' own error, and the log-sums' rounding.
  out.relative_error = relative_error + 4.0 * (static_cast<double>(terms) + 2.0) * kMachineEpsilon;
  out.compositions = 1;
  return out;
}

// Both bounds of one direction of a release from one pass over its loss law. d coordinates: the upper bound from a pair
// that dominates the product, the lower from one it dominates (coordinate_product.hpp); one coordinate: the law itself
// for both.
struct DirectionDiscretiser {
  const MechanismPair& mechanism;
  const LossLaw& law;
  const std::optional<CoordinateProductLaws>& product;
  double q, error;
  const AccountantOptions& options;

  std::pair<PrivacyLossDistribution, PrivacyLossDistribution> operator()(Direction::Kind kind) const {
    DirectionAtoms atoms;
    if (product) {
      atoms.upper = direction_atoms(product->upper, Direction(kind, q), error, options).upper;
      atoms.lower = direction_atoms(product->lower, Direction(kind, q), error, options, true).lower;
    } else {
      atoms = direction_atoms(law, Direction(kind, q), error, options);
      // One coordinate: the bucketed test of this direction from the same cells (a product's lower law is on a grid
      // already).
      if (bucketed)
        if (auto test = single_release_bucketed_test(atoms.cells, atoms.step > 0.0 ? atoms.step : options.loss_step,
                                                     error, atoms.lower.infinity_mass, options.max_points))
          bucketed->push_back(std::move(*test));
    }
    check_atoms(atoms.upper, mechanism.description());
    check_atoms(atoms.lower, mechanism.description());
    return std::pair{discretise(atoms.upper, BoundKind::kUpper, options),
                     discretise(atoms.lower, BoundKind::kLower, options)};
  }
  // Where the directions' bucketed tests go, in the order the directions are discretised (none: not made).
  std::vector<BucketedTest>* bucketed = nullptr;
};

// Without sampling (or at rate 1): P||Q, and Q||P unless the noise is mirror-symmetric.
void unsampled_scenarios(const MechanismPair& mechanism, const DirectionDiscretiser& bounds_of, PairBounds& bounds,
                         DirectionalPLDs& low) {
  bounds.accounted.pairs_checked = mechanism.worst_case_justification();
  auto [up, down] = bounds_of(Direction::kForward);
  bounds.upper.first_to_second = std::move(up);
  low.first_to_second = std::move(down);
  if (!mechanism.symmetric()) {
    auto [up_back, down_back] = bounds_of(Direction::kBackward);
    bounds.upper.second_to_first = std::move(up_back);
    low.second_to_first = std::move(down_back);
  }
  bounds.upper.name = low.name = mechanism.symmetric() ? "P||Q = Q||P" : "P||Q, Q||P";
}

// Sampled: remove (A||Q) and add (Q||A), A = (1 - q) Q + q P; under Poisson sampling each composed on its own (the
// same record in every release), without replacement their profile envelope.
void sampled_scenarios(const MechanismPair& mechanism, const Sampling& sampling, const DirectionDiscretiser& bounds_of,
                       const AccountantOptions& options, PairBounds& bounds, DirectionalPLDs& low) {
  if (sampling.kind == SamplingKind::kWithoutReplacement && !mechanism.symmetric())
    throw InputError(
        fmt::format("{}: sampling without replacement needs mirror-symmetric noise", mechanism.description()));
  auto [remove_up, remove_down] = bounds_of(Direction::kRemove);
  auto [add_up, add_down] = bounds_of(Direction::kAdd);
  low.name = "remove A||Q, add Q||A";
  low.first_to_second = std::move(remove_down);
  low.second_to_first = std::move(add_down);
  if (sampling.kind == SamplingKind::kPoisson) {
    bounds.accounted.pairs_checked = fmt::format(
        "{}; remove (A||Q) and add (Q||A), A = (1 - q) Q + q P, composed each on "
        "its own (the same record in every release)",
        mechanism.worst_case_justification());
    bounds.upper.name = low.name;
    bounds.upper.first_to_second = std::move(remove_up);
    bounds.upper.second_to_first = std::move(add_up);
  } else {
    bounds.accounted.pairs_checked = fmt::format(
        "{}; sampling without replacement under replace one: the profile envelope of remove (A||Q) and add (Q||A), "
        "A = (1 - q) Q + q P (Zhu, Dong and Wang 2022, Thm 11 and Def. 7)",
        mechanism.worst_case_justification());
    EnvelopeResult envelope = profile_envelope({remove_up, add_up}, options);
    bounds.upper.name = "envelope of remove and add";
    bounds.upper.first_to_second = std::move(envelope.envelope);
  }
}

// The two-outcome lower bounds of the directions the lower PLDs take.
std::vector<TwoOutcomeComposition> two_outcome_bounds(const MechanismPair& mechanism, const LossLaw& law,
                                                      const Sampling& sampling, double q, double error) {
  std::vector<TwoOutcomeComposition> out;
  if (sampling.kind == SamplingKind::kNone || q == 1.0) {
    out.push_back(two_outcome_of(law, Direction(Direction::kForward, q), error));
    if (!mechanism.symmetric()) out.push_back(two_outcome_of(law, Direction(Direction::kBackward, q), error));
  } else {
    out.push_back(two_outcome_of(law, Direction(Direction::kRemove, q), error));
    out.push_back(two_outcome_of(law, Direction(Direction::kAdd, q), error));
  }
  return out;
}

std::string release_description(const MechanismPair& mechanism, const Sampling& sampling, RecordRelation relation,
                                int64_t coordinates) {
  const std::string what = coordinates == 1 ? mechanism.description()
                                            : fmt::format(
                                                  "{}, on each of {} coordinates (each differs by at most the "
                                                  "sensitivity: L-infinity)",
                                                  mechanism.description(), coordinates);
  return sampling.kind == SamplingKind::kNone
             ? fmt::format("{} ({})", what, to_string(relation))
             : fmt::format("{}, {} ({})", what, sampling.describe(), to_string(relation));
}

}  // namespace

PairBounds sampled_release_bounds(std::shared_ptr<const MechanismPair> mechanism, const Sampling& sampling,
                                  RecordRelation relation, const AccountantOptions& options, int64_t coordinates) {
  options.validate();
  sampling.validate();
  check_sampling_relation(sampling, relation);
  if (coordinates < 1) throw InputError(fmt::format("coordinates {} must be at least 1", coordinates));
  const auto rediscretise = [mechanism, sampling, relation, coordinates](const AccountantOptions& refined) {
    return sampled_release_bounds(mechanism, sampling, relation, refined, coordinates);
  };
  // A product of closed form (the Gaussian's) is that mechanism itself.
  if (coordinates > 1)
    if (auto exact = mechanism->coordinate_product(coordinates)) {
      PairBounds bounds = sampled_release_bounds(exact, sampling, relation, options, 1);
      bounds.accounted.pair =
          fmt::format("{} coordinates of {}: {}", coordinates, mechanism->description(), bounds.accounted.pair);
      bounds.accounted.pairs_checked += fmt::format(
          "; {} coordinates, each moved by at most the sensitivity: the corner of the "
          "cube, at L2 distance sqrt({}) sensitivities, is the worst",
          coordinates, coordinates);
      bounds.context.rediscretise = rediscretise;
      return bounds;
    }
  if (sampling.kind == SamplingKind::kRandomAllocation) {
    if (coordinates > 1)
      throw InputError(fmt::format("{}: random_allocation on {} coordinates needs a closed-form product (gaussian)",
                                   mechanism->description(), coordinates));
    return random_allocation_bounds(std::move(mechanism), sampling.steps_per_epoch, options);
  }
  const double q = sampling.probability();
  const LossLaw law = mechanism->loss_law(options.tail_mass);
  const double error = mechanism->mass_relative_error();
  std::optional<CoordinateProductLaws> product;
  if (coordinates > 1)
    product = coordinate_product_laws(law, error, coordinates, options.loss_step, 1e-3 * options.tail_mass);
  PairBounds bounds;
  bounds.accounted.pair = release_description(*mechanism, sampling, relation, coordinates);
  // A table accounted through its exactly symmetric copy pays for the difference: d coordinates differ by at most d
  // times it, and a mixture of the releases by no more than they do.
  bounds.substitution_tv = mechanism->substitution_tv() * static_cast<double>(coordinates) * (1.0 + 1e-12);
  bounds.context.options = options;
  bounds.accounted.neighbours = {NeighbourRelation::kAnySequence, relation};
  std::vector<BucketedTest> bucketed;
  const DirectionDiscretiser bounds_of{*mechanism, law, product, q, error, options, &bucketed};
  DirectionalPLDs low;
  if (sampling.kind == SamplingKind::kNone || q == 1.0)
    unsampled_scenarios(*mechanism, bounds_of, bounds, low);
  else
    sampled_scenarios(*mechanism, sampling, bounds_of, options, bounds, low);
  // One coordinate only: the product's lower law is made on a grid already.
  if (!product) bounds.alternatives.two_outcome = two_outcome_bounds(*mechanism, law, sampling, q, error);
  bounds.alternatives.bucketed = std::move(bucketed);
  // The distinguishing events' probability per release, a floor as the certificate prints it: the lower PLDs keep
  // exactly the outcomes of infinite loss (cut tails go to infinity only in the upper ones).
  bounds.single_release_infinity_mass.first = low.first_to_second.infinity_mass;
  bounds.single_release_infinity_mass.second =
      low.second_to_first ? low.second_to_first->infinity_mass : low.first_to_second.infinity_mass;
  bounds.lower.push_back(std::move(low));
  if (product)
    bounds.accounted.pairs_checked += fmt::format(
        "; each coordinate's worst pair is the mechanism's, so the product of {} is "
        "the worst (its losses on a grid of step {:.3g})",
        coordinates, product->step);
  bounds.context.rediscretise = rediscretise;
  return bounds;
}

}  // namespace noiselearn
