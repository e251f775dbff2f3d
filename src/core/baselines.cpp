#include "core/baselines.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "core/directed_rounding.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"

namespace noiselearn {

namespace {

const double kLogSqrtTwoPi = 0.5 * std::log(2.0 * M_PI);

// ---- Validation ----

void require_finite_positive(const std::string& family, const char* name, double value) {
  if (!(std::isfinite(value) && value > 0.0))
    throw InputError(fmt::format("baseline {}: {} must be finite and positive (got {})", family, name, value));
}

// A truncation range must be a positive whole number of grid steps, so that the table's support ends on a
// grid point on both sides (and a shift by the sensitivity maps the support onto grid points).
void require_range(const std::string& family, const Grid& grid, double range) {
  if (!(std::isfinite(range) && range > 0.0))
    throw InputError(fmt::format("baseline {}: range must be finite and positive (got {})", family, range));
  whole_steps(range, grid.step, fmt::format("baseline {}: range {:g}", family, range));
}

// ---- Grid geometry ----

// Every family here is symmetric around 0; on a symmetric grid one half is computed and mirrored, so that
// p_i == p_{n-1-i} exactly and the table is recognised as SupportKind::kSymmetric.
bool mirrored_layout(const Grid& grid) { return grid.is_symmetric(); }

// The point whose cell or mass is computed. On a mirrored grid the exact coordinate (i - (n-1)/2) h is used:
// the centre is exactly 0 and |x| is the same on both sides (origin + i h may differ from it by rounding).
double cell_centre(const Grid& grid, int64_t i, bool mirrored) {
  if (!mirrored) return grid.x(i);
  return (static_cast<double>(i) - 0.5 * static_cast<double>(grid.size - 1)) * grid.step;
}

// log_weight(x) for every grid point, computed for one half and mirrored where the layout allows it.
std::vector<double> log_weights_on_grid(const Grid& grid, bool mirrored,
                                        const std::function<double(double)>& log_weight) {
  const int64_t n = grid.size;
  std::vector<double> log_weights(static_cast<size_t>(n));
  const int64_t first = mirrored ? n / 2 : 0;
  for (int64_t i = first; i < n; ++i) {
    log_weights[static_cast<size_t>(i)] = log_weight(cell_centre(grid, i, mirrored));
    if (mirrored) log_weights[static_cast<size_t>(n - 1 - i)] = log_weights[static_cast<size_t>(i)];
  }
  return log_weights;
}

// Grid points kept by a symmetric truncation to [-range, range]; 1e-9 * step absorbs the rounding of x_i.
std::vector<bool> kept_within(const Grid& grid, bool mirrored, std::optional<double> range) {
  std::vector<bool> kept(static_cast<size_t>(grid.size), true);
  if (!range) return kept;
  const double limit = *range + kGridRelativeTolerance * grid.step;
  for (int64_t i = 0; i < grid.size; ++i)
    kept[static_cast<size_t>(i)] = std::abs(cell_centre(grid, i, mirrored)) <= limit;
  return kept;
}

// Normalises log weights to probabilities: p_i = exp(L_i - log Z). log Z is a log-sum-exp whose sum is
// compensated, because tables have up to millions of entries and must sum to 1 within 1e-12.
std::vector<double> normalise_log_weights(const std::vector<double>& log_weights, const std::vector<bool>& kept,
                                          const std::string& family) {
  double top = kNegativeInfinity;
  for (size_t i = 0; i < log_weights.size(); ++i)
    if (kept[i]) top = std::max(top, log_weights[i]);
  if (top == kNegativeInfinity)
    throw InputError(fmt::format("baseline {}: no grid point carries mass (is the range inside the grid?)", family));
  std::vector<double> scaled(log_weights.size(), 0.0);
  for (size_t i = 0; i < log_weights.size(); ++i)
    if (kept[i]) scaled[i] = std::exp(log_weights[i] - top);
  const double log_normaliser = top + std::log(compensated_sum(scaled));
  std::vector<double> probabilities(log_weights.size(), 0.0);
  for (size_t i = 0; i < log_weights.size(); ++i)
    if (kept[i]) probabilities[i] = std::exp(log_weights[i] - log_normaliser);
  return probabilities;
}

// A symmetric continuous law, described by its log cell masses and its log survival function
// log Pr[X >= x] (the lower tail is log Pr[X < x] = log_survival(-x) by symmetry).
struct SymmetricContinuousLaw {
  std::function<double(double centre, double width)> log_cell_mass;
  std::function<double(double x)> log_survival;
};

// Bin masses of a continuous law over the cells [x_i - h/2, x_i + h/2), optionally truncated to
// [-range, range], normalised over the kept cells. Records the law's mass outside the kept cells.
NoiseTable continuous_table(const Grid& grid, const std::string& family, const SymmetricContinuousLaw& law,
                            std::optional<double> range, std::map<std::string, double> parameters) {
  const bool mirrored = mirrored_layout(grid);
  const double width = grid.step;
  const std::vector<double> log_masses =
      log_weights_on_grid(grid, mirrored, [&](double centre) { return law.log_cell_mass(centre, width); });
  const std::vector<bool> kept = kept_within(grid, mirrored, range);
  std::vector<double> probabilities = normalise_log_weights(log_masses, kept, family);

  // The kept cells are contiguous; the law's mass below the first and above the last was dropped.
  const auto first = std::find(kept.begin(), kept.end(), true) - kept.begin();
  const auto last =
      static_cast<int64_t>(kept.size()) - 1 - (std::find(kept.rbegin(), kept.rend(), true) - kept.rbegin());
  const double lower_edge = cell_centre(grid, first, mirrored) - 0.5 * width;
  const double upper_edge = cell_centre(grid, last, mirrored) + 0.5 * width;
  parameters["dropped_tail_mass"] = std::exp(law.log_survival(-lower_edge)) + std::exp(law.log_survival(upper_edge));

  TableProvenance provenance{"baseline " + family, std::move(parameters),
                             "bin masses of the cells [x - h/2, x + h/2), renormalised over the kept cells"};
  return NoiseTable(grid, std::move(probabilities), std::nullopt, std::move(provenance));
}

// A probability mass function on the grid points, p(x_i) proportional to exp(log_weight(x_i)).
NoiseTable discrete_table(const Grid& grid, const std::string& family, const std::function<double(double)>& log_weight,
                          std::optional<double> range, std::map<std::string, double> parameters) {
  const bool mirrored = mirrored_layout(grid);
  const std::vector<double> log_weights = log_weights_on_grid(grid, mirrored, log_weight);
  std::vector<double> probabilities = normalise_log_weights(log_weights, kept_within(grid, mirrored, range), family);
  TableProvenance provenance{"baseline " + family, std::move(parameters),
                             "probability mass on the grid points, normalised over the grid"};
  return NoiseTable(grid, std::move(probabilities), std::nullopt, std::move(provenance));
}

// ---- Laws ----

double laplace_log_survival(double x, double scale) {
  // Pr[X >= x] = e^{-x/scale} / 2 for x >= 0, and 1 - e^{x/scale} / 2 below 0 (never a difference near 1).
  return x >= 0.0 ? -M_LN2 - x / scale : std::log1p(-0.5 * std::exp(x / scale));
}

SymmetricContinuousLaw gaussian_law(double sigma) {
  return {[sigma](double centre, double width) { return log_gaussian_cell_mass(centre, width, sigma); },
          [sigma](double x) { return log_normal_cdf(-x / sigma); }};
}

SymmetricContinuousLaw laplace_law(double scale) {
  return {[scale](double centre, double width) { return log_laplace_cell_mass(centre, width, scale); },
          [scale](double x) { return laplace_log_survival(x, scale); }};
}

SymmetricContinuousLaw staircase_law(const StaircaseLaw& staircase) {
  return {[staircase](double centre, double width) { return staircase.log_cell_mass(centre, width); },
          [staircase](double x) { return staircase.log_survival(x); }};
}

// The staircase density's breakpoints t_j = (j + gamma) D > 0 lying in the open interval (lower, upper), times
// `sign`, appended to `out`. Returns false once `out` holds more than `limit` points.
bool append_staircase_breakpoints(const StaircaseLaw& law, double lower, double upper, double sign,
                                  std::vector<double>& out, size_t limit) {
  const double period = law.sensitivity;
  if (upper <= 0.0) return true;
  // Beyond 2^52 periods j + 1 == j in float64 and the walk would not advance: leave such cells to the
  // survival-function path.
  if (lower / period > 4.0e15) return false;
  // One period of slack below floor(): a rounding error there may only cost an iteration, never a breakpoint.
  double j = std::max(0.0, std::floor(lower / period - law.gamma) - 1.0);
  for (;; j += 1.0) {
    const double t = (j + law.gamma) * period;
    if (t >= upper) return true;
    if (t > lower && t > 0.0) {
      out.push_back(sign * t);
      if (out.size() > limit) return false;
    }
  }
}

}  // namespace

// ---- Log cell masses ----

double log_gaussian_cell_mass(double centre, double width, double sigma) {
  const double c = centre / sigma, w = width / sigma;
  if (w * (1.0 + std::abs(c)) <= 0.5) {
    // Phi(c + s) - Phi(c - s) = 2 sum_{n odd} Phi^(n)(c) s^n / n! with Phi^(n) = He_{n-1} phi, so the mass is
    // w phi(c) sum_k u_2k / (2k + 1) with u_n = He_n(c) s^n / n!, s = w / 2; He_{n+1} = c He_n - n He_{n-1}
    // gives u_{n+1} = (c s u_n - s^2 u_{n-1}) / (n + 1). |He_n(c)| <= (|c| + sqrt n)^n bounds u_n by
    // (0.25 + 0.25 sqrt n)^n / n! here (c s <= 1/4, s <= 1/4): below 1e-19 from n = 24 on, so 32 terms suffice.
    const double s = 0.5 * w;
    double previous = 1.0, current = c * s, series = 1.0;
    for (int n = 1; n < 32; ++n) {
      const double next = (c * s * current - s * s * previous) / static_cast<double>(n + 1);
      previous = current;
      current = next;
      if ((n + 1) % 2 == 0) series += current / static_cast<double>(n + 2);
    }
    return -0.5 * c * c - kLogSqrtTwoPi + std::log(w) + std::log(series);
  }
  const double a = c - 0.5 * w, b = c + 0.5 * w;
  // A cell holding 0: Phi(b) - Phi(a) = (erf(b/sqrt2) + erf(-a/sqrt2)) / 2, a sum of two positive terms.
  if (a < 0.0 && b > 0.0) return std::log(0.5 * (std::erf(b / M_SQRT2) + std::erf(-a / M_SQRT2)));
  return log_normal_interval(a, b);
}

double log_laplace_cell_mass(double centre, double width, double scale) {
  const double lower = centre - 0.5 * width, upper = centre + 0.5 * width;
  // On one side of 0 the mass is e^{-|near edge|/scale} (1 - e^{-width/scale}) / 2: the factor depends on the
  // width only, so neighbouring cells have the ratio e^{-width/scale} up to rounding of the edges.
  if (lower >= 0.0) return -M_LN2 - lower / scale + log1mexp(width / scale);
  if (upper <= 0.0) return -M_LN2 + upper / scale + log1mexp(width / scale);
  return std::log(0.5 * (-std::expm1(lower / scale) - std::expm1(-upper / scale)));
}

void StaircaseLaw::validate() const {
  if (!(std::isfinite(epsilon) && epsilon > 0.0))
    throw InputError(fmt::format("baseline staircase: epsilon must be finite and positive (got {})", epsilon));
  if (!(std::isfinite(sensitivity) && sensitivity > 0.0))
    throw InputError(fmt::format("baseline staircase: sensitivity must be finite and positive (got {})", sensitivity));
  if (!(gamma >= 0.0 && gamma <= 1.0))
    throw InputError(fmt::format("baseline staircase: gamma must be in [0, 1] (got {})", gamma));
}

namespace {
// log a, a = (1 - b) / (2 D (gamma + (1 - gamma) b)), b = e^{-epsilon}: the density on |x| < gamma D. The
// denominator is summed in log space so that gamma = 0 with a large epsilon (b below the float64 range) works.
double staircase_log_peak(const StaircaseLaw& law) {
  const double log_denominator = log_add_exp(std::log(law.gamma), std::log1p(-law.gamma) - law.epsilon);
  return log1mexp(law.epsilon) - M_LN2 - std::log(law.sensitivity) - log_denominator;
}
}  // namespace

double StaircaseLaw::log_density(double x) const {
  const double distance = std::abs(x), inner = gamma * sensitivity;
  // The density is constant on |x| < gamma D (j = 0) and on each [(j - 1 + gamma) D, (j + gamma) D), j >= 1.
  const double j = distance < inner ? 0.0 : std::floor((distance - inner) / sensitivity) + 1.0;
  return staircase_log_peak(*this) - j * epsilon;
}

double StaircaseLaw::log_survival(double x) const {
  if (x < 0.0) return std::log1p(-std::exp(log_survival(-x)));
  // x = k D + t: Pr[X >= x] = b^{k+1}/2 (periods k+1, k+2, ... each hold (1-b) b^j / 2 on this side) plus the rest
  // of period k, a b^k (gamma D - t)_+ + a b^{k+1} (D - max(t, gamma D)). Every term is positive.
  const double period = sensitivity;
  const double k = std::floor(x / period);
  const double t = std::clamp(x - k * period, 0.0, period);
  const double log_peak = staircase_log_peak(*this), inner = gamma * period;
  std::vector<double> log_terms = {-M_LN2 - epsilon};
  if (t < inner) log_terms.push_back(log_peak + std::log(inner - t));
  if (std::max(t, inner) < period) log_terms.push_back(log_peak - epsilon + std::log(period - std::max(t, inner)));
  const double log_rest = log_sum_exp(log_terms);
  return -k * epsilon + log_rest;
}

double StaircaseLaw::log_cell_mass(double centre, double width) const {
  const double lower = centre - 0.5 * width, upper = centre + 0.5 * width;
  // A breakpoint within the rounding error of a cell edge is on the edge: counting it would add a sliver of the
  // neighbouring density and break the exact equality of cells inside one constant piece.
  const double slack = roundings(8.0) * std::max(std::abs(lower), std::abs(upper));
  constexpr size_t kMaxBreakpoints = 16;
  std::vector<double> breakpoints;
  const bool few =
      append_staircase_breakpoints(*this, lower + slack, upper - slack, 1.0, breakpoints, kMaxBreakpoints) &&
      append_staircase_breakpoints(*this, -upper + slack, -lower - slack, -1.0, breakpoints, kMaxBreakpoints);
  if (breakpoints.empty()) return log_density(centre) + std::log(width);
  if (few) {
    // Density times overlap length for each constant piece (the exact CDF difference, without cancellation).
    std::sort(breakpoints.begin(), breakpoints.end());
    std::vector<double> log_pieces;
    double start = lower;
    breakpoints.push_back(upper);
    for (double end : breakpoints) {
      log_pieces.push_back(log_density(0.5 * (start + end)) + std::log(end - start));
      start = end;
    }
    return log_sum_exp(log_pieces);
  }
  // A cell spanning many periods: the difference of survival values, each exact.
  if (lower >= 0.0) return log_diff_exp(log_survival(lower), log_survival(upper));
  if (upper <= 0.0) return log_diff_exp(log_survival(-upper), log_survival(-lower));
  return std::log1p(-(std::exp(log_survival(-lower)) + std::exp(log_survival(upper))));
}

// ---- Tables ----

NoiseTable gaussian_table(const Grid& grid, double sigma) {
  grid.validate();
  require_finite_positive("gaussian", "sigma", sigma);
  return continuous_table(grid, "gaussian", gaussian_law(sigma), std::nullopt, {{"sigma", sigma}});
}

NoiseTable laplace_table(const Grid& grid, double scale) {
  grid.validate();
  require_finite_positive("laplace", "scale", scale);
  return continuous_table(grid, "laplace", laplace_law(scale), std::nullopt, {{"scale", scale}});
}

NoiseTable truncated_gaussian_table(const Grid& grid, double sigma, double range) {
  grid.validate();
  require_finite_positive("truncated-gaussian", "sigma", sigma);
  require_range("truncated-gaussian", grid, range);
  return continuous_table(grid, "truncated-gaussian", gaussian_law(sigma), range, {{"sigma", sigma}, {"range", range}});
}

NoiseTable truncated_laplace_table(const Grid& grid, double scale, double range) {
  grid.validate();
  require_finite_positive("truncated-laplace", "scale", scale);
  require_range("truncated-laplace", grid, range);
  return continuous_table(grid, "truncated-laplace", laplace_law(scale), range, {{"scale", scale}, {"range", range}});
}

NoiseTable staircase_table(const Grid& grid, double epsilon, double sensitivity, double gamma, double range) {
  grid.validate();
  const StaircaseLaw law{epsilon, sensitivity, gamma};
  law.validate();
  // src/README.md, numerical rules: the sensitivity is a whole number (>= 1) of grid steps. Then a cell of width h
  // meets at most two breakpoints, and cell masses one period apart have the exact ratio e^{-epsilon}.
  if (whole_steps(sensitivity, grid.step, fmt::format("baseline staircase: sensitivity {:g}", sensitivity)) < 1)
    throw InputError(
        fmt::format("baseline staircase: sensitivity {:g} is less than one grid step ({:g})", sensitivity, grid.step));
  require_range("staircase", grid, range);
  return continuous_table(grid, "staircase", staircase_law(law), range,
                          {{"epsilon", epsilon}, {"sensitivity", sensitivity}, {"gamma", gamma}, {"range", range}});
}

double staircase_optimal_gamma_l1(double epsilon) {
  if (!(std::isfinite(epsilon) && epsilon > 0.0))
    throw InputError(fmt::format("baseline staircase: epsilon must be finite and positive (got {})", epsilon));
  return 1.0 / (1.0 + std::exp(0.5 * epsilon));
}

NoiseTable discrete_gaussian_table(const Grid& grid, double sigma) {
  grid.validate();
  require_finite_positive("discrete-gaussian", "sigma", sigma);
  const double inverse_variance = 1.0 / (sigma * sigma);
  return discrete_table(grid, "discrete-gaussian",
                        [inverse_variance](double x) { return -0.5 * x * x * inverse_variance; }, std::nullopt,
                        {{"sigma", sigma}});
}

NoiseTable discrete_laplace_table(const Grid& grid, double scale) {
  grid.validate();
  require_finite_positive("discrete-laplace", "scale", scale);
  return discrete_table(grid, "discrete-laplace", [scale](double x) { return -std::abs(x) / scale; }, std::nullopt,
                        {{"scale", scale}});
}

NoiseTable uniform_table(const Grid& grid, double range) {
  grid.validate();
  require_range("uniform", grid, range);
  return discrete_table(grid, "uniform", [](double) { return 0.0; }, range, {{"range", range}});
}

}  // namespace noiselearn
