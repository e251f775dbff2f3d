#pragma once
// The least-cost one-sided perturbation under a Maximal Leakage budget (Xiao et al., CCS 2025, section 5: eq. 28,
// Prop. 4, Thm 4, Alg. 2 with the appendix's consistent recurrence; erratum E-Xiao-7 of experiments/errata.md).
//
// A deterministic function F maps input X_i (prior q_i) to one of m ordered output states; its randomised version
// may only move an input up: row i of the mechanism P (p_ij = Pr[output j | input i]) is zero below F(X_i). Moving
// input i to state j costs c_ij, non-decreasing in j from F(X_i) on. The leakage of P is ln sum_j max_i p_ij
// (Issa et al.'s maximal leakage of a finite channel), and eq. 28 asks for the least expected cost
// sum_i q_i sum_j c_ij p_ij with leakage at most ln v.
//
// Thm 4: for an integer v the optimum is deterministic: choose v states and send every input to the lowest chosen
// state at or above its own (Prop. 4's water-filling with column caps 0 or 1). For v between two integers,
// v = ceil(v) - lambda, the optimum is the mixture lambda DS_floor(v) + (1 - lambda) DS_ceil(v) of the column caps,
// water-filled; its cost is exactly lambda C(floor v) + (1 - lambda) C(ceil v), the optimal cost curve being the
// piecewise-linear interpolation of its integer points.
//
// States are numbered 0 .. m-1 here; `first_state` only labels them in reports (1 for the paper's figures).
#include <cstdint>
#include <string>
#include <vector>

namespace noiselearn {

// The states and costs beyond which the dynamic programme's O(m^2) tables and O(v m^2) time stop being sensible.
inline constexpr int64_t kMaxLeakageStates = 4096;
inline constexpr int64_t kMaxLeakageInputs = 1000000;

struct MaximalLeakageProblem {
  int64_t states = 0;                     // m
  std::vector<int64_t> start_states;      // F(X_i) in 0 .. m-1, one per input
  std::vector<double> prior;              // q_i >= 0, summing to 1 (within 1e-9)
  std::vector<std::vector<double>> cost;  // n rows of m entries; c_ij for j < F(X_i) is never used
  int64_t first_state = 0;                // the label of state 0 in messages and reports (0 or 1)

  int64_t inputs() const { return static_cast<int64_t>(start_states.size()); }
  // InputError naming the culprit: sizes, a start state out of range, a negative or non-finite prior, a prior that
  // does not sum to 1, a cost that is not finite or decreases from F(X_i) on.
  void validate() const;
};

struct MaximalLeakageOptions {
  // Tie-break of the dynamic programme: among the next states whose total cost is within this relative tolerance of
  // the least one, the lowest is chosen (the lowest state moves inputs the least, and rounding of the prefix sums
  // cannot flip the choice between exactly equal alternatives).
  double tie_tolerance = 1e-12;
};

// A deterministic scheme: the selected states (ascending) and its expected cost.
struct DeterministicScheme {
  std::vector<int64_t> selected;
  double cost = 0.0;
};

// The dynamic programme of Alg. 2 (appendix G recurrence, lowest state selectable) for every budget 1 .. k_max:
// optimal deterministic schemes with at most k states (more states never cost more, so this is also the optimum
// with exactly k states whenever k distinct useful states exist). O(n m + k_max m^2) time, O(m^2) memory.
std::vector<DeterministicScheme> optimal_deterministic_schemes(const MaximalLeakageProblem& problem, int64_t k_max,
                                                               const MaximalLeakageOptions& options = {});

// Prop. 4: each row filled from F(X_i) upwards, p_ij = min(cap_j, what the row still needs). A column may exceed its
// cap by at most 1e-12 when the caps of a row add up to 1 only up to rounding (a mixture lambda + (1 - lambda)).
// logic_error if some row cannot be filled.
std::vector<std::vector<double>> water_fill(const MaximalLeakageProblem& problem,
                                            const std::vector<double>& column_caps);

// ln sum_j max_i p_ij, recomputed from the matrix (every row counts, whatever its prior).
double maximal_leakage(const std::vector<std::vector<double>>& mechanism);
// sum_i q_i sum_j c_ij p_ij.
double expected_cost(const MaximalLeakageProblem& problem, const std::vector<std::vector<double>>& mechanism);

struct MaximalLeakageSummary {
  double budget = 1.0;                         // v
  double lambda = 0.0;                         // ceil(v) - v: the weight of the floor(v) scheme
  DeterministicScheme floor_scheme;            // DS_floor(v) (budget min(floor v, m))
  DeterministicScheme ceil_scheme;             // DS_ceil(v) (equal to floor_scheme for an integer v)
  std::vector<double> column_caps;             // lambda 1[floor] + (1 - lambda) 1[ceil]
  std::vector<std::vector<double>> mechanism;  // n x m, water-filled from the caps
  double mixture_cost = 0.0;                   // lambda C(floor v) + (1 - lambda) C(ceil v) (Thm 4)
  double cost = 0.0;                           // recomputed from the mechanism
  double leakage = 0.0;                        // ln sum_j max_i p_ij, recomputed from the mechanism (nats)
  int64_t first_state = 0;
  std::string report() const;  // several lines
};

// Thm 4 / Alg. 2 for a real budget v >= 1 (InputError otherwise). A budget above the number of states m gains
// nothing over v = m (every state selected).
MaximalLeakageSummary solve_maximal_leakage(const MaximalLeakageProblem& problem, double budget,
                                            const MaximalLeakageOptions& options = {});

// The optimal cost C(v) at every given budget (one dynamic programme for all of them).
std::vector<double> optimal_cost_curve(const MaximalLeakageProblem& problem, const std::vector<double>& budgets,
                                       const MaximalLeakageOptions& options = {});

}  // namespace noiselearn
