#pragma once
// The soft privacy-loss-distribution objective (ours) for the geometric-tail families of Gilani et al.: a smooth
// surrogate of the quantity the certified accountant reports, as a function of theta = log p_0 .. log p_N, so that
// the preconditioned gradient (src/train/preconditioned_gradient.hpp) can minimise the certified epsilon itself
// under the same cost constraint instead of the Renyi bound gamma.
//
// What is certified (accounting/pair_accountant.hpp, profile_envelope.hpp): a release may use any query difference
// in [-s, s], so the accountant composes ONE single-release PLD whose privacy profile is the upper envelope
// max_a delta_a(eps) over the aligned shifts a = 1 .. m (m = s / Delta; both signs are the same pair for these
// symmetric families, geometric_tail_pair.hpp), connected linearly in e^eps between the loss-grid points. When
// different shifts dominate at different eps, the n-fold composition of that envelope exceeds the worst same-shift
// composition max_a delta_{a, n}(eps). The objective therefore offers both combinations:
//
// * kEnvelope (default, the certified quantity): every shift's single-release soft PLD (soft_pld_loss.hpp: each
//   outcome's mass split linearly between the two loss-grid neighbours of its privacy loss) on one loss grid; its
//   curve delta_a at the grid points; their pointwise maximum (Danskin at every point); the envelope's masses
//   from the curve's second differences; then the n-fold composition. Where one shift attains the envelope at
//   three consecutive points the envelope's mass IS that shift's mass (taken directly, no cancellation); only at
//   the few points where the maximising shift changes are the second differences computed (they divide by
//   (1 - e^-step)^2, so elsewhere they would amplify rounding by 1e6).
// * kWorstShift: max_a of the same-shift compositions (Danskin: the gradient is the worst shift's). It is the
//   certificate's LOWER bound scenario, m times the composition work, and a test oracle for the envelope.
//
// What is minimised (SoftPldTarget):
// * kEpsilon (default): epsilon(delta) of the composed soft PLD at the given delta. Between two loss-grid points
//   l_j <= eps < l_{j+1}, delta(eps) = omega + S - e^{eps - l_{j+1}} E with S = sum_{l_k > l_j} m_k and
//   E = sum_{l_k > l_j} m_k e^{l_{j+1} - l_k}, so eps is solved in closed form, and by the implicit function
//   theorem d eps / d theta = -(d delta / d theta) / (d delta / d eps) with d delta / d eps = -(omega + S - delta):
//   one backward pass of delta(eps*) at the fixed eps*.
// * kLogDelta: log delta(eps) at the given epsilon (log: delta spans decades along a line search).
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "losses/soft_pld.hpp"

namespace noiselearn {

enum class ShiftCombination { kEnvelope, kWorstShift };
std::string to_string(ShiftCombination combination);
ShiftCombination parse_shift_combination(const std::string& text);  // "envelope", "worst-shift"

enum class SoftPldTarget { kEpsilon, kLogDelta };
std::string to_string(SoftPldTarget target);
SoftPldTarget parse_soft_pld_target(const std::string& text);  // "epsilon", "log-delta"

struct SoftPldFamilyObjectiveOptions {
  int64_t max_shift = 20;     // m = s / Delta
  int64_t compositions = 10;  // n
  SoftPldTarget target = SoftPldTarget::kEpsilon;
  double delta = 1e-6;   // kEpsilon: epsilon is minimised at this delta
  double epsilon = 1.0;  // kLogDelta: log delta is minimised at this epsilon (nats)
  ShiftCombination combination = ShiftCombination::kEnvelope;
  double loss_step = 1e-3;                // nats
  double tail_mass = 1e-15;               // per side and composition step
  int64_t max_points = int64_t{1} << 20;  // a wider single-release loss grid doubles the step
  void validate() const;                  // InputError naming the field
};

// What the objective reports at a point (no gradient).
struct SoftPldFamilyEvaluation {
  double value = 0.0;    // the objective: epsilon (kEpsilon) or log delta (kLogDelta)
  double epsilon = 0.0;  // soft epsilon at options.delta (kEpsilon) or options.epsilon (kLogDelta)
  double delta = 0.0;    // soft delta at that epsilon
  // kWorstShift: the shift of the largest same-shift value. kEnvelope: the shift attaining the envelope at the most
  // single-release loss-grid points that carry envelope mass.
  int64_t worst_shift = 0;
  std::vector<double> shift_values;      // kWorstShift: the objective of every shift a = 1 .. m
  std::vector<int64_t> points_attained;  // kEnvelope: grid points where shift a attains the envelope
  double loss_step = 0.0;                // the step used (raised when the losses span too wide a range)
};

class SoftPldFamilyObjective {
 public:
  SoftPldFamilyObjective(int64_t window, double tail_ratio, SoftPldFamilyObjectiveOptions options);

  const SoftPldFamilyObjectiveOptions& options() const { return options_; }

  SoftPldFamilyEvaluation evaluate(const torch::Tensor& theta) const;  // no gradient
  double value(const torch::Tensor& theta) const;                      // no gradient (line searches)
  // The objective and its gradient in theta (the preconditioned gradient diag(p) grad_p).
  std::pair<double, torch::Tensor> value_and_gradient(const torch::Tensor& theta) const;
  // The objective of the same-shift composition of one shift a (1 .. m) and its gradient.
  std::pair<double, torch::Tensor> shift_value_and_gradient(const torch::Tensor& theta, int64_t shift) const;

  // Cheap diagnostics (no composition): kWorstShift and kEnvelope alike, the shift whose single-release curve
  // delta_a(eps) is the largest at the most loss-grid points where the curves are positive.
  int64_t dominant_single_release_shift(const torch::Tensor& theta) const;

  // The single-release soft PLD of the envelope over the shifts (before composition), differentiable.
  SoftPld envelope_pld(const torch::Tensor& theta, double* loss_step = nullptr) const;

 private:
  struct Singles;  // every shift's single-release soft PLD on one grid
  Singles singles(const torch::Tensor& theta) const;
  // value of a composed PLD, and (with a gradient) the scalar tensor whose gradient is the value's.
  double composed_value(const SoftPld& composed, double step, torch::Tensor* differentiable) const;

  int64_t window_;
  double tail_ratio_;
  SoftPldFamilyObjectiveOptions options_;
  torch::Tensor left_tail_mask_;  // [m, 2N + m - 1], as in RenyiFamilyObjective
};

// epsilon with delta(epsilon) = delta for a composed soft PLD (closed form between grid points, see above);
// *excess = omega + S - delta = -d delta / d eps there. +inf when omega >= delta.
double soft_pld_epsilon(const SoftPld& pld, double loss_step, double delta, double* excess = nullptr);

}  // namespace noiselearn
