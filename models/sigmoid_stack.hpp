#pragma once
// The sigmoid-stack noise model of Sommer et al., section 3.3, eq. (4): on the non-positive half of a
// symmetric grid
//
//   f(x) = A² + Σ_{j=1..K} B_j² σ(C (x − F_j)),
//
// log f mirrored to x > 0 and normalised in log space: log p = log f − logsumexp(log f) over the whole grid.
// Squaring A and B_j makes f increasing on x ≤ 0, so p is symmetric, non-increasing away from 0 and strictly
// positive everywhere. A, B and F are trained; the slope C is fixed.
#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/noise_model.hpp"

namespace noiselearn {

struct SigmoidStackOptions {
  // K, the number of stacked sigmoids (Sommer et al. use 10,000 on 60,001 points).
  int64_t sigmoids = 10000;
  // C, the fixed slope: 500 "to allow sudden jumps" of p (Sommer et al.); a jump spans about 10 / C in x.
  double slope = 500.0;
  // true: the O((E + K) log K) evaluation, exact to float64 rounding: fused (sigmoid_stack_fused.hpp: one
  // autograd function with a hand-derived backward) on float64 CPU tensors, else the same in tensor operations
  // (sigmoid_stack_log_profile_fast); false: the O(E K) direct matrix (sigmoid_stack_log_profile_direct), the
  // reference.
  bool exact_fast = true;
  // With exact_fast: the fused evaluation where it applies (true), or always the tensor operations (false, the
  // reference for benchmarks and tests).
  bool fused = true;
  // A at initialisation (Sommer et al.: 10).
  double initial_a = 10.0;
  // B_j ~ U[0, 1) at initialisation from a CPU generator with this seed; nullopt draws from torch's default
  // generator, so a caller's torch::manual_seed makes the model reproducible.
  std::optional<uint64_t> seed;

  // Throws InputError naming the option unless sigmoids >= 1, slope and initial_a are finite and slope > 0.
  void validate() const;
};

class SigmoidStack : public NoiseModel {
 public:
  // Initialised as Sommer et al.: A = initial_a, B_j ~ U[0, 1), F_j equidistant in [−r, 0) (F_j = −r + j r / K),
  // r the grid's half-width. Throws InputError unless the grid is symmetric around 0.
  explicit SigmoidStack(const Grid& grid, const SigmoidStackOptions& options = {});

  const Grid& grid() const override { return grid_; }
  SupportKind support_kind() const override { return SupportKind::kSymmetric; }
  std::string model_name() const override { return "sigmoid-stack"; }
  // forward_fused() (forward_fast() where the fused path does not apply) or forward_direct(), according to
  // options().exact_fast.
  torch::Tensor log_probabilities() override;
  // The fused evaluation's p from its normalisation (e^{running - top} / total), without an exponential.
  Table log_probabilities_and_masses() override;
  // All true: every probability is positive.
  torch::Tensor support_mask() const override;

  // log p [grid.size] through the fast and the direct evaluation of log f.
  torch::Tensor forward_fast();
  torch::Tensor forward_direct();
  // The fused evaluation; an undefined tensor where it does not apply (see sigmoid_stack_fused.hpp).
  torch::Tensor forward_fused();

  // The trained parameters of eq. (4): A (scalar), B [K], F [K]. Tensors share storage with the module's
  // parameters (set values under torch::NoGradGuard with copy_).
  const torch::Tensor& A() const { return a_; }
  const torch::Tensor& B() const { return b_; }
  const torch::Tensor& F() const { return f_; }
  const SigmoidStackOptions& options() const { return options_; }

 private:
  // Mirrors log f from the half to the grid and normalises.
  torch::Tensor normalised(const torch::Tensor& log_half_profile) const;

  Grid grid_;
  SigmoidStackOptions options_;
  Grid half_;  // the non-positive half of grid_, where eq. (4) is evaluated
  torch::Tensor a_, b_, f_;
  std::vector<int64_t> centre_order_;  // the fused evaluation's sorting permutation of F, from the last call
};

}  // namespace noiselearn
