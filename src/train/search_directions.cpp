#include "train/search_directions.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include "core/banded_matrix.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

std::vector<double> LbfgsDirection::operator()(const std::vector<double>& g_proj, const ConstraintRows& rows) {
  std::vector<double> q = g_proj;
  std::vector<double> alphas(memory_.size());
  for (size_t i = memory_.size(); i-- > 0;) {
    const auto& [s, y] = memory_[i];
    alphas[i] = dot(s, q) / dot(y, s);
    for (size_t j = 0; j < q.size(); ++j) q[j] -= alphas[i] * y[j];
  }
  if (!memory_.empty()) {
    const auto& [s, y] = memory_.back();
    const double scale = dot(s, y) / dot(y, y);
    for (double& x : q) x *= scale;
  }
  for (size_t i = 0; i < memory_.size(); ++i) {
    const auto& [s, y] = memory_[i];
    const double beta = dot(y, q) / dot(y, s);
    for (size_t j = 0; j < q.size(); ++j) q[j] += (alphas[i] - beta) * s[j];
  }
  std::vector<double> d = project(rows, q);
  for (double& x : d) x = -x;
  if (!(dot(d, g_proj) < 0.0) || !all_finite(d)) {  // not a descent direction: fall back to steepest
    memory_.clear();
    for (size_t j = 0; j < d.size(); ++j) d[j] = -g_proj[j];
  }
  return d;
}

// Accelerated projected gradient ascent (FISTA) with step 1 / trace(Q), from the indicator of the largest f.
std::vector<double> simplex_dual(const std::vector<double>& f, const std::vector<std::vector<double>>& q) {
  const size_t m = f.size();
  const auto project_simplex = [m](std::vector<double> v) {  // Euclidean projection (sort and threshold)
    std::vector<double> u = v;
    std::sort(u.begin(), u.end(), std::greater<double>());
    double cumulative = 0.0, threshold = 0.0;
    for (size_t i = 0; i < m; ++i) {
      cumulative += u[i];
      const double t = (cumulative - 1.0) / static_cast<double>(i + 1);
      if (u[i] - t > 0.0) threshold = t;
    }
    for (double& x : v) x = std::max(0.0, x - threshold);
    return v;
  };
  double lipschitz = 0.0;
  for (size_t a = 0; a < m; ++a) lipschitz += std::max(q[a][a], 0.0);
  std::vector<double> w(m, 0.0);
  w[static_cast<size_t>(std::max_element(f.begin(), f.end()) - f.begin())] = 1.0;
  if (!(lipschitz > 0.0) || m == 1) return w;
  std::vector<double> y = w, previous = w;
  double t = 1.0;
  for (int iteration = 0; iteration < 2000; ++iteration) {
    std::vector<double> ascent(m);
    for (size_t a = 0; a < m; ++a) {
      double qy = 0.0;
      for (size_t b = 0; b < m; ++b) qy += q[a][b] * y[b];
      ascent[a] = y[a] + (f[a] - qy) / lipschitz;
    }
    w = project_simplex(ascent);
    const double t_next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * t * t));
    double change = 0.0;
    for (size_t a = 0; a < m; ++a) {
      y[a] = w[a] + (t - 1.0) / t_next * (w[a] - previous[a]);
      change = std::max(change, std::abs(w[a] - previous[a]));
    }
    previous = w;
    t = t_next;
    if (change < 1e-13) break;
  }
  return w;
}

