#include "accounting/adaptive_blocks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "accounting/composition.hpp"
#include "accounting/exponential_tilt.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

// Compensated (Kahan) summation in long double.
struct CompensatedSum {
  long double sum = 0.0L, carry = 0.0L;
  void add(long double x) {
    const long double y = x - carry;
    const long double t = sum + y;
    carry = (t - sum) - y;
    sum = t;
  }
};

// The programme's options for a block of m releases: the upper run only, and a window top (the loss above which the
// value function is continued by its chord through (0, 1), sound at any height) of the largest drop one release can
// cause (plus a grid step) and a dozen standard deviations of the block's total loss above twice its drift, within
// top_loss. From higher up the loss practically never comes back below 0 (for m = 1 never), so the chord is
// practically exact there, and a lower top makes the window, and the work, smaller.
AdaptiveOptions block_options(const AdaptiveReleases& releases, int64_t m, const AdaptiveOptions& adaptive) {
  AdaptiveOptions options = adaptive;
  options.upper_only = true;
  const auto [deviation, drift] = candidate_loss_spread(releases);
  double largest_drop = 0.0;
  for (const auto& p : releases.upper)
    if (!p.masses.empty())
      largest_drop = std::max(largest_drop, -static_cast<double>(p.first_index) * p.loss_step + p.loss_step);
  const double md = static_cast<double>(m);
  options.top_loss = std::min(adaptive.top_loss, largest_drop + 12.0 * deviation * std::sqrt(md) + 2.0 * drift * md);
  return options;
}

}  // namespace

