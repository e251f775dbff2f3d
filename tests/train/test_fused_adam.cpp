// FusedAdam against torch::optim::Adam (its reference): the same parameters after many steps on the same gradients
// (to rounding), the zero-gradient rule for a parameter that gets no gradient in an epoch, the fallback, and the
// state in the same archive.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "train/fused_adam.hpp"

using namespace noiselearn;

namespace {

std::vector<torch::Tensor> fresh_parameters(torch::Dtype dtype = torch::kDouble) {
  torch::manual_seed(11);
  return {torch::randn({1000}, dtype).requires_grad_(), torch::randn({}, dtype).requires_grad_(),
          torch::randn({7}, dtype).requires_grad_()};
}

// The gradient of epoch t: a fixed random direction scaled per epoch, different per parameter; parameter 2 gets
// none in the epochs t % 3 == 2 (after the first).
std::vector<torch::Tensor> gradients(const std::vector<torch::Tensor>& parameters, int t) {
  std::vector<torch::Tensor> out;
  for (size_t i = 0; i < parameters.size(); ++i) {
    torch::manual_seed(100 * t + static_cast<int>(i));
    if (i == 2 && t > 0 && t % 3 == 2) {
      out.emplace_back();
      continue;
    }
    out.push_back(torch::randn(parameters[i].sizes(), parameters[i].options().requires_grad(false)) * (1.0 + 0.1 * t) +
                  0.01 * parameters[i].detach());
  }
  return out;
}

double max_relative_difference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, ((a[i] - b[i]).abs() / b[i].abs().clamp_min(1e-300)).max().item<double>());
  return worst;
}

}  // namespace

TEST_CASE("FusedAdam: torch's Adam to rounding over 200 steps, with a parameter left without a gradient",
          "[train][adam]") {
  const double lr = GENERATE(1e-3, 0.1);
  CAPTURE(lr);
  std::vector<torch::Tensor> fused_parameters = fresh_parameters(), torch_parameters = fresh_parameters();
  FusedAdam fused(fused_parameters, torch::optim::AdamOptions(lr));
  torch::optim::Adam reference(torch_parameters, torch::optim::AdamOptions(lr));
  for (int t = 0; t < 200; ++t) {
    fused.clear_gradients();
    reference.zero_grad();
    const auto g = gradients(fused_parameters, t);
    for (size_t i = 0; i < g.size(); ++i) {
      if (!g[i].defined()) continue;
      fused_parameters[i].mutable_grad() = g[i].clone();
      // torch's zero_grad leaves zeros that backward adds into.
      if (torch_parameters[i].grad().defined())
        torch_parameters[i].mutable_grad().add_(g[i]);
      else
        torch_parameters[i].mutable_grad() = g[i].clone();
    }
    fused.step();
    reference.step();
  }
  // Each step moves a parameter by about lr; 200 steps of rounding differences (a fused multiply-add in torch's
  // kernels) stay near 1e-16 of the parameter's size times the steps.
  const double difference = max_relative_difference(fused_parameters, torch_parameters);
  INFO(fmt::format("max relative difference {:.3e}", difference));
  CHECK(difference <= 1e-12);
  // The parameters moved (a step that did nothing would also agree).
  const std::vector<torch::Tensor> start = fresh_parameters();
  CHECK(max_relative_difference(start, fused_parameters) > 1e3 * lr * 1e-3);
  // The same state in the same archive: torch's Adam loads FusedAdam's and takes the same next step.
  torch::serialize::OutputArchive archive;
  fused.save(archive);
  std::ostringstream bytes;
  archive.save_to(bytes);
  std::vector<torch::Tensor> loaded_parameters;
  for (const auto& p : fused_parameters) loaded_parameters.push_back(p.detach().clone().requires_grad_());
  torch::optim::Adam loaded(loaded_parameters, torch::optim::AdamOptions(lr));
  torch::serialize::InputArchive input;
  const std::string text = bytes.str();
  input.load_from(text.data(), text.size());
  loaded.load(input);
  const auto g = gradients(fused_parameters, 201);  // every parameter has one
  fused.clear_gradients();
  for (size_t i = 0; i < g.size(); ++i) {
    fused_parameters[i].mutable_grad() = g[i].clone();
    loaded_parameters[i].mutable_grad() = g[i].clone();
  }
  fused.step();
  loaded.step();
  CHECK(max_relative_difference(fused_parameters, loaded_parameters) <= 1e-14);
}

TEST_CASE("FusedAdam: float32 parameters take torch's step (the fallback), with the same zero-gradient rule",
          "[train][adam]") {
  std::vector<torch::Tensor> fused_parameters = fresh_parameters(torch::kFloat),
                             torch_parameters = fresh_parameters(torch::kFloat);
  FusedAdam fused(fused_parameters, torch::optim::AdamOptions(0.01));
  torch::optim::Adam reference(torch_parameters, torch::optim::AdamOptions(0.01));
  for (int t = 0; t < 20; ++t) {
    fused.clear_gradients();
    reference.zero_grad();
    const auto g = gradients(fused_parameters, t);
    for (size_t i = 0; i < g.size(); ++i) {
      if (!g[i].defined()) continue;
      fused_parameters[i].mutable_grad() = g[i].clone();
      if (torch_parameters[i].grad().defined())
        torch_parameters[i].mutable_grad().add_(g[i]);
      else
        torch_parameters[i].mutable_grad() = g[i].clone();
    }
    fused.step();
    reference.step();
  }
  for (size_t i = 0; i < fused_parameters.size(); ++i) CHECK(torch::equal(fused_parameters[i], torch_parameters[i]));
}
