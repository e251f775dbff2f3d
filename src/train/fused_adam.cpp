#include "train/fused_adam.hpp"

#include <cmath>
#include <cstdint>

#include "core/avx2_clones.hpp"

namespace noiselearn {

namespace {

// One Adam update of n elements, in torch's order of operations: m = beta1 m + (1 - beta1) g, v = beta2 v +
// ((1 - beta2) g) g, denominator = sqrt(v) / sqrt(bias_correction2) + eps, p = p + (-step_size) (m / denominator).
// g == nullptr: a zero gradient. An AVX2 clone (this file is compiled without errno for sqrt, so that it vectorises;
// sqrt is correctly rounded either way).
NOISELEARN_AVX2_CLONES void adam_update(double* p, const double* g, double* m, double* v, int64_t n, double beta1,
                                        double beta2, double root_bias_correction2, double eps, double step_size) {
  const double one_minus_beta1 = 1.0 - beta1, one_minus_beta2 = 1.0 - beta2;
  if (g != nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      m[i] = beta1 * m[i] + one_minus_beta1 * g[i];
      v[i] = beta2 * v[i] + one_minus_beta2 * g[i] * g[i];
      p[i] = p[i] + -step_size * (m[i] / (std::sqrt(v[i]) / root_bias_correction2 + eps));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      m[i] = beta1 * m[i];
      v[i] = beta2 * v[i];
      p[i] = p[i] + -step_size * (m[i] / (std::sqrt(v[i]) / root_bias_correction2 + eps));
    }
  }
}

bool fusable(const torch::Tensor& t) {
  return t.device().is_cpu() && t.scalar_type() == torch::kDouble && t.is_contiguous();
}

}  // namespace

FusedAdam::FusedAdam(std::vector<torch::Tensor> parameters, torch::optim::AdamOptions options)
    : torch::optim::Adam(std::move(parameters), options) {}

void FusedAdam::clear_gradients() {
  for (auto& group : param_groups()) {
    auto& params = group.params();
    if (had_gradient_.size() != params.size()) had_gradient_.assign(params.size(), false);
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].grad().defined()) had_gradient_[i] = true;
      params[i].mutable_grad().reset();
    }
  }
}

torch::Tensor FusedAdam::step(LossClosure closure) {
  bool fused = param_groups().size() == 1 && closure == nullptr;
  if (fused) {
    const auto& options = static_cast<const torch::optim::AdamOptions&>(param_groups()[0].options());
    fused = !options.amsgrad() && options.weight_decay() == 0.0;
    for (const auto& p : param_groups()[0].params())
      fused = fused && fusable(p) && (!p.grad().defined() || (fusable(p.grad()) && p.grad().sizes() == p.sizes()));
  }
  if (!fused) {
    // torch's step, with the zeros zero_grad would have left for a parameter that had a gradient before.
    for (auto& group : param_groups())
      for (size_t i = 0; i < group.params().size(); ++i)
        if (!group.params()[i].grad().defined() && i < had_gradient_.size() && had_gradient_[i])
          group.params()[i].mutable_grad() = torch::zeros_like(group.params()[i]);
    return torch::optim::Adam::step(closure);
  }
  torch::NoGradGuard no_grad;
  auto& group = param_groups()[0];
  const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
  const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
  auto& params = group.params();
  for (size_t i = 0; i < params.size(); ++i) {
    torch::Tensor& p = params[i];
    const bool has_gradient = p.grad().defined();
    if (!has_gradient && !(i < had_gradient_.size() && had_gradient_[i])) continue;  // torch skips it too
    const std::string key = c10::guts::to_string(p.unsafeGetTensorImpl());           // torch's key for the state
    auto found = state_.find(key);
    if (found == state_.end()) {
      auto state = std::make_unique<torch::optim::AdamParamState>();
      state->step(0);
      state->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
      state->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
      found = state_.emplace(key, std::move(state)).first;
    }
    auto& state = static_cast<torch::optim::AdamParamState&>(*found->second);
    if (!fusable(state.exp_avg()) || !fusable(state.exp_avg_sq())) {
      state.exp_avg(state.exp_avg().to(torch::kDouble).contiguous());
      state.exp_avg_sq(state.exp_avg_sq().to(torch::kDouble).contiguous());
    }
    state.step(state.step() + 1);
    const double bias_correction1 = 1.0 - std::pow(beta1, static_cast<double>(state.step()));
    const double bias_correction2 = 1.0 - std::pow(beta2, static_cast<double>(state.step()));
    const double step_size = options.lr() / bias_correction1;
    adam_update(p.data_ptr<double>(), has_gradient ? p.grad().data_ptr<double>() : nullptr,
                state.exp_avg().data_ptr<double>(), state.exp_avg_sq().data_ptr<double>(), p.numel(), beta1, beta2,
                std::sqrt(bias_correction2), options.eps(), step_size);
  }
  return {};
}

}  // namespace noiselearn
