#include "accounting/loss_discretisation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/noise_table.hpp"

namespace noiselearn {

namespace {

// Outcomes gathered per loss bucket [k step, (k+1) step). For a bucket, `mass` is the A-mass, `excess` is
// sum a (1 - e^{-r}) with r = l - k step in [0, step) (the B-mass deficit relative to the grid point, which
// is what both connect-the-dots and merge-to-grid need), and `on_grid` the A-mass with r == 0 exactly.
struct LossBuckets {
  double step = 1.0;
  int64_t first_index = 0;
  std::vector<double> mass, excess, on_grid;
  std::vector<int32_t> outcomes;  // how many outcomes each bucket sums (for the rounding allowance)

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
std::vector<double> connect_the_dots(const LossBuckets& buckets) {
  const double span = -std::expm1(-buckets.step);
  std::vector<double> out(buckets.mass.size() + 1, 0.0);
  for (size_t i = 0; i < buckets.mass.size(); ++i) {
    const double up = std::min(buckets.mass[i], buckets.excess[i] / span);
    out[i + 1] += up;
    out[i] += buckets.mass[i] - up;
  }
  return out;
}

std::vector<double> round_up(const LossBuckets& buckets) {
  std::vector<double> out(buckets.mass.size() + 1, 0.0);
  for (size_t i = 0; i < buckets.mass.size(); ++i) {
    out[i] += buckets.on_grid[i];
    out[i + 1] += buckets.mass[i] - buckets.on_grid[i];
  }
  return out;
}

std::vector<double> round_down(const LossBuckets& buckets) { return buckets.mass; }

// Merge-to-grid (see header). A group targets grid point t; its imbalance S = sum_i f_i a_i (e^{l_t - l_i} - 1)
// over the fractions f_i it holds is <= 0 while it is open (its merged loss is at or above l_t). A whole
// bucket k < t contributes w = A_k (e^{d step} - 1) - D_k e^{d step} > 0, d = t - k; the group takes the
// fraction of the bucket that brings S to exactly 0 and is emitted at l_t.
std::vector<double> merge_to_grid(const LossBuckets& buckets) {
  const double step = buckets.step;
  const size_t count = buckets.mass.size();
  std::vector<double> out(count, 0.0);
  bool open = false;
  size_t target = 0;
  double imbalance = 0.0, group_mass = 0.0;
  auto emit = [&]() {
    out[target] += group_mass;
    open = false;
    imbalance = group_mass = 0.0;
  };
  for (size_t k = count; k-- > 0;) {
    const double mass = buckets.mass[k];
    if (mass <= 0.0) continue;
    double remaining = 1.0;  // fraction of bucket k not yet assigned
    while (remaining > 0.0) {
      if (!open) {
        target = k;
        group_mass = remaining * mass;
        imbalance = -remaining * buckets.excess[k];
        remaining = 0.0;
        open = true;
        if (imbalance == 0.0) emit();  // the bucket's outcomes sit exactly on the grid point
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
      if (imbalance + remaining * weight <= 0.0) {
        group_mass += remaining * mass;
        imbalance += remaining * weight;
        remaining = 0.0;
      } else {
        const double fraction = std::min(remaining, -imbalance / weight);
        group_mass += fraction * mass;
        remaining -= fraction;
        emit();
      }
    }
  }
  if (open) emit();  // the lowest group: nothing below to balance it, so it is rounded down
  return out;
}

PrivacyLossDistribution from_buckets(const LossBuckets& buckets, BoundKind bound, const AccountantOptions& options) {
  PrivacyLossDistribution pld;
  pld.bound = bound;
  pld.loss_step = buckets.step;
  pld.first_index = buckets.first_index;
  if (bound == BoundKind::kUpper)
    pld.masses = options.upper_method == PessimisticMethod::kConnectTheDots ? connect_the_dots(buckets)
                                                                           : round_up(buckets);
  else
    pld.masses = options.lower_method == OptimisticMethod::kMergeToGrid ? merge_to_grid(buckets)
                                                                        : round_down(buckets);
  for (double& m : pld.masses) m = std::max(m, 0.0);
  trim_zeros(pld);
  // Rounding: a bucket's sums have relative error <= (outcomes - 1) u; the split, the merge fractions and the
  // subtractions add a few u of the bucket's mass each. Bounded in l1 by (max outcomes + 16) u * total.
  double total = 0.0;
  for (double m : buckets.mass) total += m;
  const int32_t most = buckets.outcomes.empty() ? 0 : *std::max_element(buckets.outcomes.begin(), buckets.outcomes.end());
  pld.numerical_error = (static_cast<double>(most) + 16.0) * (std::numeric_limits<double>::epsilon() / 2.0) * total;
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

  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return atoms.losses[a] < atoms.losses[b]; });

