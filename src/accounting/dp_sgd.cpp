#include "accounting/dp_sgd.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "accounting/accountant_threads.hpp"
#include "accounting/composition.hpp"
#include "accounting/exponential_tilt.hpp"
#include "accounting/refinement.hpp"
#include "accounting/scenario_composition.hpp"
#include "core/errors.hpp"
#include "core/monotone_search.hpp"

namespace noiselearn {

namespace {

void check_delta(double delta) {
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta {} must be in (0, 1)", delta));
}

void check_epsilon(double epsilon) {
  if (!(epsilon > 0.0) || !std::isfinite(epsilon))
    throw InputError(fmt::format("target epsilon {} must be positive and finite", epsilon));
}

PairBounds certified(const ReleaseDescription& description, double delta, const AccountantOptions& options,
                     bool refine) {
  AccountingQueries queries;
  queries.deltas = {delta};
  PairBounds bounds = account_events(description, options, queries);
  if (refine) bounds = refined_for_delta(std::move(bounds), delta);
  return bounds;
}

EpsilonBracket bracket_of(const PairBounds& bounds, double delta) {
  return {bounds.epsilon_lower(delta), bounds.epsilon_upper(delta)};
}

// The certificate's bracket, with the bucketed lower bound (refinement.hpp) where the bracket is wider than the
// tolerance: what the functions that report a bracket return (the searches need only the upper end).
EpsilonBracket reported_bracket(PairBounds bounds, double delta) {
  const EpsilonBracket plain = bracket_of(bounds, delta);
  if (plain.upper - plain.lower <= bounds.context.options.adaptive_skip_width * plain.upper) return plain;
  return bracket_of(with_bucketed_tests(std::move(bounds), AccountingQueries{{}, {delta}}, true), delta);
}

}  // namespace

ReleaseDescription dp_sgd_description(double noise_multiplier, double sampling_rate, int64_t steps) {
  if (!(noise_multiplier > 0.0) || !std::isfinite(noise_multiplier))
    throw InputError(fmt::format("noise_multiplier {} must be positive and finite", noise_multiplier));
  if (!(sampling_rate > 0.0 && sampling_rate <= 1.0))
    throw InputError(fmt::format("sampling_rate {} must be in (0, 1]", sampling_rate));
  if (steps < 1) throw InputError(fmt::format("steps {} must be at least 1", steps));
  ReleaseEvent event;
  event.mechanism = "gaussian";
  event.values = {{"noise_multiplier", noise_multiplier}};
  event.sampling.kind = SamplingKind::kPoisson;
  event.sampling.rate = sampling_rate;
  event.count = steps;
  ReleaseDescription description;
  description.events.push_back(event);
  description.validate();
  return description;
}

EpsilonBracket dp_sgd_epsilon(double noise_multiplier, double sampling_rate, int64_t steps, double delta,
                              const AccountantOptions& options) {
  check_delta(delta);
  return reported_bracket(certified(dp_sgd_description(noise_multiplier, sampling_rate, steps), delta, options, true),
                          delta);
}

namespace {

// The bracket after each count of `steps`: each checkpoint's PLDs are the previous checkpoint's composed with the
// composition of the steps since (one per distinct gap, cached).
std::vector<EpsilonBracket> curve_of(const PairBounds& single, const std::vector<int64_t>& steps, double delta,
                                     const AccountantOptions& powered) {
  std::vector<EpsilonBracket> result;
  PairBounds current;
  int64_t done = 0;
  std::map<int64_t, PairBounds> gaps;
  for (int64_t count : steps) {
    const int64_t gap = count - done;
    auto found = gaps.find(gap);
    if (found == gaps.end()) found = gaps.emplace(gap, compose_bounds(single, gap, powered)).first;
    if (done == 0) {
      current = found->second;
    } else {
      PairBounds next = current;
      // Each direction of each bound composed on its own (in parallel where there are threads).
      std::vector<std::function<void()>> jobs;
      auto combine = [&](PrivacyLossDistribution& into, const PrivacyLossDistribution& a,
                         const PrivacyLossDistribution& b) {
        jobs.push_back([&into, &a, &b, &powered] { into = compose(a, b, powered); });
      };
      const PairBounds& since = found->second;
      combine(next.upper.first_to_second, current.upper.first_to_second, since.upper.first_to_second);
      if (current.upper.second_to_first)
        combine(*next.upper.second_to_first, *current.upper.second_to_first, *since.upper.second_to_first);
      for (size_t i = 0; i < next.lower.size(); ++i) {
        combine(next.lower[i].first_to_second, current.lower[i].first_to_second, since.lower[i].first_to_second);
        if (current.lower[i].second_to_first)
          combine(*next.lower[i].second_to_first, *current.lower[i].second_to_first, *since.lower[i].second_to_first);
      }
      run_jobs(jobs);
      next.compositions = count;
      next.composed_infinity_mass.first = 0.0;  // the Gaussian has no distinguishing events
      next.composed_infinity_mass.second = 0.0;
      next.context.single_release.reset();  // not refined (see the header)
      next.alternatives.tilted.clear();
      current = std::move(next);
    }
    done = count;
    result.push_back(bracket_of(current, delta));
  }
  return result;
}

}  // namespace

std::vector<EpsilonBracket> dp_sgd_epsilons(double noise_multiplier, double sampling_rate,
                                            const std::vector<int64_t>& steps, double delta,
                                            const AccountantOptions& options) {
  check_delta(delta);
  if (steps.empty()) return {};
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i] < 1 || (i > 0 && steps[i] <= steps[i - 1]))
      throw InputError(
          fmt::format("steps must be whole numbers >= 1 in increasing order (entry {}: {})", i + 1, steps[i]));
  const ReleaseDescription description = dp_sgd_description(noise_multiplier, sampling_rate, steps.back());
  AccountantOptions powered = options;
  powered.fft_power = true;  // each gap's composition by one FFT power (fft_power.hpp), as account_events does
  // The loss step account_events would choose for the last count, for every entry.
  AccountingQueries queries;
  queries.deltas = {delta};
  PairBounds single = event_single_release(description.events.front(), description.relation, powered, queries);
  powered.loss_step = single.context.options.loss_step;
  // Tilted for the budget's epsilon (its Chernoff estimate) after the last count: one tilt per direction for the whole
  // curve, since a composition needs one tilt for its factors. Where an earlier checkpoint's epsilon is far below it
  // the untilted allowance is the smaller (absolute_allowance takes the minimum of the two).
  if (single.context.options.tilted_refinement) {
    const int64_t n = steps.back();
    double target = chernoff_epsilon(single.upper.first_to_second, n, delta);
    if (single.upper.second_to_first)
      target = std::max(target, chernoff_epsilon(*single.upper.second_to_first, n, delta));
    if (std::isfinite(target) && target > 0.0) {
      single.upper = tilted_for(single.upper, n, target);
      for (auto& scenario : single.lower) scenario = tilted_for(scenario, n, target);
    }
  }
  std::vector<EpsilonBracket> result = curve_of(single, steps, delta, powered);
  // The last entry (the budget spent) also from the tilted certificate: both brackets hold the truth, so their
  // intersection does.
  const EpsilonBracket last = dp_sgd_epsilon(noise_multiplier, sampling_rate, steps.back(), delta, options);
  result.back() = {std::max(result.back().lower, last.lower), std::min(result.back().upper, last.upper)};
  return result;
}

