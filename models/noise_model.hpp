#pragma once
// A noise model: a LibTorch module whose parameters produce a noise table on a fixed grid
// (a model produces a table from trainable parameters).
//
// log_probabilities() returns log p on the model's grid: a float64 tensor of shape [grid.size], normalised
// (logsumexp = 0), on the module's device, differentiable in the parameters. Entries outside the model's
// support are -inf (p = 0) and stay so: a model is strictly positive on its support unless it is meant to
// truncate, and the support is explicit (support_mask()).
#include <torch/torch.h>

#include <string>

#include "core/grid.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

class NoiseModel : public torch::nn::Module {
 public:
  ~NoiseModel() override = default;

  virtual const Grid& grid() const = 0;
  virtual SupportKind support_kind() const = 0;
  virtual std::string model_name() const = 0;  // "sigmoid-stack", "free-logits", "monotone-logits"

  // log p on the grid, shape [grid.size], float64, normalised.
  virtual torch::Tensor log_probabilities() = 0;

  // log p and p = e^{log p} (detached: no gradient) of one evaluation, for the losses and the utility that need both.
  // By default p is exp(log p); a model that has p at hand (the fused sigmoid stack) returns it without exponentials,
  // within a few roundings of exp(log p).
  struct Table {
    torch::Tensor log_p, p;
  };
  virtual Table log_probabilities_and_masses();

  // true where p may be positive (shape [grid.size], bool, on the module's device).
  virtual torch::Tensor support_mask() const = 0;
};

// The current table of a model, detached and on the CPU, validated as a NoiseTable.
NoiseTable table_of(NoiseModel& model, TableProvenance provenance = {});

// A float64 CPU tensor of log p for a table (-inf where p = 0).
torch::Tensor log_probabilities_of(const NoiseTable& table);

}  // namespace noiselearn
