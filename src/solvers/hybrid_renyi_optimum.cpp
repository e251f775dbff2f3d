#include "solvers/hybrid_renyi_optimum.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/banded_matrix.hpp"
#include "core/errors.hpp"
#include "core/grid.hpp"
#include "accounting/vectorised_math.hpp"
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
  if (!(epsilon > 0.0) || !std::isfinite(epsilon)) throw InputError(fmt::format("HRDP optimum: epsilon {} must be finite and > 0", epsilon));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("HRDP optimum: delta {} must lie in (0, 1)", delta));
  if (!(alpha > 1.0) || !std::isfinite(alpha)) throw InputError(fmt::format("HRDP optimum: alpha {} must be finite and > 1", alpha));
  if (shift_steps < 1) throw InputError(fmt::format("HRDP optimum: the sensitivity must be at least one grid step (got {})", shift_steps));
  if (shift_steps > 64) throw InputError(fmt::format("HRDP optimum: sensitivity of {} grid steps: at most 64 are supported", shift_steps));
  if (range_steps < 2 * shift_steps)
    throw InputError(fmt::format("HRDP optimum: the range R0 = {} grid steps must be at least twice the sensitivity ({} steps)",
                                 range_steps, shift_steps));
  if (range_steps > 10'000'000) throw InputError(fmt::format("HRDP optimum: range R0 = {} grid steps is above 10,000,000", range_steps));
  if (!(step > 0.0) || !std::isfinite(step)) throw InputError(fmt::format("HRDP optimum: grid step {} must be finite and > 0", step));
  if (!(relative_gap > 0.0 && relative_gap < 1.0)) throw InputError(fmt::format("HRDP optimum: relative_gap {} must lie in (0, 1)", relative_gap));
  if (max_newton_steps < 1) throw InputError("HRDP optimum: max_newton_steps must be at least 1");
}

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Solves the small dense system a x = b (n <= 6) by Gaussian elimination with partial pivoting; false if singular.
bool solve_small(std::vector<double> a, std::vector<double>& b, size_t n) {
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
    if (!(std::fabs(a[pivot * n + col]) > 0.0) || !std::isfinite(a[pivot * n + col])) return false;
    if (pivot != col) {
      for (size_t k = 0; k < n; ++k) std::swap(a[col * n + k], a[pivot * n + k]);
      std::swap(b[col], b[pivot]);
    }
    for (size_t r = col + 1; r < n; ++r) {
      const double f = a[r * n + col] / a[col * n + col];
      for (size_t k = col; k < n; ++k) a[r * n + k] -= f * a[col * n + k];
      b[r] -= f * b[col];
    }
  }
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t k = i + 1; k < n; ++k) s -= a[i * n + k] * b[k];
    b[i] = s / a[i * n + i];
  }
  return true;
}


// One barrier method: phase I (minimise sigma s.t. g_i <= sigma) or phase II (minimise the cost s.t. g_i <= 0).
class BarrierMethod {
 public:
  BarrierMethod(const HybridRenyiProgram& program, const HybridRenyiOptimumOptions& options, bool phase_one)
      : pr_(program), o_(options), phase_one_(phase_one) {}

  struct Outcome {
    bool feasible_found = false;  // phase I: reached max g < 0
    bool infeasible = false;      // phase I: proved min max g > 0 (sigma - m/t > 0 on a centred point)
    bool centred = false;         // the last centering converged (so m / t_centred bounds the gap)
    double lower_bound = 0.0;     // phase I: sigma - m/t at the last centred point
    double t_centred = 0.0;       // the largest t whose centering converged (0: none)
    int64_t steps = 0;
  };

  // p (and sigma in phase I) are updated in place. A centering has converged when the Newton decrement
  // lambda^2 / 2 is below 1e-10, or below 1e-7 when the line search can no longer decrease phi in floating point.
  Outcome run(std::vector<double>& p, double& sigma, double t0, int64_t step_budget) {
    Outcome out;
    const double m = static_cast<double>(pr_.constraints()) + 1.0;  // the k constraint barriers and the weak positivity barrier
    double t = t0;
    HybridRenyiProgram::Values v;
    if (!pr_.evaluate(p, v)) throw std::logic_error("HRDP optimum: the barrier method started outside the domain");
    for (int outer = 0; outer < 60; ++outer) {
      bool centred = false;
      for (int inner = 0; inner < 500 && out.steps < step_budget; ++inner) {
        if (phase_one_ && max_g(v) < 0.0) {
          out.feasible_found = true;
          return out;
        }
        const NewtonStep step = newton_step(p, sigma, v, t);
        ++out.steps;
        if (step.decrement < 1e-10 || (!step.moved && step.decrement < 1e-7)) {
          centred = true;
          break;
        }
        if (!step.moved) break;  // stalled away from the centre
      }
      if (phase_one_ && max_g(v) < 0.0) {
        out.feasible_found = true;
        return out;
      }
      out.centred = centred;
      if (!centred) break;
      out.t_centred = t;
      if (phase_one_) {
        out.lower_bound = sigma - m / t;
        if (out.lower_bound > 0.0) {
          out.infeasible = true;
          break;
        }
        if (m / t < 1e-15 * std::max(1.0, std::fabs(sigma))) break;  // sigma* = 0 to rounding: undecided
      } else if (m / t <= o_.relative_gap * pr_.cost(p)) {
        break;
      }
      if (out.steps >= step_budget) break;
      t *= 10.0;
    }
    return out;
  }

