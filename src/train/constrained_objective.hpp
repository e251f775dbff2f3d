#pragma once
// The objective the preconditioned gradient method minimises, as a callback of theta = log p (value, gradient, an
// optional outer update, diagnostics, a Newton model), and the two adapters that make one of a loss: the paper's
// Renyi objective gamma(alpha) (losses/renyi_objective.hpp) and our soft-PLD objective
// (losses/soft_pld_family_objective.hpp).
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "losses/renyi_objective.hpp"
#include "losses/soft_pld_family_objective.hpp"

namespace noiselearn {

struct ObjectiveEvaluation {
  double value = 0.0;
  torch::Tensor gradient;  // d value / d theta, float64 [N + 1]
};

// What a history record shows besides the objective (NaN / 0 when the objective has no such notion).
struct ObjectiveDiagnostics {
  double alpha = std::numeric_limits<double>::quiet_NaN();
  int64_t worst_shift = 0;
  double gamma = std::numeric_limits<double>::quiet_NaN();  // NaN: the record shows the objective
};

// theta as the objective takes it (a float64 tensor) and back: the preconditioned gradient keeps theta as a vector.
torch::Tensor theta_tensor(const std::vector<double>& theta);
std::vector<double> values_of(const torch::Tensor& tensor);

struct ConstrainedObjective {
  std::string name;
  // f(theta) without gradient (line searches).
  std::function<double(const torch::Tensor& theta)> value;
  // f(theta) and grad_theta f.
  std::function<ObjectiveEvaluation(const torch::Tensor& theta)> value_and_gradient;
  // Optional: changes the objective itself (the alpha Newton step); returns true if it changed.
  std::function<bool(const torch::Tensor& theta)> outer_update;
  // Optional: the diagnostics of a history record.
  std::function<ObjectiveDiagnostics(const torch::Tensor& theta)> diagnostics;
  // Optional: the objective as a max of smooth pieces with a banded curvature in q = p_new / p at q = 1, given
  // the pieces' weights of the previous step (empty: none yet). The Newton direction needs it.
  std::function<MaxNewtonModel(const torch::Tensor& theta, const std::vector<double>& weights)> newton_model;
};

// How the outer update moves alpha.
enum class AlphaOuterUpdate {
  kNewtonStep,  // one guarded Newton step (Alg. 3 line 21)
  kMinimise,    // Newton steps until alpha minimises gamma at the current p (ours; G is convex in alpha)
};
std::string to_string(AlphaOuterUpdate update);
AlphaOuterUpdate parse_alpha_outer_update(const std::string& text);  // "newton", "minimise"

// The paper's objective: gamma(alpha) of eq. 25 (or the conversion chosen in the options) at the current
// alpha, with alpha's update as the outer update, and the objective's banded curvature. The objective object is
// shared: its alpha is the one the run ends with.
ConstrainedObjective renyi_family_objective(std::shared_ptr<RenyiFamilyObjective> objective,
                                            AlphaOuterUpdate alpha_update = AlphaOuterUpdate::kNewtonStep);

// The soft-PLD objective (ours, losses/soft_pld_family_objective.hpp): the soft epsilon at delta (or log delta at
// epsilon) of the composed envelope over the shifts, the certified quantity made smooth. No outer update; the
// diagnostics give the shift attaining the single-release envelope most and the objective as gamma.
ConstrainedObjective soft_pld_family_objective(std::shared_ptr<SoftPldFamilyObjective> objective);

}  // namespace noiselearn
