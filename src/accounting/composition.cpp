#include "accounting/composition.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "accounting/convolution.hpp"
#include "accounting/exponential_tilt.hpp"
#include "accounting/fft_power.hpp"
#include "accounting/loss_discretisation.hpp"
#include "core/directed_rounding.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

// Steps differ by a power of two; returns the integer ratio coarse/fine.
int64_t step_ratio(double coarse, double fine) {
  const double ratio = coarse / fine;
  const double rounded = std::round(ratio);
  if (rounded < 1.0 || std::abs(ratio - rounded) > 1e-9 * rounded)
    throw std::logic_error(fmt::format("loss steps {} and {} are not commensurate", coarse, fine));
  return static_cast<int64_t>(rounded);
}

void fit_into_max_points(PrivacyLossDistribution& pld, const AccountantOptions& options) {
  int64_t factor = 1;
  while (static_cast<int64_t>(pld.masses.size()) / factor + 2 > options.max_points) factor *= 2;
  if (factor > 1) pld = coarsen(pld, factor, options);
}

}  // namespace

PrivacyLossDistribution compose(const PrivacyLossDistribution& first, const PrivacyLossDistribution& second,
                                const AccountantOptions& options) {
  if (first.bound != second.bound) throw std::logic_error("cannot compose an upper with a lower bound");
  if (first.loss_step < second.loss_step * (1.0 - 1e-12))
    return compose(coarsen(first, step_ratio(second.loss_step, first.loss_step), options), second, options);
  if (second.loss_step < first.loss_step * (1.0 - 1e-12))
    return compose(first, coarsen(second, step_ratio(first.loss_step, second.loss_step), options), options);

  if (first.tilt.lambda != second.tilt.lambda) throw std::logic_error("cannot compose PLDs with different tilts");
  PrivacyLossDistribution result;
  result.bound = first.bound;
  result.loss_step = first.loss_step;
  result.first_index = first.first_index + second.first_index;
  result.compositions = first.compositions + second.compositions;
  result.loss_shift = first.loss_shift + second.loss_shift;
  // Weights w(l) = e^{lambda (l - r)} on each factor's grid (exponential_tilt.hpp); the product's reference is
  // the sum of the references.
  const double lambda = first.tilt.lambda;
  TiltWeights weights;
  if (lambda > 0.0) {
    weights.rate = lambda * first.loss_step;
    weights.x_offset = lambda * (static_cast<double>(first.first_index) * first.loss_step - first.tilt.reference);
    weights.y_offset = lambda * (static_cast<double>(second.first_index) * second.loss_step - second.tilt.reference);
  }
  const Convolution product = &first == &second ? convolve(first.masses, first.masses, weights)
                                                : convolve(first.masses, second.masses, weights);
  result.masses = product.values;

  // An outcome of the composition has infinite loss if either component has: A-probability
  // omega_1 T_2 + F_1 omega_2 (T = total, F = finite mass; for an upper bound T = 1 and this is
  // 1 - (1 - omega_1)(1 - omega_2)).
  const double finite_1 = first.finite_mass(), finite_2 = second.finite_mass();
  const double total_1 = finite_1 + first.infinity_mass, total_2 = finite_2 + second.infinity_mass;
  result.infinity_mass = first.infinity_mass * total_2 + finite_1 * second.infinity_mass;
  // Errors of the factors (x_hat = x (1 + theta) + e): the relative parts multiply, the absolute parts
  // propagate linearly (e * y_hat and x (1 + theta) * f, whose l1 norms are bounded by the computed totals),
  // then the convolution adds its own (relative for direct summation, which also scales the absolute part;
  // absolute for the FFT).
  result.relative_error =
      (1.0 + first.relative_error) * (1.0 + second.relative_error) * (1.0 + product.relative_error) - 1.0;
  result.numerical_error =
      (first.numerical_error * total_2 + second.numerical_error * (total_1 + first.numerical_error)) *
          (1.0 + product.relative_error) +
      product.error_bound;
  result.truncated_mass = first.truncated_mass + second.truncated_mass;
  if (lambda > 0.0) {
    // The same propagation in the tilted norm (the weights of a product are the products of the weights, so
    // ||e_x * y||_w <= ||e_x||_w M_y with M the tilted mass), and the infinity mass's own error: omega =
    // omega_1 T_2 + F_1 omega_2 with every factor known to within its allowances.
    result.tilt.lambda = lambda;
    result.tilt.reference = first.tilt.reference + second.tilt.reference;
    const double tilted_1 = tilted_mass(first), tilted_2 = tilted_mass(second);
    result.tilt.error = (first.tilt.error * tilted_2 + second.tilt.error * (tilted_1 + first.tilt.error)) *
                            (1.0 + product.relative_error) +
                        product.tilted_error_bound;
    const double e1 = first.numerical_error, e2 = second.numerical_error;
    const double w1 = first.tilt.infinity_error, w2 = second.tilt.infinity_error;
    result.tilt.infinity_error =
        (w1 * total_2 + (first.infinity_mass + w1) * (e2 + w2) + e1 * second.infinity_mass + (finite_1 + e1) * w2) *
        (1.0 + roundings(16.0));
  }

  truncate_tails(result, options.tail_mass);
  fit_into_max_points(result, options);
  return result;
}

PrivacyLossDistribution self_compose(const PrivacyLossDistribution& single, int64_t n,
                                     const AccountantOptions& options) {
  if (n < 1) throw InputError(fmt::format("number of compositions {} must be at least 1", n));
  if (n > kMaxCompositions)
    throw InputError(
        fmt::format("number of compositions {} exceeds the accountant's limit of {} (beyond it the "
                    "floating-point allowances swamp every bound)",
                    n, kMaxCompositions));
  if (options.fft_power)
    if (std::optional<PrivacyLossDistribution> powered = self_compose_by_fft_power(single, n, options))
      return std::move(*powered);
  // Square-and-multiply over the binary digits of n.
  PrivacyLossDistribution power = single;
  bool have_result = false;
  PrivacyLossDistribution result;
  while (n > 0) {
    if (n & 1) {
      result = have_result ? compose(result, power, options) : power;
      have_result = true;
    }
    n >>= 1;
    if (n > 0) power = compose(power, power, options);
  }
  return result;
}

PrivacyLossDistribution compose_heterogeneous(const std::vector<std::pair<PrivacyLossDistribution, int64_t>>& parts,
                                              const AccountantOptions& options) {
  if (parts.empty()) throw InputError("heterogeneous composition needs at least one part");
  PrivacyLossDistribution result = self_compose(parts.front().first, parts.front().second, options);
  for (size_t i = 1; i < parts.size(); ++i)
    result = compose(result, self_compose(parts[i].first, parts[i].second, options), options);
  return result;
}

}  // namespace noiselearn
