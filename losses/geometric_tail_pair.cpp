#include "losses/geometric_tail_pair.hpp"

#include <cmath>
#include <stdexcept>

namespace noiselearn {

torch::Tensor extended_log_probabilities(const torch::Tensor& theta, double tail_ratio, int64_t extra) {
  if (extra < 1) throw std::invalid_argument("extended_log_probabilities: extra must be at least 1");
  if (theta.dim() != 1 || theta.size(0) < 2)
    throw std::invalid_argument("extended_log_probabilities: theta must be log p_0 .. log p_N with N >= 1");
  if (!(tail_ratio > 0.0 && tail_ratio < 1.0))
    throw std::invalid_argument("extended_log_probabilities: r must lie in (0, 1)");
  const int64_t n = theta.size(0) - 1;
  // i = -N - extra + 1 .. N + extra - 1; |i| indexes the window up to N, beyond it the tail adds
  // (|i| - N) log r to log p_N.
  const auto index_options = torch::TensorOptions().dtype(torch::kLong).device(theta.device());
  const torch::Tensor i = torch::arange(-n - extra + 1, n + extra, index_options);
  const torch::Tensor magnitude = i.abs();
  const torch::Tensor beyond = (magnitude - n).clamp_min(0).to(theta.options().dtype(torch::kDouble));
  return theta.index_select(0, magnitude.clamp_max(n)) + beyond * std::log(tail_ratio);
}

LogPair geometric_tail_pair(const torch::Tensor& theta, double tail_ratio, int64_t shift) {
  if (shift < 1) throw std::invalid_argument("geometric_tail_pair: the shift must be at least 1 bin");
  const torch::Tensor extended = extended_log_probabilities(theta, tail_ratio, shift);
  const int64_t n = theta.size(0) - 1, a = shift;  // i = -N - a + 1 .. N + a - 1
  // Explicit j = -N - a + 1 .. N - 1: second = P(j) is extended[0 .. 2N + a - 2], first = P(j + a) the same
  // range moved up by a.
  const int64_t explicit_outcomes = 2 * n + a - 1;
  const torch::Tensor second_explicit = extended.narrow(0, 0, explicit_outcomes);
  const torch::Tensor first_explicit = extended.narrow(0, a, explicit_outcomes);
  // Tail masses in closed form: p_N / (1 - r) and p_N r^a / (1 - r).
  const torch::Tensor log_p_n = theta.narrow(0, n, 1);
  const double log_tail = -std::log1p(-tail_ratio);
  const torch::Tensor whole_tail = log_p_n + log_tail;
  const torch::Tensor shifted_tail = log_p_n + (static_cast<double>(a) * std::log(tail_ratio) + log_tail);
  return {torch::cat({whole_tail, first_explicit, shifted_tail}),
          torch::cat({shifted_tail, second_explicit, whole_tail})};
}

}  // namespace noiselearn
