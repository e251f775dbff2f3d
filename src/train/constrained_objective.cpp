#include "train/constrained_objective.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace noiselearn {

torch::Tensor theta_tensor(const std::vector<double>& theta) {
  return torch::tensor(theta, torch::TensorOptions().dtype(torch::kDouble));
}

std::vector<double> values_of(const torch::Tensor& tensor) {
  const torch::Tensor cpu = tensor.detach().to(torch::kCPU).to(torch::kDouble).contiguous();
  return std::vector<double>(cpu.data_ptr<double>(), cpu.data_ptr<double>() + cpu.numel());
}

std::string to_string(AlphaOuterUpdate update) { return update == AlphaOuterUpdate::kMinimise ? "minimise" : "newton"; }

AlphaOuterUpdate parse_alpha_outer_update(const std::string& text) {
  if (text == "newton") return AlphaOuterUpdate::kNewtonStep;
  if (text == "minimise") return AlphaOuterUpdate::kMinimise;
  throw InputError(fmt::format("optimiser.alpha_update '{}' is not one of: newton, minimise", text));
}

ConstrainedObjective renyi_family_objective(std::shared_ptr<RenyiFamilyObjective> objective,
                                            AlphaOuterUpdate alpha_update) {
  ConstrainedObjective out;
  out.name = "renyi gamma";
  out.value = [objective](const torch::Tensor& theta) { return objective->value(theta); };
  out.value_and_gradient = [objective](const torch::Tensor& theta) {
    auto [value, gradient] = objective->value_and_gradient(theta);
    return ObjectiveEvaluation{value, gradient};
  };
  out.outer_update = [objective, alpha_update](const torch::Tensor& theta) {
    const double before = objective->alpha();
    const double after = alpha_update == AlphaOuterUpdate::kMinimise ? objective->minimise_alpha(theta)
                                                                     : objective->newton_update(theta);
    return after != before;
  };
  out.newton_model = [objective](const torch::Tensor& theta, const std::vector<double>& weights) {
    return objective->newton_model(theta, weights);
  };
  out.diagnostics = [objective](const torch::Tensor& theta) {
    const RenyiFamilyEvaluation e = objective->evaluate(theta);
    return ObjectiveDiagnostics{objective->alpha(), e.worst_shift, e.gamma};
  };
  return out;
}

ConstrainedObjective soft_pld_family_objective(std::shared_ptr<SoftPldFamilyObjective> objective) {
  ConstrainedObjective out;
  out.name = objective->options().target == SoftPldTarget::kEpsilon ? "soft-pld epsilon" : "soft-pld log delta";
  out.value = [objective](const torch::Tensor& theta) { return objective->value(theta); };
  out.value_and_gradient = [objective](const torch::Tensor& theta) {
    auto [value, gradient] = objective->value_and_gradient(theta);
    return ObjectiveEvaluation{value, gradient};
  };
  // No second composition per record: the shift from the single-release curves, gamma left to the record (NaN:
  // the objective itself).
  out.diagnostics = [objective](const torch::Tensor& theta) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return ObjectiveDiagnostics{nan, objective->dominant_single_release_shift(theta), nan};
  };
  return out;
}

}  // namespace noiselearn
