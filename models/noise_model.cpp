#include "models/noise_model.hpp"

#include <cmath>

namespace noiselearn {

NoiseModel::Table NoiseModel::log_probabilities_and_masses() {
  torch::Tensor log_p = log_probabilities();
  torch::Tensor p;
  {
    torch::NoGradGuard no_grad;
    p = log_p.detach().exp();
  }
  return {log_p, p};
}

NoiseTable table_of(NoiseModel& model, TableProvenance provenance) {
  torch::NoGradGuard no_grad;
  const torch::Tensor log_p = model.log_probabilities().detach().to(torch::kCPU, torch::kDouble).contiguous();
  std::vector<double> p(static_cast<size_t>(log_p.numel()));
  const double* data = log_p.data_ptr<double>();
  for (size_t i = 0; i < p.size(); ++i) p[i] = std::exp(data[i]);
  // Exponentiating a normalised log-softmax leaves a sum within a few ulps of 1 (times the grid size);
  // renormalise in float64 so that the table validates at 1e-12.
  const double total = compensated_sum(p);
  for (double& v : p) v /= total;
  if (provenance.source.empty()) provenance.source = "model " + model.model_name();
  return NoiseTable(model.grid(), std::move(p), model.support_kind(), std::move(provenance));
}

torch::Tensor log_probabilities_of(const NoiseTable& table) {
  torch::Tensor out = torch::empty({table.size()}, torch::kDouble);
  double* data = out.data_ptr<double>();
  for (int64_t i = 0; i < table.size(); ++i) data[i] = table.p(i) > 0.0 ? std::log(table.p(i)) : -INFINITY;
  return out;
}

}  // namespace noiselearn
