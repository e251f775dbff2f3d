#include "accounting/loss_discretisation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/directed_rounding.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

namespace {

// Directed rounding of the discretised masses (why the single-release bounds carry no floating-point error):
// every output entry is computed from the bucket sums with a few roundings each, so its exact value lies within
// kappa_i = (outcomes in the buckets it draws from + 8) u of the computed one, relative to the (non-negative)
// quantities it was computed from. An upper bound then raises each entry to the top of its interval: the
// result is entrywise >= the exact discretisation, a measure that dominates it (the composed hockey-stick
// divergence is non-decreasing in every mass, infinity mass included). A lower bound lowers each entry to the
// bottom: entrywise <=, a sub-measure (dropping part of an outcome never raises delta).

// Outcomes gathered per loss bucket [k step, (k+1) step). For a bucket, `mass` is the A-mass, `excess` is
// sum a (1 - e^{-r}) with r = l - k step in [0, step) (the B-mass deficit relative to the grid point, which
// is what both connect-the-dots and merge-to-grid need), and `on_grid` the A-mass with r == 0 exactly.
struct LossBuckets {
  double step = 1.0;
  int64_t first_index = 0;
  std::vector<double> mass, excess, on_grid;
  std::vector<int32_t> outcomes;  // how many outcomes each bucket sums (for the rounding allowance)

  double kappa(size_t i) const { return (static_cast<double>(outcomes[i]) + 8.0) * kUnitRoundoff; }

