#include "train/constraint_projection.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/noise_table.hpp"

namespace noiselearn {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// Inverse of a small symmetric positive definite matrix by Gauss-Jordan elimination with partial pivoting.
std::vector<std::vector<double>> small_inverse(std::vector<std::vector<double>> m) {
  const size_t k = m.size();
  std::vector<std::vector<double>> inv(k, std::vector<double>(k, 0.0));
  for (size_t i = 0; i < k; ++i) inv[i][i] = 1.0;
  for (size_t c = 0; c < k; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < k; ++r)
      if (std::abs(m[r][c]) > std::abs(m[pivot][c])) pivot = r;
    if (!(std::abs(m[pivot][c]) > 0.0))
      throw std::runtime_error("preconditioned gradient: the constraints are linearly dependent");
    std::swap(m[c], m[pivot]);
    std::swap(inv[c], inv[pivot]);
    const double d = m[c][c];
    for (size_t j = 0; j < k; ++j) m[c][j] /= d, inv[c][j] /= d;
    for (size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      const double f = m[r][c];
      for (size_t j = 0; j < k; ++j) m[r][j] -= f * m[c][j], inv[r][j] -= f * inv[c][j];
    }
  }
  return inv;
}

ConstraintRows constraint_rows(const std::vector<double>& theta, const std::vector<LinearConstraint>& constraints) {
  ConstraintRows out;
  const size_t k = constraints.size(), n = theta.size();
  for (const auto& c : constraints) {
    std::vector<double> row(n);
    for (size_t i = 0; i < n; ++i) row[i] = c.coefficients[i] * std::exp(theta[i]);
    const double norm = std::sqrt(dot(row, row));
    const double scale = norm > 0.0 ? 1.0 / norm : 1.0;
    for (double& x : row) x *= scale;
    out.rows.push_back(std::move(row));
    out.scale.push_back(scale);
  }
  std::vector<std::vector<double>> gram(k, std::vector<double>(k));
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j < k; ++j) gram[i][j] = dot(out.rows[i], out.rows[j]);
  out.gram_inverse = small_inverse(gram);
  return out;
}

// v - B^T (B B^T)^-1 B v, twice (the second pass removes the rounding of the first).
std::vector<double> project(const ConstraintRows& b, std::vector<double> v) {
  const size_t k = b.rows.size();
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<double> bv(k), lambda(k, 0.0);
    for (size_t r = 0; r < k; ++r) bv[r] = dot(b.rows[r], v);
    for (size_t r = 0; r < k; ++r)
      for (size_t c = 0; c < k; ++c) lambda[r] += b.gram_inverse[r][c] * bv[c];
    for (size_t r = 0; r < k; ++r)
      for (size_t i = 0; i < v.size(); ++i) v[i] -= b.rows[r][i] * lambda[r];
  }
  return v;
}

// A p - b per constraint (compensated sums) and the largest relative residual.
std::vector<double> residuals(const std::vector<double>& theta, const std::vector<LinearConstraint>& constraints,
                              double* relative) {
  std::vector<double> out;
  double worst = 0.0;
  std::vector<double> terms(theta.size());
  for (const auto& c : constraints) {
    for (size_t i = 0; i < theta.size(); ++i) terms[i] = c.coefficients[i] * std::exp(theta[i]);
    const double r = compensated_sum(terms) - c.target;
    out.push_back(r);
    worst = std::max(worst, std::abs(r) / std::max(std::abs(c.target), 1e-300));
  }
  if (relative) *relative = worst;
  return out;
}

double impose_linear_constraints(std::vector<double>& theta, const std::vector<LinearConstraint>& constraints) {
  double relative = 0.0;
  std::vector<double> r = residuals(theta, constraints, &relative);
  // p <- p (1 + B^T lambda) with (B B^T) lambda = b - A p: the smallest relative change of p (in the
  // preconditioned metric) that satisfies the linearised constraints. Repeated while it helps.
  for (int round = 0; round < 4 && relative > 1e-16; ++round) {
    const ConstraintRows b = constraint_rows(theta, constraints);
    const size_t k = constraints.size();
    std::vector<double> lambda(k, 0.0);
    for (size_t i = 0; i < k; ++i)
      for (size_t j = 0; j < k; ++j) lambda[i] += b.gram_inverse[i][j] * (-r[j] * b.scale[j]);
    std::vector<double> candidate = theta;
    for (size_t i = 0; i < theta.size(); ++i) {
      double change = 0.0;
      for (size_t j = 0; j < k; ++j) change += b.rows[j][i] * lambda[j];
      candidate[i] += std::log1p(change);
    }
    double candidate_relative = 0.0;
    const std::vector<double> candidate_r = residuals(candidate, constraints, &candidate_relative);
    if (!(candidate_relative < relative) || !all_finite(candidate)) break;
    theta = std::move(candidate);
    r = candidate_r;
    relative = candidate_relative;
  }
  return relative;
}

}  // namespace noiselearn
