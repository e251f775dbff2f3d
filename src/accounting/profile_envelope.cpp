#include "accounting/profile_envelope.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "accounting/loss_discretisation.hpp"

namespace noiselearn {

namespace {

// Relative accuracy assumed for a delta accumulated from positive terms (generous: many ulps).
constexpr double kDeltaRelativeError = 64.0 * std::numeric_limits<double>::epsilon();

}  // namespace

EnvelopeResult profile_envelope(const std::vector<PrivacyLossDistribution>& upper_bounds, const AccountantOptions& options) {
  if (upper_bounds.empty()) throw std::logic_error("profile_envelope needs at least one PLD");
  double step = 0.0;
  for (const auto& pld : upper_bounds) {
    if (pld.bound != BoundKind::kUpper) throw std::logic_error("profile_envelope takes upper bounds only");
    step = std::max(step, pld.loss_step);
  }
  std::vector<PrivacyLossDistribution> inputs;
  inputs.reserve(upper_bounds.size());
  for (const auto& pld : upper_bounds)
    inputs.push_back(coarsen(pld, static_cast<int64_t>(std::llround(step / pld.loss_step)), options));

  int64_t low = std::numeric_limits<int64_t>::max(), high = std::numeric_limits<int64_t>::min();
  double max_infinity = 0.0;
  for (const auto& pld : inputs) {
    max_infinity = std::max(max_infinity, pld.infinity_mass);
    if (pld.masses.empty()) continue;
    low = std::min(low, pld.first_index);
    high = std::max(high, pld.last_index());
  }
  EnvelopeResult result;
  result.points_attained.assign(inputs.size(), 0);
  PrivacyLossDistribution& env = result.envelope;
  env.bound = BoundKind::kUpper;
  env.loss_step = step;
  env.infinity_mass = max_infinity;
  for (const auto& pld : inputs) {
    env.numerical_error = std::max(env.numerical_error, pld.numerical_error);
    env.relative_error = std::max(env.relative_error, pld.relative_error);
    env.truncated_mass = std::max(env.truncated_mass, pld.truncated_mass);
  }
  if (low > high) return result;  // only infinite losses

  // Grid points low .. high, index i = j - low. For each j: the envelope delta, the maximising input, and that
  // input's G_j, delta_{j+1} and mass at j+1.
  const size_t count = static_cast<size_t>(high - low + 1);
  std::vector<double> best_delta(count + 1, -1.0), best_g(count + 1, 0.0), best_next_delta(count + 1, 0.0),
      best_next_mass(count + 1, 0.0);
  std::vector<int64_t> best_input(count + 1, -1);
  const double decay = std::exp(-step), one_minus_decay = -std::expm1(-step);
  for (size_t p = 0; p < inputs.size(); ++p) {
    const auto& pld = inputs[p];
    // Descend from the top (index count, i.e. j = high + 1, where delta = omega) computing delta_j and G_j
    // from positive terms only.
    double g = 0.0, delta_next = pld.infinity_mass, mass_next = 0.0;
    for (size_t i = count + 1; i-- > 0;) {
      const int64_t j = low + static_cast<int64_t>(i);
      const double delta_j = i == count ? pld.infinity_mass : delta_next + one_minus_decay * g;
      if (delta_j > best_delta[i]) {
        best_delta[i] = delta_j;
        best_input[i] = static_cast<int64_t>(p);
        best_g[i] = g;
        best_next_delta[i] = delta_next;
        best_next_mass[i] = mass_next;
      }
      const int64_t k = j - pld.first_index;
      const double mass_j = (k >= 0 && k < static_cast<int64_t>(pld.masses.size())) ? pld.masses[static_cast<size_t>(k)] : 0.0;
      if (i < count) {
        g = mass_j + decay * g;  // becomes G_{j-1}
        delta_next = delta_j;
      }
      mass_next = mass_j;
    }
  }
  for (size_t i = 0; i <= count; ++i) ++result.points_attained[static_cast<size_t>(best_input[i])];

  // G of the envelope on [l_j, l_{j+1}): G_env_j = (delta_env_j - delta_env_{j+1}) / (1 - e^{-step})
  // = best_g[j] + (best_next_delta[j] - delta_env_{j+1}) / (1 - e^{-step}); the correction is 0 when the same
  // input is maximal at j and j+1.
  std::vector<double> g_env(count + 1, 0.0);
  double rounding = 0.0;
  for (size_t i = 0; i < count; ++i) {
    if (best_input[i] == best_input[i + 1]) {
      g_env[i] = best_g[i];
    } else {
      const double correction = (best_next_delta[i] - best_delta[i + 1]) / one_minus_decay;
      g_env[i] = std::max(0.0, best_g[i] + correction);
      rounding += 2.0 * kDeltaRelativeError * (best_next_delta[i] + best_delta[i + 1]) / one_minus_decay;
    }
  }
  // Masses at j = low+1 .. high from m_{j+1} = G_j - e^{-step} G_{j+1}; the lowest mass makes the total 1
  // (every upper-bound input has total mass 1, so the envelope tends to 1 as eps -> -inf).
  env.first_index = low;
  env.masses.assign(count, 0.0);
  double above = 0.0;
  for (size_t i = 0; i + 1 < count; ++i) {
    const bool same = best_input[i] == best_input[i + 1] && best_input[i + 1] == best_input[i + 2];
    const double mass = same ? best_next_mass[i] : g_env[i] - decay * g_env[i + 1];
    env.masses[i + 1] = std::max(0.0, mass);
  }
  for (size_t i = 1; i < count; ++i) above += env.masses[i];
  env.masses[0] = std::max(0.0, 1.0 - env.infinity_mass - above);
  rounding += static_cast<double>(count) * std::numeric_limits<double>::epsilon();
  env.numerical_error += rounding;
  return result;
}

}  // namespace noiselearn
