#pragma once
// The Extended Moments Accountant as a differentiable loss l^MA (Sommer et al., Prop. 17 and section 3.4.1):
// for one direction first||second,
//   delta = 1 - (1 - omega)^n + exp(n Gamma_lambda - lambda eps),
//   Gamma_lambda = log sum_{first, second > 0} first (first/second)^lambda,  omega = sum_{second = 0} first,
// with lambda = lambda_sq^2 + 1e-4 trained jointly with the noise, one lambda per direction (parameters
// "lambda_sq_forward" and "lambda_sq_backward"). Everything is in log space: Gamma by logsumexp, the
// composed distinguishing mass by -expm1(n log1p(-omega)).
//
// Overflow guard (ours): early in training n Gamma - lambda eps can exceed 700 and exp would overflow to inf.
// The moment term uses exp(t) for t <= 0 and 1 + t above (continuous with a continuous derivative), so the loss
// and its gradient stay finite and still push t down; delta >= 1 carries no information anyway.
#include <utility>

#include "losses/privacy_loss.hpp"

namespace noiselearn {

struct MomentsAccountantLossOptions {
  double epsilon = 0.3;
  int64_t compositions = 1;
  double initial_lambda_sq = 1.0;  // lambda = 1 + 1e-4 at the start
  // true: Gamma_lambda and omega of a direction by one fused function (one pass, hand backward) on float64 CPU
  // tensors; false: by tensor operations, the reference (the same values and gradients to rounding).
  bool fused = true;
  void validate() const;  // InputError naming the field
};

class MomentsAccountantLoss : public PrivacyLoss {
 public:
  explicit MomentsAccountantLoss(MomentsAccountantLossOptions options);
  std::string loss_name() const override { return "moments-accountant"; }
  torch::Tensor direction_delta(const LogPair& pair, int direction) override;
  double lambda(int direction) const;  // current lambda of a direction
  bool has_direction_parameters() const override { return true; }
  // (Gamma_lambda, omega clamped to [0, 1 - 1e-16]) by tensor operations: the reference of the fused path.
  static std::pair<torch::Tensor, torch::Tensor> reference_log_moment_and_omega(const LogPair& pair,
                                                                                const torch::Tensor& lambda);

 private:
  MomentsAccountantLossOptions options_;
  torch::Tensor lambda_sq_[2];
};

}  // namespace noiselearn