namespace {

NoiseCalibration calibrate_parameter(const std::function<ReleaseDescription(double)>& describe,
                                     const std::function<std::string(double)>& unreachable, double target_epsilon,
                                     double delta, const AccountantOptions& options,
                                     const CalibrationOptions& calibration, double start) {
  const double relative_tolerance = calibration.relative_tolerance, minimum = calibration.minimum,
               maximum = calibration.maximum;
  check_epsilon(target_epsilon);
  check_delta(delta);
  if (!(relative_tolerance > 0.0 && relative_tolerance < 1.0))
    throw InputError(fmt::format("relative_tolerance {} must be in (0, 1)", relative_tolerance));
  if (!(minimum > 0.0 && maximum > minimum)) throw InputError("the search range must be 0 < minimum < maximum");
  NoiseCalibration result;
  std::map<double, EpsilonBracket> certificates;  // the full certificates computed, by multiplier
  // upper(m) with the untilted composition (fast) or the full certificate.
  auto upper = [&](double m, bool refine) {
    ++result.evaluations;
    const PairBounds bounds = certified(describe(m), delta, options, refine);
    if (refine) certificates[m] = bracket_of(bounds, delta);
    return bounds.epsilon_upper(delta);
  };
  // Far from the answer a coarse composition decides: a loss step 16 times the requested one, without the default's
  // per-query halvings. Its bounds are rigorous too: a lower bound above the target rules m out, an upper bound at or
  // below it certifies m (checked again at the end, where the result's certificate is made at the requested step).
  // Only where the coarse bracket straddles the target does the requested step run.
  AccountantOptions coarse = options;
  coarse.loss_step = std::min(1.0, 4.0 * options.loss_step);
  coarse.adaptive_skip_width = std::max(options.adaptive_skip_width, 1e-2);
  auto passes = [&](double m, bool refine) {
    const PairBounds screen = certified(describe(m), delta, coarse, false);
    if (screen.epsilon_lower(delta) > target_epsilon) return false;
    if (!refine && screen.epsilon_upper(delta) <= target_epsilon) return true;
    return upper(m, refine) <= target_epsilon;
  };
  auto certificate_of = [&](double m) {
    const auto found = certificates.find(m);
    return found != certificates.end() ? found->second
                                       : reported_bracket(certified(describe(m), delta, options, true), delta);
  };
  if (!passes(maximum, true)) throw InputError(unreachable(maximum));
  // A bracket by doubling from `start` (small multipliers are the expensive ones: their losses spread widest, so the
  // search never starts there): upper(low) > target or low == minimum, upper(high) <= target.
  double low = minimum, high = maximum;
  double m = std::clamp(start, minimum, maximum);
  if (passes(m, false)) {
    high = m;
    while (high > minimum) {
      m = std::max(minimum, high / 2.0);
      if (passes(m, false)) {
        high = m;
      } else {
        low = m;
        break;
      }
    }
  } else {
    low = m;
    while (true) {
      m = std::min(maximum, low * 2.0);
      if (m == maximum || passes(m, false)) {
        high = m;
        break;
      }
      low = m;
    }
  }
  if (high == minimum) {
    result.noise_multiplier = minimum;
    result.epsilon = certificate_of(minimum);
    return result;
  }
  // Bisection in log m, first on the untilted bound (an upper bound too, so what passes it passes the certificate),
  // then on the certificate itself near the end.
  auto bisect_in_log = [&](bool refine, double tolerance) {
    const Bracket b = bisect(
        {low, high}, [&](double middle) { return !passes(middle, refine); },
        [&](double lo, double hi) { return hi / lo > 1.0 + tolerance; }, INT_MAX, Midpoint::kGeometric);
    low = b.low, high = b.high;
  };
  bisect_in_log(false, 4.0 * relative_tolerance);
  // The certificate is at most the untilted bound: the least m by it may lie a little below `low`.
  low = std::max(minimum, low / (1.0 + 8.0 * relative_tolerance));
  while (low > minimum && passes(low, true)) {
    high = low;
    low = std::max(minimum, low / (1.0 + 8.0 * relative_tolerance));
  }
  bisect_in_log(true, relative_tolerance);
  // A value the coarse bound certified is certified again at the requested step (its bound need not be the coarse
  // one's): where it is not, the least value above it that is.
  result.epsilon = certificate_of(high);
  while (!(result.epsilon.upper <= target_epsilon) && high < maximum) {
    low = high;
    high = std::min(maximum, high * (1.0 + relative_tolerance));
    result.epsilon = certificate_of(high);
  }
  result.noise_multiplier = high;
  result.below = low;
  return result;
}

}  // namespace

