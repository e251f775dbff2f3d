#include "train/preconditioned_gradient.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>

#include "core/enum_names.hpp"
#include "core/errors.hpp"
#include "core/noise_table.hpp"
#include "train/search_directions.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

constexpr NameTable<PreconditionedDirection, 3> kPreconditionedDirections{
    {{PreconditionedDirection::kSteepest, "steepest"},
     {PreconditionedDirection::kLbfgs, "lbfgs"},
     {PreconditionedDirection::kNewton, "newton"}}};

std::string to_string(PreconditionedDirection direction) {
  return std::string(name_of(kPreconditionedDirections, direction));
}

PreconditionedDirection parse_preconditioned_direction(const std::string& text) {
  if (const auto direction = find_named(kPreconditionedDirections, text)) return *direction;
  throw InputError(fmt::format("optimiser.direction '{}' is not one of: {}", text,
                               fmt::join(names_of(kPreconditionedDirections), ", ")));
}

void PreconditionedGradientOptions::validate() const {
  if (max_iterations < 0) throw InputError(fmt::format("optimiser.iterations {} must be >= 0", max_iterations));
  if (line_search_halvings < 1 || line_search_halvings > 1000)
    throw InputError(fmt::format("optimiser.line_search_halvings {} must lie in 1 .. 1000", line_search_halvings));
  if (line_search_refinements < 0) throw InputError("optimiser.line_search_refinements must be >= 0");
  if (lbfgs_memory < 1) throw InputError(fmt::format("optimiser.lbfgs_memory {} must be at least 1", lbfgs_memory));
  if (outer_update_every < 0) throw InputError("optimiser.alpha_update_every must be >= 0");
  if (!(relative_progress_tolerance >= 0.0)) throw InputError("optimiser.relative_progress_tolerance must be >= 0");
  if (patience < 1) throw InputError("optimiser.patience must be at least 1");
  if (!(max_seconds > 0.0)) throw InputError("optimiser.max_seconds must be > 0");
  if (history_every < 1) throw InputError("optimiser.history_every must be at least 1");
  if (log_every < 0) throw InputError("optimiser.log_every must be >= 0");
  if (checkpoint_every < 0) throw InputError("output.checkpoint_every must be >= 0");
  if (first_iteration < 0 || first_iteration > max_iterations)
    throw InputError(
        fmt::format("the checkpoint's iteration {} is beyond optimiser.iterations = {}; raise optimiser.iterations "
                    "to train longer",
                    first_iteration, max_iterations));
}

std::string PreconditionedGradientSummary::report() const {
  std::ostringstream out;
  out << "Preconditioned gradient report\n";
  out << fmt::format("  iterations            {}\n", iterations);
  out << fmt::format("  objective             {:.10g} -> {:.10g}\n", initial_objective, final_objective);
  out << fmt::format("  evaluations           {} values, {} gradients, {} outer updates\n", value_evaluations,
                     gradient_evaluations, outer_updates);
  if (newton_fallbacks > 0)
    out << fmt::format("  newton fallbacks      {} (steepest steps where the Newton direction failed)\n",
                       newton_fallbacks);
  out << fmt::format("  constraint residual   {:.3g} (largest relative, over every iterate)\n",
                     max_constraint_residual);
  out << fmt::format("  time                  {:.3f} s\n", seconds);
  if (!history.empty()) {
    const auto& last = history.back();
    out << fmt::format("  last record           iteration {}, alpha {:.6g}, worst shift {}, gamma {:.10g}\n",
                       last.iteration, last.alpha, last.worst_shift, last.gamma);
  }
  out << fmt::format("  termination           {}{}\n", termination, stopped_by_guard ? " (guard)" : "");
  return out.str();
}

namespace {

class Run {
 public:
  Run(std::vector<double>& theta, const std::vector<LinearConstraint>& constraints,
      const ConstrainedObjective& objective, const PreconditionedGradientOptions& options)
      : theta_(theta), constraints_(constraints), objective_(objective), options_(options) {}