std::vector<double> NewtonDirection::operator()(const ConstrainedObjective& objective, const std::vector<double>& theta,
                                                const std::vector<double>& g, const std::vector<double>& g_proj,
                                                const ConstraintRows& rows) {
  // The curvature of 1-homogeneous pieces (g_alpha(p q) in q) is a weighted graph Laplacian: H 1 = 0. A ridge
  // alone would leave H^-1 a huge eigenvalue along 1, and the constraint solve would cancel it catastrophically.
  // So each constrained solve writes d = e + t 1 with e_k0 = 0 (k0 the largest diagonal: the Laplacian grounded
  // there is positive definite), and minimises r^T d + e^T H e / 2 (H 1 = 0) under B d = 0:
  //   e = -H~^-1 (r - B^T lambda),  B e + t B 1 = 0,  1^T r = lambda^T B 1   (stationarity in t),
  // H~ the grounded H plus a ridge of 1e-10 of its largest diagonal (unknowns with no curvature at all).
  // d(r) = -P r is linear in r; the pieces' directions d_a = d(g_a) give Q_ab = -g_a^T d_b.
  MaxNewtonModel model = objective.newton_model(theta_tensor(theta), piece_weights_);
  SymmetricBandedMatrix& h = model.curvature;
  const int64_t n = static_cast<int64_t>(g.size());
  const size_t pieces = model.gradients.size(), k = rows.rows.size();
  int64_t ground = 0;
  for (int64_t i = 1; i < n; ++i)
    if (h.at(i, i) > h.at(ground, ground)) ground = i;
  const double ridge = std::max(1e-10 * h.largest_diagonal(), 1e-300);
  for (int64_t j = std::max<int64_t>(0, ground - h.bandwidth()); j <= std::min(n - 1, ground + h.bandwidth()); ++j)
    if (j != ground) h.add(ground, j, -h.at(ground, j));
  h.add(ground, ground, 1.0 - h.at(ground, ground) - ridge);
  // A ridge relative to the largest diagonal, the same for every unknown. (Relative to each unknown's own diagonal
  // it converges faster on a one-shift problem, but in the Fig. 1 setting unknowns with almost no curvature then
  // take huge steps and gamma barely moves: tests/benchmarks/README.md, "The Newton direction's ridge".)
  for (int64_t i = 0; i < n; ++i) h.add(i, i, ridge);
  std::vector<std::vector<double>> solves = model.gradients;
  for (const auto& row : rows.rows) solves.push_back(row);
  for (auto& v : solves) v[static_cast<size_t>(ground)] = 0.0;
  std::vector<double> d(g.size(), std::numeric_limits<double>::quiet_NaN());
  bool solved = pieces > 0 && h.solve(solves);
  std::vector<std::vector<double>> directions(pieces);
  if (solved) {
    std::vector<double> row_sums(k, 0.0);
    for (size_t r = 0; r < k; ++r) row_sums[r] = compensated_sum(rows.rows[r]);
    // [S  b1; b1^T  0] [lambda; t] = [B y; 1^T r], S_rc = B_r . H~^-1 B_c.
    std::vector<std::vector<double>> system(k + 1, std::vector<double>(k + 1, 0.0));
    for (size_t r = 0; r < k; ++r) {
      for (size_t c = 0; c < k; ++c) system[r][c] = dot(rows.rows[r], solves[pieces + c]);
      system[r][k] = system[k][r] = row_sums[r];
    }
    try {
      const auto inverse = small_inverse(system);
      for (size_t a = 0; a < pieces; ++a) {
        std::vector<double> right(k + 1), solution(k + 1, 0.0);
        for (size_t r = 0; r < k; ++r) right[r] = dot(rows.rows[r], solves[a]);
        right[k] = compensated_sum(model.gradients[a]);
        for (size_t r = 0; r <= k; ++r)
          for (size_t c = 0; c <= k; ++c) solution[r] += inverse[r][c] * right[c];
        std::vector<double> da(g.size());
        for (size_t i = 0; i < da.size(); ++i) {
          double e = -solves[a][i];
          for (size_t c = 0; c < k; ++c) e += solution[c] * solves[pieces + c][i];
          da[i] = e + solution[k];
        }
        directions[a] = project(rows, da);  // removes the rounding of the solves
      }
    } catch (const std::runtime_error&) {
      solved = false;
    }
  }
  if (solved) {
    // The dual of the max-of-pieces model: w on the simplex maximising w^T f - w^T Q w / 2, d = sum_a w_a d_a.
    std::vector<std::vector<double>> q(pieces, std::vector<double>(pieces));
    for (size_t a = 0; a < pieces; ++a)
      for (size_t b = 0; b <= a; ++b)
        q[a][b] = q[b][a] = -0.5 * (dot(model.gradients[a], directions[b]) + dot(model.gradients[b], directions[a]));
    piece_weights_ = pieces > 1 ? simplex_dual(model.values, q) : std::vector<double>{};
    d.assign(g.size(), 0.0);
    for (size_t a = 0; a < pieces; ++a) {
      const double w = pieces > 1 ? piece_weights_[a] : 1.0;
      if (w == 0.0) continue;
      for (size_t i = 0; i < d.size(); ++i) d[i] += w * directions[a][i];
    }
  }
  // A descent direction of the model: max_a (f_a + g_a^T d) < max_a f_a (one piece: g^T d < 0).
  double largest = -kInfinity, predicted = -kInfinity;
  for (size_t a = 0; a < pieces && solved; ++a) {
    largest = std::max(largest, model.values[a]);
    predicted = std::max(predicted, model.values[a] + dot(model.gradients[a], d));
  }
  ok_ = solved && all_finite(d) && (pieces > 1 ? predicted < largest : dot(d, g_proj) < 0.0);
  if (!ok_) {  // not a descent direction: fall back to steepest
    piece_weights_.clear();
    for (size_t j = 0; j < d.size(); ++j) d[j] = -g_proj[j];
  }
  return d;
}

}  // namespace noiselearn
