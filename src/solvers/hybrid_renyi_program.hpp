#pragma once
// The convex program of the Hybrid Renyi DP optimum (Xiao et al. eq. 25-27 as corrected, hybrid_renyi_optimum.hpp
// states it): its constraints g_(d,e)(p) <= 0, their values in a cancellation-free form, and their derivatives in the
// scaled coordinates the barrier method steps in. The barrier method that solves it is in hybrid_renyi_barrier.hpp;
// this is the program alone, so that the two can be read (and tested) apart.
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "accounting/vectorised_math.hpp"
#include "core/banded_matrix.hpp"
#include "solvers/hybrid_renyi_optimum.hpp"

namespace noiselearn {

// The constraints g_(d,e) <= 0 of the program and their scaled derivatives.
class HybridRenyiProgram {
 public:
  explicit HybridRenyiProgram(const HybridRenyiOptimumOptions& o) : o_(o), n_(o.range_steps + 1), s_(o.shift_steps) {
    cost_.resize(static_cast<size_t>(n_));
    for (int64_t j = 0; j < n_; ++j) {
      const double x = static_cast<double>(j) * o.step;
      cost_[static_cast<size_t>(j)] = o.cost == OneSidedCost::kMean ? x : x * x;
    }
    if (o.neighbours == NeighbourRelation::kAnySequence)
      pairs_ = {{{0, 0}, {0, 1}, {1, 0}, {1, 1}}};
    else
      pairs_ = {{{0, 0}, {1, 1}}};
    k_ = (o.alpha - 1.0) * o.epsilon;
  }

  int64_t size() const { return n_; }
  size_t constraints() const { return pairs_.size(); }
  const std::vector<double>& cost_vector() const { return cost_; }
  double cost(const std::vector<double>& p) const {
    double c = 0.0;
    for (int64_t j = 0; j < n_; ++j) c += cost_[static_cast<size_t>(j)] * p[static_cast<size_t>(j)];
    return c;
  }

  // Tail index ranges: e = 0 the bottom s cells (m_up), e = 1 the top s cells (m_down).
  int64_t tail_begin(int e) const { return e == 0 ? 0 : n_ - s_; }
  int64_t tail_end(int e) const { return e == 0 ? s_ : n_; }
  // Direction d: pairs (numerator a, denominator b) = (j, j - s) for up, (j - s, j) for down, j = s .. n - 1.

  struct Values {
    std::array<double, 2> excess{};               // E_d = sum a expm1((alpha - 1) log(a / b))
    std::array<std::vector<double>, 2> exponent;  // per d: (alpha - 1) log(a / b) at j = s .. n - 1 (index j - s)
    std::array<double, 2> tail{};                 // m_e
    std::array<double, 2> slack{};                // delta - T m_e
    std::array<double, 2> bound{};                // r_e = expm1((K + log slack_e) / T) = rho_e - 1
    std::vector<double> g;                        // per pair (d, e): E_d - m_d - r_e
    bool in_domain = false;
  };

  // false outside the domain (p <= 0 somewhere, a tail mass with T m >= delta, or an overflow).
  bool evaluate(const std::vector<double>& p, Values& v) const {
    v.in_domain = false;
    for (int64_t j = 0; j < n_; ++j)
      if (!(p[static_cast<size_t>(j)] > 0.0)) return false;
    const double am1 = o_.alpha - 1.0, t = static_cast<double>(o_.compositions);
    // The logarithms and exponentials by vectorised passes over the cells (the transcendentals are the solve's main
    // cost).
    std::vector<double> terms(static_cast<size_t>(n_ - s_));
    for (int d = 0; d < 2; ++d) {
      std::vector<double>& x = v.exponent[static_cast<size_t>(d)];
      x.resize(static_cast<size_t>(n_ - s_));
      for (int64_t j = s_; j < n_; ++j) {
        const double a = p[static_cast<size_t>(d == 0 ? j : j - s_)], b = p[static_cast<size_t>(d == 0 ? j - s_ : j)];
        x[static_cast<size_t>(j - s_)] = a / b;
      }
      log_in_place(x);
      for (double& value : x) value *= am1;
      terms = x;
      expm1_in_place(terms);
      double e = 0.0;
      for (int64_t j = s_; j < n_; ++j)
        e += p[static_cast<size_t>(d == 0 ? j : j - s_)] * terms[static_cast<size_t>(j - s_)];
      if (!std::isfinite(e)) return false;
      v.excess[static_cast<size_t>(d)] = e;
    }
    for (int e = 0; e < 2; ++e) {
      double m = 0.0;
      for (int64_t j = tail_begin(e); j < tail_end(e); ++j) m += p[static_cast<size_t>(j)];
      const double slack = o_.delta - t * m;
      if (!(slack > 0.0)) return false;
      v.tail[static_cast<size_t>(e)] = m;
      v.slack[static_cast<size_t>(e)] = slack;
      v.bound[static_cast<size_t>(e)] = std::expm1((k_ + std::log(slack)) / t);
    }
    v.g.resize(pairs_.size());
    for (size_t i = 0; i < pairs_.size(); ++i) {
      const auto [d, e] = pairs_[i];
      v.g[i] = v.excess[static_cast<size_t>(d)] - v.tail[static_cast<size_t>(d)] - v.bound[static_cast<size_t>(e)];
    }
    v.in_domain = true;
    return true;
  }