  double max_g(const HybridRenyiProgram::Values& v) const { return *std::max_element(v.g.begin(), v.g.end()); }

 private:
  struct NewtonStep {
    double decrement = 0.0;  // lambda^2 / 2 at the point the step started from
    bool moved = false;      // false: no step length decreased phi (or the system could not be solved)
  };
  // One damped Newton step on phi_t.
  NewtonStep newton_step(std::vector<double>& p, double& sigma, HybridRenyiProgram::Values& v, double t) {
    const int64_t n = pr_.size();
    const size_t k = pr_.constraints();
    std::vector<double> h(k);  // the (positive) barrier arguments: -g_i or sigma - g_i
    for (size_t i = 0; i < k; ++i) h[i] = (phase_one_ ? sigma : 0.0) - v.g[i];
    std::vector<double> inverse_h(k);  // multiplied by in the loops over the cells (a division each was a third of them)
    for (size_t i = 0; i < k; ++i) inverse_h[i] = 1.0 / h[i];
    std::vector<std::vector<double>> u;
    pr_.scaled_gradients(p, v, u);
    // phi_t = t c.p (phase II; t sigma in phase I) - sum_i log h_i - w sum_j log p_j with w = 1/n. Every p_j is a
    // denominator of some D_d term, so the constraint barriers alone keep p > 0; the positivity barrier is weak (total
    // weight 1, so the gap is (k + 1)/t) and is there to regularise the band, whose Laplacian part is singular along
    // y = 1. At full weight (w = 1) phase I spent hundreds of steps lifting cells that the constraints pin down.
    // Scaled gradient: t c_j p_j - w + sum_i u_i / h_i.
    const double w = 1.0 / static_cast<double>(n);
    std::vector<double> grad(static_cast<size_t>(n), -w);
    if (!phase_one_)
      for (int64_t j = 0; j < n; ++j) grad[static_cast<size_t>(j)] += t * pr_.cost_vector()[static_cast<size_t>(j)] * p[static_cast<size_t>(j)];
    for (size_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) grad[static_cast<size_t>(j)] += u[i][static_cast<size_t>(j)] * inverse_h[i];
    double grad_sigma = 0.0;
    if (phase_one_) {
      grad_sigma = t;
      for (size_t i = 0; i < k; ++i) grad_sigma -= 1.0 / h[i];
    }
    // Band: w I (from -w sum log p_j) + sum_i diag(p) Hess g_i diag(p) / h_i. Rank-one terms: (u_i, -1) / h_i.
    SymmetricBandedMatrix band(n, o_.shift_steps);
    std::vector<double> weights(k);
    for (size_t i = 0; i < k; ++i) weights[i] = 1.0 / h[i];
    pr_.add_scaled_hessians(p, v, weights, band);
    // The band is a weighted path Laplacian (null vector: y = 1, i.e. scaling p, which the equality excludes) plus
    // the tails' curvature at the ends; a relative ridge of 1e-13 keeps its Cholesky factor finite when T = 1.
    for (int64_t j = 0; j < n; ++j) band.add(j, j, w);
    std::vector<std::vector<double>> columns;  // U (k columns), then the border columns C, then the right-hand side
    for (size_t i = 0; i < k; ++i) {
      std::vector<double> c(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) c[static_cast<size_t>(j)] = u[i][static_cast<size_t>(j)] * inverse_h[i];
      columns.push_back(std::move(c));
    }
    // Borders: phase I the sigma column U beta (beta_i = -1 / h_i) and the equality column p; phase II only p.
    std::vector<std::vector<double>> border;
    std::vector<double> border_diagonal;  // D of the bordered system (diagonal here)
    if (phase_one_) {
      std::vector<double> c(static_cast<size_t>(n), 0.0);
      double beta_sq = 0.0;
      for (size_t i = 0; i < k; ++i) {
        const double beta = -1.0 / h[i];
        beta_sq += beta * beta;
        for (int64_t j = 0; j < n; ++j) c[static_cast<size_t>(j)] += columns[i][static_cast<size_t>(j)] * beta;
      }
      border.push_back(std::move(c));
      border_diagonal.push_back(beta_sq);
    }
    border.push_back(p);
    border_diagonal.push_back(0.0);
    const size_t l = border.size();
    std::vector<double> rhs(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) rhs[static_cast<size_t>(j)] = -grad[static_cast<size_t>(j)];
    std::vector<double> rhs_border(l, 0.0);
    if (phase_one_) rhs_border[0] = -grad_sigma;

    // B^-1 of [U, C, r] in one factorisation.
    std::vector<std::vector<double>> solved = columns;
    for (const auto& c : border) solved.push_back(c);
    solved.push_back(rhs);
    if (!band.solve(solved)) return {kInfinity, false};
    // Woodbury: M = B + U U^T, M^-1 x = B^-1 x - Z (I + U^T Z)^-1 U^T B^-1 x with Z = B^-1 U.
    std::vector<double> capacitance(k * k);
    for (size_t a = 0; a < k; ++a)
      for (size_t b = 0; b < k; ++b) {
        double s = a == b ? 1.0 : 0.0;
        for (int64_t j = 0; j < n; ++j) s += columns[a][static_cast<size_t>(j)] * solved[b][static_cast<size_t>(j)];
        capacitance[a * k + b] = s;
      }
    const auto apply_inverse = [&](std::vector<double>& x) -> bool {  // x holds B^-1 y on entry, M^-1 y on exit
      std::vector<double> coefficients(k);
      for (size_t a = 0; a < k; ++a) {
        double s = 0.0;
        for (int64_t j = 0; j < n; ++j) s += columns[a][static_cast<size_t>(j)] * x[static_cast<size_t>(j)];
        coefficients[a] = s;
      }
      if (!solve_small(capacitance, coefficients, k)) return false;
      for (size_t a = 0; a < k; ++a)
        for (int64_t j = 0; j < n; ++j) x[static_cast<size_t>(j)] -= solved[a][static_cast<size_t>(j)] * coefficients[a];
      return true;
    };
    std::vector<std::vector<double>> minv;  // M^-1 C columns, then M^-1 r
    for (size_t c = 0; c <= l; ++c) {
      std::vector<double> x = solved[k + c];
      if (!apply_inverse(x)) return {kInfinity, false};
      minv.push_back(std::move(x));
    }
    // Schur complement on the border unknowns z: (D - C^T M^-1 C) z = w - C^T M^-1 r.
    std::vector<double> schur(l * l), z(l);
    for (size_t a = 0; a < l; ++a) {
      for (size_t b = 0; b < l; ++b) {
        double s = a == b ? border_diagonal[a] : 0.0;
        for (int64_t j = 0; j < n; ++j) s -= border[a][static_cast<size_t>(j)] * minv[b][static_cast<size_t>(j)];
        schur[a * l + b] = s;
      }
      double s = rhs_border[a];
      for (int64_t j = 0; j < n; ++j) s -= border[a][static_cast<size_t>(j)] * minv[l][static_cast<size_t>(j)];
      z[a] = s;
    }
    if (!solve_small(schur, z, l)) return {kInfinity, false};
    std::vector<double> y = minv[l];
    for (size_t b = 0; b < l; ++b)
      for (int64_t j = 0; j < n; ++j) y[static_cast<size_t>(j)] -= minv[b][static_cast<size_t>(j)] * z[b];
    const double dsigma = phase_one_ ? z[0] : 0.0;
    // Newton decrement lambda^2 = -grad . step.
    double slope = grad_sigma * dsigma;
    for (int64_t j = 0; j < n; ++j) slope += grad[static_cast<size_t>(j)] * y[static_cast<size_t>(j)];
    if (!std::isfinite(slope)) return {kInfinity, false};
    if (!(slope < 0.0)) return {0.0, false};
    // Backtracking line search on phi_t, with the change of phi formed directly (log1p of the relative steps), so
    // that it is accurate when phi itself is a sum of 30,000 logarithms.
    double tau = 1.0;
    for (int64_t j = 0; j < n; ++j)
      if (y[static_cast<size_t>(j)] < 0.0) tau = std::min(tau, -0.99 / y[static_cast<size_t>(j)]);
    std::vector<double> trial(static_cast<size_t>(n));
    HybridRenyiProgram::Values tv;
    const std::vector<double>& c = pr_.cost_vector();
    for (int attempt = 0; attempt < 60; ++attempt, tau *= 0.5) {
      for (int64_t j = 0; j < n; ++j) trial[static_cast<size_t>(j)] = p[static_cast<size_t>(j)] * (1.0 + tau * y[static_cast<size_t>(j)]);
      if (!pr_.evaluate(trial, tv)) continue;
      const double trial_sigma = sigma + tau * dsigma;
      bool inside = true;
      double change = phase_one_ ? t * tau * dsigma : 0.0;
      for (size_t i = 0; i < k; ++i) {
        const double th = (phase_one_ ? trial_sigma : 0.0) - tv.g[i];
        if (!(th > 0.0)) {
          inside = false;
          break;
        }
        change -= std::log(th / h[i]);
      }
      if (!inside) continue;
      for (int64_t j = 0; j < n; ++j) {
        const double r = tau * y[static_cast<size_t>(j)];
        change -= w * std::log1p(r);
        if (!phase_one_) change += t * c[static_cast<size_t>(j)] * p[static_cast<size_t>(j)] * r;
      }
      if (change <= 0.25 * tau * slope) {
        p.swap(trial);
        v = tv;
        sigma = trial_sigma;
        return {-slope / 2.0, true};
      }
    }
    return {-slope / 2.0, false};
  }