  void add(int64_t k, double r, double a) {
    const size_t i = static_cast<size_t>(k - first_index);
    mass[i] += a;
    ++outcomes[i];
    if (r > 0.0)
      excess[i] += -std::expm1(-r) * a;
    else
      on_grid[i] += a;
  }
};

LossBuckets empty_buckets(double step, int64_t first, int64_t last) {
  LossBuckets buckets;
  buckets.step = step;
  buckets.first_index = first;
  const size_t count = static_cast<size_t>(last - first + 1);
  buckets.mass.assign(count, 0.0);
  buckets.excess.assign(count, 0.0);
  buckets.on_grid.assign(count, 0.0);
  buckets.outcomes.assign(count, 0);
  return buckets;
}

// Bucket index and offset of a loss; the offset is kept in [0, step) despite rounding in the division.
std::pair<int64_t, double> locate(double loss, double step) {
  int64_t k = static_cast<int64_t>(std::floor(loss / step));
  double r = loss - static_cast<double>(k) * step;
  if (r < 0.0) {
    --k;
    r += step;
  } else if (r >= step) {
    ++k;
    r -= step;
  }
  return {k, std::max(r, 0.0)};
}

void trim_zeros(PrivacyLossDistribution& pld) {
  size_t begin = 0, end = pld.masses.size();
  while (begin < end && pld.masses[begin] == 0.0) ++begin;
  while (end > begin && pld.masses[end - 1] == 0.0) --end;
  if (begin == end) {
    pld.masses.clear();
    return;
  }
  pld.first_index += static_cast<int64_t>(begin);
  pld.masses = std::vector<double>(pld.masses.begin() + static_cast<std::ptrdiff_t>(begin),
                                   pld.masses.begin() + static_cast<std::ptrdiff_t>(end));
}

// Connect-the-dots: a bucket's outcomes are split between k and k+1 keeping A- and B-mass. Summed over the
// outcomes of the bucket the share of k+1 is excess / (1 - e^{-step}), linear in the outcomes.
// Rounded up (see above): up and down each get the bucket's kappa times what they were computed from; the two
// contributions to an output entry are added and raised by one more rounding.
std::vector<double> connect_the_dots(const LossBuckets& buckets) {
  const double span = -std::expm1(-buckets.step);
  std::vector<double> out(buckets.mass.size() + 1, 0.0);
  for (size_t i = 0; i < buckets.mass.size(); ++i) {
    const double mass = buckets.mass[i];
    const double up = std::min(mass, buckets.excess[i] / span);
    const double slack = buckets.kappa(i) * (mass + up);
    out[i + 1] += std::min(mass, up + slack);
    out[i] += std::min(mass, (mass - up) + slack);
  }
  for (double& m : out) m *= 1.0 + roundings(4.0);
  return out;
}

std::vector<double> round_up(const LossBuckets& buckets) {
  std::vector<double> out(buckets.mass.size() + 1, 0.0);
  for (size_t i = 0; i < buckets.mass.size(); ++i) {
    const double mass = buckets.mass[i], on_grid = buckets.on_grid[i];
    const double slack = buckets.kappa(i) * (mass + on_grid);
    out[i] += std::min(mass, on_grid + slack);
    out[i + 1] += std::min(mass, (mass - on_grid) + slack);
  }
  for (double& m : out) m *= 1.0 + roundings(4.0);
  return out;
}

// Sums of non-negative terms: lowering each by its relative rounding bound gives an entrywise lower value.
std::vector<double> round_down(const LossBuckets& buckets) {
  std::vector<double> out = buckets.mass;
  for (size_t i = 0; i < out.size(); ++i) out[i] *= 1.0 - buckets.kappa(i);
  return out;
}

// Merge-to-grid (see header). A group targets grid point t; its imbalance S = sum_i f_i a_i (e^{l_t - l_i} - 1)
// over the fractions f_i it holds is <= 0 while it is open (its merged loss is at or above l_t). A whole
// bucket k < t contributes w = A_k (e^{d step} - 1) - D_k e^{d step} > 0, d = t - k; the group takes the
// fraction of the bucket that brings S to exactly 0 and is emitted at l_t.
//
// Rounding: the exact imbalance of a group with the computed fractions differs from the computed one by at most
// c u times the sum of the magnitudes that entered it. Closing a group at a computed imbalance of exactly 0 could
// leave its exact loss a hair below l_t, which a lower bound must not overstate; so a group is closed at
// -margin (margin = 64 u times those magnitudes, which dominates the rounding): its exact imbalance is <= 0 and its
// exact loss >= l_t. Its mass, a sum of non-negative fractions, is then lowered by its relative rounding bound.
// `max_raise` receives the largest distance (in losses) by which mass was moved up (for the tilted error norm).
std::vector<double> merge_to_grid(const LossBuckets& buckets, double* max_raise) {
  const double step = buckets.step;
  const size_t count = buckets.mass.size();
  std::vector<double> out(count, 0.0);
  bool open = false;
  size_t target = 0;
  double imbalance = 0.0, group_mass = 0.0, magnitude = 0.0;
  int64_t terms = 0;
  double raise = 0.0;
  auto emit = [&]() {
    out[target] += group_mass * (1.0 - (static_cast<double>(terms) + 8.0) * 4.0 * kUnitRoundoff);
    open = false;
    imbalance = group_mass = magnitude = 0.0;
    terms = 0;
  };
  // `magnitude` sums, over the terms of the imbalance, (outcomes + 8) times the term's size: a bound on the
  // rounding of the imbalance is u times it (bucket sums err by outcomes u relative, each product by a few u).
  auto margin = [&]() { return roundings(4.0) * magnitude; };
  for (size_t k = count; k-- > 0;) {
    const double mass = buckets.mass[k];
    if (mass <= 0.0) continue;
    double remaining = 1.0;  // fraction of bucket k not yet assigned
    while (remaining > 0.0) {
      if (!open) {
        target = k;
        group_mass = remaining * mass;
        imbalance = -remaining * buckets.excess[k];
        magnitude = (buckets.outcomes[k] + 8.0) * remaining * (mass + buckets.excess[k]);
        terms = buckets.outcomes[k] + 2;
        remaining = 0.0;
        open = true;
        if (buckets.excess[k] == 0.0) emit();  // the bucket's outcomes sit exactly on the grid point
        break;
      }
      const double distance = static_cast<double>(target - k) * step;
      if (distance > 700.0) {  // e^distance would overflow: nothing this far below can help; round down
        emit();
        continue;
      }
      const double growth = std::exp(distance);
      const double weight = mass * std::expm1(distance) - buckets.excess[k] * growth;
      if (!(weight > 0.0)) {  // cannot happen mathematically (excess < mass (1 - e^{-step})); be safe
        emit();
        continue;
      }
      raise = std::max(raise, distance);
      const double term_magnitude = (buckets.outcomes[k] + 8.0) * (mass * (growth + 1.0) + buckets.excess[k] * growth);
      if (imbalance + remaining * weight <= -2.0 * (margin() + roundings(4.0) * remaining * term_magnitude)) {
        group_mass += remaining * mass;
        imbalance += remaining * weight;
        magnitude += remaining * term_magnitude;
        terms += buckets.outcomes[k] + 4;
        remaining = 0.0;
      } else {
        // The fraction that brings the imbalance to -margin (with the margin of the terms it adds, bounded by the
        // whole bucket's).
        const double target_imbalance = -2.0 * (margin() + roundings(4.0) * remaining * term_magnitude);
        const double fraction = std::max(0.0, std::min(remaining, (target_imbalance - imbalance) / weight));
        group_mass += fraction * mass;
        imbalance += fraction * weight;
        magnitude += fraction * term_magnitude;
        terms += buckets.outcomes[k] + 4;
        remaining -= fraction;
        emit();
      }
    }
  }
  if (open) emit();  // the lowest group: nothing below to balance it, so it is rounded down
  if (max_raise) *max_raise = raise;
  return out;
}

// The bound's masses on the grid, rounded in its direction (no floating-point allowance needed). `max_raise`
// receives the largest distance by which mass may have moved up (one step for the upper methods).
PrivacyLossDistribution from_buckets(const LossBuckets& buckets, BoundKind bound, const AccountantOptions& options,
                                     double* max_raise = nullptr) {
  PrivacyLossDistribution pld;
  pld.bound = bound;
  pld.loss_step = buckets.step;
  pld.first_index = buckets.first_index;
  double raise = 0.0;
  if (bound == BoundKind::kUpper) {
    pld.masses =
        options.upper_method == PessimisticMethod::kConnectTheDots ? connect_the_dots(buckets) : round_up(buckets);
    raise = buckets.step;
  } else {
    pld.masses =
        options.lower_method == OptimisticMethod::kMergeToGrid ? merge_to_grid(buckets, &raise) : round_down(buckets);
  }
  for (double& m : pld.masses) m = std::max(m, 0.0);
  trim_zeros(pld);
  if (max_raise) *max_raise = raise;
  return pld;
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

PrivacyLossAtoms privacy_loss_atoms(const std::vector<double>& first, const std::vector<double>& second) {
  PrivacyLossAtoms atoms;
  std::vector<double> infinite;
  for (size_t i = 0; i < first.size(); ++i) {
    const double a = first[i], b = second[i];
    if (!(a > 0.0)) continue;
    if (!(b > 0.0)) {
      infinite.push_back(a);
      continue;
    }
    // Difference of logarithms rather than log of the ratio: the ratio may overflow for tiny b.
    atoms.losses.push_back(std::log(a) - std::log(b));
    atoms.masses.push_back(a);
  }
  atoms.infinity_mass = compensated_sum(infinite);
  return atoms;
}

PrivacyLossDistribution discretise(const PrivacyLossAtoms& atoms, BoundKind bound, const AccountantOptions& options) {
  options.validate();
  PrivacyLossDistribution pld;
  pld.bound = bound;
  pld.infinity_mass = atoms.infinity_mass;
  pld.loss_step = options.loss_step;
  const size_t count = atoms.losses.size();
  if (count == 0) return pld;

  // The computed loss log a - log b is within 4 u (2 |log a| + |l| + 2) of the exact ln(a/b) (two logarithms
  // and a subtraction). Moving every loss outward by that bound, up for an upper bound and down for a lower one,
  // only moves losses in the bound's direction, so what follows discretises a distribution that is on the
  // right side of the exact one.
  std::vector<double> losses(count);
  const double direction = bound == BoundKind::kUpper ? 1.0 : -1.0;
  for (size_t i = 0; i < count; ++i) {
    const double l = atoms.losses[i];
    const double error = roundings(4.0) * (2.0 * std::abs(std::log(atoms.masses[i])) + std::abs(l) + 2.0);
    losses[i] = l + direction * error;
  }
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return losses[a] < losses[b]; });

