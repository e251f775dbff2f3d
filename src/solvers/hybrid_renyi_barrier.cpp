#include "solvers/hybrid_renyi_barrier.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/banded_matrix.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

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

HybridRenyiBarrier::Outcome HybridRenyiBarrier::run(std::vector<double>& p, double& sigma, double t0,
                                                    int64_t step_budget) {
  Outcome out;
  const double m =
      static_cast<double>(pr_.constraints()) + 1.0;  // the k constraint barriers and the weak positivity barrier
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

// One Newton system on phi_t at the point the step starts from:
//   phi_t = t c.p (phase II; t sigma in phase I) - sum_i log h_i - w sum_j log p_j, w = 1/n,
// in the scaled variables y (p_new = p (1 + y)): the band B (the Hessians of the g_i and the positivity barrier), its
// rank-k terms U U^T (Woodbury), and the border C (the equality constraint and, in phase I, sigma) with its diagonal D.
struct HybridRenyiBarrier::NewtonSystem {
  std::vector<double> h;          // the (positive) barrier arguments: -g_i or sigma - g_i
  std::vector<double> inverse_h;  // multiplied by in the loops over the cells (a division each was a third of them)
  std::vector<std::vector<double>> u;  // the scaled gradients of the g_i
  double w = 0.0;                      // the positivity barrier's weight
  std::vector<double> grad;            // the scaled gradient of phi_t
  double grad_sigma = 0.0;             // its sigma component (phase I)
  SymmetricBandedMatrix band;
  std::vector<std::vector<double>> columns;  // U (k columns)
  std::vector<std::vector<double>> border;   // C: phase I the sigma column U beta, then the equality column p
  std::vector<double> border_diagonal;       // D of the bordered system (diagonal here)
  std::vector<double> rhs, rhs_border;       // minus the gradient, in p and in the border unknowns
  // The solves, kept with the system until the step ends (freed with it, not between the phases).
  std::vector<std::vector<double>> solved;  // B^-1 [U, C, r]
  std::vector<std::vector<double>> minv;    // M^-1 C columns, then M^-1 r
};

void HybridRenyiBarrier::add_barrier_gradient(const std::vector<double>& p, double sigma,
                                              const HybridRenyiProgram::Values& v, double t, NewtonSystem& s) const {
  const int64_t n = pr_.size();
  const size_t k = pr_.constraints();
  s.h.resize(k);
  for (size_t i = 0; i < k; ++i) s.h[i] = (phase_one_ ? sigma : 0.0) - v.g[i];
  s.inverse_h.resize(k);
  for (size_t i = 0; i < k; ++i) s.inverse_h[i] = 1.0 / s.h[i];
  pr_.scaled_gradients(p, v, s.u);
  // Every p_j is a denominator of some D_d term, so the constraint barriers alone keep p > 0; the positivity barrier
  // is weak (total weight 1, so the gap is (k + 1)/t) and is there to regularise the band, whose Laplacian part is
  // singular along y = 1. At full weight (w = 1) phase I spends hundreds of steps lifting cells that the constraints
  // pin down. Scaled gradient: t c_j p_j - w + sum_i u_i / h_i.
  s.w = 1.0 / static_cast<double>(n);
  s.grad.assign(static_cast<size_t>(n), -s.w);
  if (!phase_one_)
    for (int64_t j = 0; j < n; ++j)
      s.grad[static_cast<size_t>(j)] += t * pr_.cost_vector()[static_cast<size_t>(j)] * p[static_cast<size_t>(j)];
  for (size_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) s.grad[static_cast<size_t>(j)] += s.u[i][static_cast<size_t>(j)] * s.inverse_h[i];
  s.grad_sigma = 0.0;
  if (phase_one_) {
    s.grad_sigma = t;
    for (size_t i = 0; i < k; ++i) s.grad_sigma -= 1.0 / s.h[i];
  }
}

void HybridRenyiBarrier::add_barrier_hessian(const std::vector<double>& p, const HybridRenyiProgram::Values& v,
                                             NewtonSystem& s) const {
  const int64_t n = pr_.size();
  const size_t k = pr_.constraints();
  // Band: w I (from -w sum log p_j) + sum_i diag(p) Hess g_i diag(p) / h_i. Rank-one terms: (u_i, -1) / h_i.
  s.band = SymmetricBandedMatrix(n, o_.shift_steps);
  std::vector<double> weights(k);
  for (size_t i = 0; i < k; ++i) weights[i] = 1.0 / s.h[i];
  pr_.add_scaled_hessians(p, v, weights, s.band);
  // The band is a weighted path Laplacian (null vector: y = 1, i.e. scaling p, which the equality excludes) plus
  // the tails' curvature at the ends; a relative ridge of 1e-13 keeps its Cholesky factor finite when T = 1.
  for (int64_t j = 0; j < n; ++j) s.band.add(j, j, s.w);
  for (size_t i = 0; i < k; ++i) {
    std::vector<double> c(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) c[static_cast<size_t>(j)] = s.u[i][static_cast<size_t>(j)] * s.inverse_h[i];
    s.columns.push_back(std::move(c));
  }
}

void HybridRenyiBarrier::add_border(const std::vector<double>& p, NewtonSystem& s) const {
  const int64_t n = pr_.size();
  const size_t k = pr_.constraints();
  // Borders: phase I the sigma column U beta (beta_i = -1 / h_i) and the equality column p; phase II only p.
  if (phase_one_) {
    std::vector<double> c(static_cast<size_t>(n), 0.0);
    double beta_sq = 0.0;
    for (size_t i = 0; i < k; ++i) {
      const double beta = -1.0 / s.h[i];
      beta_sq += beta * beta;
      for (int64_t j = 0; j < n; ++j) c[static_cast<size_t>(j)] += s.columns[i][static_cast<size_t>(j)] * beta;
    }
    s.border.push_back(std::move(c));
    s.border_diagonal.push_back(beta_sq);
  }
  s.border.push_back(p);
  s.border_diagonal.push_back(0.0);
  s.rhs.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) s.rhs[static_cast<size_t>(j)] = -s.grad[static_cast<size_t>(j)];
  s.rhs_border.assign(s.border.size(), 0.0);
  if (phase_one_) s.rhs_border[0] = -s.grad_sigma;
}

