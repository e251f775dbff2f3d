#pragma once
// Checks shared by the model tests: a model reproduces a table, and its output is a valid distribution with
// the model's invariants.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <vector>

#include "models/noise_model.hpp"

namespace noiselearn::test {

inline torch::Tensor uniform(int64_t n, double lower, double upper, uint64_t seed) {
  auto generator = at::detail::createCPUGenerator(seed);
  return lower + (upper - lower) * torch::rand({n}, generator, torch::kDouble);
}

inline torch::Tensor log_probabilities_without_grad(NoiseModel& model) {
  torch::NoGradGuard no_grad;
  return model.log_probabilities().detach();
}

// log p of the model equals log of `expected` within 1e-12 max(1, |log p|) where expected > 0 (1e-12
// relative in p, or in log p where p < 1/e: the rounding of the logarithm itself is |log p| * 1e-16), is
// exactly -inf where expected = 0, and the support mask is exactly where expected > 0.
inline void require_reproduces(NoiseModel& model, const std::vector<double>& expected) {
  const torch::Tensor log_p = log_probabilities_without_grad(model);
  const torch::Tensor mask = model.support_mask();
  REQUIRE(log_p.size(0) == static_cast<int64_t>(expected.size()));
  double worst = 0.0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const double value = log_p[static_cast<int64_t>(i)].item<double>();
    const bool inside = mask[static_cast<int64_t>(i)].item<bool>();
    if (expected[i] > 0.0) {
      const double reference = std::log(expected[i]);
      worst = std::max(worst, std::abs(value - reference) / std::max(1.0, std::abs(reference)));
      if (!inside) FAIL_CHECK(fmt::format("entry {} has p > 0 but is outside the support", i));
    } else if (value != -INFINITY || inside) {
      FAIL_CHECK(fmt::format("entry {} should be outside the support: log p = {}, mask {}", i, value, inside));
    }
  }
  INFO(fmt::format("largest |log p - log p_expected| / max(1, |log p_expected|) = {:.3e}", worst));
  CHECK(worst <= 1e-12);
}

// Normalised (logsumexp = 0 to rounding), -inf exactly outside the support mask, finite inside.
inline void require_distribution(NoiseModel& model) {
  const torch::Tensor log_p = log_probabilities_without_grad(model);
  const torch::Tensor mask = model.support_mask();
  CHECK(std::abs(torch::logsumexp(log_p, 0).item<double>()) <= 1e-14);
  CHECK(torch::isfinite(log_p.masked_select(mask)).all().item<bool>());
  CHECK((log_p.masked_select(mask.logical_not()) == -INFINITY).all().item<bool>());
}

// log p mirrored bit for bit and non-increasing away from the centre (bit for bit, no tolerance).
inline void require_symmetric_monotone(NoiseModel& model) {
  const torch::Tensor log_p = log_probabilities_without_grad(model);
  const int64_t n = log_p.size(0), outer = n / 2;
  CHECK(torch::equal(log_p, log_p.flip(0)));
  const torch::Tensor right = log_p.narrow(0, n - outer - 1, outer + 1);  // from the centre outwards
  CHECK((right.narrow(0, 1, outer) <= right.narrow(0, 0, outer)).all().item<bool>());
  CHECK(table_of(model).is_symmetric_monotone());
}

// Gradients of a loss with every log p in the support and every p in it are finite, for every parameter.
inline void require_finite_gradients(NoiseModel& model, uint64_t seed) {
  model.zero_grad();
  const torch::Tensor log_p = model.log_probabilities();
  const torch::Tensor mask = model.support_mask();
  const torch::Tensor w = uniform(log_p.size(0), -1.0, 1.0, seed);
  ((w * log_p).masked_select(mask).sum() + (w * log_p.exp()).sum()).backward();
  for (const auto& parameter : model.parameters()) {
    REQUIRE(parameter.grad().defined());
    CHECK(torch::isfinite(parameter.grad()).all().item<bool>());
  }
}

}  // namespace noiselearn::test
