#include "accounting/adaptive_composition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include "accounting/accountant_threads.hpp"
#include "accounting/loss_discretisation.hpp"
#include "accounting/shift_add.hpp"
#include "core/directed_rounding.hpp"
#include "core/errors.hpp"
#include "core/monotone_search.hpp"

namespace noiselearn {

namespace {

// One candidate pair of one run, on the common grid: its atoms (offset in grid steps, A-mass), its
// distinguishing-event mass, and its floating-point allowances.
struct Candidate {
  std::vector<int64_t> offsets;
  std::vector<double> masses;
  double infinity = 0.0;
  double finite = 0.0;           // sum of masses
  double numerical_error = 0.0;  // absolute (l1) error of the masses
  double relative_error = 0.0;
};

Candidate candidate_of(const PrivacyLossDistribution& pld) {
  Candidate c;
  for (size_t i = 0; i < pld.masses.size(); ++i) {
    if (pld.masses[i] <= 0.0) continue;
    c.offsets.push_back(pld.first_index + static_cast<int64_t>(i));
    c.masses.push_back(pld.masses[i]);
    c.finite += pld.masses[i];
  }
  c.infinity = pld.infinity_mass;
  c.numerical_error = pld.numerical_error;
  c.relative_error = pld.relative_error;
  return c;
}

struct Stretch {
  std::vector<Candidate> upper, lower;
  int64_t count = 0;
  int64_t lowest_offset = 0, highest_offset = 0;  // over both runs' atoms
  double shift_upper = 0.0, shift_lower = 0.0;    // the largest loss shift of one release's candidates
};

double common_step(const std::vector<AdaptiveReleases>& releases) {
  double step = 0.0;
  for (const auto& r : releases) {
    for (const auto& p : r.upper) step = std::max(step, p.loss_step);
    for (const auto& p : r.lower) step = std::max(step, p.loss_step);
  }
  return step;
}

PrivacyLossDistribution on_step(const PrivacyLossDistribution& pld, double step, BoundKind bound,
                                const AccountantOptions& options) {
  if (pld.bound != bound) throw std::logic_error("adaptive_composition: a PLD of the wrong bound kind");
  if (pld.tilt.lambda > 0.0) throw std::logic_error("adaptive_composition takes untilted PLDs");
  const double ratio = step / pld.loss_step;
  const int64_t factor = std::llround(ratio);
  if (factor < 1 || std::abs(ratio - static_cast<double>(factor)) > 1e-9 * ratio)
    throw std::logic_error("adaptive_composition: loss steps must differ by whole factors");
  PrivacyLossDistribution result = coarsen(pld, factor, options);
  result.loss_step = step;
  return result;
}

// The values of one run on the window [lo, H] and what stands for them below it.
struct Run {
  std::vector<double> values;  // index t - lo
  double below = 0.0;          // upper run: V(lo); lower run: the distinguishing-event asymptote
};

// f(first, last) over [0, chunks), split among accountant_threads() threads (the calling one included).
template <class F>
void in_chunks(int64_t chunks, F&& f) {
  const int64_t workers = std::min<int64_t>(std::max(1, accountant_threads()), chunks / 2);  // >= 2 chunks each
  if (workers <= 1) {
    f(0, chunks);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(workers - 1));
  for (int64_t w = 1; w < workers; ++w)
    pool.emplace_back([&f, w, workers, chunks] { f(w * chunks / workers, (w + 1) * chunks / workers); });
  f(0, chunks / workers);
  for (auto& t : pool) t.join();
}

// The releases on the common loss step h, as stretches of identical releases: their candidates, their atoms' reach and
// their loss shifts; the counts checked, and the curves' candidate counts and loss shifts filled in.
std::vector<Stretch> stretches_of(const std::vector<AdaptiveReleases>& releases, double h,
                                  const AccountantOptions& options, AdaptiveCurves& curves, int64_t& total) {
  std::vector<Stretch> stretches;
  for (const auto& r : releases) {
    if (r.upper.empty() || r.lower.empty()) throw InputError("adaptive composition: a release without candidate pairs");
    if (r.count < 1) throw InputError(fmt::format("adaptive composition: count {} must be at least 1", r.count));
    if (r.count > kMaxCompositions - total)
      throw InputError(
          fmt::format("total number of compositions exceeds the accountant's limit of {}", kMaxCompositions));
    Stretch s;
    s.count = r.count;
    total += r.count;
    int64_t low = std::numeric_limits<int64_t>::max(), high = std::numeric_limits<int64_t>::min();
    double shift_upper = 0.0, shift_lower = 0.0;
    for (const auto& p : r.upper) {
      s.upper.push_back(candidate_of(on_step(p, h, BoundKind::kUpper, options)));
      shift_upper = std::max(shift_upper, p.loss_shift);
    }
    for (const auto& p : r.lower) {
      s.lower.push_back(candidate_of(on_step(p, h, BoundKind::kLower, options)));
      shift_lower = std::max(shift_lower, p.loss_shift);
    }
    // Every release's losses may sit up to its largest shift off the grid (PrivacyLossDistribution::loss_shift).
    s.shift_upper = shift_upper;
    s.shift_lower = shift_lower;
    curves.loss_shift.upper += shift_upper * static_cast<double>(r.count);
    curves.loss_shift.lower += shift_lower * static_cast<double>(r.count);
    for (const auto* run : {&s.upper, &s.lower})
      for (const auto& c : *run)
        for (int64_t o : c.offsets) {
          low = std::min(low, o);
          high = std::max(high, o);
        }
    if (low > high) low = high = 0;  // only distinguishing events
    s.lowest_offset = low;
    s.highest_offset = high;
    curves.extent.candidates_upper = std::max(curves.extent.candidates_upper, s.upper.size());
    curves.extent.candidates_lower = std::max(curves.extent.candidates_lower, s.lower.size());
    stretches.push_back(std::move(s));
  }
  return stretches;
}

// One step of a run: result[p] = the largest over the candidates of the rounded expectation
// sum_j m_j source[p + offset_j] (plus the candidate's distinguishing events and allowances), p in [0, width); `out` is
// scratch. Returns the largest relative rounding of a sum (the upper run compounds it into its allowance).
double expectation_step(const std::vector<Candidate>& candidates, const double* source, int64_t width, bool is_upper,
                        std::vector<double>& out, std::vector<double>& result) {
  result.assign(static_cast<size_t>(width), 0.0);
  out.assign(static_cast<size_t>(width), 0.0);
  double worst_gamma = 0.0;
  for (const Candidate& c : candidates)
    worst_gamma = std::max(worst_gamma, 2.0 * (static_cast<double>(c.offsets.size()) + 4.0) * kUnitRoundoff);
  // Per candidate, out[p] = sum_j m_j extended[p + offset_j], in tiles of the window that stay in the L1 cache
  // while every atom is added, then the largest rounded expectation over the candidates. Chunks of the window go
  // to accountant_threads() threads (--threads), each doing every candidate on its chunks (one start of the
  // threads per release). Each value is summed by one thread in one order, and the candidates are taken in
  // order, so the result does not depend on the number of threads.
  constexpr int64_t kChunk = 2048;
  in_chunks((width + kChunk - 1) / kChunk, [&](int64_t first, int64_t last) {
    const int64_t begin = first * kChunk, end = std::min(width, last * kChunk);
    for (const Candidate& c : candidates) {
      std::fill(out.begin() + begin, out.begin() + end, 0.0);
      shift_add(c.masses.data(), c.offsets.data(), c.offsets.size(), source + begin, end - begin, out.data() + begin);
      const double gamma = 2.0 * (static_cast<double>(c.offsets.size()) + 4.0) * kUnitRoundoff;
      if (is_upper) {
        const double scale = (1.0 + gamma) / (1.0 - c.relative_error) * (1.0 + roundings(4.0));
        for (int64_t p = begin; p < end; ++p)
          result[static_cast<size_t>(p)] = std::max(
              result[static_cast<size_t>(p)], std::min(1.0 + 0.0, (out[p] + c.infinity + c.numerical_error) * scale));
      } else {
        const double scale = (1.0 - gamma) / (1.0 + c.relative_error) * (1.0 - roundings(4.0));
        for (int64_t p = begin; p < end; ++p)
          result[static_cast<size_t>(p)] = std::max(result[static_cast<size_t>(p)],
                                                    std::max(0.0, (out[p] + c.infinity - c.numerical_error) * scale));
      }
    }
  });
  return worst_gamma;
}

}  // namespace

namespace {

// The programme's state between releases: the upper and lower value runs on the window [lo, top] of loss indices, and
// whether every release so far raised the top by its whole reach (then the true V is affine in e^{-l} above it, through
// (0, 1)).
struct Window {
  Run up, low;
  int64_t lo = 0, top = 2;
  bool top_exact = true;
};

// The old values over every index an atom of the next release can reach, [ext_lo, ext_hi]: the window, the stand-in
// below it, and the convexity continuations above it. `decay` caches e^{-x} for x = (t - top) h (the same for every
// release, computed once by std::exp); step_factor is u_{H-1} / u_H - 1 = e^h - 1.
void extend_window(const Window& w, int64_t ext_lo, int64_t ext_hi, double h, double step_factor, bool upper_only,
                   std::vector<double>& decay, std::vector<double>& extended_up, std::vector<double>& extended_low) {
  const size_t ext_size = static_cast<size_t>(ext_hi - ext_lo + 1);
  const double up_top = w.up.values.back(), up_before_top = w.up.values[w.up.values.size() - 2];
  const double low_top = w.low.values.back();
  const double slope_gap = std::max(0.0, low_top - up_before_top);  // lower bound of V(H) - V(H - 1)
  extended_up.assign(ext_size, 0.0);
  extended_low.assign(upper_only ? 0 : ext_size, 0.0);
  while (static_cast<int64_t>(decay.size()) <= ext_hi - w.top)
    decay.push_back(std::exp(-static_cast<double>(decay.size()) * h));
  for (int64_t t = ext_lo; t <= ext_hi; ++t) {
    const size_t i = static_cast<size_t>(t - ext_lo);
    if (t < w.lo) {
      extended_up[i] = w.up.below;
      if (!upper_only) extended_low[i] = w.low.below;
    } else if (t <= w.top) {
      extended_up[i] = w.up.values[static_cast<size_t>(t - w.lo)];
      if (!upper_only) extended_low[i] = w.low.values[static_cast<size_t>(t - w.lo)];
    } else {
      const double x = static_cast<double>(t - w.top) * h;
      // Upper: 1 - (1 - V(H)) e^{-x}, the product rounded down so that the value is rounded up.
      const double q = lowered_by((1.0 - up_top) * decay[static_cast<size_t>(t - w.top)], roundings(8.0));
      extended_up[i] = std::min(1.0, raised_by(1.0 - q, roundings(4.0)));
      if (upper_only) continue;
      // Lower: while the top is exact, the line through (0, 1) and the lower value at H, 1 - (1 - V(H)) e^{-x}
      // (the product rounded up); otherwise V(H) + (u_H - u) / (u_{H-1} - u_H) * gap, with
      // (u_H - u) / (u_{H-1} - u_H) = -expm1(-x) / expm1(h).
      const double chord =
          w.top_exact
              ? lowered_by(1.0 - raised_by((1.0 - low_top) * decay[static_cast<size_t>(t - w.top)], roundings(8.0)),
                           roundings(4.0))
              : lowered_by(low_top + (-std::expm1(-x) / step_factor) * slope_gap, roundings(16.0));
      const double floor_value = lowered_by(-std::expm1(-static_cast<double>(t) * h), roundings(4.0));
      extended_low[i] = std::min(1.0, std::max({chord, floor_value, lowered_by(low_top, 0.0)}));
    }
  }
}

// The lower run's asymptote after a release of these candidates: the largest chance of a distinguishing event from
// here on (low_below: the previous asymptote).
double lower_asymptote(const std::vector<Candidate>& lower, double low_below) {
  double asymptote = 0.0;
  for (const Candidate& c : lower) {
    const double gamma = roundings(8.0);
    asymptote = std::max(asymptote, std::max(0.0, (c.infinity - c.numerical_error + c.finite * low_below) *
                                                      (1.0 - gamma) / (1.0 + c.relative_error)));
  }
  return asymptote;
}

// The upper run's own asymptote after a release (up_asymptote: the previous one), computed with the same roundings as
// its values, which tend to it as l -> -inf.
double upper_asymptote(const std::vector<Candidate>& upper, double up_asymptote) {
  double asymptote = 0.0;
  for (const Candidate& c : upper) {
    const double gamma = 2.0 * (static_cast<double>(c.offsets.size()) + 4.0) * kUnitRoundoff;
    asymptote = std::max(asymptote, (c.infinity + c.numerical_error + c.finite * up_asymptote) * (1.0 + gamma) /
                                        (1.0 - c.relative_error) * (1.0 + roundings(8.0)));
  }
  return std::min(1.0, asymptote);
}

// Where to raise the bottom of the window: the first index whose upper value is above the upper asymptote by more than
// the tolerance (below it the values differ from it by less: they are non-decreasing in l), keeping at least two.
// Any lo is sound (V is non-decreasing, so V(lo) bounds V below lo); this only decides what is worth computing. The
// values and the asymptote are rounded sums of the same terms in different orders, and the value at lo stands for
// everything below it, so they may differ by a few relative roundings per release; 1e-10 of the asymptote (at least
// 4 (m + 8) u) counts as equal.
int64_t first_kept_index(const std::vector<double>& next_up, const std::vector<Candidate>& upper, double up_asymptote,
                         double tolerance) {
  size_t most_atoms = 0;
  for (const Candidate& c : upper) most_atoms = std::max(most_atoms, c.offsets.size());
  const double level =
      up_asymptote * (1.0 + std::max(1e-10, 4.0 * (static_cast<double>(most_atoms) + 8.0) * kUnitRoundoff)) + tolerance;
  const int64_t width = static_cast<int64_t>(next_up.size());
  int64_t first_kept = 0;
  while (first_kept + 2 < width && next_up[static_cast<size_t>(first_kept + 1)] <= level) ++first_kept;
  return first_kept;
}

}  // namespace

AdaptiveCurves adaptive_composition(const std::vector<AdaptiveReleases>& releases, const AccountantOptions& options,
                                    const AdaptiveOptions& adaptive) {
  if (releases.empty()) throw InputError("adaptive composition needs at least one release");
  if (!(adaptive.top_loss > 0.0) || !std::isfinite(adaptive.top_loss))
    throw InputError(fmt::format("adaptive top loss {} must be positive and finite", adaptive.top_loss));
  if (!(adaptive.window_tolerance > 0.0) || adaptive.window_tolerance >= 1.0)
    throw InputError(fmt::format("adaptive window tolerance {} must be in (0, 1)", adaptive.window_tolerance));
  const double h = common_step(releases);
  AdaptiveCurves curves;
  int64_t total = 0;
  const std::vector<Stretch> stretches = stretches_of(releases, h, options, curves, total);
  const double tolerance = adaptive.window_tolerance / static_cast<double>(total);
  // The top of the window starts at 2 (V_n is affine in e^{-l} above 0) and rises each release by the largest drop of
  // the loss an atom can cause, up to top_loss: from above it the remaining releases cannot bring the loss below 0,
  // so V is affine in e^{-l} there (every candidate's line passes through (0, 1)) and the continuations are exact.
  const int64_t top_cap = std::max<int64_t>(2, static_cast<int64_t>(std::ceil(adaptive.top_loss / h)));
  Window w;

  // Terminal values V_n(l) = (1 - e^{-l})_+ on [0, top] (zero below).
  w.up.values.resize(static_cast<size_t>(w.top + 1));
  w.low.values.resize(w.up.values.size());
  for (int64_t t = 0; t <= w.top; ++t) {
    const double v = -std::expm1(-static_cast<double>(t) * h);
    w.up.values[static_cast<size_t>(t)] = std::min(1.0, raised_by(v, roundings(4.0)));
    w.low.values[static_cast<size_t>(t)] = lowered_by(v, roundings(4.0));
  }
  const double step_factor = std::expm1(h);  // u_{H-1} / u_H - 1

  std::vector<double> extended_up, extended_low, out, decay;
  double compounded = 1.0;
  // Shifts of the releases stepped so far (from the last), for a snapshot.
  double done_shift_upper = 0.0, done_shift_lower = 0.0;
  int64_t done = 0;
  // The curves of the releases stepped so far: delta(eps_e) = V(-e h), e from -H to -lo.
  auto curves_so_far = [&](AdaptiveCurves& c) {
    c.loss_step = h;
    c.first_index = -w.top;
    c.compositions = done;
    c.loss_shift.upper = done_shift_upper;
    c.loss_shift.lower = done_shift_lower;
    const size_t points = w.up.values.size();
    c.upper.resize(points);
    c.lower.resize(points);
    for (size_t j = 0; j < points; ++j) {
      c.upper[j] = w.up.values[points - 1 - j];
      c.lower[j] = std::min(w.low.values[points - 1 - j], c.upper[j]);
    }
    c.beyond.upper = w.up.below;
    c.beyond.lower = std::min(w.low.below, w.up.below);
    c.relative_allowance = compounded - 1.0;
  };
  double up_asymptote = 0.0;  // the upper run's value as l -> -inf (0 at the end: V_n(l) = 0 for l <= 0)
  for (size_t s_index = stretches.size(); s_index-- > 0;) {
    const Stretch& s = stretches[s_index];
    for (int64_t release = 0; release < s.count; ++release) {
      if (done == adaptive.snapshot_after && done > 0) {
        auto snapshot = std::make_shared<AdaptiveCurves>(curves);
        curves_so_far(*snapshot);
        curves.snapshot = std::move(snapshot);
      }
      // The window of the new values: atoms reach down by the highest offset.
      const int64_t new_lo = w.lo - std::max<int64_t>(0, s.highest_offset);
      const int64_t wanted_top = w.top + std::max<int64_t>(0, -s.lowest_offset) + 1;
      const int64_t new_top = std::min(top_cap, wanted_top);
      const int64_t width = new_top - new_lo + 1;
      const int64_t ext_lo = new_lo + std::min<int64_t>(0, s.lowest_offset);
      const int64_t ext_hi = new_top + std::max<int64_t>(0, s.highest_offset);
      extend_window(w, ext_lo, ext_hi, h, step_factor, adaptive.upper_only, decay, extended_up, extended_low);
      std::vector<double> next_up, next_low;
      const double* up_source = extended_up.data() + (new_lo - ext_lo);
      const double gamma_up = expectation_step(s.upper, up_source, width, true, out, next_up);
      if (adaptive.upper_only)
        next_low.assign(next_up.size(), 0.0);
      else
        expectation_step(s.lower, extended_low.data() + (new_lo - ext_lo), width, false, out, next_low);
      compounded *= 1.0 + gamma_up;
      const double asymptote = lower_asymptote(s.lower, w.low.below);
      up_asymptote = upper_asymptote(s.upper, up_asymptote);
      const int64_t first_kept = first_kept_index(next_up, s.upper, up_asymptote, tolerance);
      w.lo = new_lo + first_kept;
      w.top = new_top;
      w.top_exact = w.top_exact && new_top == wanted_top;
      w.up.values.assign(next_up.begin() + first_kept, next_up.end());
      w.low.values.assign(next_low.begin() + first_kept, next_low.end());
      w.up.below = w.up.values.front();
      w.low.below = std::min(asymptote, w.low.values.front());
      curves.extent.largest_window = std::max<int64_t>(curves.extent.largest_window, width);
      done_shift_upper += s.shift_upper;
      done_shift_lower += s.shift_lower;
      ++done;
    }
  }

  const double shift_upper = curves.loss_shift.upper, shift_lower = curves.loss_shift.lower;
  curves_so_far(curves);
  curves.loss_shift.upper = shift_upper;  // the same as done_shift_* up to the order of the additions
  curves.loss_shift.lower = shift_lower;
  return curves;
}

CandidateLossSpread candidate_loss_spread(const AdaptiveReleases& releases) {
  CandidateLossSpread spread;
  for (const auto& p : releases.upper) {
    double mass = 0.0, mean = 0.0, square = 0.0;
    for (size_t i = 0; i < p.masses.size(); ++i) {
      mass += p.masses[i];
      mean += p.masses[i] * p.loss(i);
    }
    if (!(mass > 0.0)) continue;
    mean /= mass;
    for (size_t i = 0; i < p.masses.size(); ++i) square += p.masses[i] * (p.loss(i) - mean) * (p.loss(i) - mean);
    spread.deviation = std::max(spread.deviation, std::sqrt(square / mass));
    spread.drift = std::max(spread.drift, std::abs(mean));
  }
  return spread;
}

double adaptive_composition_cost(const std::vector<AdaptiveReleases>& releases, const AdaptiveOptions& adaptive) {
  // Per release (counted from the last): the window's top rises by the largest drop of the loss (plus a step) up to
  // top_loss; its bottom, kept by the trimming where the loss can still climb back, is about one of the largest
  // rises plus eight standard deviations of the remaining loss and twice its drift (at most 30 nats). Every atom
  // of both runs is one multiply-add per window point. The estimate overstates the work done by less than a factor 2
  // on the tables measured (tests/benchmarks/README.md, "The accountant's methods on examples").
  double cost = 0.0, top = 0.0, variance = 0.0, drift_total = 0.0;
  int64_t seen = 0;
  for (auto r = releases.rbegin(); r != releases.rend(); ++r) {
    double step = 0.0, atoms = 0.0, drop = 0.0, rise = 0.0;
    const auto [deviation, drift] = candidate_loss_spread(*r);
    for (const auto& p : r->upper) {
      step = std::max(step, p.loss_step);
      for (double m : p.masses) atoms += m > 0.0 ? 1.0 : 0.0;
      if (p.masses.empty()) continue;
      drop = std::max(drop, -static_cast<double>(p.first_index) * p.loss_step);
      rise = std::max(rise, static_cast<double>(p.last_index()) * p.loss_step);
    }
    if (step <= 0.0) continue;
    const double runs = adaptive.upper_only ? 1.0 : 2.0;
    for (int64_t i = 0; i < r->count; ++i, ++seen) {
      top = std::min(adaptive.top_loss, top + drop + step);
      variance += deviation * deviation;
      drift_total += drift;
      const double bottom = std::min(30.0, rise + 8.0 * std::sqrt(variance) + 2.0 * drift_total);
      cost += runs * atoms * (top + bottom) / step;
      if (top >= adaptive.top_loss && bottom >= 30.0) {  // the window stops growing
        cost += runs * atoms * (top + bottom) / step * static_cast<double>(r->count - i - 1);
        seen += r->count - i - 1;
        break;
      }
    }
  }
  return cost;
}

// ---- queries ----

namespace {

// Index e (grid epsilon e h) with e h <= eps < (e + 1) h, robust to the rounding of eps / h.
int64_t grid_floor(double epsilon, double h) {
  auto e = static_cast<int64_t>(std::floor(epsilon / h));
  if (static_cast<double>(e) * h > epsilon) --e;
  if (static_cast<double>(e + 1) * h <= epsilon) ++e;
  return e;
}

}  // namespace

double AdaptiveCurves::grid_delta_upper(double epsilon) const {
  if (upper.empty() || std::isnan(epsilon)) return 1.0;
  const int64_t last = first_index + static_cast<int64_t>(upper.size()) - 1;
  const int64_t e = grid_floor(epsilon, loss_step);
  if (e < first_index) return 1.0;
  if (e > last || (e == last && static_cast<double>(e) * loss_step < epsilon)) return std::min(1.0, beyond.upper);
  const size_t j = static_cast<size_t>(e - first_index);
  const double offset = epsilon - static_cast<double>(e) * loss_step;
  if (offset <= 0.0) return upper[j];
  // The chord in e^eps between the grid points e and e + 1.
  const double u0 = upper[j], u1 = upper[j + 1];
  if (u1 >= u0) return u1;
  const double weight = std::expm1(offset) / std::expm1(loss_step);
  const double value = u0 - (u0 - u1) * lowered_by(weight, roundings(8.0));
  return std::min(1.0, raised_by(value, roundings(4.0)));
}

double AdaptiveCurves::delta_upper(double epsilon) const {
  if (blocks.composed) {
    if (std::isnan(epsilon)) return 1.0;
    double value = blocks.composed->delta_for_epsilon(epsilon);
    for (const auto& tilted : blocks.tilted) value = std::min(value, tilted->delta_for_epsilon(epsilon));
    return value;
  }
  return grid_delta_upper(epsilon - loss_shift.upper);
}

double AdaptiveCurves::delta_lower(double epsilon) const {
  if (lower.empty() || std::isnan(epsilon)) return 0.0;
  // The true delta at a = e1 h - shift is at least lower[e1], where e1 is the first grid point with a >= eps.
  const double on_grid = epsilon + loss_shift.lower;
  const int64_t last = first_index + static_cast<int64_t>(lower.size()) - 1;
  int64_t e1 = grid_floor(on_grid, loss_step);
  if (static_cast<double>(e1) * loss_step < on_grid) ++e1;
  if (e1 < first_index) return lower.front();
  if (e1 > last) return beyond.lower;
  const double l1 = lower[static_cast<size_t>(e1 - first_index)];
  const double a = static_cast<double>(e1) * loss_step - loss_shift.lower;
  if (!(a > epsilon)) return l1;
  // Convexity in e^eps beyond eps: delta(eps) >= delta(a) + (u_a - u) (delta(a) - delta(b)) / (u_b - u_a), b = a + h,
  // with delta(a) - delta(b) >= l1 - (upper bound at b).
  const double gap = std::max(0.0, l1 - delta_upper(a + loss_step));
  const double z = -std::expm1(epsilon - a) / std::expm1(loss_step);  // (u_a - u) / (u_b - u_a)
  double value = lowered_by(l1 + lowered_by(z, roundings(8.0)) * gap, roundings(8.0));
  // The other side: the slope of delta in u just above a0 = a - h is at most (delta(a0 - h) - delta(a0)) / (u_{a0} -
  // u_{a0-h}) in size (convexity), bounded by (upper at a0 - h minus lower at a0); so delta(eps) >= lower(a0) - (u -
  // u_{a0}) times that, with (u - u_{a0}) / (u_{a0} - u_{a0-h}) = expm1(eps - a0) / -expm1(-h). Tight when the
  // bracket is narrow, where the first bound is not (it needs a positive gap between lower and upper values).
  if (e1 - 1 >= first_index) {
    const double l0 = lower[static_cast<size_t>(e1 - 1 - first_index)];
    const double a0 = a - loss_step;
    const double steepest = std::max(0.0, delta_upper(a0 - loss_step) - l0);
    const double w = std::expm1(epsilon - a0) / -std::expm1(-loss_step);
    value = std::max(value,
                     lowered_by(l0 - raised_by(w, roundings(8.0)) * steepest * (1.0 + roundings(8.0)), roundings(8.0)));
  }
  return value;
}

double AdaptiveCurves::epsilon_upper(double delta) const {
  if (blocks.composed) {
    double value = blocks.composed->epsilon_for_delta(delta);
    for (const auto& tilted : blocks.tilted) value = std::min(value, tilted->epsilon_for_delta(delta));
    return value;
  }
  if (upper.empty()) return std::numeric_limits<double>::infinity();
  size_t j = 0;
  while (j < upper.size() && upper[j] > delta) ++j;
  double high, low;
  if (j == upper.size()) {
    if (beyond.upper > delta) return std::numeric_limits<double>::infinity();
    high = std::nextafter(static_cast<double>(first_index + static_cast<int64_t>(j) - 1) * loss_step,
                          std::numeric_limits<double>::infinity()) +
           loss_shift.upper;
    return delta_upper(high) <= delta ? high : std::numeric_limits<double>::infinity();
  }
  high = static_cast<double>(first_index + static_cast<int64_t>(j)) * loss_step + loss_shift.upper;
  if (j == 0) return high;
  low = high - loss_step;
  // delta_upper(high) <= delta < delta_upper(low): bisect, keeping high valid.
  return bisect(
             {low, high}, [&](double middle) { return !(delta_upper(middle) <= delta); },
             [](double lo, double hi) { return hi - lo > 1e-15 * std::max(1.0, std::abs(hi)); }, 60)
      .high;
}

double AdaptiveCurves::epsilon_lower(double delta) const {
  if (lower.empty()) return -std::numeric_limits<double>::infinity();
  if (beyond.lower > delta) return std::numeric_limits<double>::infinity();
  size_t j = lower.size();
  while (j > 0 && lower[j - 1] <= delta) --j;
  if (j == 0) return -std::numeric_limits<double>::infinity();
  // delta_lower(low) >= lower[j - 1] > delta; the supremum lies below low + h.
  double low = static_cast<double>(first_index + static_cast<int64_t>(j) - 1) * loss_step - loss_shift.lower;
  double high = low + loss_step;
  if (delta_lower(low) <= delta) return -std::numeric_limits<double>::infinity();
  return bisect(
             {low, high}, [&](double middle) { return delta_lower(middle) > delta; },
             [](double lo, double hi) { return hi - lo > 1e-15 * std::max(1.0, std::abs(lo)); }, 60)
      .low;
}

std::string AdaptiveCurves::describe() const {
  if (!description.empty()) return description;
  if (blocks.composed)
    return fmt::format(
        "exact adaptive programme in blocks: the whole adaptive profile of a block of {} release{} (loss "
        "step {:g}, window up to {} points, up to {} candidate pair{} per release), its convex hull as a "
        "dominating pair, composed {} time{}{} (upper bound only)",
        blocks.size, blocks.size == 1 ? "" : "s", loss_step, extent.largest_window, extent.candidates_upper,
        extent.candidates_upper == 1 ? "" : "s", blocks.count, blocks.count == 1 ? "" : "s",
        blocks.remainder > 0 ? fmt::format(" with a block of {}", blocks.remainder) : "");
  return fmt::format(
      "exact adaptive programme on the accumulated loss ({} release{}, up to {} candidate pair{} per "
      "release, loss step {:g}, window up to {} points)",
      compositions, compositions == 1 ? "" : "s", extent.candidates_upper, extent.candidates_upper == 1 ? "" : "s",
      loss_step, extent.largest_window);
}

}  // namespace noiselearn
