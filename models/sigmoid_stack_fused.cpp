#include "models/sigmoid_stack_fused.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "models/sigmoid_stack_fused_evaluation.hpp"

namespace noiselearn {

namespace {

using fused_sigmoid_stack::doubles;
using fused_sigmoid_stack::Evaluation;
using fused_sigmoid_stack::StackGradients;
using fused_sigmoid_stack::StackShape;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The evaluation's tensors that the backward pass reads, by the name the context keeps each under.
const std::array<std::pair<const char*, torch::Tensor Evaluation::*>, 12> kSavedTensors{
    {{"order", &Evaluation::order},
     {"c", &Evaluation::c},
     {"w", &Evaluation::w},
     {"start", &Evaluation::start},
     {"end", &Evaluation::end},
     {"hi", &Evaluation::hi},
     {"G", &Evaluation::G},
     {"lin", &Evaluation::lin},
     {"anchors", &Evaluation::anchors},
     {"log_lin", &Evaluation::log_lin},
     {"argmax", &Evaluation::argmax},
     {"shifted", &Evaluation::shifted}}};

class FusedSigmoidStack : public torch::autograd::Function<FusedSigmoidStack> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& A, const torch::Tensor& B,
                               const torch::Tensor& F, const Grid& grid, double slope, const Evaluation& evaluation) {
    ctx->saved_data["A"] = A.detach();
    ctx->saved_data["B"] = B.detach();
    const Evaluation& v = evaluation;
    for (const auto& [name, tensor] : kSavedTensors) ctx->saved_data[name] = v.*tensor;
    ctx->saved_data["C"] = slope;
    ctx->saved_data["E"] = grid.size;
    ctx->saved_data["x0"] = grid.origin;
    ctx->saved_data["h"] = grid.step;
    (void)F;
    ctx->saved_data["normaliser"] = v.normaliser;
    ctx->saved_data["total"] = v.total;
    // log p itself is not kept for the backward pass (it recomputes the half from log f), so it is returned as it
    // is, without a copy.
    return v.log_p;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    Evaluation v;
    for (const auto& [name, tensor] : kSavedTensors) v.*tensor = ctx->saved_data[name].toTensor();
    v.total = ctx->saved_data["total"].toDouble();
    const int64_t E = ctx->saved_data["E"].toInt();
    const StackShape s{E,
                       E - E / 2,
                       v.c.size(0),
                       ctx->saved_data["x0"].toDouble(),
                       ctx->saved_data["h"].toDouble(),
                       ctx->saved_data["C"].toDouble()};
    const torch::Tensor grad_t = grad_outputs[0].to(torch::kCPU, torch::kDouble).contiguous();
    const StackGradients g = fused_sigmoid_stack::stack_gradients(s, ctx->saved_data["A"].toTensor(),
                                                                  ctx->saved_data["B"].toTensor(), v, grad_t);
    return {g.A, g.B, g.F, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

bool fusable(const torch::Tensor& t) {
  return t.device().is_cpu() && t.scalar_type() == torch::kDouble && t.is_contiguous();
}

}  // namespace

torch::Tensor sigmoid_stack_log_probabilities_fused(const Grid& grid, const torch::Tensor& A, const torch::Tensor& B,
                                                    const torch::Tensor& F, double slope,
                                                    std::vector<int64_t>* order_hint, torch::Tensor* probabilities) {
  if (!fusable(A) || !fusable(B) || !fusable(F) || B.dim() != 1 || F.sizes() != B.sizes()) return torch::Tensor();
  // The evaluation counts centres and indexes points in 32 bits (hi, argmax): larger stacks or grids go to the
  // reference.
  constexpr int64_t kLargest32 = std::numeric_limits<int32_t>::max() - 1;
  if (F.size(0) > kLargest32 || grid.size > kLargest32) return torch::Tensor();
  {
    torch::NoGradGuard guard;
    // Non-finite parameters (a diverged step) go to the reference, which propagates them for the NaN guard.
    const auto all_finite = [](const torch::Tensor& t) {
      const double* v = t.data_ptr<double>();
      return std::all_of(v, v + t.numel(), [](double x) { return std::isfinite(x); });
    };
    if (!all_finite(A) || !all_finite(B) || !all_finite(F)) return torch::Tensor();
  }
  Evaluation evaluation;
  {
    torch::NoGradGuard guard;
    if (!fused_sigmoid_stack::evaluate(grid, A, B, F, slope, order_hint, evaluation)) return torch::Tensor();
    if (probabilities != nullptr) {
      const int64_t E = grid.size, H = E - E / 2;
      *probabilities = doubles(E);
      double* p = probabilities->data_ptr<double>();
      const double* shifted = evaluation.shifted.data_ptr<double>();
      const double inverse_total = 1.0 / evaluation.total;
      for (int64_t i = 0; i < H; ++i) p[i] = shifted[i] * inverse_total;
      for (int64_t i = H; i < E; ++i) p[i] = p[E - 1 - i];
    }
  }
  return FusedSigmoidStack::apply(A, B, F, grid, slope, evaluation);
}

}  // namespace noiselearn