NoiseCalibration calibrate_noise_multiplier(double target_epsilon, double delta, double sampling_rate, int64_t steps,
                                            const AccountantOptions& options, const CalibrationOptions& calibration) {
  dp_sgd_description(1.0, sampling_rate, steps);  // validates q and the steps before the search
  if (!(calibration.minimum > 0.0 && calibration.maximum > calibration.minimum))
    throw InputError("the noise multiplier range must be 0 < minimum < maximum");
  return calibrate_parameter(
      [&](double m) { return dp_sgd_description(m, sampling_rate, steps); },
      [&](double top) {
        return fmt::format(
            "no noise multiplier up to {} reaches epsilon {} at delta {} after {} steps at sampling rate "
            "{} (raise the maximum, or accept a larger epsilon)",
            top, target_epsilon, delta, steps, sampling_rate);
      },
      target_epsilon, delta, options, calibration, 1.0);
}

NoiseCalibration calibrate_event(const ReleaseDescription& description, const std::string& key, double target_epsilon,
                                 double delta, const AccountantOptions& options,
                                 const CalibrationOptions& calibration) {
  description.validate();
  if (description.events.size() != 1)
    throw InputError(fmt::format("calibration takes one event (got {}): the parameter searched must be one event's",
                                 description.events.size()));
  const ReleaseEvent& event = description.events.front();
  if (!event.values.count(key)) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : event.values) keys.push_back(k);
    throw InputError(fmt::format("the {} event has no number parameter '{}' to calibrate (its parameters: {})",
                                 event.mechanism, key, fmt::join(keys, ", ")));
  }
  // Only a noise parameter makes epsilon fall as it grows; a sensitivity makes it rise.
  const MechanismKind& kind = mechanism_kind(event.mechanism);
  for (const auto& p : kind.parameters)
    if (p.key == key && (p.integer || key == "sensitivity"))
      throw InputError(
          fmt::format("'{}' is not a noise parameter of the {} mechanism: calibrate its noise (scale, sigma or "
                      "noise multiplier)",
                      key, event.mechanism));
  return calibrate_parameter(
      [&](double value) {
        ReleaseDescription d = description;
        d.events.front().values[key] = value;
        return d;
      },
      [&](double top) {
        return fmt::format(
            "no {} up to {} reaches epsilon {} at delta {} for {} (raise the maximum, or accept a larger "
            "epsilon)",
            key, top, target_epsilon, delta, event.describe());
      },
      target_epsilon, delta, options, calibration, event.values.at(key));
}

