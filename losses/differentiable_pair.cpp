#include "losses/differentiable_pair.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace noiselearn {

namespace {

torch::Tensor pad_with_zeros(const torch::Tensor& log_p, int64_t before, int64_t after) {
  const auto options = log_p.options();
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  return torch::cat(
      {torch::full({before}, minus_infinity, options), log_p, torch::full({after}, minus_infinity, options)});
}

// (fill x k, v, fill x k) for a 1-D contiguous float64 vector v on the CPU, written in one pass.
torch::Tensor padded_copy(const torch::Tensor& v, int64_t k, double fill) {
  const int64_t E = v.size(0);
  torch::Tensor out = torch::empty({E + 2 * k}, v.options());
  const double* from = v.data_ptr<double>();
  double* to = out.data_ptr<double>();
  std::fill(to, to + k, fill);
  std::copy(from, from + E, to + k);
  std::fill(to + k + E, to + E + 2 * k, fill);
  return out;
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The additive pair in one autograd function (1-D contiguous float64 on the CPU): the forward writes
// W = (-inf x k, log p, -inf x k) once and returns A = (log p, -inf x k) = W[k, k + N) and B = (-inf x k, log p) =
// W[0, N), two contiguous views of it (one copy of log p instead of two); the backward is d log p_i = dA_i + dB_{i+k},
// one pass. The same values and gradients as the two concatenations (whose backward is two slices and an addition),
// bit for bit: each gradient component is the same single addition.
class AdditivePair : public torch::autograd::Function<AdditivePair> {
 public:
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& log_p, int64_t shift_cells) {
    ctx->saved_data["k"] = shift_cells;
    const int64_t E = log_p.size(0), N = E + shift_cells;
    torch::Tensor padded = padded_copy(log_p, shift_cells, -std::numeric_limits<double>::infinity());
    return {padded.narrow(0, shift_cells, N), padded.narrow(0, 0, N)};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const int64_t k = ctx->saved_data["k"].toInt();
    // An output that took no part in the loss has an undefined gradient: zero.
    const torch::Tensor ga =
        grad_outputs[0].defined() ? grad_outputs[0].to(torch::kDouble).contiguous() : torch::Tensor();
    const torch::Tensor gb =
        grad_outputs[1].defined() ? grad_outputs[1].to(torch::kDouble).contiguous() : torch::Tensor();
    const int64_t N = (ga.defined() ? ga : gb).size(0), E = N - k;
    torch::Tensor out = torch::empty({E}, torch::kDouble);
    double* g = out.data_ptr<double>();
    const double* u = ga.defined() ? ga.data_ptr<double>() : nullptr;
    const double* v = gb.defined() ? gb.data_ptr<double>() + k : nullptr;
    if (u != nullptr && v != nullptr)
      for (int64_t i = 0; i < E; ++i) g[i] = u[i] + v[i];
    else if (u != nullptr)
      std::copy(u, u + E, g);
    else
      std::copy(v, v + E, g);
    return {out, torch::Tensor()};
  }
};

}  // namespace

DifferentiablePair additive_pair(const torch::Tensor& log_p, int64_t shift_cells, const torch::Tensor& p) {
  if (shift_cells < 0) throw std::invalid_argument("shift must be non-negative");
  DifferentiablePair pair;
  if (is_cpu_float64_vector(log_p)) {
    const variable_list tables = AdditivePair::apply(log_p, shift_cells);
    pair = {tables[0], tables[1]};
  } else {
    pair = additive_pair_by_concatenation(log_p, shift_cells);
  }
  if (p.defined()) {
    torch::NoGradGuard no_grad;
    if (p.sizes() != log_p.sizes()) throw std::invalid_argument("the masses p must have the shape of log p");
    const torch::Tensor masses = p.detach();
    if (is_cpu_float64_vector(masses)) {
      // (p, 0 x k) and (0 x k, p) as two views of one padded copy, as the log tables above.
      const int64_t N = masses.size(0) + shift_cells;
      const torch::Tensor padded = padded_copy(masses, shift_cells, 0.0);
      pair.a = padded.narrow(0, shift_cells, N);
      pair.b = padded.narrow(0, 0, N);
    } else {
      const torch::Tensor zeros = torch::zeros({shift_cells}, masses.options());
      pair.a = torch::cat({masses, zeros});
      pair.b = torch::cat({zeros, masses});
    }
  }
  return pair;
}

DifferentiablePair additive_pair_by_concatenation(const torch::Tensor& log_p, int64_t shift_cells) {
  if (shift_cells < 0) throw std::invalid_argument("shift must be non-negative");
  return {pad_with_zeros(log_p, 0, shift_cells), pad_with_zeros(log_p, shift_cells, 0)};
}

DifferentiablePair subsampled_pair(const torch::Tensor& log_p, int64_t shift_cells, double sampling_rate) {
  DifferentiablePair pair = additive_pair(log_p, shift_cells);
  if (sampling_rate >= 1.0) return pair;
  // log((1-q) A + q B), safe where both are -inf (logaddexp of two -inf gives -inf with finite gradients
  // only when handled: replace by a finite stand-in and mask afterwards).
  const torch::Tensor both_zero = torch::logical_and(torch::isinf(pair.log_a), torch::isinf(pair.log_b));
  const torch::Tensor a =
      torch::where(both_zero, torch::zeros_like(pair.log_a), pair.log_a) + std::log1p(-sampling_rate);
  const torch::Tensor b = torch::where(both_zero, torch::zeros_like(pair.log_b), pair.log_b) + std::log(sampling_rate);
  const torch::Tensor mixed = torch::logaddexp(a, b);
  pair.log_b = torch::where(both_zero, torch::full_like(mixed, -std::numeric_limits<double>::infinity()), mixed);
  return pair;
}

torch::Tensor finite_loss_mask(const LogPair& pair) {
  torch::NoGradGuard guard;
  return torch::logical_and(torch::isfinite(pair.log_first), torch::isfinite(pair.log_second));
}

torch::Tensor infinite_loss_mask(const LogPair& pair) {
  torch::NoGradGuard guard;
  return torch::logical_and(torch::isfinite(pair.log_first), torch::logical_not(torch::isfinite(pair.log_second)));
}

bool is_cpu_float64_vector(const torch::Tensor& t) {
  return t.device().is_cpu() && t.scalar_type() == torch::kDouble && t.is_contiguous() && t.dim() == 1;
}

bool is_cpu_float64(const LogPair& pair) {
  return is_cpu_float64_vector(pair.log_first) && is_cpu_float64_vector(pair.log_second) &&
         pair.log_first.size(0) == pair.log_second.size(0);
}

torch::Tensor safe_privacy_losses(const LogPair& pair) {
  const torch::Tensor mask = finite_loss_mask(pair);
  const torch::Tensor first = torch::where(mask, pair.log_first, torch::zeros_like(pair.log_first));
  const torch::Tensor second = torch::where(mask, pair.log_second, torch::zeros_like(pair.log_second));
  return first - second;
}

MaskedLogPair masked_log_pair(const LogPair& pair) {
  MaskedLogPair m;
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor first_finite = torch::isfinite(pair.log_first);
    m.both_finite = torch::logical_and(first_finite, torch::isfinite(pair.log_second));
    m.infinite_loss = torch::logical_and(first_finite, torch::logical_not(m.both_finite));
  }
  m.log_first = torch::where(m.both_finite, pair.log_first, torch::zeros_like(pair.log_first));
  m.log_second = torch::where(m.both_finite, pair.log_second, torch::zeros_like(pair.log_second));
  return m;
}

}  // namespace noiselearn
