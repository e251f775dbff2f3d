#include "solvers/hybrid_renyi_calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace noiselearn {

HybridRenyiCalibration calibrate_hybrid_renyi_budget(HybridRenyiTrial first, double target_epsilon, double target_delta,
                                                     double tolerance_relative,
                                                     const std::function<HybridRenyiTrial(double budget)>& trial) {
  HybridRenyiCalibration out;
  out.certificates = first.solved.feasible ? 1 : 0;
  const auto gap = [&](double delta) { return std::log(std::max(delta, 1e-300) / target_delta); };
  const auto epsilon_gap = [&](const HybridRenyiTrial& t) { return std::log(t.epsilon / target_epsilon); };
  const auto budget_text = [](double b) { return std::stod(fmt::format("{:.8g}", b)); };  // the budget prints as solved
  const auto attempt = [&](double b) {
    HybridRenyiTrial t = trial(budget_text(b));
    if (t.solved.feasible) ++out.certificates;
    return t;
  };
  HybridRenyiTrial low_trial, high_trial;
  bool have_low = false, have_high = false;
  // A first trial that meets is the low end; one that misses the high end, and the low end is searched below it.
  for (int up = 0; up < 8 && !first.solved.feasible; ++up) first = attempt(1.25 * first.budget);
  if (!first.solved.feasible) return out;
  if (first.meets) {
    low_trial = std::move(first), have_low = true;
  } else {
    high_trial = std::move(first), have_high = true;
    // Down along the model's line, or by 1.25 without it; once a budget is infeasible (below what any table at this
    // order reaches), by bisection between it and the lowest that missed.
    HybridRenyiTrial probe = high_trial;
    double infeasible = 0.0;  // the largest budget found infeasible (0: none yet)
    for (int down = 0; down < 16 && !have_low; ++down) {
      double b = probe.budget / 1.25;
      if (std::isfinite(probe.epsilon))
        b = std::min(probe.budget * target_epsilon / probe.epsilon - 2.0 * tolerance_relative * probe.budget,
                     probe.budget / (1.0 + tolerance_relative));
      b = std::max(b, 0.1 * probe.budget);
      if (infeasible > 0.0 && !(b > infeasible)) b = 0.5 * (infeasible + probe.budget);
      if (infeasible > 0.0 && probe.budget - infeasible <= tolerance_relative * probe.budget) break;
      HybridRenyiTrial t = attempt(b);
      if (!t.solved.feasible) {
        infeasible = std::max(infeasible, t.budget);
      } else if (t.meets) {
        low_trial = std::move(t), have_low = true;
      } else {
        high_trial = t, probe = std::move(t);
      }
    }
    if (!have_low) return out;
  }
  double previous_budget = std::numeric_limits<double>::quiet_NaN(), previous_epsilon = previous_budget;
  for (int expansion = 0; expansion < 8 && !have_high; ++expansion) {  // find a budget that misses
    const double low = low_trial.budget, tolerance = tolerance_relative * low;
    double b = 1.5 * low;
    if (std::isfinite(low_trial.epsilon)) {
      // The slope of ln e against ln b: 1 at first, then the secant through the last two trials that met.
      double slope = 1.0;
      if (std::isfinite(previous_epsilon)) {
        const double secant = std::log(low_trial.epsilon / previous_epsilon) / std::log(low / previous_budget);
        if (secant > 0.05 && secant < 20.0) slope = secant;
      }
      b = std::clamp(low * std::exp(std::log(target_epsilon / low_trial.epsilon) / slope) + 2.0 * tolerance,
                     low + tolerance, 2.25 * low);
    }
    HybridRenyiTrial t = attempt(b);
    if (t.meets) {
      previous_budget = low, previous_epsilon = low_trial.epsilon;
      low_trial = std::move(t);
    } else {
      high_trial = std::move(t), have_high = true;
    }
  }
  out.bracketed = have_high;  // false: even the largest budget tried meets the target (the caller says so)
  int last_moved = 0;         // -1 low, +1 high, 0 none yet
  int same_end = 0;           // how many times in a row the same end moved
  for (int step = 0;
       step < 30 && have_high && high_trial.budget - low_trial.budget > tolerance_relative * low_trial.budget; ++step) {
    const double low = low_trial.budget, high = high_trial.budget, tolerance = tolerance_relative * low;
    double b = 0.5 * (low + high);
    bool chord = false, in_logs = false;
    double fl = 0.0, fh = 0.0, xl = low, xh = high;
    if (std::isfinite(low_trial.epsilon) && std::isfinite(high_trial.epsilon) && high_trial.solved.feasible) {
      fl = epsilon_gap(low_trial), fh = epsilon_gap(high_trial), xl = std::log(low), xh = std::log(high);
      chord = fh > fl, in_logs = true;
    } else if (high_trial.solved.feasible) {
      fl = gap(low_trial.delta), fh = gap(high_trial.delta);
      chord = std::isfinite(fl) && std::isfinite(fh) && fh > fl;
    }
    if (chord) {
      if (same_end >= 2) (last_moved < 0 ? fh : fl) *= 0.5;  // Illinois
      const double x = xl + (xh - xl) * (-fl) / (fh - fl);
      b = in_logs ? std::exp(x) : x;
      b += last_moved < 0 ? 0.45 * tolerance : last_moved > 0 ? -0.45 * tolerance : 0.0;
      b = std::clamp(b, low + 0.45 * tolerance, high - 0.45 * tolerance);
    }
    if (!(budget_text(b) > low && budget_text(b) < high)) break;  // the bracket is narrower than the printed digits
    HybridRenyiTrial t = attempt(b);
    const int moved = t.meets ? -1 : 1;
    same_end = moved == last_moved ? same_end + 1 : 1;
    last_moved = moved;
    if (t.meets) {
      low_trial = std::move(t);
    } else {
      high_trial = std::move(t);
    }
  }
  out.found = true;
  out.kept = std::move(low_trial);
  return out;
}

}  // namespace noiselearn
