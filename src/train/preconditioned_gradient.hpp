#pragma once
// The preconditioned projected gradient method of Gilani et al. (Alg. 3, as corrected in experiments/errata.md) for a
// differentiable objective f(p) of a probability vector p > 0 under linear equality constraints A p = b (the
// family's normalisation and expected cost, models/geometric_tail_family.hpp).
//
// Why log-space: the paper preconditions with M = diag(p)^-1, i.e. it steps in q = p / p_current. Its
// preconditioned gradient diag(p) grad_p f equals grad_theta f for theta = log p (erratum E-Gilani-2), so the method
// works on theta, and the objective only ever sees log-probabilities (tail masses of 1e-80 and below keep
// their relative precision). One iteration:
//   g      = grad_theta f                                   (Alg. 3 line 6)
//   B      = A diag(p)                                      (line 7: the constraints in q-space)
//   g_proj = g - B^T (B B^T)^-1 B g                         (lines 8-9: a k x k solve, k = 2 constraints)
//   mu_ub  = min over g_proj_i > 0 of 1 / g_proj_i          (line 10: q = 1 - mu g_proj stays >= 0)
//   p_new  = p (1 - mu g_proj), i.e. theta_new = theta + log1p(-mu g_proj)   (line 14)
// B g_proj = 0, so A p_new = A p = b in exact arithmetic; the rounding is removed after every step by a tiny
// correction p <- p (1 + B^T lambda) with (B B^T) lambda = b - A p (A p with compensated sums), so the
// constraints hold to ~1e-15 relative at every iterate.
// Line search (erratum E-Gilani-1): mu_ub / 2^k for k = 0 .. line_search_halvings (Alg. 3 stops at k = 10 and stalls
// at eps ~ 2.71 in the Fig. 1 setting), keeping the best step found (the pseudo-code never updates g_min).
// Every `outer_update_every` iterations the objective's outer update runs (the Newton step of alpha,
// Alg. 3 lines 20-22).
//
// The objective is a callback (theta -> value, gradient), so any differentiable objective of the family can be
// minimised under the same constraints: the paper's gamma at the current alpha (renyi_family_objective), or
// another surrogate.
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "train/constrained_objective.hpp"
#include "train/constraint_projection.hpp"