bool HybridRenyiBarrier::solve_newton_system(NewtonSystem& s, std::vector<double>& y, double& dsigma) const {
  const int64_t n = pr_.size();
  const size_t k = pr_.constraints();
  const size_t l = s.border.size();
  // B^-1 of [U, C, r] in one factorisation.
  std::vector<std::vector<double>>& solved = s.solved;
  solved = s.columns;
  for (const auto& c : s.border) solved.push_back(c);
  solved.push_back(s.rhs);
  if (!s.band.solve(solved)) return false;
  // Woodbury: M = B + U U^T, M^-1 x = B^-1 x - Z (I + U^T Z)^-1 U^T B^-1 x with Z = B^-1 U.
  std::vector<double> capacitance(k * k);
  for (size_t a = 0; a < k; ++a)
    for (size_t b = 0; b < k; ++b) {
      double sum = a == b ? 1.0 : 0.0;
      for (int64_t j = 0; j < n; ++j) sum += s.columns[a][static_cast<size_t>(j)] * solved[b][static_cast<size_t>(j)];
      capacitance[a * k + b] = sum;
    }
  const auto apply_inverse = [&](std::vector<double>& x) -> bool {  // x holds B^-1 y on entry, M^-1 y on exit
    std::vector<double> coefficients(k);
    for (size_t a = 0; a < k; ++a) {
      double sum = 0.0;
      for (int64_t j = 0; j < n; ++j) sum += s.columns[a][static_cast<size_t>(j)] * x[static_cast<size_t>(j)];
      coefficients[a] = sum;
    }
    if (!solve_small(capacitance, coefficients, k)) return false;
    for (size_t a = 0; a < k; ++a)
      for (int64_t j = 0; j < n; ++j) x[static_cast<size_t>(j)] -= solved[a][static_cast<size_t>(j)] * coefficients[a];
    return true;
  };
  std::vector<std::vector<double>>& minv = s.minv;
  for (size_t c = 0; c <= l; ++c) {
    std::vector<double> x = solved[k + c];
    if (!apply_inverse(x)) return false;
    minv.push_back(std::move(x));
  }
  // Schur complement on the border unknowns z: (D - C^T M^-1 C) z = w - C^T M^-1 r.
  std::vector<double> schur(l * l), z(l);
  for (size_t a = 0; a < l; ++a) {
    for (size_t b = 0; b < l; ++b) {
      double sum = a == b ? s.border_diagonal[a] : 0.0;
      for (int64_t j = 0; j < n; ++j) sum -= s.border[a][static_cast<size_t>(j)] * minv[b][static_cast<size_t>(j)];
      schur[a * l + b] = sum;
    }
    double sum = s.rhs_border[a];
    for (int64_t j = 0; j < n; ++j) sum -= s.border[a][static_cast<size_t>(j)] * minv[l][static_cast<size_t>(j)];
    z[a] = sum;
  }
  if (!solve_small(schur, z, l)) return false;
  y = minv[l];
  for (size_t b = 0; b < l; ++b)
    for (int64_t j = 0; j < n; ++j) y[static_cast<size_t>(j)] -= minv[b][static_cast<size_t>(j)] * z[b];
  dsigma = phase_one_ ? z[0] : 0.0;
  return true;
}

