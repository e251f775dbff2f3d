#include "solvers/maximal_leakage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/errors.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The total cost of sending the inputs that start in [a, b] to state b, for every a <= b, from prefix sums over the
// start state: block(b, s) = sum of q_i c_ib over inputs with F(X_i) <= s. Stored as a lower triangle (s <= b).
class BlockCosts {
 public:
  explicit BlockCosts(const MaximalLeakageProblem& problem)
      : m_(problem.states), prefix_(static_cast<size_t>(m_ * (m_ + 1) / 2), 0.0) {
    // Bucket q_i c_ib by start state for every column b (O(n m)), then accumulate over the start state (O(m^2)).
    for (int64_t i = 0; i < problem.inputs(); ++i) {
      const auto s = problem.start_states[static_cast<size_t>(i)];
      const double q = problem.prior[static_cast<size_t>(i)];
      if (q == 0.0) continue;
      const auto& row = problem.cost[static_cast<size_t>(i)];
      for (int64_t b = s; b < m_; ++b) prefix_[index(b, s)] += q * row[static_cast<size_t>(b)];
    }
    for (int64_t b = 0; b < m_; ++b)
      for (int64_t s = 1; s <= b; ++s) prefix_[index(b, s)] += prefix_[index(b, s - 1)];
  }
  // sum of q_i c_ib over inputs with a <= F(X_i) <= b.
  double operator()(int64_t a, int64_t b) const {
    return prefix_[index(b, b)] - (a > 0 ? prefix_[index(b, a - 1)] : 0.0);
  }

 private:
  size_t index(int64_t b, int64_t s) const { return static_cast<size_t>(b * (b + 1) / 2 + s); }
  int64_t m_;
  std::vector<double> prefix_;
};

std::string state_label(int64_t state, int64_t first_state) { return std::to_string(state + first_state); }

}  // namespace

void MaximalLeakageProblem::validate() const {
  if (states < 1 || states > kMaxLeakageStates)
    throw InputError(fmt::format("the number of output states m = {} must lie in 1 .. {}", states, kMaxLeakageStates));
  const int64_t n = inputs();
  if (n < 1 || n > kMaxLeakageInputs)
    throw InputError(fmt::format("the number of inputs {} must lie in 1 .. {}", n, kMaxLeakageInputs));
  if (static_cast<int64_t>(prior.size()) != n)
    throw InputError(fmt::format("the prior has {} entries but there are {} inputs (start states)", prior.size(), n));
  if (static_cast<int64_t>(cost.size()) != n)
    throw InputError(fmt::format("the cost matrix has {} rows but there are {} inputs", cost.size(), n));
  double total = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const auto s = start_states[static_cast<size_t>(i)];
    if (s < 0 || s >= states)
      throw InputError(fmt::format("start state F(X_{}) = {} is not an output state ({} .. {})", i + first_state,
                                   s + first_state, first_state, states - 1 + first_state));
    const double q = prior[static_cast<size_t>(i)];
    if (!(q >= 0.0) || !std::isfinite(q))
      throw InputError(fmt::format("prior q_{} = {} must be finite and >= 0", i + first_state, q));
    total += q;
    const auto& row = cost[static_cast<size_t>(i)];
    if (static_cast<int64_t>(row.size()) != states)
      throw InputError(fmt::format("cost row {} has {} entries, not m = {}", i + first_state, row.size(), states));
    for (int64_t j = s; j < states; ++j) {
      const double c = row[static_cast<size_t>(j)];
      if (!std::isfinite(c))
        throw InputError(fmt::format("cost c[{}][{}] = {} must be finite at and above the start state {}",
                                     i + first_state, j + first_state, c, s + first_state));
      // Alg. 2 sends each input to the lowest chosen state at or above its own: optimal only if moving higher never
      // costs less (the assumption of section 5.1).
      if (j > s && c < row[static_cast<size_t>(j - 1)])
        throw InputError(
            fmt::format("cost row {} is not non-decreasing from its start state {}: c[{}][{}] = {} < c[{}][{}] = {}",
                        i + first_state, s + first_state, i + first_state, j + first_state, c, i + first_state,
                        j - 1 + first_state, row[static_cast<size_t>(j - 1)]));
    }
  }
  if (!(std::abs(total - 1.0) <= 1e-9))
    throw InputError(fmt::format("the prior sums to {:.12g}, not 1 (tolerance 1e-9)", total));
}