namespace noiselearn {

// How a search direction is chosen.
enum class PreconditionedDirection {
  // Alg. 3: the projected preconditioned gradient, -g_proj.
  kSteepest,
  // Limited-memory BFGS on the projected gradients in theta (ours): two-loop recursion over the last
  // `lbfgs_memory` pairs, projected again onto the constraints; falls back to -g_proj when the result is not a
  // descent direction, and forgets its memory when the outer update changes the objective.
  kLbfgs,
  // Newton (ours; an SQP step for a max of pieces): minimises max_a (f_a + g_a^T d) + d^T H d / 2 subject to
  // B d = 0, H the objective's banded q-space curvature (newton_model). By duality the step is
  // d = -P sum_a w_a g_a, P the constrained inverse of H, w maximising w^T f - w^T Q w / 2 over the simplex
  // (Q_ab = g_a^T P g_b, a small QP): one banded factorisation and one solve per piece. With one piece it is
  // Newton's method. The step is theta + mu d (multiplicative in p, so p stays positive), made feasible by the
  // same correction, mu from 1 down by halvings; if that fails the steepest direction is tried. For the Renyi
  // objective at fixed alpha each piece g_alpha(p, a) is convex in q: a few dozen iterations where the
  // steepest method takes thousands.
  kNewton,
};
std::string to_string(PreconditionedDirection direction);
PreconditionedDirection parse_preconditioned_direction(const std::string& text);  // "steepest", "lbfgs", "newton"

struct PreconditionedIteration;

// What a checkpoint holds: the iterate after `iteration` iterations (counted over every session), the training
// time so far and the history records so far. The objective's own state (alpha) is the caller's to save.
struct PreconditionedCheckpoint {
  int64_t iteration = 0;
  const std::vector<double>* theta = nullptr;
  double seconds = 0.0;
  const std::vector<PreconditionedIteration>* history = nullptr;
};

struct PreconditionedGradientOptions {
  int64_t max_iterations = 2000;
  // Steps mu_ub / 2^k, k = 0 .. line_search_halvings (erratum E-Gilani-1: 40-60; the paper's 10 stalls).
  int line_search_halvings = 50;
  // true: evaluate every halving, as Alg. 3 does. false (default): stop halving once a step has decreased the
  // objective and the next smaller one is worse. Exact for the paper's objective: along the line
  // p (1 - mu g_proj), which is affine in mu, the max over shifts of g_alpha is convex in mu (Thm 3.1) and
  // gamma an increasing function of it, so the values along the halvings are unimodal.
  bool exhaustive_line_search = false;
  // After the halvings, refine the best step by golden section on [best / 2, 2 best] (0: none).
  int line_search_refinements = 0;
  PreconditionedDirection direction = PreconditionedDirection::kSteepest;
  int lbfgs_memory = 10;
  // The outer update (alpha's Newton step) every T iterations (Alg. 3 line 20); 0: never.
  int64_t outer_update_every = 10;
  // Stop when the relative decrease (f_prev - f) / |f_prev| stays below this for `patience` iterations in a row.
  double relative_progress_tolerance = 1e-10;
  int64_t patience = 5;
  // Stop as soon as the objective is <= this value (time-to-target measurements).
  double objective_target = -std::numeric_limits<double>::infinity();
  double max_seconds = std::numeric_limits<double>::infinity();
  int64_t history_every = 1;  // a history record every N iterations (and the last)
  int64_t log_every = 0;      // a progress line (spdlog info) every N iterations; 0: never
  // Checkpoints: write_checkpoint every `checkpoint_every` iterations and at the end (0 or no callback: none). An
  // exception it throws ends the run (the caller reports it).
  int64_t checkpoint_every = 0;
  std::function<void(const PreconditionedCheckpoint&)> write_checkpoint;
  // Resuming from a checkpoint: its iteration count, time and history. Iterations are numbered on from
  // first_iteration, max_iterations counts them all (so first_iteration + the iterations of this session), and
  // the records' seconds continue from seconds_before.
  int64_t first_iteration = 0;
  double seconds_before = 0.0;
  std::vector<PreconditionedIteration> history_before;
  void validate() const;  // InputError naming the field
};

struct PreconditionedIteration {
  int64_t iteration = 0;
  double alpha = 0.0;
  int64_t worst_shift = 0;
  double objective = 0.0;
  double gamma = 0.0;
  double step = 0.0;  // mu accepted (0: none)
  double seconds = 0.0;
  double constraint_residual = 0.0;  // max over the constraints of |A p - b| / max(|b|, 1e-300)
};

struct PreconditionedGradientSummary {
  int64_t iterations = 0;
  int64_t value_evaluations = 0;
  int64_t gradient_evaluations = 0;
  int64_t outer_updates = 0;
  int64_t newton_fallbacks = 0;  // Newton directions replaced by the steepest one (not a descent direction)
  double initial_objective = 0.0;
  double final_objective = 0.0;
  double seconds = 0.0;
  bool stopped_by_guard = false;         // a NaN or infinity stopped the run (the last good theta was kept)
  std::string termination;               // why the run ended
  double max_constraint_residual = 0.0;  // over every iterate
  std::vector<PreconditionedIteration> history;
  std::string report() const;  // several lines, Ceres-style
};

// Minimises objective(theta) subject to the constraints (exactly as many as given, at least 1), starting from
// theta (which must be feasible up to rounding: a relative residual <= 1e-9, else InputError) and finite.
// theta is updated in place to the best iterate (the last one: every accepted step decreases f).
PreconditionedGradientSummary preconditioned_gradient_descent(std::vector<double>& theta,
                                                              const std::vector<LinearConstraint>& constraints,
                                                              const ConstrainedObjective& objective,
                                                              const PreconditionedGradientOptions& options = {});

}  // namespace noiselearn
