#include "solvers/hybrid_renyi_optimum.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "accounting/vectorised_math.hpp"
#include "core/banded_matrix.hpp"
#include "core/errors.hpp"
#include "core/grid.hpp"
#include "core/monotone_search.hpp"
#include "solvers/hybrid_renyi_barrier.hpp"
#include "solvers/hybrid_renyi_program.hpp"

namespace noiselearn {

OneSidedCost parse_one_sided_cost(const std::string& text) {
  if (text == "second-moment") return OneSidedCost::kSecondMoment;
  if (text == "mean") return OneSidedCost::kMean;
  throw InputError(fmt::format("one-sided cost '{}' is not one of: second-moment, mean", text));
}

std::string to_string(OneSidedCost cost) { return cost == OneSidedCost::kMean ? "mean" : "second-moment"; }

void HybridRenyiOptimumOptions::validate() const {
  if (compositions < 1) throw InputError(fmt::format("HRDP optimum: compositions {} must be at least 1", compositions));
  if (!(epsilon > 0.0) || !std::isfinite(epsilon))
    throw InputError(fmt::format("HRDP optimum: epsilon {} must be finite and > 0", epsilon));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("HRDP optimum: delta {} must lie in (0, 1)", delta));
  if (!(alpha > 1.0) || !std::isfinite(alpha))
    throw InputError(fmt::format("HRDP optimum: alpha {} must be finite and > 1", alpha));
  if (shift_steps < 1)
    throw InputError(fmt::format("HRDP optimum: the sensitivity must be at least one grid step (got {})", shift_steps));
  if (shift_steps > 64)
    throw InputError(fmt::format("HRDP optimum: sensitivity of {} grid steps: at most 64 are supported", shift_steps));
  if (range_steps < 2 * shift_steps)
    throw InputError(
        fmt::format("HRDP optimum: the range R0 = {} grid steps must be at least twice the sensitivity ({} steps)",
                    range_steps, shift_steps));
  if (range_steps > 10'000'000)
    throw InputError(fmt::format("HRDP optimum: range R0 = {} grid steps is above 10,000,000", range_steps));
  if (!(step > 0.0) || !std::isfinite(step))
    throw InputError(fmt::format("HRDP optimum: grid step {} must be finite and > 0", step));
  if (!(relative_gap > 0.0 && relative_gap < 1.0))
    throw InputError(fmt::format("HRDP optimum: relative_gap {} must lie in (0, 1)", relative_gap));
  if (max_newton_steps < 1) throw InputError("HRDP optimum: max_newton_steps must be at least 1");
}

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The discrete Laplace bump p_j ~ exp(-|j - R0/2| / b) plus a floor of delta / (8 T s) per cell, with the least
// max_i g_i over a range of scales b: the starting point (phase II directly if it is strictly feasible). The floor
// keeps the tail cells away from 1e-80, which Newton steps p (1 + y) can only raise a factor at a time.
std::vector<double> starting_bump(const HybridRenyiProgram& program, const HybridRenyiOptimumOptions& options,
                                  double& best_max_g) {
  const int64_t n = options.range_steps + 1;
  const double centre = 0.5 * static_cast<double>(options.range_steps);
  const double floor =
      options.delta / (8.0 * static_cast<double>(options.compositions) * static_cast<double>(options.shift_steps));
  std::vector<double> best, p(static_cast<size_t>(n));
  best_max_g = kInfinity;
  HybridRenyiProgram::Values v;
  for (double b = 0.05; b <= 4.0 * static_cast<double>(options.range_steps); b *= 1.1) {
    for (int64_t j = 0; j < n; ++j) p[static_cast<size_t>(j)] = -std::fabs(static_cast<double>(j) - centre) / b;
    exp_in_place(p);  // about 120 scales of R0 + 1 cells: one vectorised pass each
    double total = 0.0;
    for (double x : p) total += x;
    for (double& x : p) x = x / total + floor;
    total = std::accumulate(p.begin(), p.end(), 0.0);
    for (double& x : p) x /= total;
    if (!program.evaluate(p, v)) continue;
    const double g = *std::max_element(v.g.begin(), v.g.end());
    if (g < best_max_g) best_max_g = g, best = p;
  }
  return best;
}

}  // namespace

NoiseTable HybridRenyiOptimum::table() const {
  if (probabilities.empty()) throw InputError("HRDP optimum: no table (the program is infeasible)");
  std::vector<double> p = probabilities;
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& x : p) x /= total;
  const Grid grid{0.0, step, static_cast<int64_t>(p.size())};
  return NoiseTable(grid, std::move(p), SupportKind::kOneSided);
}