  // Tails of at most tail_mass at each end, never the whole distribution.
  size_t low = 0, high = count;  // kept: order[low .. high)
  double low_tail = 0.0, high_tail = 0.0;
  while (low + 1 < count && low_tail + atoms.masses[order[low]] <= options.tail_mass)
    low_tail += atoms.masses[order[low++]];
  while (high - 1 > low && high_tail + atoms.masses[order[high - 1]] <= options.tail_mass)
    high_tail += atoms.masses[order[--high]];
  const double lowest = atoms.losses[order[low]];
  const double highest = atoms.losses[order[high - 1]];

  double step = options.loss_step;
  while ((highest - lowest) / step + 3.0 > static_cast<double>(options.max_points)) step *= 2.0;
  const int64_t first = locate(lowest, step).first;
  const int64_t last = locate(highest, step).first;
  LossBuckets buckets = empty_buckets(step, first, last);
  for (size_t i = low; i < high; ++i) {
    const auto [k, r] = locate(atoms.losses[order[i]], step);
    buckets.add(k, r, atoms.masses[order[i]]);
  }
  if (bound == BoundKind::kUpper) {
    const auto [k, r] = locate(lowest, step);  // bottom tail raised to the lowest kept loss
    buckets.add(k, r, low_tail);
    pld.infinity_mass += high_tail;  // top tail paid for in full
    pld.truncated_mass = high_tail;
  } else {
    const auto [k, r] = locate(highest, step);  // top tail lowered to the highest kept loss
    buckets.add(k, r, high_tail);
    pld.truncated_mass = low_tail;  // bottom tail dropped
  }
  PrivacyLossDistribution result = from_buckets(buckets, bound, options);
  result.infinity_mass = pld.infinity_mass;
  result.truncated_mass = pld.truncated_mass;
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
  PrivacyLossDistribution result = from_buckets(buckets, pld.bound, options);
  result.infinity_mass = pld.infinity_mass;
  result.numerical_error += pld.numerical_error;  // masses are combined linearly: both parts carry over
  result.relative_error = pld.relative_error;
  result.truncated_mass = pld.truncated_mass;
  result.compositions = pld.compositions;
  return result;
}

void truncate_tails(PrivacyLossDistribution& pld, double tail_mass) {
  std::vector<double>& m = pld.masses;
  if (m.size() < 2 || tail_mass <= 0.0) return;
  size_t low = 0, high = m.size();
  double low_tail = 0.0, high_tail = 0.0;
  while (low + 1 < high && low_tail + m[low] <= tail_mass) low_tail += m[low++];
  while (high - 1 > low && high_tail + m[high - 1] <= tail_mass) high_tail += m[--high];
  if (low == 0 && high == m.size()) return;
  if (pld.bound == BoundKind::kUpper) {
    m[low] += low_tail;
    pld.infinity_mass += high_tail;
    pld.truncated_mass += high_tail;
  } else {
    m[high - 1] += high_tail;
    pld.truncated_mass += low_tail;
  }
  pld.first_index += static_cast<int64_t>(low);
  pld.masses = std::vector<double>(m.begin() + static_cast<std::ptrdiff_t>(low),
                                   m.begin() + static_cast<std::ptrdiff_t>(high));
}

}  // namespace noiselearn
