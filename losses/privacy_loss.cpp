#include "losses/privacy_loss.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/avx2_clones.hpp"
#include "core/enum_names.hpp"
#include "core/errors.hpp"

namespace noiselearn {

constexpr NameTable<DirectionCombination, 2> kDirectionCombinations{
    {{DirectionCombination::kSum, "sum"}, {DirectionCombination::kMax, "max"}}};

DirectionCombination parse_direction_combination(const std::string& text) {
  return parse_named(kDirectionCombinations, text, "direction combination");
}

std::string to_string(DirectionCombination combination) {
  return std::string(name_of(kDirectionCombinations, combination));
}

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// u_i = (x_i + y_{n-1-i}) / 2 and v = flip u, which is v_i = (y_i + x_{n-1-i}) / 2 bit for bit (the same two numbers
// added), both stored in one pass (u_i also to v_{n-1-i}), in an AVX2 clone where the machine has it.
NOISELEARN_AVX2_CLONES void mirrored_means(const double* __restrict x, const double* __restrict y, int64_t n,
                                           double* __restrict u, double* __restrict v) {
  for (int64_t i = 0; i < n; ++i) {
    const double mean = 0.5 * (x[i] + y[n - 1 - i]);
    u[i] = mean;
    v[n - 1 - i] = mean;
  }
}

// (a', b') = ((a + flip b) / 2, (b + flip a) / 2) for a mirror-symmetric pair, where they equal (a, b) bit for bit:
// the forward returns a and b themselves (autograd makes them views, without a copy), the backward is
// ga = (ga' + flip gb') / 2, gb = (gb' + flip ga') / 2 = flip ga (float64 CPU; elsewhere the same by tensor
// operations).
class Symmetrised : public torch::autograd::Function<Symmetrised> {
 public:
  static variable_list forward(AutogradContext* /*ctx*/, const torch::Tensor& a, const torch::Tensor& b) {
    return {a, b};
  }
  static variable_list backward(AutogradContext* /*ctx*/, variable_list grad_outputs) {
    // An output the loss did not use has an undefined gradient: zero.
    if (!grad_outputs[0].defined() && !grad_outputs[1].defined()) return {torch::Tensor(), torch::Tensor()};
    const auto defined = [](const torch::Tensor& g, const torch::Tensor& other) {
      return g.defined() ? g.to(torch::kDouble).contiguous() : torch::zeros_like(other, torch::kDouble);
    };
    const torch::Tensor ga = defined(grad_outputs[0], grad_outputs[1]), gb = defined(grad_outputs[1], grad_outputs[0]);
    torch::Tensor out_a = torch::empty_like(ga), out_b = torch::empty_like(gb);
    mirrored_means(ga.data_ptr<double>(), gb.data_ptr<double>(), ga.size(0), out_a.data_ptr<double>(),
                   out_b.data_ptr<double>());
    return {out_a, out_b};
  }
};

}  // namespace

namespace {

// #{i in [start, stop) : b_i != a_{n-1-i}} (NaN counts), in an integer, which GCC vectorises (a bool &= reduction it
// does not), in an AVX2 clone where the machine has it.
NOISELEARN_AVX2_CLONES int64_t count_mirror_differences(const double* a, const double* b, int64_t n, int64_t start,
                                                        int64_t stop) {
  int64_t differences = 0;
  for (int64_t i = start; i < stop; ++i) differences += !(b[i] == a[n - 1 - i]);
  return differences;
}

}  // namespace

bool is_mirror_symmetric(const DifferentiablePair& pair) {
  torch::NoGradGuard guard;
  if (pair.log_a.dim() != 1 || pair.log_a.sizes() != pair.log_b.sizes()) return false;
  if (!is_cpu_float64_vector(pair.log_a) || !is_cpu_float64_vector(pair.log_b))
    return torch::equal(pair.log_b, pair.log_a.flip(0));
  const int64_t n = pair.log_a.size(0);
  const double* a = pair.log_a.data_ptr<double>();
  const double* b = pair.log_b.data_ptr<double>();
  // In blocks of 1,024 without a branch inside (so the comparisons vectorise), stopping at the first block with a
  // difference. NaN is never symmetric.
  for (int64_t start = 0; start < n; start += 1024)
    if (count_mirror_differences(a, b, n, start, std::min<int64_t>(n, start + 1024)) != 0) return false;
  return true;
}

torch::Tensor PrivacyLoss::delta(const DifferentiablePair& pair, DirectionCombination combination) {
  if (symmetric_shortcut && !has_direction_parameters() && is_mirror_symmetric(pair)) {
    // B||A is A||B with the outcomes in reverse order: one evaluation serves both. On a' = (a + flip b) / 2,
    // b' = (b + flip a) / 2 (equal to a and b bit for bit, their means of equal numbers being exact) the
    // gradient of 2 D(a', b') is that of D(a, b) + D(b, a): ∇_a D(a, b) + flip ∇_b D(a, b), the second term being
    // the gradient of the reversed direction. For the maximum, D(a', b') gets half of each (torch's rule at a
    // tie); the per-direction evaluation differs from it by rounding only, and then takes one direction's
    // gradient. The two are the same gradient for a model whose tables are symmetric for every parameter value.
    torch::Tensor a, b;
    if (is_cpu_float64_vector(pair.log_a) && is_cpu_float64_vector(pair.log_b)) {
      const variable_list symmetrised = Symmetrised::apply(pair.log_a, pair.log_b);
      a = symmetrised[0];
      b = symmetrised[1];
    } else {
      a = 0.5 * (pair.log_a + pair.log_b.flip(0));
      b = 0.5 * (pair.log_b + pair.log_a.flip(0));
    }
    // a' = a bit for bit, so A's masses serve a'.
    const torch::Tensor one = direction_delta(LogPair{a, b, pair.a}, 0);
    return combination == DirectionCombination::kSum ? 2.0 * one : one;
  }
  const torch::Tensor forward = direction_delta(pair.forward(), 0);
  const torch::Tensor backward = direction_delta(pair.backward(), 1);
  return combination == DirectionCombination::kSum ? forward + backward : torch::maximum(forward, backward);
}

}  // namespace noiselearn
