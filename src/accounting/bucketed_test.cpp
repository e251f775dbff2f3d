#include "accounting/bucketed_test.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "accounting/exponential_tilt.hpp"
#include "accounting/fft_power.hpp"
#include "core/directed_rounding.hpp"
#include "core/monotone_search.hpp"

namespace noiselearn {

namespace {

// e^{-s h} is evaluated for thresholds with s h above this (below it the weight overflows; such thresholds are
// skipped).
constexpr double kLowestWeightExponent = -700.0;

// The labels at either end whose first masses add up to at most tail_mass, dropped from both sides: outcomes mapped to
// a label that never passes the test (a post-processing; see the header), which keeps the composition's window to the
// bulk. (Moving the second side's mass onto a kept label instead would lower its weight e^{-s h} where it counts.)
void drop_rare_labels(PrivacyLossDistribution& first, PrivacyLossDistribution& second, double tail_mass) {
  const auto size = static_cast<int64_t>(first.masses.size());
  int64_t low = 0, high = size - 1;
  for (double sum = 0.0; low < high && sum + first.masses[static_cast<size_t>(low)] <= tail_mass; ++low)
    sum += first.masses[static_cast<size_t>(low)];
  for (double sum = 0.0; high > low && sum + first.masses[static_cast<size_t>(high)] <= tail_mass; --high)
    sum += first.masses[static_cast<size_t>(high)];
  for (PrivacyLossDistribution* pld : {&first, &second}) {
    pld->masses = std::vector<double>(pld->masses.begin() + low, pld->masses.begin() + high + 1);
    pld->first_index += low;
  }
}

}  // namespace

std::optional<BucketedTest> single_release_bucketed_test(const std::vector<BucketCell>& cells, double h,
                                                         double relative_error, double infinity_mass,
                                                         int64_t max_labels) {
  // Any labelling is a post-processing: a wider bucket only loosens the test. Atoms far apart (a Laplace of scale
  // 1e-10 has losses +-1e10) would otherwise ask for more labels than memory holds.
  double lowest = INFINITY, highest = -INFINITY;
  for (const BucketCell& c : cells)
    if (c.first > 0.0 && std::isfinite(c.loss)) {
      lowest = std::min(lowest, c.loss);
      highest = std::max(highest, c.loss);
    }
  if (!(lowest <= highest)) return std::nullopt;
  while ((highest - lowest) / h + 2.0 > static_cast<double>(max_labels)) h *= 2.0;
  // The labels k = floor(loss / h) and the tilted second masses b e^{k h}, in log space (b may be tiny where k h is
  // large); a cell whose label or tilted mass is not finite is dropped (see the header).
  struct Labelled {
    int64_t k;
    double first, tilted;
  };
  std::vector<Labelled> labelled;
  labelled.reserve(cells.size());
  int64_t low = INT64_MAX, high = INT64_MIN;
  long double offset_sum = 0.0L, first_sum = 0.0L;
  // The exponent's size: ln b and k h carry an absolute rounding of u times their size, which e^x turns into a
  // relative error of the tilted mass.
  double exponent_size = 0.0;
  for (const BucketCell& c : cells) {
    if (!(c.first > 0.0) || !std::isfinite(c.loss)) continue;
    const double k = std::floor(c.loss / h);
    if (!(std::abs(k) < 1e15)) continue;
    const double log_second = c.second > 0.0 ? std::log(c.second) : 0.0;
    const double tilted = c.second > 0.0 ? std::exp(log_second + k * h) : 0.0;
    if (!std::isfinite(tilted)) continue;
    exponent_size = std::max(exponent_size, std::abs(log_second) + std::abs(k * h));
    labelled.push_back({static_cast<int64_t>(k), c.first, tilted});
    offset_sum += static_cast<long double>(c.first) * (c.loss - k * h);
    first_sum += c.first;
    low = std::min(low, labelled.back().k);
    high = std::max(high, labelled.back().k);
  }
  if (labelled.empty()) return std::nullopt;
  std::vector<long double> first(static_cast<size_t>(high - low + 1), 0.0L), second(first.size(), 0.0L);
  for (const Labelled& l : labelled) {
    first[static_cast<size_t>(l.k - low)] += l.first;
    second[static_cast<size_t>(l.k - low)] += l.tilted;
  }
  // The masses' own error, the exponential's (its argument's rounding included) and the sums' rounding (long double
  // sums of at most N terms).
  const double gamma =
      relative_error + roundings(static_cast<double>(labelled.size()) / 2048.0 + 16.0 + 4.0 * exponent_size);
  BucketedTest test;
  test.bucket_width = h;
  for (PrivacyLossDistribution* pld : {&test.first, &test.second_tilted}) {
    pld->loss_step = h;
    pld->first_index = low;
    pld->masses.resize(first.size());
  }
  test.first.bound = BoundKind::kLower;
  test.second_tilted.bound = BoundKind::kUpper;
  for (size_t i = 0; i < first.size(); ++i) {
    test.first.masses[i] = lowered_by(static_cast<double>(first[i]), gamma);
    test.second_tilted.masses[i] = raised_by(static_cast<double>(second[i]), gamma);
  }
  test.first.infinity_mass = lowered_by(infinity_mass, gamma);
  test.mean_offset = static_cast<double>(offset_sum / first_sum);
  return test;
}

std::optional<BucketedTest> composed_bucketed_test(const BucketedTest& test, int64_t n,
                                                   const AccountantOptions& options, double target_epsilon) {
  if (n == 1) {
    BucketedTest single = test;
    single.prepare_tails();
    return single;
  }
  PrivacyLossDistribution first = test.first, second = test.second_tilted;
  drop_rare_labels(first, second, options.tail_mass);
  // The second side's tilted masses sum to about e^{-mean offset} < 1, so their n-fold power to e^{-n mean offset},
  // which after 10^7 releases underflows and defeats the window: they are composed scaled to sum to 1 (divided by a
  // lower bound S of their sum, each quotient rounded up) and the n-fold power is scaled back by S^n at the test, in
  // the exponent with the weights (n ln S rounded up).
  long double sum = 0.0L;
  for (double m : second.masses) sum += m;
  const double scale = lowered_by(static_cast<double>(sum), roundings(static_cast<double>(second.masses.size()) + 4.0));
  if (!(scale > 0.0)) return std::nullopt;
  for (double& m : second.masses) m = raised_by(m / scale, roundings(2.0));
  const double log_scale = static_cast<double>(n) * std::log(scale);
  // Tilted for the test's thresholds (exponential_tilt.hpp): the transform's absolute error becomes relative to the
  // tails the test sums. Those lie where the releases' losses sum to eps, their labels' to eps less the n offsets of
  // the losses within their buckets (about n times their mean). The second side's tilted masses are of the first's
  // size, so the first's Chernoff tilt serves both.
  const double label_target = target_epsilon - static_cast<double>(n) * test.mean_offset;
  const double lambda = target_epsilon > 0.0 ? chernoff_tilt_for_epsilon(first, n, label_target) : 0.0;
  if (lambda > 0.0) {
    apply_tilt(first, lambda);
    apply_tilt(second, lambda);
  }
  std::optional<PrivacyLossDistribution> a = self_compose_by_fft_power(first, n, options);
  std::optional<PrivacyLossDistribution> b = self_compose_by_fft_power(second, n, options);
  // Coarsened to fit max_points, a side's indices are no longer labels' sums.
  if (!a || !b || a->loss_step != test.bucket_width || b->loss_step != test.bucket_width) return std::nullopt;
  BucketedTest out;
  out.bucket_width = test.bucket_width;
  out.first = std::move(*a);
  out.second_tilted = std::move(*b);
  out.compositions = test.compositions * n;
  out.tilted_for = lambda > 0.0 ? target_epsilon : 0.0;
  out.log_second_scale = log_scale + roundings(4.0) * std::abs(log_scale) + roundings(4.0);
  out.prepare_tails();
  return out;
}

void BucketedTest::prepare_tails() {
  const PrivacyLossDistribution &a = first, &b = second_tilted;
  first_tail.clear();
  second_tail.clear();
  if (a.masses.empty() || b.masses.empty()) return;
  const double h = bucket_width;
  // The thresholds: every label sum tau > b.first_index (see the header) with tau h >= kLowestWeightExponent, up to
  // one above both ranges. The largest sum's first-side tail starts with the infinite-loss outcomes; the second side's
  // with its infinite mass, labels above its last index weighed at most e^{-(last + 1) h}.
  tail_top = std::max(a.last_index(), b.last_index()) + 1;
  tail_bottom =
      std::max({b.first_index + 1, a.first_index, static_cast<int64_t>(std::ceil(kLowestWeightExponent / h))});
  if (tail_bottom > tail_top) return;
  const auto size = static_cast<size_t>(tail_top - tail_bottom + 1);
  first_tail.resize(size);
  second_tail.resize(size);
  long double tail_a = a.infinity_mass;
  long double tail_b =
      b.infinity_mass > 0.0
          ? b.infinity_mass * std::exp(log_second_scale - static_cast<long double>(b.last_index() + 1) * h)
          : 0.0L;
  for (int64_t tau = tail_top; tau >= tail_bottom; --tau) {
    const int64_t ia = tau - a.first_index, ib = tau - b.first_index;
    if (ia >= 0 && ia < static_cast<int64_t>(a.masses.size())) tail_a += a.masses[static_cast<size_t>(ia)];
    if (ib >= 0 && ib < static_cast<int64_t>(b.masses.size()))
      tail_b += static_cast<long double>(b.masses[static_cast<size_t>(ib)]) *
                std::exp(log_second_scale - static_cast<long double>(tau) * static_cast<long double>(h));
    first_tail[static_cast<size_t>(tau - tail_bottom)] = static_cast<double>(tail_a);
    second_tail[static_cast<size_t>(tau - tail_bottom)] = static_cast<double>(tail_b);
  }
}

double BucketedTest::delta_lower(double epsilon) const {
  const PrivacyLossDistribution &a = first, &b = second_tilted;
  // An infinite epsilon (a lower end already infinite: the distinguishing events exceed delta) has nothing to test,
  // and its thresholds would not fit an index.
  if (first_tail.empty() || !(epsilon >= 0.0) || !std::isfinite(epsilon) || a.loss_shift != 0.0 ||
      b.loss_shift != 0.0 || !(a.relative_error < 0.5 && b.relative_error < 0.5))
    return 0.0;
  const double h = bucket_width, e_eps = std::exp(epsilon);
  // The tails' rounding (long double sums: a unit roundoff 2^-64, 2048 times smaller than double's, over at most N
  // terms each with an exponential), their conversion to double and the divisions: the first side's errors paid
  // downwards and the second's upwards.
  const double terms = static_cast<double>(a.masses.size() + b.masses.size());
  const double gamma = roundings(2.0 * terms + 16.0) / 2048.0 + roundings(8.0);
  // The best threshold lies in [eps/h - n - 1, eps/h + 1]: a label sum s adds A(s) - e^eps B(s) to the test, positive
  // where every sequence summing to s has a loss above eps (s h > eps), negative where none has (s h + n h < eps). Any
  // threshold gives a rigorous bound; the range only saves time.
  const double centre = epsilon / h, n = static_cast<double>(compositions);
  // Clamped to the tails' range before the conversion (a large eps / h does not fit an index).
  const double lowest = std::max(static_cast<double>(tail_bottom), std::floor(centre - n) - 1.0);
  const double highest = std::min(static_cast<double>(tail_top), std::ceil(centre) + 1.0);
  if (!(lowest <= highest)) return 0.0;
  const auto from = static_cast<int64_t>(lowest), to = static_cast<int64_t>(highest);
  double best = 0.0;
  for (int64_t tau = from; tau <= to; ++tau) {
    const auto i = static_cast<size_t>(tau - tail_bottom);
    // The composed errors on the labels' sums from tau up, tilted where the sides are (privacy_loss_distribution.hpp:
    // an allowance at "eps" = tau h bounds the errors of the masses at tau and above, the infinity mass's included);
    // on the second side each weighed by at most e^{-tau h}.
    const double at = static_cast<double>(tau) * h, weight = std::exp(log_second_scale - at);
    const double a_low = (lowered_by(first_tail[i], gamma) - a.absolute_allowance(at)) / (1.0 + a.relative_error);
    const double b_high =
        (raised_by(second_tail[i], gamma) + weight * b.absolute_allowance(at)) / (1.0 - b.relative_error);
    const double value = a_low - raised_by(e_eps * b_high, roundings(4.0));
    if (value > best) best = value;
  }
  return std::clamp(lowered_by(best, roundings(4.0)), 0.0, 1.0);
}

double BucketedTest::epsilon_lower(double delta, double at_least) const {
  const double start = std::max(0.0, at_least);
  if (!std::isfinite(start) || !(delta_lower(start) > delta)) return at_least;
  double high = std::max(1.0, 2.0 * start);
  while (delta_lower(high) > delta) {
    if (high > 1e6) return high;
    high *= 2.0;
  }
  const Bracket b = bisect(
      {start, high}, [&](double e) { return delta_lower(e) > delta; },
      [](double low, double high) { return high - low > 1e-12 * std::max(1.0, high); }, 200);
  return b.low;
}

}  // namespace noiselearn