  // Tails of at most tail_mass at each end, never the whole distribution.
  size_t low = 0, high = count;  // kept: order[low .. high)
  double low_tail = 0.0, high_tail = 0.0;
  while (low + 1 < count && low_tail + atoms.masses[order[low]] <= options.tail_mass)
    low_tail += atoms.masses[order[low++]];
  while (high - 1 > low && high_tail + atoms.masses[order[high - 1]] <= options.tail_mass)
    high_tail += atoms.masses[order[--high]];
  double lowest = losses[order[low]];
  double highest = losses[order[high - 1]];

  double step = options.loss_step;
  while ((highest - lowest) / step + 3.0 > static_cast<double>(options.max_points)) step *= 2.0;
  // Losses within kSnap of a grid point are put on it: a loss that is mathematically on the grid (a lattice table,
  // such as a truncated Laplace or randomized response) but was moved off it by rounding would otherwise be spread
  // over two grid points (upper bound) or lose a whole step (lower bound: with few atoms, merge-to-grid cannot
  // compensate, and n releases lose about n step / 2 of epsilon). Snapping in the bound's own direction is always
  // sound. Snapping the other way is done for the lower bound only and recorded as the PLD's loss_shift, applied
  // to every query. The upper bound never snaps down: a loss d above a grid point stays there and connect-the-dots
  // gives the next point the share d / step of its mass, which is exact at the grid points. A shift would instead
  // cost (slope of delta) x d at every epsilon, and at a kink of the curve (a table whose ratios are e^eps to
  // 1e-12, as a linear program's optimum is) that is the whole mass at the kink: 3e-12 at delta = 1e-6, issue 21.
  constexpr double kSnap = 1e-11;
  for (size_t i = low; i < high; ++i) {
    double& l = losses[order[i]];
    const double grid_point = std::round(l / step) * step;
    const double distance = l - grid_point;  // > 0: the loss lies above the grid point
    if (distance == 0.0 || std::abs(distance) > kSnap) continue;
    const bool loosening = bound == BoundKind::kUpper ? distance > 0.0 : distance < 0.0;
    if (loosening) {
      if (bound == BoundKind::kUpper) continue;
      pld.loss_shift = std::max(pld.loss_shift, std::abs(distance) * (1.0 + 1e-9) + 1e-300);
    }
    l = grid_point;
  }
  // Snapping keeps the order (within kSnap no other loss can be passed without being snapped too).
  lowest = losses[order[low]];
  highest = losses[order[high - 1]];
  const int64_t first = locate(lowest, step).first;
  const int64_t last = locate(highest, step).first;
  LossBuckets buckets = empty_buckets(step, first, last);
  for (size_t i = low; i < high; ++i) {
    const auto [k, r] = locate(losses[order[i]], step);
    buckets.add(k, r, atoms.masses[order[i]]);
  }
  // Tail sums have the relative rounding of their number of terms; the bucket that receives one counts them.
  const double low_count = static_cast<double>(low), high_count = static_cast<double>(count - high);
  if (bound == BoundKind::kUpper) {
    const auto [k, r] = locate(lowest, step);  // bottom tail raised to the lowest kept loss
    buckets.add(k, r, low_tail);
    buckets.outcomes[static_cast<size_t>(k - first)] += static_cast<int32_t>(std::min(low_count, 1e9));
    // Top tail paid for in full; the infinity mass (a compensated sum, 2u) rounded up.
    pld.infinity_mass =
        (pld.infinity_mass * (1.0 + roundings(4.0)) + high_tail * (1.0 + (high_count + 4.0) * kUnitRoundoff)) *
        (1.0 + kUnitRoundoff);
    pld.truncated_mass = high_tail;
  } else {
    const auto [k, r] = locate(highest, step);  // top tail lowered to the highest kept loss
    buckets.add(k, r, high_tail);
    buckets.outcomes[static_cast<size_t>(k - first)] += static_cast<int32_t>(std::min(high_count, 1e9));
    pld.infinity_mass *= 1.0 - roundings(8.0);
    pld.truncated_mass = low_tail;  // bottom tail dropped
  }
  PrivacyLossDistribution result = from_buckets(buckets, bound, options);
  result.infinity_mass = pld.infinity_mass;
  result.truncated_mass = pld.truncated_mass;
  result.loss_shift = pld.loss_shift;
  return result;
}