  PreconditionedGradientSummary run();

 private:
  // The phases of run(): the starting point checked and evaluated, the iterations (false: the run ends,
  // summary_.termination says why), the last record and checkpoint.
  void check_start();
  void evaluate_start();
  bool iterate(int64_t iteration);
  void finish();

  // The phases of an iteration. The search direction (Alg. 3: -g_proj; or L-BFGS, or Newton).
  std::vector<double> search_direction(const std::vector<double>& g, const std::vector<double>& g_proj,
                                       const ConstraintRows& rows);
  // The step along it (0: none), with the steepest direction when Newton's fails.
  double step_along(std::vector<double>& direction, const std::vector<double>& g_proj, double mu_start);
  // The outer update when due (false: the run ends).
  bool outer_update(int64_t iteration, double step, bool& changed);
  // The objective and gradient at the new point (false: not finite, the run ends), and the stopping rules.
  bool evaluate_iterate(int64_t iteration);
  bool continue_after(int64_t iteration, double f_before, bool changed);

  double value_at(const std::vector<double>& theta) {
    ++summary_.value_evaluations;
    if (!all_finite(theta)) return kInfinity;  // a zero probability: the Renyi objective is infinite
    return objective_.value(theta_tensor(theta));
  }
  // theta + log1p(mu d), made feasible to rounding.
  std::vector<double> step_to(double mu, const std::vector<double>& direction) {
    std::vector<double> candidate = theta_;
    bool linear = true;  // p (1 + mu d) stays positive
    for (double d : direction) linear = linear && 1.0 + mu * d > 0.0;
    if (options_.direction == PreconditionedDirection::kNewton && newton_.ok() && !linear) {
      // A long Newton step that p (1 + mu d) cannot take: p e^(mu d) instead (same first order). Short steps are
      // linear in q, where the model lives, so Newton keeps its fast local convergence.
      for (size_t i = 0; i < candidate.size(); ++i) candidate[i] += mu * direction[i];
    } else {
      for (size_t i = 0; i < candidate.size(); ++i) candidate[i] += std::log1p(mu * direction[i]);
    }
    if (all_finite(candidate)) impose_linear_constraints(candidate, constraints_);
    return candidate;
  }
  // Best step along direction d (B d = 0, d . g < 0) from the current point with value f; returns mu (0 if none)
  // and moves theta_ there.
  double line_search(const std::vector<double>& direction, double mu_start, double& f);
  void record(int64_t iteration, double f, double step, bool force);
  void checkpoint(int64_t iteration) {
    if (!options_.write_checkpoint) return;
    PreconditionedCheckpoint c;
    c.iteration = iteration;
    c.theta = &theta_;
    c.seconds =
        options_.seconds_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    c.history = &summary_.history;
    options_.write_checkpoint(c);
  }