StepsCalibration max_steps(double noise_multiplier, double sampling_rate, double target_epsilon, double delta,
                           const AccountantOptions& options, const MaxStepsOptions& search) {
  const int64_t maximum_steps = search.maximum_steps;
  check_epsilon(target_epsilon);
  check_delta(delta);
  if (maximum_steps < 1 || maximum_steps > kMaxCompositions)
    throw InputError(fmt::format("maximum_steps {} must be between 1 and {}", maximum_steps, kMaxCompositions));
  StepsCalibration result;
  auto fits = [&](int64_t steps, bool refine) {
    ++result.evaluations;
    return certified(dp_sgd_description(noise_multiplier, sampling_rate, steps), delta, options, refine)
               .epsilon_upper(delta) <= target_epsilon;
  };
  if (!fits(1, true)) return result;
  // Doubling, then bisection on the untilted bound, then on the certificate from there.
  int64_t good = 1, bad = 0;
  for (int64_t t = 2;; t = std::min<int64_t>(2 * t, maximum_steps)) {
    if (!fits(t, false)) {
      bad = t;
      break;
    }
    good = t;
    if (t == maximum_steps) break;
  }
  if (bad == 0) {
    // Even the maximum fits the untilted bound.
    result.steps = good;
  } else {
    while (bad - good > 1) {
      const int64_t middle = good + (bad - good) / 2;
      if (fits(middle, false))
        good = middle;
      else
        bad = middle;
    }
    // The certificate may allow a few more steps than the untilted bound.
    while (good + 1 <= maximum_steps) {
      int64_t step = std::max<int64_t>(1, good / 1000);
      if (!fits(good + step, true)) {
        if (step == 1) break;
        bad = good + step;
        while (bad - good > 1) {
          const int64_t middle = good + (bad - good) / 2;
          if (fits(middle, true))
            good = middle;
          else
            bad = middle;
        }
        break;
      }
      good += step;
    }
    result.steps = good;
  }
  result.epsilon = reported_bracket(
      certified(dp_sgd_description(noise_multiplier, sampling_rate, result.steps), delta, options, true), delta);
  return result;
}

}  // namespace noiselearn
