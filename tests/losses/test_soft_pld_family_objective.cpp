// The soft-PLD objective of the geometric-tail families (losses/soft_pld_family_objective.hpp): its delta against
// the certified accountant's bounds for the same table (within the soft discretisation error), the envelope
// above every same-shift composition, the Danskin max on the worst shift, the closed-form epsilon(delta) as the
// inverse of delta(epsilon), and the gradients (implicit-function epsilon, log delta) against finite differences.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "accounting/pair_accountant.hpp"
#include "accounting/refinement.hpp"
#include "core/dominating_pair.hpp"
#include "gradient_check.hpp"
#include "losses/soft_pld_family_objective.hpp"
#include "models/geometric_tail_family.hpp"

using namespace noiselearn;

namespace {

torch::Tensor as_tensor(const std::vector<double>& v) {
  return torch::tensor(v, torch::TensorOptions().dtype(torch::kDouble));
}

// A normalised family whose window is random (not monotone): different shifts dominate at different eps.
std::vector<double> random_log_window(const GeometricTailShape& shape, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(0.2, 1.0);
  std::vector<double> p(static_cast<size_t>(shape.window + 1));
  for (size_t k = 0; k < p.size(); ++k) p[k] = uniform(generator) * std::exp(-0.1 * static_cast<double>(k));
  const std::vector<double> n = normalisation_coefficients(shape);
  double total = 0.0;
  for (size_t k = 0; k < p.size(); ++k) total += n[k] * p[k];
  std::vector<double> log_p(p.size());
  for (size_t k = 0; k < p.size(); ++k) log_p[k] = std::log(p[k] / total);
  return log_p;
}

GeometricTailShape small_shape() {
  GeometricTailShape shape;
  shape.window = 40;
  shape.ratio = 0.9;
  shape.bin_width = 0.25;
  return shape;
}

PairBounds certified(const GeometricTailShape& shape, const std::vector<double>& log_window, int64_t shifts, int64_t n,
                     SeveralPairsMethod several_pairs = SeveralPairsMethod::kAuto) {
  const NoiseTable table = GeometricTailFamily(shape, log_window).table();
  PairSpecification specification;
  specification.sensitivity = static_cast<double>(shifts) * shape.bin_width;
  specification.shifts = ShiftPolicy::kAll;
  AccountantOptions options;
  options.several_pairs = several_pairs;
  return account(make_pair_family(table, specification), n, options);
}

SoftPldFamilyObjectiveOptions log_delta_options(int64_t shifts, int64_t n, double epsilon,
                                                ShiftCombination combination) {
  SoftPldFamilyObjectiveOptions options;
  options.max_shift = shifts;
  options.compositions = n;
  options.target = SoftPldTarget::kLogDelta;
  options.epsilon = epsilon;
  options.combination = combination;
  options.loss_step = 1e-4;
  return options;
}

}  // namespace

TEST_CASE(
    "soft-PLD family delta: the Gaussian start lies in the certified bracket, a random window's envelope under the "
    "upper bound and above every same-shift composition",
    "[soft-pld-family]") {
  const GeometricTailShape shape = small_shape();
  const int64_t shifts = 4, n = 6;
  const double epsilon = 1.0;
  // A symmetric unimodal window: the largest shift dominates at every eps, envelope = worst shift, and the
  // certified lower (optimistic) and upper (pessimistic) bounds bracket the soft delta within the
  // discretisation error (linear splitting keeps mass and mean loss; O(step^2) per release).
  {
    const std::vector<double> log_window = gaussian_initialisation(shape, 2.0).log_probabilities;
    const PairBounds bounds = certified(shape, log_window, shifts, n);
    for (ShiftCombination combination : {ShiftCombination::kEnvelope, ShiftCombination::kWorstShift}) {
      const SoftPldFamilyObjective objective(shape.window, shape.ratio,
                                             log_delta_options(shifts, n, epsilon, combination));
      const SoftPldFamilyEvaluation e = objective.evaluate(as_tensor(log_window));
      INFO(to_string(combination) << ": soft " << e.delta << ", certified [" << bounds.delta_lower(epsilon) << ", "
                                  << bounds.delta_upper(epsilon) << "]");
      CHECK(e.delta >= bounds.delta_lower(epsilon) * (1 - 1e-4));
      CHECK(e.delta <= bounds.delta_upper(epsilon) * (1 + 1e-4));
      CHECK(e.worst_shift == shifts);
    }
  }
  // A random window: the soft envelope is below the certified envelope's upper bound (the composed envelope) and at
  // or above the soft worst same-shift composition, which is itself above the certified lower bound (the worst
  // same-shift scenario). The default certificate (the exact adaptive programme over the shift magnitudes) lies
  // between the worst fixed shift and the envelope.
  {
    const std::vector<double> log_window = random_log_window(shape, 7);
    const PairBounds bounds = certified(shape, log_window, shifts, n, SeveralPairsMethod::kEnvelope);
    const PairBounds exact = certified(shape, log_window, shifts, n);
    CHECK(exact.delta_upper(epsilon) <= bounds.delta_upper(epsilon));
    CHECK(exact.delta_upper(epsilon) >= bounds.delta_lower(epsilon));
    const SoftPldFamilyObjective envelope(shape.window, shape.ratio,
                                          log_delta_options(shifts, n, epsilon, ShiftCombination::kEnvelope));
    const SoftPldFamilyObjective worst(shape.window, shape.ratio,
                                       log_delta_options(shifts, n, epsilon, ShiftCombination::kWorstShift));
    const SoftPldFamilyEvaluation e = envelope.evaluate(as_tensor(log_window));
    const SoftPldFamilyEvaluation w = worst.evaluate(as_tensor(log_window));
    INFO("envelope " << e.delta << ", worst shift " << w.delta << " (shift " << w.worst_shift << "), certified ["
                     << bounds.delta_lower(epsilon) << ", " << bounds.delta_upper(epsilon) << "]");
    CHECK(e.delta <= bounds.delta_upper(epsilon) * (1 + 1e-4));
    CHECK(e.delta >= w.delta * (1 - 1e-12));
    CHECK(w.delta >= bounds.delta_lower(epsilon) * (1 - 1e-4));
    // More than one shift attains the envelope on this table (the case the envelope exists for).
    int64_t attaining = 0;
    for (int64_t count : e.points_attained) attaining += count > 0;
    CHECK(attaining >= 2);
  }
}

