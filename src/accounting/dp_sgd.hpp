#pragma once
// DP-SGD's questions, answered by the certified accountant (release_events.hpp): the Gaussian mechanism with noise
// multiplier m (noise std / clipping norm) under Poisson sampling at rate q, T steps, add or remove one record, as
// Opacus, dp_accounting and prv_accountant take it. Every epsilon is a certified (lower, upper) pair.
//
// - dp_sgd_epsilon: after T steps;
// - dp_sgd_epsilons: after each of several step counts (the curve per epoch), composed incrementally: one convolution
//   per checkpoint, not a composition from scratch each;
// - calibrate_noise_multiplier: the least m (to a relative tolerance, CalibrationOptions) whose certified upper epsilon
//   after T steps is at most the target; calibrate_event: the same for the noise parameter of any one event;
// - max_steps: the most steps whose certified upper epsilon is at most the target.
// The searches use the certified upper bound, so what they return is guaranteed (unlike a calibration by an
// estimate), and they are monotone because a larger m (fewer steps) is a post-processing of a smaller one (more).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/release_events.hpp"

namespace noiselearn {

struct EpsilonBracket {
  double lower = 0.0, upper = 0.0;
};

// The events file of DP-SGD: one Gaussian event with Poisson sampling (validated: m > 0, q in (0, 1], steps >= 1).
ReleaseDescription dp_sgd_description(double noise_multiplier, double sampling_rate, int64_t steps);

// Certified epsilon at delta after `steps` steps (tilted refinement included).
EpsilonBracket dp_sgd_epsilon(double noise_multiplier, double sampling_rate, int64_t steps, double delta,
                              const AccountantOptions& options = {});

// Certified epsilon at delta after each count of `steps` (strictly increasing, each >= 1), at the loss step the default
// picks for the last count. Each entry is rigorous. The incremental composition is tilted once, for the Chernoff
// estimate of the last count's epsilon (one tilt per direction: a composition needs one tilt for its factors); the last
// entry is also intersected with dp_sgd_epsilon's. The tilt keeps the floating-point allowance relative to the tail
// each entry's epsilon depends on (exponential_tilt.hpp), at a few times the cost of an untilted convolution.
std::vector<EpsilonBracket> dp_sgd_epsilons(double noise_multiplier, double sampling_rate,
                                            const std::vector<int64_t>& steps, double delta,
                                            const AccountantOptions& options = {});

struct CurveState;

// Certified epsilon at delta asked after one count of steps at a time, in increasing order (an accountant asked after
// every epoch): each count's composition is the previous one's composed with the steps since (one convolution per
// direction and bound, the gaps' compositions kept), as dp_sgd_epsilons does, from one discretisation of the single
// release at the loss step the first count asks for; untilted. Each answer is rigorous; it may be wider than
// dp_sgd_epsilon's, which composes afresh and refines for delta.
class DpSgdCurve {
 public:
  DpSgdCurve(double noise_multiplier, double sampling_rate, double delta, const AccountantOptions& options = {});
  ~DpSgdCurve();
  DpSgdCurve(DpSgdCurve&&) noexcept;
  DpSgdCurve& operator=(DpSgdCurve&&) noexcept;
  // The bracket after `steps` (at least 1 and at least the last count asked: InputError otherwise).
  EpsilonBracket epsilon_after(int64_t steps);
  int64_t steps() const;  // the last count asked (0 before any)

 private:
  double noise_multiplier_, sampling_rate_, delta_;
  AccountantOptions options_;
  std::unique_ptr<CurveState> state_;
};

// How a calibration searches (calibrate_noise_multiplier, calibrate_event): the defaults here are the ones the CLI
// (account --calibrate) and the Python module use.
struct CalibrationOptions {
  // The value found is within this factor of the least one that certifies: the value found certifies the target, the
  // value (1 + relative_tolerance) times smaller does not. In (0, 1).
  double relative_tolerance = 1e-4;
  // The range searched, 0 < minimum < maximum: the least value is `minimum` when even it certifies the target, and a
  // target that `maximum` does not reach is an InputError naming it.
  double minimum = 0.05;
  double maximum = 1000.0;
};

struct NoiseCalibration {
  double noise_multiplier = 0.0;  // the least found: certified upper epsilon <= target (the calibrated parameter)
  EpsilonBracket epsilon;         // its certified bracket
  double below = 0.0;             // noise_multiplier / (1 + relative_tolerance) or less: certified upper > target
  int evaluations = 0;
};

// The least noise multiplier in [calibration.minimum, calibration.maximum] whose certified upper epsilon at delta after
// `steps` is at most target_epsilon, to calibration.relative_tolerance; the search starts at 1. InputError when even
// the maximum does not reach the target (naming it).
NoiseCalibration calibrate_noise_multiplier(double target_epsilon, double delta, double sampling_rate, int64_t steps,
                                            const AccountantOptions& options = {},
                                            const CalibrationOptions& calibration = {});

// The least value of the number parameter `key` of the description's one event (a noise parameter: the noise
// multiplier, scale or sigma, which epsilon falls with) in [calibration.minimum, calibration.maximum] whose certified
// upper epsilon at delta is at most target_epsilon, to calibration.relative_tolerance; the same search as
// calibrate_noise_multiplier, started at the event's value of `key` (a guess near the answer saves the expensive
// evaluations at small noise). For learned-noise comparisons at equal certified epsilon: the Laplace per coordinate,
// the Gaussian, ... InputError for a key that is not a noise parameter, or when even the maximum does not reach the
// target.
NoiseCalibration calibrate_event(const ReleaseDescription& description, const std::string& key, double target_epsilon,
                                 double delta, const AccountantOptions& options = {},
                                 const CalibrationOptions& calibration = {});

// How max_steps searches.
struct MaxStepsOptions {
  int64_t maximum_steps = 100'000'000;  // the most steps considered, in 1..kMaxCompositions
};

struct StepsCalibration {
  int64_t steps = 0;  // the most steps whose certified upper epsilon <= target (0: not even one)
  EpsilonBracket epsilon;
  int evaluations = 0;
};

// The most steps (at most search.maximum_steps) whose certified upper epsilon at delta is at most target_epsilon.
StepsCalibration max_steps(double noise_multiplier, double sampling_rate, double target_epsilon, double delta,
                           const AccountantOptions& options = {}, const MaxStepsOptions& search = {});

}  // namespace noiselearn
