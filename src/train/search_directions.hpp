#pragma once
// The search directions of the preconditioned gradient (preconditioned_gradient.hpp), in log p and projected on the
// linear constraints (constraint_projection.hpp): Gilani et al.'s Alg. 3 steps along the steepest direction -g_proj
// (the run forms it); ours are L-BFGS on the projected gradients and a Newton direction on the objective's
// max-of-pieces model (its curvature a band, its pieces combined through their dual on the simplex). Each falls back
// to the steepest direction where it is not a descent direction.
#include <deque>
#include <utility>
#include <vector>

#include "train/constrained_objective.hpp"
#include "train/constraint_projection.hpp"

namespace noiselearn {

// L-BFGS's two-loop recursion over the remembered (s, y) pairs of theta and projected-gradient differences.
class LbfgsDirection {
 public:
  // Remembers one pair, forgetting the oldest beyond `memory` pairs.
  void remember(std::vector<double> s, std::vector<double> y, int memory) {
    memory_.emplace_back(std::move(s), std::move(y));
    if (static_cast<int>(memory_.size()) > memory) memory_.pop_front();
  }
  void clear() { memory_.clear(); }
  bool empty() const { return memory_.empty(); }
  // The direction at the projected gradient g_proj (the steepest one, and the memory cleared, where L-BFGS's is not
  // a descent direction).
  std::vector<double> operator()(const std::vector<double>& g_proj, const ConstraintRows& rows);

 private:
  std::deque<std::pair<std::vector<double>, std::vector<double>>> memory_;  // (s, y) pairs of L-BFGS
};

// The Newton direction of the objective's max-of-pieces model (ConstrainedObjective::newton_model), the weights of
// its pieces carried from step to step.
class NewtonDirection {
 public:
  // The direction at theta (gradient g, projected g_proj); the steepest one where the model gives no descent
  // direction (ok() is then false).
  std::vector<double> operator()(const ConstrainedObjective& objective, const std::vector<double>& theta,
                                 const std::vector<double>& g, const std::vector<double>& g_proj,
                                 const ConstraintRows& rows);
  // The last direction was the model's descent direction (not the steepest fallback).
  bool ok() const { return ok_; }
  // The run gave up the model's direction (its line search found no decrease).
  void fall_back() { ok_ = false; }

 private:
  bool ok_ = false;                    // the last Newton direction was a descent direction (not the steepest fallback)
  std::vector<double> piece_weights_;  // the Newton model's multipliers of the pieces at the last step
};

// The weights w on the simplex maximising w^T f - w^T Q w / 2 (Q positive semidefinite, a few dozen pieces).
std::vector<double> simplex_dual(const std::vector<double>& f, const std::vector<std::vector<double>>& q);

}  // namespace noiselearn