PrivacyLossDistribution profile_dominating_pld(const AdaptiveCurves& block) {
  if (block.blocks.composed) throw std::logic_error("profile_dominating_pld takes a plain programme result");
  if (block.upper.empty()) throw std::logic_error("profile_dominating_pld: an empty curve");
  const double h = block.loss_step;
  const size_t points = block.upper.size();
  // Points (u, D): the grid upper values at u_j = e^{eps_j} (eps ascending, so u ascending), after (0, 1). Beyond the
  // last grid point the curve is at most beyond.upper (= the last value), so the hull ends there with slope 0.
  struct Point {
    long double u, d;
    int64_t index;  // grid epsilon index; -1 for the origin
  };
  std::vector<Point> hull;
  hull.reserve(points + 1);
  hull.push_back({0.0L, 1.0L, -1});
  auto cross_below = [](const Point& a, const Point& b, const Point& c) {
    // Whether b lies on or above the segment a-c (so b is not a vertex of the lower hull).
    return (b.d - a.d) * (c.u - a.u) >= (c.d - a.d) * (b.u - a.u);
  };
  for (size_t j = 0; j < points; ++j) {
    const int64_t index = block.first_index + static_cast<int64_t>(j);
    const Point p{std::exp(static_cast<long double>(index) * static_cast<long double>(h)),
                  static_cast<long double>(std::min(1.0, block.upper[j])), index};
    while (hull.size() >= 2 && cross_below(hull[hull.size() - 2], hull.back(), p)) hull.pop_back();
    hull.push_back(p);
  }
  // The last point's value is the floor beyond it; points after the lowest value on the hull would only raise the
  // curve there, so the hull is cut at its minimum (the curve is non-increasing).
  size_t lowest = 1;
  for (size_t k = 1; k < hull.size(); ++k)
    if (hull[k].d < hull[lowest].d) lowest = k;
  hull.resize(lowest + 1);
  // Slopes s_k on (u_{k-1}, u_k), and 0 after the last vertex; w_k = u_k (s_{k+1} - s_k).
  const size_t vertices = hull.size();  // hull[0] is the origin
  std::vector<long double> slope(vertices + 1, 0.0L);
  for (size_t k = 1; k < vertices; ++k) slope[k] = (hull[k].d - hull[k - 1].d) / (hull[k].u - hull[k - 1].u);
  PrivacyLossDistribution pld;
  pld.bound = BoundKind::kUpper;
  pld.loss_step = h;
  pld.compositions = block.compositions;
  pld.loss_shift = block.loss_shift.upper;
  if (vertices < 2) {  // the curve is 1 at every grid point: every release may be distinguishing
    pld.first_index = 0;
    pld.masses.assign(1, 0.0);
    pld.infinity_mass = 1.0;
    return pld;
  }
  pld.first_index = hull[1].index;
  pld.masses.assign(static_cast<size_t>(hull.back().index - hull[1].index + 1), 0.0);
  for (size_t k = 1; k < vertices; ++k) {
    const long double w = hull[k].u * (slope[k + 1] - slope[k]);
    pld.masses[static_cast<size_t>(hull[k].index - pld.first_index)] = static_cast<double>(std::max(0.0L, w));
  }
  auto u_of = [&](int64_t index) { return std::exp(static_cast<long double>(index) * static_cast<long double>(h)); };
  // The pair P whose PLD has the stored finite masses w_i and infinity mass exactly 1 - sum w_i is a valid pair when
  // B's mass sum w_i / u_i is at most 1, and its curve C(u) = 1 - sum_i w_i min(1, u / u_i) lies above the hull when
  // C >= D at every vertex (C - hull is linear between vertices; C = 1 at u = 0 and constant beyond the last atom).
  // Both are checked in compensated long double with a margin; a failure (rounding) is repaired by moving mass of the
  // lowest atom to infinity, which raises C by that much at every vertex and lowers B's mass.
  const long double margin = 64.0L * std::numeric_limits<long double>::epsilon();
  for (int round = 0;; ++round) {
    if (round == 16) throw std::logic_error("profile_dominating_pld: the hull's masses could not be repaired");
    // C at the vertices, from the top: atoms strictly above u_k contribute w (1 - u_k / u), the others w... counted
    // as 1 - sum_{all} w_i min(1, u / u_i) = 1 - (sum_{u_i <= u} w_i) - u sum_{u_i > u} w_i / u_i.
    CompensatedSum all_mass;
    for (double w : pld.masses) all_mass.add(static_cast<long double>(w));
    CompensatedSum above_mass, above_ratio;
    long double shortfall = -1.0L;
    size_t next = vertices;  // vertices above the current one whose atoms are summed
    for (size_t k = vertices; k-- > 1;) {
      for (; next > k + 1; --next) {
        const long double w =
            static_cast<long double>(pld.masses[static_cast<size_t>(hull[next - 1].index - pld.first_index)]);
        above_mass.add(w);
        above_ratio.add(w / u_of(hull[next - 1].index));
      }
      const long double below_or_at = all_mass.sum - above_mass.sum;
      const long double c = 1.0L - below_or_at - hull[k].u * above_ratio.sum;
      shortfall = std::max(shortfall, hull[k].d - c + margin);
    }
    CompensatedSum b_mass;
    for (size_t k = 1; k < vertices; ++k)
      b_mass.add(static_cast<long double>(pld.masses[static_cast<size_t>(hull[k].index - pld.first_index)]) /
                 u_of(hull[k].index));
    const long double b_excess = b_mass.sum + margin - 1.0L;
    if (shortfall <= 0.0L && b_excess <= 0.0L) {
      // The stored infinity mass is 1 - sum w_i rounded up; the rounding is the PLD's (l1) numerical error.
      const long double exact_infinity = std::max(0.0L, 1.0L - all_mass.sum);
      pld.infinity_mass = std::nextafter(static_cast<double>(exact_infinity), 2.0);
      pld.numerical_error = static_cast<double>(static_cast<long double>(pld.infinity_mass) - exact_infinity) +
                            4.0 * static_cast<double>(margin);
      break;
    }
    // Move mass from the lowest atom with mass to infinity.
    size_t lowest_atom = 0;
    while (lowest_atom < pld.masses.size() && pld.masses[lowest_atom] == 0.0) ++lowest_atom;
    if (lowest_atom == pld.masses.size()) throw std::logic_error("profile_dominating_pld: no mass left to move");
    const long double u_low = u_of(pld.first_index + static_cast<int64_t>(lowest_atom));
    const long double need = std::max({shortfall, b_excess * u_low, 0.0L}) * 1.001L + margin;
    pld.masses[lowest_atom] =
        static_cast<double>(std::max(0.0L, static_cast<long double>(pld.masses[lowest_atom]) - need));
    if (pld.masses[lowest_atom] < 1e-300) pld.masses[lowest_atom] = 0.0;
  }
  return pld;
}

