#include "accounting/dp_sgd.hpp"

#include <fmt/format.h>

#include <algorithm>
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

namespace {}  // namespace

// The composition at the last count asked, advanced to a later count by composing it with the composition of the
// steps since (one per distinct gap, kept): one convolution per direction and bound.
struct CurveState {
  PairBounds single;
  AccountantOptions powered;
  PairBounds current;
  int64_t done = 0;
  std::map<int64_t, PairBounds> gaps;

  void advance_to(int64_t count) {
    const int64_t gap = count - done;
    auto found = gaps.find(gap);
    if (found == gaps.end()) found = gaps.emplace(gap, compose_bounds(single, gap, powered)).first;
    if (done == 0) {
      current = found->second;
      done = count;
      return;
    }
    PairBounds next = current;
    // Each direction of each bound composed on its own (in parallel where there are threads).
    std::vector<std::function<void()>> jobs;
    auto combine = [&](PrivacyLossDistribution& into, const PrivacyLossDistribution& a,
                       const PrivacyLossDistribution& b) {
      jobs.push_back([&into, &a, &b, this] { into = compose(a, b, powered); });
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
    done = count;
  }
};

namespace {

// The bracket after each count of `steps` (CurveState).
std::vector<EpsilonBracket> curve_of(const PairBounds& single, const std::vector<int64_t>& steps, double delta,
                                     const AccountantOptions& powered) {
  CurveState state{single, powered};
  std::vector<EpsilonBracket> result;
  for (int64_t count : steps) {
    state.advance_to(count);
    result.push_back(bracket_of(state.current, delta));
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

DpSgdCurve::DpSgdCurve(double noise_multiplier, double sampling_rate, double delta, const AccountantOptions& options)
    : noise_multiplier_(noise_multiplier), sampling_rate_(sampling_rate), delta_(delta), options_(options) {
  check_delta(delta);
  dp_sgd_description(noise_multiplier, sampling_rate, 1);  // the parameters checked here
}

DpSgdCurve::~DpSgdCurve() = default;
DpSgdCurve::DpSgdCurve(DpSgdCurve&&) noexcept = default;
DpSgdCurve& DpSgdCurve::operator=(DpSgdCurve&&) noexcept = default;

int64_t DpSgdCurve::steps() const { return state_ ? state_->done : 0; }

EpsilonBracket DpSgdCurve::epsilon_after(int64_t steps) {
  if (steps < 1 || steps < this->steps())
    throw InputError(fmt::format("steps {} must be at least 1 and at least the last asked ({})", steps, this->steps()));
  if (!state_) {
    // The single release at the loss step the default picks for this first count (a later count asks for the same
    // step or a coarser one: the predicted bracket is relative to the growing epsilon).
    const ReleaseDescription description = dp_sgd_description(noise_multiplier_, sampling_rate_, steps);
    AccountantOptions powered = options_;
    powered.fft_power = true;
    AccountingQueries queries;
    queries.deltas = {delta_};
    PairBounds single = event_single_release(description.events.front(), description.relation, powered, queries);
    powered.loss_step = single.context.options.loss_step;
    state_ = std::make_unique<CurveState>(CurveState{std::move(single), powered});
  }
  if (steps != state_->done) state_->advance_to(steps);
  return bracket_of(state_->current, delta_);
}

namespace {

// The search behind calibrate_noise_multiplier and calibrate_event. The certified upper epsilon u(m) falls as the
// noise parameter m grows; the answer is the least m, to a relative tolerance tol, with u(m) <= target, u the full
// certificate (the composition refined for delta). The certificate is what costs, so the search runs it only near the
// answer, usually three times: where a coarse composition (4 times the loss step, untilted; milliseconds) says u
// crosses the target, then at a Newton step from there, then at the value (1 + tol) below.
//
// Both stages take Newton steps in (log m, log epsilon), where epsilon is close to a power of m; the slope is a secant
// between coarse points at least 2e-3 apart in log m (closer ones differ by the discretisation's jitter more than by
// the slope), or between two certificates at least tol / 2 apart. Each step aims at tol / 2 above the crossing, so
// the next certificate usually passes and the one (1 + tol) below it fails.
//
// Every decision is rigorous: only the full certificate passes m, and a coarse lower end above the target rules m out
// (the truth is above it). A step that lands outside the bracket of decided values, or two certificates that do not
// halve the bracket, fall back to its geometric midpoint, so the search ends at worst as bisection would.
class CalibrationSearch {
 public:
  CalibrationSearch(const std::function<ReleaseDescription(double)>& describe, double target_epsilon, double delta,
                    const AccountantOptions& options, const CalibrationOptions& calibration)
      : describe_(describe), target_(target_epsilon), delta_(delta), options_(options), calibration_(calibration) {
    coarse_options_ = options;
    coarse_options_.loss_step = std::min(1.0, 4.0 * options.loss_step);
    coarse_options_.adaptive_skip_width = std::max(options.adaptive_skip_width, 1e-2);
  }

  // Whether the full certificate at m certifies the target.
  bool certifies(double m) {
    ++result_.evaluations;
    if (coarse_at(m).lower > target_) return false;  // the truth is above the target: no certificate reaches it
    const EpsilonBracket b = bracket_of(certified(describe_(m), delta_, options_, true), delta_);
    certificates_[m] = b;
    order_.push_back(m);
    return b.upper <= target_;
  }

  // The least certifying value in [minimum, maximum] (maximum certifies), the search started at `start`.
  NoiseCalibration run(double start) {
    const double tol = calibration_.relative_tolerance, minimum = calibration_.minimum;
    double low = minimum, high = calibration_.maximum;
    bool low_fails = false;
    double previous_width = INFINITY, width_before = INFINITY;
    const double coarse_crossing = crossing(low, high, std::clamp(start, minimum, high));
    order_.clear();  // Newton steps from the certificates made here, not from the maximum's
    for (int certificates = 0; !(low_fails && high <= low * (1.0 + tol)); ++certificates) {
      const double width = std::log(high / low);
      const bool stalled = (low_fails && width > 0.5 * width_before) || certificates >= 8;
      width_before = previous_width, previous_width = width;
      const double crossing = predicted_crossing(coarse_crossing);
      double m = crossing * (1.0 + 0.5 * tol);
      if (crossing * (1.0 + tol) > high) m = high / (1.0 + tol);  // predicted to fail, which ends the search
      if (!low_fails && m <= minimum * (1.0 + tol)) m = minimum;
      if (low_fails && m <= low * (1.0 + tol)) m = low * (1.0 + tol);  // predicted to pass, which ends it
      if (stalled || !(m >= low && m < high) || (low_fails && m == low)) m = std::sqrt(low * high);
      if (m == minimum && !low_fails) {
        if (certifies(minimum)) return finish(minimum, minimum);
        low_fails = true;
        continue;
      }
      if (!(m > low && m < high)) break;  // adjacent doubles: nothing lies between
      if (certifies(m)) {
        high = m;
      } else {
        low = m;
        low_fails = true;
      }
    }
    return finish(high, low);
  }

 private:
  struct Coarse {
    double lower = 0.0, upper = 0.0;
  };

  const Coarse& coarse_at(double m) {
    auto found = coarse_.find(m);
    if (found != coarse_.end()) return found->second;
    const PairBounds screen = certified(describe_(m), delta_, coarse_options_, false);
    const Coarse c{screen.epsilon_lower(delta_), screen.epsilon_upper(delta_)};
    // The secant slope to the nearest earlier point at least 2e-3 away in log m (the most local one the jitter allows).
    double nearest = INFINITY;
    for (const auto& [other, d] : coarse_) {
      const double dx = std::log(other / m);
      if (std::abs(dx) >= 2e-3 && std::abs(dx) < nearest && std::isfinite(d.upper) && std::isfinite(c.upper) &&
          d.upper > 0.0 && c.upper > 0.0 && (d.upper - c.upper) * dx < 0.0) {
        nearest = std::abs(dx);
        slope_ = std::log(d.upper / c.upper) / dx;
      }
    }
    return coarse_.emplace(m, c).first->second;
  }

  // log(E(m) / target) for the coarse estimate E = c_lo + 3/4 (c_hi - c_lo) (the certificate's upper end lies nearer
  // the coarse upper end: the coarse lower one is first order in the step): positive where m is predicted to fail.
  double excess(double m) {
    const Coarse& c = coarse_at(m);
    return std::log((std::isfinite(c.upper) ? c.lower + 0.75 * (c.upper - c.lower) : INFINITY) / target_);
  }

  // Where the coarse estimate crosses the target within [low, high], to 2e-4 (or a tenth of the tolerance) in log m:
  // Newton steps from `guess`, by at most a factor 4 up or 2 down (small m is where a composition costs most).
  double crossing(double low, double high, double guess) {
    const double precision = std::max(2e-4, 0.1 * calibration_.relative_tolerance);
    double x = std::log(guess), y = excess(guess);
    for (int i = 0; i < 40; ++i) {
      const double step =
          std::clamp(std::isfinite(y) ? -y / slope_ : (y > 0.0 ? INFINITY : -INFINITY), -std::log(2.0), std::log(4.0));
      const double next = std::clamp(x + step, std::log(low), std::log(high));
      if (std::abs(next - x) <= precision) return std::exp(next);
      x = next, y = excess(std::exp(x));
    }
    return std::exp(x);
  }

  // The crossing predicted from the certificates made so far: a Newton step from the latest finite one, at the secant
  // slope of the two latest if they are tol / 2 apart and it is within a factor 4 of the coarse slope, else at the
  // coarse slope; the coarse crossing before there is a certificate.
  double predicted_crossing(double coarse_crossing) const {
    if (order_.empty()) return coarse_crossing;
    const double m1 = order_.back(), u1 = certificates_.at(m1).upper;
    if (!std::isfinite(u1) || !(u1 > 0.0)) return coarse_crossing;
    double slope = slope_;
    if (order_.size() >= 2) {
      const double m0 = order_[order_.size() - 2], u0 = certificates_.at(m0).upper;
      const double dx = std::log(m1 / m0);
      if (std::isfinite(u0) && u0 > 0.0 && std::abs(dx) >= 0.5 * calibration_.relative_tolerance) {
        const double secant = std::log(u1 / u0) / dx;
        if (secant < 0.25 * slope_ && secant > 4.0 * slope_) slope = secant;
      }
    }
    return m1 * std::exp(-std::log(u1 / target_) / slope);
  }

  NoiseCalibration finish(double high, double low) {
    result_.noise_multiplier = high;
    result_.below = low;
    const auto found = certificates_.find(high);
    result_.epsilon = found != certificates_.end()
                          ? found->second
                          : reported_bracket(certified(describe_(high), delta_, options_, true), delta_);
    return result_;
  }

  const std::function<ReleaseDescription(double)>& describe_;
  double target_, delta_;
  AccountantOptions options_, coarse_options_;
  CalibrationOptions calibration_;
  double slope_ = -2.0;  // d log epsilon / d log m: about -2 for the Gaussian at small sampling rates
  std::map<double, Coarse> coarse_;
  std::map<double, EpsilonBracket> certificates_;
  std::vector<double> order_;  // the values certified, in the order made
  NoiseCalibration result_;
};

NoiseCalibration calibrate_parameter(const std::function<ReleaseDescription(double)>& describe,
                                     const std::function<std::string(double)>& unreachable, double target_epsilon,
                                     double delta, const AccountantOptions& options,
                                     const CalibrationOptions& calibration, double start) {
  check_epsilon(target_epsilon);
  check_delta(delta);
  if (!(calibration.relative_tolerance > 0.0 && calibration.relative_tolerance < 1.0))
    throw InputError(fmt::format("relative_tolerance {} must be in (0, 1)", calibration.relative_tolerance));
  if (!(calibration.minimum > 0.0 && calibration.maximum > calibration.minimum))
    throw InputError("the search range must be 0 < minimum < maximum");
  CalibrationSearch search(describe, target_epsilon, delta, options, calibration);
  if (!search.certifies(calibration.maximum)) throw InputError(unreachable(calibration.maximum));
  return search.run(start);
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
