#pragma once
// The Renyi-DP objective of Gilani et al. (section 3.2 and 4) for the geometric-tail families, its alpha
// derivatives, and the conversions of a composed RDP bound to (epsilon, delta).
//
// For one direction first||second, the Renyi moment of order alpha > 1 is
//   g_alpha = sum_o first(o)^alpha second(o)^(1 - alpha) = sum_o second(o) e^(alpha l(o)),  l = log first - log second,
// so D_alpha = log g_alpha / (alpha - 1) (eq. 1, 12). With pi(o) the normalised summands, G(alpha) = log g_alpha
// has G' = E_pi[l] and G'' = Var_pi[l] >= 0: G is convex in alpha, and its first two derivatives are available
// in closed form from one pass over the pair.
//
// The family objective (eq. 22-23, 25): over the aligned shifts a = 1 .. m (m = s / Delta),
//   G(alpha) = max_a log g_alpha(p, a),   gamma(alpha) = (n G(alpha) + log(1/delta)) / (alpha - 1),
// which is Mironov's conversion (Prop. 2.4 of the paper) of n-fold composed RDP to epsilon. The max is the
// Danskin choice (its gradient is the active shift's gradient); a smooth max tau log sum_a exp(G_a / tau) is
// an option. The tighter conversion of Balle et al. 2020 (Thm 21) can replace it, see RdpConversion in
// accounting/renyi.hpp.
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "accounting/renyi.hpp"
#include "core/banded_matrix.hpp"
#include "losses/differentiable_pair.hpp"
#include "losses/privacy_loss.hpp"

namespace noiselearn {

// log g_alpha(first || second) = logsumexp(alpha log_first + (1 - alpha) log_second) in one logsumexp.
// Outcomes with first = 0 (-inf) contribute nothing; an outcome with first > 0 and second = 0 gives +inf
// (alpha > 1). Differentiable in both sides and in a tensor alpha, with finite gradients wherever the value is
// finite (no -inf * 0 in the graph).
torch::Tensor log_renyi_moment(const LogPair& pair, const torch::Tensor& alpha);
torch::Tensor log_renyi_moment(const LogPair& pair, double alpha);

// G, G' = E_pi[l], G'' = Var_pi[l] at one alpha (no gradient). Outcomes with an infinite loss make G = +inf
// and the derivatives NaN.
struct RenyiMomentDerivatives {
  double log_moment = 0.0;  // G
  double first = 0.0;       // G'
  double second = 0.0;      // G''
};
RenyiMomentDerivatives renyi_moment_derivatives(const LogPair& pair, double alpha);

// epsilon(alpha) of an n-fold composition whose per-release log moment is G(alpha), and its first two alpha
// derivatives, for one conversion (with u = n G / (alpha - 1), the composed RDP, and L = log(1/delta)):
//   Mironov 2017 Prop. 3 (eq. 25):  epsilon = u + L / (alpha - 1)
//   Balle et al. 2020 Thm 21 (= Asoodeh et al. 2021 = Canonne, Kamath, Steinke 2020 Prop. 12, which written
//   as an epsilon is the same formula):
//                                   epsilon = u + log((alpha - 1) / alpha) + (L - log alpha) / (alpha - 1)
// u' = (n G' - u) / (alpha - 1), u'' = (n G'' - 2 u') / (alpha - 1) (differentiate u (alpha - 1) = n G twice).
// The Balle term h = log(alpha - 1) - log alpha + (L - log alpha) / (alpha - 1) has h' = -(L - log alpha) /
// (alpha - 1)^2 (the 1/(alpha-1) - 1/alpha - 1/(alpha (alpha-1)) parts cancel) and
// h'' = 1 / (alpha (alpha - 1)^2) + 2 (L - log alpha) / (alpha - 1)^3.
struct ConvertedEpsilon {
  double value = 0.0;
  double first = 0.0;
  double second = 0.0;
};
ConvertedEpsilon converted_epsilon(RdpConversion conversion, double alpha, int64_t compositions, double delta,
                                   const RenyiMomentDerivatives& moment);

// Alg. 3 line 21 with guards: alpha - f' / f'' if f'' > 0 and both are finite (else alpha unchanged); a step
// that would reach alpha <= 1 moves alpha halfway to 1 instead, so alpha stays > 1.
double guarded_newton_alpha(double alpha, double first_derivative, double second_derivative);

// Alg. 3 line 1 (experiments/errata.md, E-Gilani-3: line 1 is right, the prose is not):
// alpha0 = sqrt(2 log(1/delta) / n) sigma / s + 1, the optimal order of the Gaussian mechanism under Mironov's
// conversion.
double gaussian_optimal_alpha(double sigma_over_sensitivity, int64_t compositions, double delta);

struct RenyiFamilyObjectiveOptions {
  int64_t max_shift = 20;     // m = s / Delta: shifts a = 1 .. m are the candidates of Thm 3.6
  int64_t compositions = 10;  // n (N_c in the paper)
  double delta = 1e-6;
  double alpha = 2.0;  // the current Renyi order (Alg. 3 updates it by Newton steps)
  RdpConversion conversion = RdpConversion::kMironov;
  // 0: hard max over the shifts (Danskin). > 0: tau log sum_a exp(G_a / tau), which is >= the max by at most
  // tau log m.
  double smooth_max_temperature = 0.0;
  // curvature() with the hard max: the weight of the other shifts' curvature next to the worst shift's 1. The
  // worst shift a alone couples p_k only with p_(k +- a): its curvature is a graph Laplacian that splits into
  // residue classes mod a joined only at 0 and in the tails, nearly singular, so a Newton step on it moves whole
  // classes at almost no cost and makes combs that the other shifts punish. A little of their curvature keeps
  // the steps meaningful; the line search on the true max decides. 0.01 certifies the lowest epsilon of the weights
  // tried in the Fig. 1 setting (tests/benchmarks/README.md, "The Renyi objective's other-shift curvature").
  double other_shift_curvature = 0.01;
  void validate() const;  // InputError naming the field
};

// What the objective reports at a point (no gradient).
struct RenyiFamilyEvaluation {
  double gamma = 0.0;               // epsilon(alpha) of the chosen conversion
  double log_moment = 0.0;          // G(alpha): the max (or smooth max) over the shifts
  int64_t worst_shift = 0;          // argmax_a G_a
  std::vector<double> log_moments;  // G_a for a = 1 .. m
};

// The quadratic model of an objective f = max_a f_a of smooth pieces, for a Newton (SQP) direction: the pieces'
// values and gradients, and a positive semidefinite banded curvature (the weighted pieces' Hessians, in the
// coordinates the gradients are taken in).
struct MaxNewtonModel {
  SymmetricBandedMatrix curvature;
  std::vector<double> values;
  std::vector<std::vector<double>> gradients;
};

// gamma(alpha) of a geometric-tail family as a function of theta = log p_0 .. log p_N, for all shifts at once
// (one batched logsumexp over an [m, 2N + m + 1] matrix of log summands).
class RenyiFamilyObjective {
 public:
  RenyiFamilyObjective(int64_t window, double tail_ratio, RenyiFamilyObjectiveOptions options);

