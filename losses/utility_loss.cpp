#include "losses/utility_loss.hpp"

#include "losses/differentiable_pair.hpp"

namespace noiselearn {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// sum_i c_i p_i with p = e^{log p} and fixed costs c_i, in one pass (float64 CPU): the gradient is c_i p_i.
class LinearCost : public torch::autograd::Function<LinearCost> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& log_p, const torch::Tensor& costs,
                               const torch::Tensor& masses) {
    // masses: e^{log p} from the caller, or empty (an undefined tensor cannot be an argument of apply).
    const torch::Tensor p = masses.numel() == log_p.numel() ? masses.detach().contiguous() : log_p.detach().exp();
    const int64_t n = p.size(0);
    const double* pp = p.data_ptr<double>();
    const double* c = costs.data_ptr<double>();
    torch::Tensor terms_t = torch::empty({n}, p.options());
    double* terms = terms_t.data_ptr<double>();
    // Four interleaved partial sums: independent additions (a running sum waits for each one).
    double partial[4] = {0.0, 0.0, 0.0, 0.0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
      for (int lane = 0; lane < 4; ++lane) {
        terms[i + lane] = c[i + lane] * pp[i + lane];
        partial[lane] += terms[i + lane];
      }
    for (; i < n; ++i) {
      terms[i] = c[i] * pp[i];
      partial[0] += terms[i];
    }
    const double total = (partial[0] + partial[1]) + (partial[2] + partial[3]);
    ctx->saved_data["terms"] = terms_t;
    return torch::full({}, total, p.options());
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const torch::Tensor terms_t = ctx->saved_data["terms"].toTensor();
    if (!grad_outputs[0].defined()) return {torch::Tensor(), torch::Tensor(), torch::Tensor()};
    if (grad_outputs[0].numel() != 1 || !grad_outputs[0].device().is_cpu())
      return {terms_t * grad_outputs[0], torch::Tensor(), torch::Tensor()};
    // c_i p_i times the scalar gradient, in one loop (the same products as the tensor operation).
    const double g = grad_outputs[0].to(torch::kDouble).item<double>();
    torch::Tensor out = torch::empty_like(terms_t);
    const double* terms = terms_t.data_ptr<double>();
    double* o = out.data_ptr<double>();
    for (int64_t i = 0; i < terms_t.numel(); ++i) o[i] = terms[i] * g;
    return {out, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor utility_loss(const torch::Tensor& log_p, const Grid& grid, const UtilitySpecification& options,
                           const torch::Tensor& p) {
  if (is_cpu_float64_vector(log_p)) {
    // The costs at the grid points, computed as the tensor version below computes them, once per grid and utility
    // (a training calls this every epoch with the same ones).
    struct Costs {
      Grid grid;
      UtilitySpecification utility;
      torch::Tensor costs;
    };
    thread_local Costs cached{};
    const bool same = cached.costs.defined() && cached.grid.origin == grid.origin && cached.grid.step == grid.step &&
                      cached.grid.size == grid.size && cached.utility.kind == options.kind &&
                      cached.utility.tail_threshold == options.tail_threshold;
    if (!same) {
      const torch::Tensor x = grid.origin + grid.step * torch::arange(grid.size, log_p.options());
      torch::Tensor costs;
      switch (options.kind) {
        case UtilityKind::kL1:
          costs = x.abs();
          break;
        case UtilityKind::kL2:
        case UtilityKind::kSecondMoment:
          costs = x * x;
          break;
        case UtilityKind::kTailProbability:
          costs = (x.abs() > options.tail_threshold + 1e-9 * grid.step).to(torch::kDouble);
          break;
      }
      cached = {grid, options, costs.contiguous()};
    }
    const torch::Tensor& costs = cached.costs;
    const bool masses_usable = p.defined() && is_cpu_float64_vector(p) && p.sizes() == log_p.sizes();
    const torch::Tensor value = LinearCost::apply(log_p, costs, masses_usable ? p : torch::empty({0}, log_p.options()));
    return options.kind == UtilityKind::kL2 ? torch::sqrt(value) : value;
  }
  const auto tensor_options = log_p.options();
  const torch::Tensor x = grid.origin + grid.step * torch::arange(grid.size, tensor_options);
  const torch::Tensor p = torch::exp(log_p);
  switch (options.kind) {
    case UtilityKind::kL1:
      return (x.abs() * p).sum();
    case UtilityKind::kL2:
      return torch::sqrt((x * x * p).sum());
    case UtilityKind::kSecondMoment:
      return (x * x * p).sum();
    case UtilityKind::kTailProbability: {
      const torch::Tensor outside = x.abs() > options.tail_threshold + 1e-9 * grid.step;
      return torch::where(outside, p, torch::zeros_like(p)).sum();
    }
  }
  return torch::Tensor();
}

}  // namespace noiselearn