  const HybridRenyiProgram& pr_;
  const HybridRenyiOptimumOptions& o_;
  bool phase_one_;
};

// The discrete Laplace bump p_j ~ exp(-|j - R0/2| / b) plus a floor of delta / (8 T s) per cell, with the least
// max_i g_i over a range of scales b: the starting point (phase II directly if it is strictly feasible). The floor
// keeps the tail cells away from 1e-80, which Newton steps p (1 + y) can only raise a factor at a time.
std::vector<double> starting_bump(const HybridRenyiProgram& program, const HybridRenyiOptimumOptions& options,
                                  double& best_max_g) {
  const int64_t n = options.range_steps + 1;
  const double centre = 0.5 * static_cast<double>(options.range_steps);
  const double floor = options.delta / (8.0 * static_cast<double>(options.compositions) * static_cast<double>(options.shift_steps));
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
    return fmt::format("HRDP optimum at alpha {:.6g}: infeasible (phase I: max g_i >= {:.3e} for every table), {} steps, {:.2f} s",
                       alpha, phase_one_infeasibility, phase_one_steps, seconds);
  if (!feasible)
    return fmt::format("HRDP optimum at alpha {:.6g}: undecided (phase I stalled at max g_i = {:.3e}), {} steps, {:.2f} s",
                       alpha, phase_one_infeasibility, phase_one_steps, seconds);
  return fmt::format(
      "HRDP optimum at alpha {:.6g}: cost {:.10g} (duality gap {:.2e}), HRDP epsilon {:.9g}, stationarity residual {:.2e}, "
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
    BarrierMethod phase_one(program, options, true);
    double sigma = start_max_g + std::max(0.5 * std::fabs(start_max_g), 1e-12);
    const auto outcome = phase_one.run(p, sigma, m / std::fabs(sigma), std::min<int64_t>(options.max_newton_steps, options.max_phase_one_steps));
    out.phase_one_steps = outcome.steps;
    if (!outcome.feasible_found) {
      out.status = outcome.infeasible ? HybridRenyiOptimumStatus::kInfeasible : HybridRenyiOptimumStatus::kUndecided;
      out.phase_one_infeasibility = outcome.infeasible ? outcome.lower_bound : sigma;
      out.seconds = elapsed();
      return out;
    }
  }
  BarrierMethod phase_two(program, options, false);
  double unused_sigma = 0.0;
  const double t0 = m / std::max(program.cost(p), 1e-300);
  const auto outcome = phase_two.run(p, unused_sigma, t0, std::max<int64_t>(1, options.max_newton_steps - out.phase_one_steps));
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
  for (int64_t j = 0; j < n; ++j) b[static_cast<size_t>(j)] = program.cost_vector()[static_cast<size_t>(j)] * p[static_cast<size_t>(j)] - 1.0 / (static_cast<double>(n) * t_final);
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
                                                         double epsilon_low, double epsilon_high, const AlphaSearch& search) {
  if (!(budget > 0.0) || !std::isfinite(budget)) throw InputError(fmt::format("HRDP optimum: budget {} must be finite and > 0", budget));
  if (!(epsilon_low > 0.0 && epsilon_low < epsilon_high && std::isfinite(epsilon_high)))
    throw InputError(fmt::format("HRDP optimum: the epsilon bracket [{}, {}] must satisfy 0 < low < high", epsilon_low, epsilon_high));
  const auto within_budget = [&](const HybridRenyiOptimum& r) { return r.feasible && r.cost <= budget; };
  options.epsilon = epsilon_high;
  HybridRenyiOptimum best = hybrid_renyi_optimum_over_alpha(options, search);
  if (!within_budget(best)) {
    best.feasible = false;
    return best;
  }
  double lo = epsilon_low, hi = epsilon_high;
  while (hi - lo > 1e-6 * hi) {
    options.epsilon = 0.5 * (lo + hi);
    HybridRenyiOptimum r = hybrid_renyi_optimum_over_alpha(options, search);
    if (within_budget(r)) {
      hi = options.epsilon;
      best = std::move(r);
    } else {
      lo = options.epsilon;
    }
  }
  return best;
}

}  // namespace noiselearn