  std::vector<double>& theta_;
  const std::vector<LinearConstraint>& constraints_;
  const ConstrainedObjective& objective_;
  const PreconditionedGradientOptions& options_;
  PreconditionedGradientSummary summary_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  LbfgsDirection lbfgs_;
  NewtonDirection newton_;
  // Carried from one iteration to the next: the objective and gradient at theta_, the previous iterate and projected
  // gradient (L-BFGS's pairs, and the point restored by the guard), the iterations of slow progress in a row.
  ObjectiveEvaluation current_;
  double f_ = 0.0;
  std::vector<double> previous_theta_, previous_g_proj_;
  int64_t slow_ = 0;
  bool outer_just_ran_ = false;
};

// The largest mu with q = 1 + mu d >= 0 (Alg. 3 line 10 with d = -g_proj); infinite when no d_i is negative.
double positivity_bound(const std::vector<double>& direction) {
  double mu_ub = kInfinity;
  for (double d : direction)
    if (d < 0.0) mu_ub = std::min(mu_ub, -1.0 / d);
  return mu_ub;
}

double Run::line_search(const std::vector<double>& direction, double mu_start, double& f) {
  double best_f = f, best_mu = 0.0;
  std::vector<double> best_theta;
  double mu = mu_start;
  for (int k = 0; k <= options_.line_search_halvings; ++k, mu *= 0.5) {
    std::vector<double> candidate = step_to(mu, direction);
    const double value = value_at(candidate);
    // A NaN at a trial point is a rejected trial, not a stop: the current point is still good.
    if (std::isfinite(value) && value < best_f) {
      best_f = value;
      best_mu = mu;
      best_theta = std::move(candidate);
    } else if (!options_.exhaustive_line_search && best_mu > 0.0) {
      break;  // unimodal along the line: the best step is bracketed by (mu, 4 mu)
    }
  }
  if (best_mu > 0.0 && options_.line_search_refinements > 0) {
    // Golden section on [best / 2, 2 best] (values there are <= those at the ends by unimodality).
    const double ratio = 0.5 * (std::sqrt(5.0) - 1.0);
    double lo = 0.5 * best_mu, hi = std::min(2.0 * best_mu, mu_start);
    for (int r = 0; r < options_.line_search_refinements && hi > lo; ++r) {
      const double m1 = hi - ratio * (hi - lo), m2 = lo + ratio * (hi - lo);
      std::vector<double> c1 = step_to(m1, direction), c2 = step_to(m2, direction);
      const double v1 = value_at(c1), v2 = value_at(c2);
      if (std::isfinite(v1) && v1 < best_f) best_f = v1, best_mu = m1, best_theta = c1;
      if (std::isfinite(v2) && v2 < best_f) best_f = v2, best_mu = m2, best_theta = c2;
      if (!(v1 <= v2))
        lo = m1;
      else
        hi = m2;
    }
  }
  if (best_mu > 0.0) {
    theta_ = std::move(best_theta);
    f = best_f;
  }
  return best_mu;
}

void Run::record(int64_t iteration, double f, double step, bool force) {
  if (!force && iteration % options_.history_every != 0) return;
  PreconditionedIteration r;
  r.iteration = iteration;
  r.objective = f;
  r.step = step;
  r.seconds =
      options_.seconds_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  residuals(theta_, constraints_, &r.constraint_residual);
  if (objective_.diagnostics) {
    const ObjectiveDiagnostics d = objective_.diagnostics(theta_tensor(theta_));
    r.alpha = d.alpha, r.worst_shift = d.worst_shift, r.gamma = std::isnan(d.gamma) ? f : d.gamma;
  } else {
    r.alpha = std::numeric_limits<double>::quiet_NaN(), r.gamma = f;
  }
  if (!summary_.history.empty() && summary_.history.back().iteration == iteration) summary_.history.pop_back();
  summary_.history.push_back(r);
  if (options_.log_every > 0 && iteration % options_.log_every == 0)
    spdlog::info("pgd iteration {}: objective {:.10g}, alpha {:.6g}, worst shift {}, step {:.3g}, {:.2f} s", iteration,
                 f, r.alpha, r.worst_shift, step, r.seconds);
}

void Run::check_start() {
  options_.validate();
  if (constraints_.empty()) throw InputError("preconditioned gradient: at least one linear constraint is needed");
  for (const auto& c : constraints_)
    if (c.coefficients.size() != theta_.size())
      throw InputError(fmt::format("preconditioned gradient: constraint '{}' has {} coefficients for {} unknowns",
                                   c.name, c.coefficients.size(), theta_.size()));
  if (!all_finite(theta_)) throw InputError("preconditioned gradient: the starting log-probabilities must be finite");
  if (options_.direction == PreconditionedDirection::kNewton && !objective_.newton_model)
    throw InputError(
        fmt::format("optimiser.direction newton needs the objective's curvature, which '{}' does not provide "
                    "(use steepest or lbfgs)",
                    objective_.name));
  double relative = 0.0;
  residuals(theta_, constraints_, &relative);
  if (relative > 1e-9)
    throw InputError(fmt::format(
        "preconditioned gradient: the starting point violates the constraints (relative residual {:.3g})", relative));
  impose_linear_constraints(theta_, constraints_);
}

void Run::evaluate_start() {
  current_ = objective_.value_and_gradient(theta_tensor(theta_));
  ++summary_.gradient_evaluations;
  f_ = current_.value;
  summary_.history = options_.history_before;
  summary_.initial_objective = summary_.history.empty() ? f_ : summary_.history.front().objective;
  summary_.iterations = options_.first_iteration;
  if (!std::isfinite(f_))
    throw InputError(fmt::format("preconditioned gradient: the objective at the start is {}", f_));
  // Resuming: the checkpoint's last record is this point; re-recording it keeps its step.
  record(options_.first_iteration, f_, summary_.history.empty() ? 0.0 : summary_.history.back().step, true);
}

std::vector<double> Run::search_direction(const std::vector<double>& g, const std::vector<double>& g_proj,
                                          const ConstraintRows& rows) {
  if (options_.direction == PreconditionedDirection::kLbfgs && !previous_theta_.empty()) {
    std::vector<double> s(theta_.size()), y(theta_.size());
    for (size_t i = 0; i < s.size(); ++i) s[i] = theta_[i] - previous_theta_[i], y[i] = g_proj[i] - previous_g_proj_[i];
    if (dot(s, y) > 1e-12 * std::sqrt(dot(s, s) * dot(y, y))) {
      lbfgs_.remember(std::move(s), std::move(y), options_.lbfgs_memory);
    }
  }
  std::vector<double> direction;
  if (options_.direction == PreconditionedDirection::kLbfgs) {
    direction = lbfgs_(g_proj, rows);
  } else if (options_.direction == PreconditionedDirection::kNewton) {
    direction = newton_(objective_, theta_, g, g_proj, rows);
    if (!newton_.ok()) ++summary_.newton_fallbacks;
  } else {
    direction.resize(g_proj.size());
    for (size_t i = 0; i < g_proj.size(); ++i) direction[i] = -g_proj[i];
  }
  return direction;
}

double Run::step_along(std::vector<double>& direction, const std::vector<double>& g_proj, double mu_start) {
  double step = line_search(direction, mu_start, f_);
  if (step == 0.0 && options_.direction == PreconditionedDirection::kNewton && newton_.ok()) {
    // The Newton model failed (a kink of the max over shifts): try the steepest direction before giving up.
    newton_.fall_back();
    ++summary_.newton_fallbacks;
    for (size_t i = 0; i < direction.size(); ++i) direction[i] = -g_proj[i];
    const double ub = positivity_bound(direction);
    if (std::isfinite(ub)) step = line_search(direction, ub, f_);
  }
  return step;
}

bool Run::outer_update(int64_t iteration, double step, bool& changed) {
  const bool outer_due =
      objective_.outer_update && options_.outer_update_every > 0 && iteration % options_.outer_update_every == 0;
  // A failed line search ends the run, unless the outer update (alpha) may still change the objective: it is
  // tried once first. With outer_update_every = 0 alpha is fixed, so never.
  const bool outer_enabled = objective_.outer_update && options_.outer_update_every > 0;
  if (step == 0.0 && !(outer_enabled && !outer_just_ran_)) {
    record(iteration, f_, 0.0, true);
    summary_.termination =
        fmt::format("no decrease along the search direction at iteration {} (converged to rounding)", iteration);
    return false;
  }
  changed = false;
  if (outer_due || (step == 0.0 && outer_enabled)) {
    changed = objective_.outer_update(theta_tensor(theta_));
    ++summary_.outer_updates;
    outer_just_ran_ = true;
    if (changed) lbfgs_.clear(), previous_theta_.clear();
  } else {
    outer_just_ran_ = false;
  }
  return true;
}

bool Run::evaluate_iterate(int64_t iteration) {
  current_ = objective_.value_and_gradient(theta_tensor(theta_));
  ++summary_.gradient_evaluations;
  if (!std::isfinite(current_.value)) {
    summary_.stopped_by_guard = true;
    summary_.termination =
        fmt::format("objective {} at iteration {} (the last good point is kept)", current_.value, iteration);
    theta_ = previous_theta_.empty() ? theta_ : previous_theta_;
    return false;
  }
  f_ = current_.value;
  return true;
}

bool Run::continue_after(int64_t iteration, double f_before, bool changed) {
  if (f_ <= options_.objective_target) {
    summary_.termination =
        fmt::format("objective target {} reached at iteration {}", options_.objective_target, iteration);
    return false;
  }
  const double progress = changed ? kInfinity : (f_before - f_) / std::max(std::abs(f_before), 1e-300);
  slow_ = progress < options_.relative_progress_tolerance ? slow_ + 1 : 0;
  if (slow_ >= options_.patience) {
    summary_.termination = fmt::format("relative progress below {} for {} iterations (iteration {})",
                                       options_.relative_progress_tolerance, options_.patience, iteration);
    return false;
  }
  if (options_.checkpoint_every > 0 && iteration % options_.checkpoint_every == 0 &&
      iteration < options_.max_iterations)
    checkpoint(iteration);
  if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > options_.max_seconds) {
    summary_.termination = fmt::format("time limit {} s reached at iteration {}", options_.max_seconds, iteration);
    return false;
  }
  return true;
}

