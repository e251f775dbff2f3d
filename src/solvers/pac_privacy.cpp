#include "solvers/pac_privacy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/errors.hpp"
#include "core/log_math.hpp"
#include "core/monotone_search.hpp"

namespace noiselearn {

namespace {

constexpr double kHalfLogTwoPiE = 1.4189385332046727;  // 1/2 ln(2 pi e)
constexpr double kHalfLogTwoPi = 0.9189385332046727;   // 1/2 ln(2 pi)

void require_inputs(double output_variance, double range, double budget) {
  if (!(output_variance >= 0.0) || !std::isfinite(output_variance))
    throw InputError(fmt::format("output variance sigma_Y^2 = {} must be finite and >= 0", output_variance));
  if (!(range > 0.0) || !std::isfinite(range))
    throw InputError(fmt::format("range R = {} must be finite and positive", range));
  if (!(budget > 0.0) || !std::isfinite(budget))
    throw InputError(fmt::format("second-moment budget B = {} must be finite and positive", budget));
}

}  // namespace

TruncatedGaussianMoments truncated_gaussian_moments(double mu, double sigma, double range) {
  const double a = -mu / sigma, b = (range - mu) / sigma;
  TruncatedGaussianMoments m;
  m.log_mass = log_normal_interval(a, b);
  // phi(x) / Z in log space: for mu far below 0 both phi(a) and Z underflow while their ratio is moderate.
  const double ratio_a = std::exp(-0.5 * a * a - kHalfLogTwoPi - m.log_mass);
  const double ratio_b = std::exp(-0.5 * b * b - kHalfLogTwoPi - m.log_mass);
  // b phi(b) / Z is 0 when phi(b) underflows, whatever b is (avoid inf * 0).
  const double a_term = ratio_a == 0.0 ? 0.0 : a * ratio_a, b_term = ratio_b == 0.0 ? 0.0 : b * ratio_b;
  const double shift = ratio_a - ratio_b;
  m.mean = mu + sigma * shift;
  m.variance = sigma * sigma * (1.0 + a_term - b_term - shift * shift);
  m.second_moment = m.variance + m.mean * m.mean;
  m.entropy = kHalfLogTwoPiE + std::log(sigma) + m.log_mass + 0.5 * (a_term - b_term);
  return m;
}

double pac_mutual_information_bound(double mu, double sigma, double range, double output_variance) {
  const TruncatedGaussianMoments m = truncated_gaussian_moments(mu, sigma, range);
  return kHalfLogTwoPiE + 0.5 * std::log(output_variance + m.variance) - m.entropy;
}

double pac_best_mu(double sigma, double range, double budget, const PacPrivacyOptions& options) {
  const auto second_moment = [&](double mu) { return truncated_gaussian_moments(mu, sigma, range).second_moment; };
  double high = 0.5 * range;
  if (second_moment(high) <= budget) return high;  // observation a): unconstrained, the objective is least at R/2
  // Observation b): E[e^2] grows with mu (d/dmu E[e^2] = Cov(e^2, e) / sigma^2 > 0 for e >= 0), and tends to 0 as
  // mu -> -inf (the density piles up at 0). Find a feasible low end, then bisect keeping it.
  double low = 0.0;
  for (double step = sigma; second_moment(low) > budget; step *= 2.0) {
    high = low;
    low = -step;
    if (!std::isfinite(low))
      throw InputError(fmt::format("no mean meets the budget B = {} at sigma = {}", budget, sigma));
  }
  return bisect(
             {low, high}, [&](double middle) { return second_moment(middle) <= budget; },
             [&](double lo, double hi) { return hi - lo > options.mu_tolerance * range; })
      .low;
}

namespace {

// Where the budget does not bind (mu = R/2) the objective is flat near its minimum when R is small against sigma_Y
// (the noise is then almost uniform whatever sigma), so the golden section pins sigma only to about 1e-6 relative.
// The optimality condition there is one equation, sigma^2 = sigma_Y^2 + Var e (the multiplier is 0): solve it by
// bisection for the digits the conditions report. Kept only if the budget still holds at the polished sigma.
double polish_unconstrained_sigma(double sigma, double output_variance, double range, double budget) {
  const auto excess = [&](double x) {
    return x * x - output_variance - truncated_gaussian_moments(0.5 * range, x, range).variance;
  };
  double low = sigma, high = sigma;
  for (int k = 0; k < 60 && excess(low) > 0.0; ++k) low *= 0.9;
  for (int k = 0; k < 60 && excess(high) < 0.0; ++k) high *= 1.1;
  if (!(excess(low) <= 0.0 && excess(high) >= 0.0)) return sigma;
  const Bracket root = bisect(
      {low, high}, [&](double middle) { return excess(middle) < 0.0; },
      [](double lo, double hi) { return hi - lo > 1e-15 * hi; }, 200);
  const double polished = 0.5 * (root.low + root.high);
  if (truncated_gaussian_moments(0.5 * range, polished, range).second_moment > budget) return sigma;
  const double before = pac_mutual_information_bound(0.5 * range, sigma, range, output_variance);
  return pac_mutual_information_bound(0.5 * range, polished, range, output_variance) <= before + 1e-14 ? polished
                                                                                                       : sigma;
}

}  // namespace

PacPrivacySummary solve_pac_privacy(double output_variance, double range, double budget,
                                    const PacPrivacyOptions& options) {
  require_inputs(output_variance, range, budget);
  PacPrivacySummary s;
  s.output_variance = output_variance;
  s.range = range;
  s.budget = budget;
  const auto objective = [&](double log_sigma) {
    ++s.objective_evaluations;
    const double sigma = std::exp(log_sigma);
    return pac_mutual_information_bound(pac_best_mu(sigma, range, budget, options), sigma, range, output_variance);
  };
  // The bracket of sigma from the optimality conditions, not from B: sigma^2 = 1 / (1/V + 2 lambda) <= V =
  // sigma_Y^2 + Var e, and Var e <= min(B, R^2/4) on [0, R]. (Alg. 3's sigma <= sqrt(B) cuts off the optimum whenever
  // sigma_Y^2 is large against B.) A factor 2 of margin above, six decades below (the objective -> inf as sigma -> 0).
  s.sigma_bracket_high = 2.0 * std::sqrt(output_variance + std::min(budget, 0.25 * range * range));
  s.sigma_bracket_low = s.sigma_bracket_high * 1e-6;
  const double log_low = std::log(s.sigma_bracket_low), log_high = std::log(s.sigma_bracket_high);
  // Coarse scan, then golden section around the best scanned point: robust to a flat start of the curve, and exact
  // to the tolerance where Alg. 3's observation (first decreasing, then increasing) holds.
  const int64_t points = std::max<int64_t>(options.sigma_scan_points, 3);
  std::vector<double> grid(static_cast<size_t>(points)), values(static_cast<size_t>(points));
  for (int64_t k = 0; k < points; ++k) {
    grid[static_cast<size_t>(k)] =
        log_low + (log_high - log_low) * static_cast<double>(k) / static_cast<double>(points - 1);
    values[static_cast<size_t>(k)] = objective(grid[static_cast<size_t>(k)]);
  }
  const auto best = static_cast<int64_t>(std::min_element(values.begin(), values.end()) - values.begin());
  double left = grid[static_cast<size_t>(std::max<int64_t>(best - 1, 0))];
  double right = grid[static_cast<size_t>(std::min<int64_t>(best + 1, points - 1))];
  const double golden = 0.5 * (std::sqrt(5.0) - 1.0);
  double x1 = right - golden * (right - left), x2 = left + golden * (right - left);
  double f1 = objective(x1), f2 = objective(x2);
  while (right - left > options.sigma_tolerance) {
    if (f1 <= f2) {
      right = x2;
      x2 = x1;
      f2 = f1;
      x1 = right - golden * (right - left);
      f1 = objective(x1);
    } else {
      left = x1;
      x1 = x2;
      f1 = f2;
      x2 = left + golden * (right - left);
      f2 = objective(x2);
    }
  }
  double log_sigma = f1 <= f2 ? x1 : x2;
  if (values[static_cast<size_t>(best)] < std::min(f1, f2)) log_sigma = grid[static_cast<size_t>(best)];
  s.sigma = std::exp(log_sigma);
  s.mu = pac_best_mu(s.sigma, range, budget, options);
  if (s.mu == 0.5 * range) s.sigma = polish_unconstrained_sigma(s.sigma, output_variance, range, budget);
  s.moments = truncated_gaussian_moments(s.mu, s.sigma, range);
  s.mutual_information = kHalfLogTwoPiE + 0.5 * std::log(output_variance + s.moments.variance) - s.moments.entropy;
  s.budget_binding = s.mu < 0.5 * range;
  const double total_variance = output_variance + s.moments.variance;
  s.multiplier = 0.5 / (s.sigma * s.sigma) - 0.5 / total_variance;
  s.stationarity_residual = s.sigma * (s.mu / (s.sigma * s.sigma) - s.moments.mean / total_variance);
  s.feasibility_slack = budget - s.moments.second_moment;
  s.complementary_slackness = s.multiplier * s.feasibility_slack;
  s.gaussian_reference = 0.5 * std::log1p(output_variance / budget);
  return s;
}

std::string PacPrivacySummary::report() const {
  const double bits = 1.0 / std::log(2.0);
  std::string out = fmt::format(
      "PAC-privacy optimal one-sided noise (Xiao et al. Thm 5, Alg. 3, eq. 31 corrected): sigma_Y^2 = {}, range [0, "
      "{}], "
      "E[e^2] <= {}\n",
      output_variance, range, budget);
  out += fmt::format("  truncated Gaussian mu = {:.8g}, sigma = {:.8g} ({})\n", mu, sigma,
                     budget_binding ? "the budget binds: E[e^2] = B" : "mu = R/2: the budget does not bind");
  out += fmt::format("  E[e] = {:.8g}, Var e = {:.8g}, E[e^2] = {:.8g}, h(e) = {:.8g} nats\n", moments.mean,
                     moments.variance, moments.second_moment, moments.entropy);
  out += fmt::format(
      "  mutual information bound {:.8g} nats = {:.8g} bits (zero-mean unbounded Gaussian with E[e^2] = B: {:.8g} "
      "nats)\n",
      mutual_information, mutual_information * bits, gaussian_reference);
  out += fmt::format(
      "  optimality: multiplier lambda = {:.3g} (>= 0), stationarity residual {:.3g}, feasibility slack B - E[e^2] = "
      "{:.3g}, lambda (B - E[e^2]) = {:.3g}; sigma searched in [{:.4g}, {:.4g}], {} evaluations\n",
      multiplier, stationarity_residual, feasibility_slack, complementary_slackness, sigma_bracket_low,
      sigma_bracket_high, objective_evaluations);
  return out;
}

}  // namespace noiselearn