TEST_CASE(
    "soft-PLD family epsilon: the closed-form epsilon(delta) inverts delta(epsilon), and lies in the certified epsilon "
    "bracket",
    "[soft-pld-family]") {
  const GeometricTailShape shape = small_shape();
  const std::vector<double> log_window = gaussian_initialisation(shape, 2.0).log_probabilities;
  SoftPldFamilyObjectiveOptions options = log_delta_options(4, 6, 0.0, ShiftCombination::kEnvelope);
  options.target = SoftPldTarget::kEpsilon;
  options.delta = 1e-5;
  const SoftPldFamilyObjective by_delta(shape.window, shape.ratio, options);
  const double epsilon = by_delta.value(as_tensor(log_window));
  options.target = SoftPldTarget::kLogDelta;
  options.epsilon = epsilon;
  const SoftPldFamilyObjective by_epsilon(shape.window, shape.ratio, options);
  CHECK(std::exp(by_epsilon.value(as_tensor(log_window))) == Approx(1e-5).epsilon(1e-10));
  PairBounds bounds = certified(shape, log_window, 4, 6);
  bounds = refined_for_delta(std::move(bounds), 1e-5);
  INFO("soft epsilon " << epsilon << ", certified [" << bounds.epsilon_lower(1e-5) << ", " << bounds.epsilon_upper(1e-5)
                       << "]");
  CHECK(epsilon >= bounds.epsilon_lower(1e-5) - 1e-4);
  CHECK(epsilon <= bounds.epsilon_upper(1e-5) + 1e-4);
}

TEST_CASE(
    "soft-PLD family gradients (implicit-function epsilon and log delta, envelope and worst shift) agree with finite "
    "differences",
    "[soft-pld-family]") {
  GeometricTailShape shape = small_shape();
  shape.window = 12;
  const std::vector<double> log_window = random_log_window(shape, 3);
  for (SoftPldTarget target : {SoftPldTarget::kEpsilon, SoftPldTarget::kLogDelta}) {
    for (ShiftCombination combination : {ShiftCombination::kEnvelope, ShiftCombination::kWorstShift}) {
      SoftPldFamilyObjectiveOptions options = log_delta_options(3, 4, 1.0, combination);
      options.target = target;
      options.delta = 1e-3;
      options.loss_step = 1e-3;
      options.tail_mass = 0.0;  // moving truncation points would make the value jump by up to the tail mass
      const SoftPldFamilyObjective objective(shape.window, shape.ratio, options);
      const auto [value, gradient] = objective.value_and_gradient(as_tensor(log_window));
      CHECK(value == Approx(objective.value(as_tensor(log_window))).epsilon(1e-12));
      // Smooth between grid crossings and envelope switches: a step of 1e-7 in log p moves a loss by about
      // 1e-7 << the grid step.
      const torch::Tensor numeric = testing::finite_difference_gradient(
          [&](const torch::Tensor& t) { return objective.value(t); }, as_tensor(log_window), 1e-7);
      INFO(to_string(target) << " " << to_string(combination) << "\nautograd " << gradient << "\nnumeric " << numeric);
      CHECK(torch::allclose(gradient, numeric, 1e-4, 1e-7));
    }
  }
}

TEST_CASE("soft-PLD family worst shift: the Danskin max is the largest same-shift value, with that shift's gradient",
          "[soft-pld-family]") {
  const GeometricTailShape shape = small_shape();
  const std::vector<double> log_window = random_log_window(shape, 11);
  SoftPldFamilyObjectiveOptions options = log_delta_options(4, 5, 0.0, ShiftCombination::kWorstShift);
  options.target = SoftPldTarget::kEpsilon;
  options.delta = 1e-4;
  const SoftPldFamilyObjective objective(shape.window, shape.ratio, options);
  const SoftPldFamilyEvaluation e = objective.evaluate(as_tensor(log_window));
  REQUIRE(e.shift_values.size() == 4);
  double largest = -1.0;
  int64_t argmax = 0;
  for (size_t a = 0; a < e.shift_values.size(); ++a) {
    const auto [value, gradient] =
        objective.shift_value_and_gradient(as_tensor(log_window), static_cast<int64_t>(a) + 1);
    CHECK(value == Approx(e.shift_values[a]).epsilon(1e-12));
    if (value > largest) largest = value, argmax = static_cast<int64_t>(a) + 1;
  }
  CHECK(e.worst_shift == argmax);
  CHECK(e.value == largest);
  const auto [value, gradient] = objective.value_and_gradient(as_tensor(log_window));
  const auto [worst_value, worst_gradient] = objective.shift_value_and_gradient(as_tensor(log_window), argmax);
  CHECK(value == worst_value);
  CHECK(torch::equal(gradient, worst_gradient));
  // The shifts differ on this table (the max is not a tie).
  CHECK(*std::min_element(e.shift_values.begin(), e.shift_values.end()) < largest - 1e-3);
}
