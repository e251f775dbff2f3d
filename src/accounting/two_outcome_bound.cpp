#include "accounting/two_outcome_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/directed_rounding.hpp"
#include "core/monotone_search.hpp"

namespace noiselearn {

namespace {

// ln(m^k) with 0^0 = 1.
double log_power(double log_mass, double k) { return k == 0.0 ? 0.0 : k * log_mass; }

// |x| where x is finite; an infinite logarithm (a zero mass) is exact and needs no padding.
double finite_abs(double x) { return std::isfinite(x) ? std::abs(x) : 0.0; }

}  // namespace

double TwoOutcomeComposition::delta_lower(double epsilon) const {
  const int64_t n = compositions;
  if (n < 1 || !(log_first_high > -INFINITY) || !(epsilon >= 0.0)) return 0.0;
  const double nd = static_cast<double>(n);
  const double log_fh = log_first_high, log_fl = log_first_low, log_sh = log_second_high, log_sl = log_second_low;
  const double first_high = std::exp(log_fh);
  // Each side's logarithm is padded by its error: the masses' relative error (n factors), ln's, the products' and the
  // sums' rounding. The first side is made smaller and the second larger, so each kept term is at most the exact one.
  const double mass_error = 2.0 * relative_error + roundings(16.0);
  auto padding = [&](double k, double magnitude) {
    return nd * mass_error + roundings(16.0) * (magnitude + 4.0 * k + 1.0);
  };
  // The terms of the binomial, from its mode under the first distribution outwards until they fall below 1e-300.
  const double mode = std::floor((nd + 1.0) * first_high);
  const double start = std::clamp(mode, 0.0, nd);
  // ln C(n, k) is shared by both sides: its error scales a term, and is paid by a factor e^-(its bound). It comes from
  // lgamma at the start and from the recurrence's |k - start| steps, each rounding a sum of at most |ln C| + ln(n + 1).
  auto term = [&](double k, double log_choose) {
    const double log_first = log_choose + log_power(log_fh, k) + log_power(log_fl, nd - k);
    const double log_second = log_choose + log_power(log_sh, k) + log_power(log_sl, nd - k);
    const double pad =
        padding(k, finite_abs(log_choose) + finite_abs(log_power(log_fh, k)) + finite_abs(log_power(log_fl, nd - k)) +
                       finite_abs(log_power(log_sh, k)) + finite_abs(log_power(log_sl, nd - k)));
    const double low_first = log_first - pad, high_second = log_second + pad + epsilon;
    const double choose_error =
        roundings(8.0) * (std::abs(k - start) + 1.0) * (finite_abs(log_choose) + std::log(nd + 1.0) + 1.0);
    const double value =
        low_first > high_second ? std::exp(low_first - choose_error) * -std::expm1(high_second - low_first) : 0.0;
    return std::pair{value, log_first};
  };
  const double lgamma_n = std::lgamma(nd + 1.0), lgamma_k = std::lgamma(start + 1.0),
               lgamma_rest = std::lgamma(nd - start + 1.0);
  const double log_choose_start = lgamma_n - lgamma_k - lgamma_rest;
  long double sum = 0.0L;
  constexpr double kNegligible = -690.0;  // e^-690 ~ 1e-300
  {
    double log_choose = log_choose_start;
    for (double k = start; k <= nd; ++k) {
      const auto [value, log_first] = term(k, log_choose);
      sum += value;
      if (log_first < kNegligible && k > start) break;
      log_choose += std::log((nd - k) / (k + 1.0));
    }
  }
  {
    double log_choose = log_choose_start;
    for (double k = start - 1.0; k >= 0.0; --k) {
      log_choose += std::log((k + 1.0) / (nd - k));  // C(n, k) = C(n, k + 1) (k + 1) / (n - k)
      const auto [value, log_first] = term(k, log_choose);
      sum += value;
      if (log_first < kNegligible) break;
    }
  }
  // The exponentials' and the sum's rounding, and the error of ln C(n, start) from lgamma (a few units of each of the
  // three values, which cancel in the difference).
  const double start_error = roundings(32.0) * (std::abs(lgamma_n) + std::abs(lgamma_k) + std::abs(lgamma_rest) + 1.0);
  return std::max(0.0, static_cast<double>(sum) * (1.0 - 1e-12) * std::exp(-start_error));
}

double TwoOutcomeComposition::epsilon_lower(double delta, double at_least) const {
  at_least = std::max(at_least, 0.0);
  if (!(delta_lower(at_least) > delta)) return at_least;  // delta_lower decreases in epsilon: nothing above at_least
  // The largest finite loss of the composition: beyond it only infinite-loss outcomes are left.
  double largest = 0.0;
  if (log_second_high > -INFINITY) largest = std::max(largest, log_first_high - log_second_high);
  if (log_second_low > -INFINITY && log_first_low > -INFINITY)
    largest = std::max(largest, log_first_low - log_second_low);
  double low = at_least, high = std::max(at_least, static_cast<double>(compositions) * largest) + 1.0;
  if (delta_lower(high) > delta) return std::numeric_limits<double>::infinity();
  return bisect(
             {low, high}, [&](double middle) { return delta_lower(middle) > delta; },
             [](double lo, double hi) { return hi - lo > 1e-13 * std::max(1.0, hi); }, 200)
      .low;  // delta_lower(low) > delta: the composition's epsilon at delta exceeds it
}

}  // namespace noiselearn