std::vector<DeterministicScheme> optimal_deterministic_schemes(const MaximalLeakageProblem& problem, int64_t k_max,
                                                               const MaximalLeakageOptions& options) {
  problem.validate();
  const int64_t m = problem.states;
  if (k_max < 1) throw InputError(fmt::format("the number of states to select ({}) must be at least 1", k_max));
  k_max = std::min(k_max, m);
  const int64_t top = *std::max_element(problem.start_states.begin(), problem.start_states.end());
  const BlockCosts block(problem);
  // T_k(a): the least cost of the inputs starting at or above a, with at most k states chosen in [a, m - 1] and the
  // state below a (if any) chosen (appendix G: T(a, k) = min over the next chosen state a' >= a of
  // T(a' + 1, k - 1) + the cost of sending the inputs starting in [a, a'] to a'). Every input must land somewhere,
  // so T_0(a) is infinite while an input starts at or above a (a <= top), and T_k(a) = 0 beyond top.
  // Row a = 0 starts with no state chosen: the lowest state is selectable (experiments/errata.md, E-Xiao-7: the
  // authors' code cannot).
  const size_t width = static_cast<size_t>(m + 1);
  std::vector<std::vector<double>> value(static_cast<size_t>(k_max + 1), std::vector<double>(width, 0.0));
  std::vector<std::vector<int64_t>> next(static_cast<size_t>(k_max + 1), std::vector<int64_t>(width, -1));
  for (int64_t a = 0; a <= top; ++a) value[0][static_cast<size_t>(a)] = kInfinity;
  std::vector<double> candidate(width);
  for (int64_t k = 1; k <= k_max; ++k) {
    const auto& below = value[static_cast<size_t>(k - 1)];
    for (int64_t a = 0; a <= top; ++a) {
      double least = kInfinity;
      for (int64_t chosen = a; chosen < m; ++chosen) {
        candidate[static_cast<size_t>(chosen)] = block(a, chosen) + below[static_cast<size_t>(chosen + 1)];
        least = std::min(least, candidate[static_cast<size_t>(chosen)]);
      }
      // Deterministic tie-break: the lowest next state within tie_tolerance (relative) of the least cost.
      const double slack = options.tie_tolerance * std::max(1.0, std::abs(least));
      for (int64_t chosen = a; chosen < m; ++chosen)
        if (candidate[static_cast<size_t>(chosen)] <= least + slack) {
          value[static_cast<size_t>(k)][static_cast<size_t>(a)] = candidate[static_cast<size_t>(chosen)];
          next[static_cast<size_t>(k)][static_cast<size_t>(a)] = chosen;
          break;
        }
    }
  }
  // Back-pointers: follow the chosen next states from (a = 0, k) until every input is covered (a > top).
  std::vector<DeterministicScheme> schemes(static_cast<size_t>(k_max));
  for (int64_t k = 1; k <= k_max; ++k) {
    DeterministicScheme& scheme = schemes[static_cast<size_t>(k - 1)];
    scheme.cost = value[static_cast<size_t>(k)][0];
    for (int64_t a = 0, left = k; a <= top; --left) {
      const int64_t chosen = next[static_cast<size_t>(left)][static_cast<size_t>(a)];
      if (left < 1 || chosen < 0) throw std::logic_error("maximal leakage: broken back-pointer chain");
      scheme.selected.push_back(chosen);
      a = chosen + 1;
    }
  }
  return schemes;
}

std::vector<std::vector<double>> water_fill(const MaximalLeakageProblem& problem,
                                            const std::vector<double>& column_caps) {
  const int64_t m = problem.states;
  if (static_cast<int64_t>(column_caps.size()) != m) throw std::logic_error("water_fill: one cap per state expected");
  std::vector<std::vector<double>> mechanism(static_cast<size_t>(problem.inputs()),
                                             std::vector<double>(static_cast<size_t>(m), 0.0));
  for (int64_t i = 0; i < problem.inputs(); ++i) {
    auto& row = mechanism[static_cast<size_t>(i)];
    double needed = 1.0;
    for (int64_t j = problem.start_states[static_cast<size_t>(i)]; j < m && needed > 0.0; ++j) {
      const double cap = column_caps[static_cast<size_t>(j)];
      if (cap <= 0.0) continue;
      // The caps of a mixture add up to 1 only up to rounding: give the row's last sliver to this column rather
      // than leave the row summing to 1 - 1e-16.
      const double take = needed - cap <= 1e-12 ? needed : cap;
      row[static_cast<size_t>(j)] = take;
      needed -= take;
    }
    if (needed > 0.0)
      throw std::logic_error(
          fmt::format("water_fill: the caps at and above state {} add up to less than 1 (row {} lacks {})",
                      problem.start_states[static_cast<size_t>(i)], i, needed));
  }
  return mechanism;
}

double maximal_leakage(const std::vector<std::vector<double>>& mechanism) {
  if (mechanism.empty()) return 0.0;
  double total = 0.0;
  for (size_t j = 0; j < mechanism.front().size(); ++j) {
    double column_max = 0.0;
    for (const auto& row : mechanism) column_max = std::max(column_max, row[j]);
    total += column_max;
  }
  return std::log(total);
}