PrivacyLossDistribution coarsen(const PrivacyLossDistribution& pld, int64_t factor, const AccountantOptions& options) {
  if (factor <= 1) return pld;
  if (pld.masses.empty()) {
    PrivacyLossDistribution copy = pld;
    copy.loss_step *= static_cast<double>(factor);
    return copy;
  }
  const double step = pld.loss_step * static_cast<double>(factor);
  const int64_t first = floor_div(pld.first_index, factor);
  const int64_t last = floor_div(pld.last_index(), factor);
  LossBuckets buckets = empty_buckets(step, first, last);
  for (size_t i = 0; i < pld.masses.size(); ++i) {
    if (pld.masses[i] == 0.0) continue;
    const int64_t j = pld.first_index + static_cast<int64_t>(i);
    const int64_t k = floor_div(j, factor);
    const double r = static_cast<double>(j - k * factor) * pld.loss_step;  // exact multiple of the old step
    buckets.add(k, r, pld.masses[i]);
  }
  double raise = 0.0;
  PrivacyLossDistribution result = from_buckets(buckets, pld.bound, options, &raise);
  result.infinity_mass = pld.infinity_mass;
  // The masses are combined by a fixed non-negative linear map (directed rounding covers its own arithmetic), so
  // the errors of the input carry over: in l1 unchanged (the map keeps mass), in the tilted norm multiplied by
  // e^{lambda raise} at most (no mass moves up by more than `raise`).
  result.numerical_error = pld.numerical_error;
  result.relative_error = pld.relative_error;
  result.tilt.lambda = pld.tilt.lambda;
  result.tilt.reference = pld.tilt.reference;
  result.tilt.error = pld.tilt.lambda > 0.0 ? pld.tilt.error * std::exp(pld.tilt.lambda * raise) : 0.0;
  result.tilt.infinity_error = pld.tilt.infinity_error;
  result.truncated_mass = pld.truncated_mass;
  result.loss_shift = pld.loss_shift;
  result.compositions = pld.compositions;
  return result;
}