bool Run::iterate(int64_t iteration) {
  const std::vector<double> g = values_of(current_.gradient);
  if (!all_finite(g)) {
    summary_.stopped_by_guard = true;
    summary_.termination =
        fmt::format("NaN or infinity in the gradient at iteration {} (the last good point is kept)", iteration);
    return false;
  }
  const ConstraintRows rows = constraint_rows(theta_, constraints_);
  const std::vector<double> g_proj = project(rows, g);
  std::vector<double> direction = search_direction(g, g_proj, rows);
  const double mu_ub = positivity_bound(direction);
  if (!std::isfinite(mu_ub)) {
    summary_.termination = fmt::format("the projected gradient vanished at iteration {}", iteration);
    return false;
  }
  // L-BFGS and Newton propose a full step of 1 (Newton's steps are exponential in p: no positivity bound).
  const double mu_start = options_.direction == PreconditionedDirection::kLbfgs && !lbfgs_.empty()
                              ? std::min(1.0, mu_ub)
                          : options_.direction == PreconditionedDirection::kNewton && newton_.ok() ? 1.0
                                                                                                   : mu_ub;
  const double f_before = f_;
  previous_theta_ = theta_;
  previous_g_proj_ = g_proj;
  const double step = step_along(direction, g_proj, mu_start);
  summary_.iterations = iteration;
  summary_.max_constraint_residual = std::max(summary_.max_constraint_residual, [&] {
    double r = 0.0;
    residuals(theta_, constraints_, &r);
    return r;
  }());
  bool changed = false;
  if (!outer_update(iteration, step, changed) || !evaluate_iterate(iteration)) return false;
  record(iteration, f_, step, false);
  return continue_after(iteration, f_before, changed);
}

void Run::finish() {
  summary_.final_objective = f_;
  record(summary_.iterations, f_, summary_.history.empty() ? 0.0 : summary_.history.back().step, true);
  summary_.seconds =
      options_.seconds_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  checkpoint(summary_.iterations);
}

PreconditionedGradientSummary Run::run() {
  check_start();
  evaluate_start();
  summary_.termination = "iteration limit reached";
  for (int64_t iteration = options_.first_iteration + 1; iteration <= options_.max_iterations; ++iteration)
    if (!iterate(iteration)) break;
  finish();
  return summary_;
}

}  // namespace

PreconditionedGradientSummary preconditioned_gradient_descent(std::vector<double>& theta,
                                                              const std::vector<LinearConstraint>& constraints,
                                                              const ConstrainedObjective& objective,
                                                              const PreconditionedGradientOptions& options) {
  Run run(theta, constraints, objective, options);
  return run.run();
}

}  // namespace noiselearn