double expected_cost(const MaximalLeakageProblem& problem, const std::vector<std::vector<double>>& mechanism) {
  double total = 0.0;
  for (int64_t i = 0; i < problem.inputs(); ++i) {
    const double q = problem.prior[static_cast<size_t>(i)];
    const auto& row = mechanism[static_cast<size_t>(i)];
    double row_cost = 0.0;
    for (int64_t j = problem.start_states[static_cast<size_t>(i)]; j < problem.states; ++j)
      if (row[static_cast<size_t>(j)] != 0.0)
        row_cost += problem.cost[static_cast<size_t>(i)][static_cast<size_t>(j)] * row[static_cast<size_t>(j)];
    total += q * row_cost;
  }
  return total;
}

namespace {

void require_budget(double budget) {
  if (!(budget >= 1.0) || !std::isfinite(budget))
    throw InputError(fmt::format("the leakage budget v = {} must be a finite number >= 1 (leakage ln v >= 0)", budget));
}

}  // namespace

MaximalLeakageSummary solve_maximal_leakage(const MaximalLeakageProblem& problem, double budget,
                                            const MaximalLeakageOptions& options) {
  require_budget(budget);
  problem.validate();
  const double m = static_cast<double>(problem.states);
  const double lower_budget = std::min(std::floor(budget), m), upper_budget = std::min(std::ceil(budget), m);
  const auto schemes = optimal_deterministic_schemes(problem, static_cast<int64_t>(upper_budget), options);
  MaximalLeakageSummary s;
  s.budget = budget;
  s.first_state = problem.first_state;
  // Beyond m every budget selects every state; otherwise v = ceil(v) - lambda.
  s.lambda = budget >= m ? 0.0 : std::ceil(budget) - budget;
  s.floor_scheme = schemes[static_cast<size_t>(lower_budget) - 1];
  s.ceil_scheme = schemes[static_cast<size_t>(upper_budget) - 1];
  s.column_caps.assign(static_cast<size_t>(problem.states), 0.0);
  for (int64_t j : s.floor_scheme.selected) s.column_caps[static_cast<size_t>(j)] += s.lambda;
  for (int64_t j : s.ceil_scheme.selected) s.column_caps[static_cast<size_t>(j)] += 1.0 - s.lambda;
  s.mechanism = water_fill(problem, s.column_caps);
  s.mixture_cost = s.lambda * s.floor_scheme.cost + (1.0 - s.lambda) * s.ceil_scheme.cost;
  s.cost = expected_cost(problem, s.mechanism);
  s.leakage = maximal_leakage(s.mechanism);
  return s;
}

std::vector<double> optimal_cost_curve(const MaximalLeakageProblem& problem, const std::vector<double>& budgets,
                                       const MaximalLeakageOptions& options) {
  for (double v : budgets) require_budget(v);
  if (budgets.empty()) return {};
  const double m = static_cast<double>(problem.states);
  const double largest = std::min(std::ceil(*std::max_element(budgets.begin(), budgets.end())), m);
  const auto schemes = optimal_deterministic_schemes(problem, static_cast<int64_t>(largest), options);
  std::vector<double> costs;
  for (double v : budgets) {
    // Thm 4: C(v) = lambda C(floor v) + (1 - lambda) C(ceil v); constant from v = m on.
    const double lower = std::min(std::floor(v), m), upper = std::min(std::ceil(v), m);
    const double lambda = v >= m ? 0.0 : std::ceil(v) - v;
    costs.push_back(lambda * schemes[static_cast<size_t>(lower) - 1].cost +
                    (1.0 - lambda) * schemes[static_cast<size_t>(upper) - 1].cost);
  }
  return costs;
}

std::string MaximalLeakageSummary::report() const {
  auto labels = [&](const DeterministicScheme& scheme) {
    std::vector<std::string> out;
    for (int64_t j : scheme.selected) out.push_back(state_label(j, first_state));
    return fmt::format("{{{}}}", fmt::join(out, ", "));
  };
  std::string out = fmt::format(
      "Maximal Leakage optimum (Xiao et al. Thm 4, Alg. 2) for budget v = {} (leakage <= ln v = {:.6f} nats)\n", budget,
      std::log(budget));
  if (lambda == 0.0) {
    out += fmt::format("  deterministic: states {} ({} selected), cost {:.10g}\n", labels(ceil_scheme),
                       ceil_scheme.selected.size(), ceil_scheme.cost);
  } else {
    out += fmt::format("  mixture: {:.6g} x states {} (cost {:.10g}) + {:.6g} x states {} (cost {:.10g})\n", lambda,
                       labels(floor_scheme), floor_scheme.cost, 1.0 - lambda, labels(ceil_scheme), ceil_scheme.cost);
  }
  out += fmt::format(
      "  cost {:.10g} (from the matrix; Thm 4 mixture {:.10g}), leakage recomputed {:.10g} nats = ln {:.10g}\n", cost,
      mixture_cost, leakage, std::exp(leakage));
  return out;
}

}  // namespace noiselearn