  // u_i = diag(p) grad g_i (scaled gradients), one vector per constraint.
  void scaled_gradients(const std::vector<double>& p, const Values& v, std::vector<std::vector<double>>& u) const {
    const double alpha = o_.alpha, am1 = alpha - 1.0, t = static_cast<double>(o_.compositions);
    std::array<std::vector<double>, 2> ed;  // diag(p) grad (E_d - m_d)
    for (int d = 0; d < 2; ++d) {
      auto& w = ed[static_cast<size_t>(d)];
      w.assign(static_cast<size_t>(n_), 0.0);
      std::vector<double> power = v.exponent[static_cast<size_t>(d)];  // (a / b)^(alpha - 1), from evaluate's p
      exp_in_place(power);
      for (int64_t j = s_; j < n_; ++j) {
        const int64_t ja = d == 0 ? j : j - s_, jb = d == 0 ? j - s_ : j;
        const double a = p[static_cast<size_t>(ja)];
        const double f = a * power[static_cast<size_t>(j - s_)];  // a^alpha b^(1 - alpha)
        w[static_cast<size_t>(ja)] += alpha * f - a;              // a d/da [f - a]
        w[static_cast<size_t>(jb)] -= am1 * f;                    // b d/db f
      }
      for (int64_t j = tail_begin(d); j < tail_end(d); ++j) w[static_cast<size_t>(j)] -= p[static_cast<size_t>(j)];
    }
    u.assign(pairs_.size(), {});
    for (size_t i = 0; i < pairs_.size(); ++i) {
      const auto [d, e] = pairs_[i];
      u[i] = ed[static_cast<size_t>(d)];
      // -r_e: d/dm of -(rho - 1) is rho / (delta - T m).
      const double rho = 1.0 + v.bound[static_cast<size_t>(e)];
      const double slope = rho / v.slack[static_cast<size_t>(e)];
      (void)t;
      for (int64_t j = tail_begin(e); j < tail_end(e); ++j)
        u[i][static_cast<size_t>(j)] += p[static_cast<size_t>(j)] * slope;
    }
  }

  // Adds sum_i weight_i diag(p) Hess g_i diag(p) to the band.
  void add_scaled_hessians(const std::vector<double>& p, const Values& v, const std::vector<double>& weight,
                           SymmetricBandedMatrix& band) const {
    const double alpha = o_.alpha, am1 = alpha - 1.0, t = static_cast<double>(o_.compositions);
    std::array<double, 2> wd{}, we{};
    for (size_t i = 0; i < pairs_.size(); ++i) {
      wd[static_cast<size_t>(pairs_[i].first)] += weight[i];
      we[static_cast<size_t>(pairs_[i].second)] += weight[i];
    }
    for (int d = 0; d < 2; ++d) {
      if (wd[static_cast<size_t>(d)] == 0.0) continue;
      std::vector<double> power = v.exponent[static_cast<size_t>(d)];  // (a / b)^(alpha - 1), from evaluate's p
      exp_in_place(power);
      for (int64_t j = s_; j < n_; ++j) {
        const int64_t ja = d == 0 ? j : j - s_, jb = d == 0 ? j - s_ : j;
        const double a = p[static_cast<size_t>(ja)];
        // diag(p) Hess(a^alpha b^(1 - alpha)) diag(p) = alpha (alpha - 1) f [1, -1]^T [1, -1].
        const double h = wd[static_cast<size_t>(d)] * alpha * am1 * a * power[static_cast<size_t>(j - s_)];
        band.add(ja, ja, h);
        band.add(jb, jb, h);
        band.add(ja, jb, -h);
      }
    }
    for (int e = 0; e < 2; ++e) {
      if (we[static_cast<size_t>(e)] == 0.0) continue;
      const double slack = v.slack[static_cast<size_t>(e)], rho = 1.0 + v.bound[static_cast<size_t>(e)];
      const double curvature = we[static_cast<size_t>(e)] * (t - 1.0) * rho / (slack * slack);  // d2/dm2 of -rho
      for (int64_t j = tail_begin(e); j < tail_end(e); ++j)
        for (int64_t k = tail_begin(e); k <= j; ++k)
          band.add(j, k, curvature * p[static_cast<size_t>(j)] * p[static_cast<size_t>(k)]);
    }
  }

 private:
  HybridRenyiOptimumOptions o_;
  int64_t n_, s_;
  double k_;
  std::vector<double> cost_;
  std::vector<std::pair<int, int>> pairs_;
};

}  // namespace noiselearn