std::string HybridRenyiOptimum::report() const {
  if (status == HybridRenyiOptimumStatus::kInfeasible)
    return fmt::format(
        "HRDP optimum at alpha {:.6g}: infeasible (phase I: max g_i >= {:.3e} for every table), {} steps, {:.2f} s",
        alpha, phase_one_infeasibility, phase_one_steps, seconds);
  if (!feasible)
    return fmt::format(
        "HRDP optimum at alpha {:.6g}: undecided (phase I stalled at max g_i = {:.3e}), {} steps, {:.2f} s", alpha,
        phase_one_infeasibility, phase_one_steps, seconds);
  return fmt::format(
      "HRDP optimum at alpha {:.6g}: cost {:.10g} (duality gap {:.2e}), HRDP epsilon {:.9g}, stationarity residual "
      "{:.2e}, "
      "Newton steps {} + {}, {:.2f} s",
      alpha, cost, duality_gap, hrdp_epsilon, stationarity_residual, phase_one_steps, phase_two_steps, seconds);
}

HybridRenyiOptimum hybrid_renyi_optimum(const HybridRenyiOptimumOptions& options) {
  options.validate();
  const auto start = std::chrono::steady_clock::now();
  const HybridRenyiProgram program(options);
  HybridRenyiOptimum out;
  out.alpha = options.alpha;
  out.step = options.step;
  double start_max_g = kInfinity;
  std::vector<double> p = starting_bump(program, options, start_max_g);
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (p.empty()) {  // no bump keeps T m below delta: the support is too short for any scale tried
    out.status = HybridRenyiOptimumStatus::kUndecided;
    out.phase_one_infeasibility = kInfinity;
    out.seconds = elapsed();
    return out;
  }
  const double m = static_cast<double>(program.constraints()) + 1.0;
  if (!(start_max_g < 0.0)) {
    HybridRenyiBarrier phase_one(program, options, true);
    double sigma = start_max_g + std::max(0.5 * std::fabs(start_max_g), 1e-12);
    const auto outcome = phase_one.run(p, sigma, m / std::fabs(sigma),
                                       std::min<int64_t>(options.max_newton_steps, options.max_phase_one_steps));
    out.phase_one_steps = outcome.steps;
    if (!outcome.feasible_found) {
      out.status = outcome.infeasible ? HybridRenyiOptimumStatus::kInfeasible : HybridRenyiOptimumStatus::kUndecided;
      out.phase_one_infeasibility = outcome.infeasible ? outcome.lower_bound : sigma;
      out.seconds = elapsed();
      return out;
    }
  }
  HybridRenyiBarrier phase_two(program, options, false);
  double unused_sigma = 0.0;
  const double t0 = m / std::max(program.cost(p), 1e-300);
  const auto outcome =
      phase_two.run(p, unused_sigma, t0, std::max<int64_t>(1, options.max_newton_steps - out.phase_one_steps));
  out.phase_two_steps = outcome.steps;
  out.feasible = true;
  out.status = outcome.t_centred > 0.0 ? HybridRenyiOptimumStatus::kOptimal : HybridRenyiOptimumStatus::kFeasible;
  out.probabilities = p;
  out.cost = program.cost(p);
  out.duality_gap = outcome.t_centred > 0.0 ? m / outcome.t_centred : kInfinity;
  const double t_final = outcome.t_centred > 0.0 ? outcome.t_centred : t0;
  // KKT stationarity in scaled form: the multipliers (lambda_i >= 0 of the constraints, nu of sum p = 1) that best
  // satisfy diag(p) (c + sum_i lambda_i grad g_i - mu + nu 1) = 0 with mu_j = w / (t p_j) (the barrier's multipliers of
  // p_j >= 0), by least squares; the residual is its largest entry relative to the cost. Complementary slackness
  // holds to the duality gap: lambda_i |g_i| and mu_j p_j are 1/t on the central path.
  HybridRenyiProgram::Values v;
  program.evaluate(p, v);
  std::vector<std::vector<double>> u;
  program.scaled_gradients(p, v, u);
  u.push_back(p);  // the column of nu
  const int64_t n = program.size();
  std::vector<double> b(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    b[static_cast<size_t>(j)] = program.cost_vector()[static_cast<size_t>(j)] * p[static_cast<size_t>(j)] -
                                1.0 / (static_cast<double>(n) * t_final);
  const size_t q = u.size();
  // Columns scaled to unit norm before the normal equations (the constraint gradients differ by orders of magnitude).
  std::vector<double> norms(q);
  for (size_t a = 0; a < q; ++a) {
    double s = 0.0;
    for (double x : u[a]) s += x * x;
    norms[a] = s > 0.0 ? std::sqrt(s) : 1.0;
  }
  std::vector<double> normal(q * q), rhs(q);
  for (size_t a = 0; a < q; ++a) {
    for (size_t c = 0; c < q; ++c) {
      double s = 0.0;
      for (int64_t j = 0; j < n; ++j) s += u[a][static_cast<size_t>(j)] * u[c][static_cast<size_t>(j)];
      normal[a * q + c] = s / (norms[a] * norms[c]);
    }
    double s = 0.0;
    for (int64_t j = 0; j < n; ++j) s -= u[a][static_cast<size_t>(j)] * b[static_cast<size_t>(j)];
    rhs[a] = s / norms[a];
  }
  for (size_t a = 0; a < q; ++a) normal[a * q + a] *= 1.0 + 1e-12;  // collinear constraints (shared E_d terms)
  std::vector<double> multipliers = rhs;
  if (!solve_small(normal, multipliers, q)) multipliers.assign(q, 0.0);
  double residual = 0.0;
  for (int64_t j = 0; j < n; ++j) {
    double x = b[static_cast<size_t>(j)];
    for (size_t a = 0; a < q; ++a) x += multipliers[a] / norms[a] * u[a][static_cast<size_t>(j)];
    residual = std::max(residual, std::fabs(x));
  }
  out.stationarity_residual = residual / std::max(out.cost, 1e-300);
  out.hrdp_epsilon = hybrid_renyi_epsilon_at(out.table(), options.shift_steps, options.compositions, options.delta,
                                             options.alpha, options.neighbours);
  out.seconds = elapsed();
  return out;
}

std::vector<double> default_hybrid_renyi_alphas() {
  std::vector<double> out;
  for (double a = 1.0 + 1.0 / 16.0; a < 1024.0; a = 1.0 + (a - 1.0) * std::sqrt(2.0)) out.push_back(a);
  return out;
}

HybridRenyiOptimum hybrid_renyi_optimum_over_alpha(HybridRenyiOptimumOptions options, const AlphaSearch& search) {
  std::vector<double> alphas = search.alphas;
  if (alphas.empty()) alphas = default_hybrid_renyi_alphas();
  std::sort(alphas.begin(), alphas.end());
  const auto start = std::chrono::steady_clock::now();
  const auto at = [&](double alpha) {
    options.alpha = alpha;
    return hybrid_renyi_optimum(options);
  };
  const auto value = [](const HybridRenyiOptimum& r) { return r.feasible ? r.cost : kInfinity; };
  std::vector<HybridRenyiOptimum> results;
  size_t best = 0;
  for (size_t i = 0; i < alphas.size(); ++i) {
    results.push_back(at(alphas[i]));
    if (value(results[i]) < value(results[best])) best = i;
  }
  HybridRenyiOptimum out = results[best];
  if (out.feasible && search.refinement_steps > 0) {
    // Golden section on [left neighbour, right neighbour] of the best grid order (it shrinks the bracket by 0.618 per
    // step: 20 steps leave 1e-4 of it).
    double lo = best > 0 ? alphas[best - 1] : 0.5 * (1.0 + alphas[best]);
    double hi = best + 1 < alphas.size() ? alphas[best + 1] : 2.0 * alphas[best];
    constexpr double kInverseGolden = 0.6180339887498949;
    double x1 = hi - kInverseGolden * (hi - lo), x2 = lo + kInverseGolden * (hi - lo);
    HybridRenyiOptimum r1 = at(x1), r2 = at(x2);
    for (int64_t step = 0; step < search.refinement_steps; ++step) {
      if (value(r1) < value(out)) out = r1;
      if (value(r2) < value(out)) out = r2;
      if (value(r1) <= value(r2)) {
        hi = x2, x2 = x1, r2 = r1;
        x1 = hi - kInverseGolden * (hi - lo);
        r1 = at(x1);
      } else {
        lo = x1, x1 = x2, r1 = r2;
        x2 = lo + kInverseGolden * (hi - lo);
        r2 = at(x2);
      }
    }
    if (value(r1) < value(out)) out = r1;
    if (value(r2) < value(out)) out = r2;
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

HybridRenyiOptimum least_hybrid_renyi_epsilon_for_budget(HybridRenyiOptimumOptions options, double budget,
                                                         double epsilon_low, double epsilon_high,
                                                         const AlphaSearch& search) {
  if (!(budget > 0.0) || !std::isfinite(budget))
    throw InputError(fmt::format("HRDP optimum: budget {} must be finite and > 0", budget));
  if (!(epsilon_low > 0.0 && epsilon_low < epsilon_high && std::isfinite(epsilon_high)))
    throw InputError(fmt::format("HRDP optimum: the epsilon bracket [{}, {}] must satisfy 0 < low < high", epsilon_low,
                                 epsilon_high));
  const auto within_budget = [&](const HybridRenyiOptimum& r) { return r.feasible && r.cost <= budget; };
  options.epsilon = epsilon_high;
  HybridRenyiOptimum best = hybrid_renyi_optimum_over_alpha(options, search);
  if (!within_budget(best)) {
    best.feasible = false;
    return best;
  }
  // The least epsilon whose optimum is within the budget: `best` is the optimum at the bracket's high end.
  const auto over_budget = [&](double epsilon) {
    options.epsilon = epsilon;
    HybridRenyiOptimum r = hybrid_renyi_optimum_over_alpha(options, search);
    if (!within_budget(r)) return true;
    best = std::move(r);
    return false;
  };
  bisect({epsilon_low, epsilon_high}, over_budget, [](double lo, double hi) { return hi - lo > 1e-6 * hi; });
  return best;
}

}  // namespace noiselearn