  const RenyiFamilyObjectiveOptions& options() const { return options_; }
  double alpha() const { return options_.alpha; }
  void set_alpha(double alpha);  // InputError unless finite and > 1

  // G_a = log g_alpha(p, a), a = 1 .. m, shape [m], differentiable in theta and in a tensor alpha.
  torch::Tensor log_moments(const torch::Tensor& theta, const torch::Tensor& alpha) const;
  // gamma at the current alpha as a differentiable scalar.
  torch::Tensor gamma(const torch::Tensor& theta) const;

  RenyiFamilyEvaluation evaluate(const torch::Tensor& theta) const;  // no gradient
  double value(const torch::Tensor& theta) const;                    // gamma, no gradient (line searches)
  // gamma and d gamma / d theta (the paper's preconditioned gradient: diag(p) grad_p = grad_theta).
  std::pair<double, torch::Tensor> value_and_gradient(const torch::Tensor& theta) const;

  // gamma, gamma', gamma'' in alpha at theta (G of the worst shift, or the smooth max's derivatives).
  ConvertedEpsilon alpha_derivatives(const torch::Tensor& theta) const;
  // One guarded Newton step of alpha on gamma (Alg. 3 line 21); returns the new alpha (also stored).
  double newton_update(const torch::Tensor& theta);
  // Minimises gamma over alpha at theta (G is convex in alpha; guarded Newton steps until the step is below
  // 1e-12 alpha, at most 50); returns the new alpha (also stored).
  double minimise_alpha(const torch::Tensor& theta);
  // Moves alpha to candidate if gamma (max over shifts) falls below value_before, else halves the step (at most
  // 30 times) and keeps alpha if none helps; returns alpha.
  double accept_alpha(const torch::Tensor& theta, double candidate, double value_before);

  // The quadratic model of gamma = max_a gamma_a for Newton directions (ours), in the relative coordinates q
  // (p_new = p q, at q = 1; grad_q = grad_theta there).
  // Pieces: gamma_a = c G_a + h(alpha), c = n / (alpha - 1), for every shift a, with their theta-gradients.
  // Curvature: a summand of g_alpha(p, a) is f = P(j + a)^alpha P(j)^(1 - alpha); with P(i) = p_k(i) q_k(i),
  // k(i) = min(|i|, N) (the tails scale with p_N), its q-Hessian at q = 1 is alpha (alpha - 1) f (e_u - e_v)(e_u -
  // e_v)^T with u = k(j + a), v = k(j): positive semidefinite, zero when u = v (tail against tail, constant
  // loss). So g_a is convex in q, and Hess(g_a) / g_a is a graph Laplacian coupling k with k +- a' (a' <= a): a
  // band of width m. The model's curvature is c sum_a (w_a + other) Hess(g_a) / g_a, w the weights of the shifts
  // (the previous step's multipliers of the max; empty: the worst shift), other = other_shift_curvature: the
  // Hessian of the weighted pieces without their negative semidefinite rank-one terms (-c grad G grad G^T), so
  // a Newton step on it is never too long. With the smooth max, the pieces are not used: one piece, the
  // smooth max itself, with the curvature of the softmax weights.
  MaxNewtonModel newton_model(const torch::Tensor& theta, const std::vector<double>& weights) const;

 private:
  int64_t window_;
  double tail_ratio_;
  RenyiFamilyObjectiveOptions options_;
  torch::Tensor left_tail_mask_;  // [m, 2N + m - 1]: explicit cells of the shared range that are in shift a's left tail
  torch::Tensor shifts_;          // [m] float64: 1 .. m
};

// The plain reference (yardstick and test oracle): log g_alpha(p, a) by a per-term loop over the explicit
// outcomes j = -N - a + 1 .. N - 1 and the two closed-form tails, one exp per term, no tensors.
double reference_log_renyi_moment(const std::vector<double>& log_window, double tail_ratio, int64_t shift,
                                  double alpha);

}  // namespace noiselearn