HybridRenyiBarrier::NewtonStep HybridRenyiBarrier::line_search(std::vector<double>& p, double& sigma,
                                                               HybridRenyiProgram::Values& v, double t,
                                                               const NewtonSystem& s, const std::vector<double>& y,
                                                               double dsigma, double slope) const {
  const int64_t n = pr_.size();
  const size_t k = pr_.constraints();
  // Backtracking on phi_t, with the change of phi formed directly (log1p of the relative steps), so that it is
  // accurate when phi itself is a sum of many thousands of logarithms.
  double tau = 1.0;
  for (int64_t j = 0; j < n; ++j)
    if (y[static_cast<size_t>(j)] < 0.0) tau = std::min(tau, -0.99 / y[static_cast<size_t>(j)]);
  std::vector<double> trial(static_cast<size_t>(n));
  HybridRenyiProgram::Values tv;
  const std::vector<double>& c = pr_.cost_vector();
  for (int attempt = 0; attempt < 60; ++attempt, tau *= 0.5) {
    for (int64_t j = 0; j < n; ++j)
      trial[static_cast<size_t>(j)] = p[static_cast<size_t>(j)] * (1.0 + tau * y[static_cast<size_t>(j)]);
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
      change -= std::log(th / s.h[i]);
    }
    if (!inside) continue;
    for (int64_t j = 0; j < n; ++j) {
      const double r = tau * y[static_cast<size_t>(j)];
      change -= s.w * std::log1p(r);
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

HybridRenyiBarrier::NewtonStep HybridRenyiBarrier::newton_step(std::vector<double>& p, double& sigma,
                                                               HybridRenyiProgram::Values& v, double t) {
  const int64_t n = pr_.size();
  NewtonSystem s;
  add_barrier_gradient(p, sigma, v, t, s);
  add_barrier_hessian(p, v, s);
  add_border(p, s);
  std::vector<double> y;
  double dsigma = 0.0;
  if (!solve_newton_system(s, y, dsigma)) return {kInfinity, false};
  // Newton decrement lambda^2 = -grad . step.
  double slope = s.grad_sigma * dsigma;
  for (int64_t j = 0; j < n; ++j) slope += s.grad[static_cast<size_t>(j)] * y[static_cast<size_t>(j)];
  if (!std::isfinite(slope)) return {kInfinity, false};
  if (!(slope < 0.0)) return {0.0, false};
  return line_search(p, sigma, v, t, s, y, dsigma, slope);
}

}  // namespace noiselearn
