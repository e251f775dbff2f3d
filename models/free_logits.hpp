#pragma once
// Free logits: one trainable logit per point of the support, log p = log_softmax over the support
// (a model produces a table: this is the most general table on a grid).
//
// General: a logit for every support point of the grid. Symmetric: logits on the non-positive half, mirrored
// (requires a symmetric grid), so p is symmetric bit for bit. Points outside the support have no parameter
// and log p = -inf exactly (truncated noise stays truncated through training).
#include <torch/torch.h>

#include <memory>
#include <string>

#include "models/noise_model.hpp"

namespace noiselearn {

struct FreeLogitsOptions {
  // Logits on the non-positive half of a symmetric grid, mirrored (SupportKind::kSymmetric).
  bool symmetric = false;
};

class FreeLogits : public NoiseModel {
 public:
  // Uniform on the whole grid (all logits 0). Throws InputError if options.symmetric and the grid is not
  // symmetric around 0.
  explicit FreeLogits(const Grid& grid, const FreeLogitsOptions& options = {});

  // Reproduces `table`: the support is where p > 0, each logit is log p there, so log p of the model equals
  // log of the table to rounding. With options.symmetric the positive set of the table must be symmetric
  // (else InputError); the probabilities are projected onto symmetric tables by averaging p(x) and p(-x)
  // (the closest symmetric table, which preserves the mass; a symmetric table is reproduced exactly).
  static std::shared_ptr<FreeLogits> from_table(const NoiseTable& table, const FreeLogitsOptions& options = {});

  const Grid& grid() const override { return grid_; }
  // Symmetric if options.symmetric, else one-sided if the support holds no point below 0, else general.
  SupportKind support_kind() const override { return kind_; }
  std::string model_name() const override { return "free-logits"; }
  torch::Tensor log_probabilities() override;
  torch::Tensor support_mask() const override { return support_mask_; }

  // One logit per support point (of the half when symmetric), in ascending x.
  const torch::Tensor& logits() const { return logits_; }

 private:
  // `log_weights`: log of the (unnormalised) probabilities on the parameterised points (the grid, or its
  // half), -inf outside the support.
  FreeLogits(const Grid& grid, const FreeLogitsOptions& options, const torch::Tensor& log_weights);

  Grid grid_;
  FreeLogitsOptions options_;
  SupportKind kind_;
  int64_t parameterised_points_;  // grid.size, or the size of the half when symmetric
  torch::Tensor logits_;
  torch::Tensor support_indices_;  // buffer: the support among the parameterised points
  torch::Tensor support_mask_;     // buffer: [grid.size], bool
};

}  // namespace noiselearn