AdaptiveCurves adaptive_block_composition(const AdaptiveReleases& releases, int64_t block_size,
                                          const AccountantOptions& options, const AdaptiveOptions& adaptive) {
  const int64_t n = releases.count;
  if (block_size < 1 || block_size > n)
    throw InputError(fmt::format("adaptive block size {} must be in [1, {}]", block_size, n));
  const int64_t blocks = n / block_size, remainder = n % block_size;
  // One run of block_size releases; the remainder's curves are its snapshot after `remainder` steps (the last
  // `remainder` releases of a block are a block of their own), so the remainder costs nothing extra.
  AdaptiveReleases block = releases;
  block.count = block_size;
  AdaptiveOptions block_adaptive = block_options(releases, block_size, adaptive);
  block_adaptive.snapshot_after = remainder;
  const AdaptiveCurves full = adaptive_composition({block}, options, block_adaptive);
  auto hull = std::make_shared<const PrivacyLossDistribution>(profile_dominating_pld(full));
  std::shared_ptr<const PrivacyLossDistribution> remainder_hull;
  if (remainder > 0) {
    if (!full.snapshot) throw std::logic_error("adaptive_block_composition: the remainder's snapshot is missing");
    remainder_hull = std::make_shared<const PrivacyLossDistribution>(profile_dominating_pld(*full.snapshot));
  }
  PrivacyLossDistribution composed = self_compose(*hull, blocks, options);
  if (remainder_hull) composed = compose(composed, *remainder_hull, options);
  AdaptiveCurves result;
  result.blocks.hull = hull;
  result.blocks.remainder_hull = remainder_hull;
  result.loss_step = full.loss_step;
  result.compositions = n;
  result.extent.candidates_upper = full.extent.candidates_upper;
  result.extent.candidates_lower = 0;
  result.extent.largest_window = full.extent.largest_window;
  result.relative_allowance = full.relative_allowance;
  result.blocks.size = block_size;
  result.blocks.count = blocks;
  result.blocks.remainder = remainder;
  result.blocks.composed = std::make_shared<const PrivacyLossDistribution>(std::move(composed));
  return result;
}

bool add_tilted_blocks(AdaptiveCurves& curve, double epsilon, const AccountantOptions& options) {
  if (!curve.blocks.composed || !curve.blocks.hull || !std::isfinite(epsilon)) return false;
  for (double done : curve.blocks.tilted_for)
    if (std::abs(done - epsilon) <= 1e-3 * std::max(1.0, std::abs(epsilon))) return false;
  // The tilt for the whole: block_count blocks and the remainder, which the block's hull dominates (a shorter block),
  // so block_count + 1 copies of the hull stand in for the choice of lambda (any lambda >= 0 is sound).
  const int64_t factors = curve.blocks.count + (curve.blocks.remainder_hull ? 1 : 0);
  const double lambda = chernoff_tilt_for_epsilon(*curve.blocks.hull, factors, epsilon);
  if (!(lambda > 0.0)) return false;
  PrivacyLossDistribution hull = *curve.blocks.hull;
  apply_tilt(hull, lambda);
  PrivacyLossDistribution composed = self_compose(hull, curve.blocks.count, options);
  if (curve.blocks.remainder_hull) {
    PrivacyLossDistribution remainder = *curve.blocks.remainder_hull;
    apply_tilt(remainder, lambda);
    composed = compose(composed, remainder, options);
  }
  curve.blocks.tilted.push_back(std::make_shared<const PrivacyLossDistribution>(std::move(composed)));
  curve.blocks.tilted_for.push_back(epsilon);
  return true;
}

int64_t largest_block_within(const AdaptiveReleases& releases, double budget, const AdaptiveOptions& adaptive) {
  auto cost = [&](int64_t m) {
    AdaptiveReleases block = releases;
    block.count = m;
    return adaptive_composition_cost({block}, block_options(releases, m, adaptive));
  };
  if (cost(1) > budget) return 0;
  int64_t low = 1, high = releases.count;
  if (cost(high) <= budget) return high;
  while (high - low > 1) {  // cost(low) <= budget < cost(high)
    const int64_t middle = low + (high - low) / 2;
    (cost(middle) <= budget ? low : high) = middle;
  }
  return low;
}

}  // namespace noiselearn
