#include "models/monotone_logits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "core/log_math.hpp"
#include "models/symmetric_half.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// softplus(d) = log(1 + e^d) through logaddexp, exact for every d and with derivative σ(d) for every d
// (torch's softplus returns d itself above its threshold 20, an error of e^{-20} ≈ 2e-9).
torch::Tensor exact_softplus(const torch::Tensor& d) { return torch::logaddexp(d, torch::zeros_like(d)); }

// The d with softplus(d) = decrement > 0: log(e^δ − 1) = δ + log(1 − e^{−δ}), accurate for tiny and large δ.
double inverse_softplus(double decrement) { return decrement + log1mexp(decrement); }

// log f = -x² / (2 σ²) outwards from the centre over the whole half of the grid.
std::vector<double> default_outward_profile(const Grid& grid, const MonotoneLogitsOptions& options) {
  options.validate();
  const int64_t half_size = symmetric_half_size(grid, "monotone logits");
  // A one-point grid has no step to shape; any sigma gives the profile {0}.
  const double sigma = options.initial_sigma.value_or(half_size > 1 ? -grid.origin / 3.0 : 1.0);
  std::vector<double> profile(static_cast<size_t>(half_size));
  for (int64_t k = 0; k < half_size; ++k) {
    const double x = grid.x(half_size - 1 - k);
    profile[static_cast<size_t>(k)] = -x * x / (2.0 * sigma * sigma);
  }
  return profile;
}

}  // namespace

void MonotoneLogitsOptions::validate() const {
  if (initial_sigma && !(std::isfinite(*initial_sigma) && *initial_sigma > 0.0))
    throw InputError(fmt::format("monotone logits: initial_sigma must be finite and positive, got {}", *initial_sigma));
}

MonotoneLogits::MonotoneLogits(const Grid& grid, const MonotoneLogitsOptions& options)
    : MonotoneLogits(grid, default_outward_profile(grid, options)) {}

MonotoneLogits::MonotoneLogits(const Grid& grid, const std::vector<double>& outward_log_profile)
    : grid_(grid), half_size_(symmetric_half_size(grid, "monotone logits")) {
  const int64_t steps = static_cast<int64_t>(outward_log_profile.size()) - 1;
  std::vector<double> d(static_cast<size_t>(steps));
  for (int64_t k = 1; k <= steps; ++k) {
    const double decrement =
        outward_log_profile[static_cast<size_t>(k - 1)] - outward_log_profile[static_cast<size_t>(k)];
    d[static_cast<size_t>(k - 1)] = inverse_softplus(std::max(decrement, kFlatStepDecrement));
  }
  log_centre_ = register_parameter("log_centre", torch::full({}, outward_log_profile.front(), torch::kDouble));
  decrements_ = register_parameter("decrements", torch::tensor(d, torch::kDouble));

  torch::Tensor half_support = torch::zeros({half_size_}, torch::kBool);
  half_support.narrow(0, half_size_ - 1 - steps, steps + 1).fill_(true);
  support_mask_ = register_buffer("support_mask", mirror_half(half_support, grid_));
}

std::shared_ptr<MonotoneLogits> MonotoneLogits::from_table(const NoiseTable& table) {
  const Grid& grid = table.grid();
  const std::vector<double> q = symmetrised_half(table, "monotone logits");
  const int64_t half_size = static_cast<int64_t>(q.size());
  // The support must run from the centre outwards without a gap.
  std::vector<double> outward;
  for (int64_t k = 0; k < half_size && q[static_cast<size_t>(half_size - 1 - k)] > 0.0; ++k)
    outward.push_back(std::log(q[static_cast<size_t>(half_size - 1 - k)]));
  const int64_t first_zero = half_size - 1 - static_cast<int64_t>(outward.size());
  for (int64_t i = first_zero - 1; i >= 0; --i)
    if (q[static_cast<size_t>(i)] > 0.0)
      throw InputError(fmt::format(
          "monotone logits need a table whose support is an interval around 0, but p = 0 at x = {:.17g} and "
          "p > 0 further out, at x = {:.17g}",
          grid.x(first_zero), grid.x(i)));
  // Projection onto non-increasing profiles: the running minimum outwards (identity on a monotone table).
  for (size_t k = 1; k < outward.size(); ++k) outward[k] = std::min(outward[k], outward[k - 1]);
  return std::shared_ptr<MonotoneLogits>(new MonotoneLogits(grid, outward));
}

torch::Tensor MonotoneLogits::log_probabilities() {
  // Partial sums of non-negative decrements never decrease in floating point, so log f is non-increasing
  // outwards bit for bit, and so are log p and p.
  const torch::Tensor outward =
      torch::cat({log_centre_.reshape({1}), log_centre_ - exact_softplus(decrements_).cumsum(0)});
  const int64_t outside = half_size_ - outward.size(0);
  const torch::Tensor half = torch::cat({torch::full({outside}, -kInfinity, outward.options()), outward.flip(0)});
  return torch::log_softmax(mirror_half(half, grid_), 0);
}

}  // namespace noiselearn