void truncate_tails(PrivacyLossDistribution& pld, double tail_mass) {
  std::vector<double>& m = pld.masses;
  if (m.size() < 2 || tail_mass <= 0.0) return;
  size_t low = 0, high = m.size();
  double low_tail = 0.0, high_tail = 0.0;
  while (low + 1 < high && low_tail + m[low] <= tail_mass) low_tail += m[low++];
  // A tilted PLD keeps its top tail below r + 30 / lambda: the tail's error, moved into the infinity mass, would
  // count in full at every eps, while left in place it counts with its tilted weight, which is below e^{-30}
  // only from there on (early in a composition the weight at the top is still about 1).
  const bool tilted = pld.tilt.lambda > 0.0 && pld.bound == BoundKind::kUpper;
  auto may_cut = [&](size_t index) {
    return !tilted || pld.tilt.lambda * (pld.loss(index) - pld.tilt.reference) >= 30.0;
  };
  while (high - 1 > low && high_tail + m[high - 1] <= tail_mass && may_cut(high - 1)) high_tail += m[--high];
  if (low == 0 && high == m.size()) return;
  // Sums of non-negative terms, rounded in the bound's direction. Errors of the moved entries move with them: in
  // the tilted norm the raised bottom tail's error (at most numerical_error) is weighted by the weight of its new
  // place at most, and the top tail's error enters the infinity mass, bounded in the tilted norm by
  // tilt.error e^{-lambda (l_cut - r)}.
  const double kappa_low = (static_cast<double>(low) + 4.0) * kMachineEpsilon;
  const double kappa_high = (static_cast<double>(m.size() - high) + 4.0) * kMachineEpsilon;
  const double lambda = pld.tilt.lambda;
  if (pld.bound == BoundKind::kUpper) {
    if (low > 0) {
      m[low] = (m[low] + low_tail * (1.0 + kappa_low)) * (1.0 + kUnitRoundoff);
      if (lambda > 0.0) pld.tilt.error += pld.numerical_error * std::exp(lambda * (pld.loss(low) - pld.tilt.reference));
    }
    if (high < m.size()) {
      pld.infinity_mass = (pld.infinity_mass + high_tail * (1.0 + kappa_high)) * (1.0 + kUnitRoundoff);
      pld.truncated_mass += high_tail;
      if (lambda > 0.0)
        pld.tilt.infinity_error +=
            std::min(pld.numerical_error, pld.tilt.error * std::exp(-lambda * (pld.loss(high) - pld.tilt.reference)));
    }
  } else {
    if (high < m.size()) m[high - 1] = (m[high - 1] + high_tail * (1.0 - kappa_high)) * (1.0 - kUnitRoundoff);
    pld.truncated_mass += low_tail;
  }
  pld.first_index += static_cast<int64_t>(low);
  pld.masses =
      std::vector<double>(m.begin() + static_cast<std::ptrdiff_t>(low), m.begin() + static_cast<std::ptrdiff_t>(high));
}

}  // namespace noiselearn
