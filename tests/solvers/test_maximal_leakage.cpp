// The Maximal Leakage optimum (Xiao et al. Thm 4, Alg. 2) against brute force over every set of states, the
// paper's Fig. 3 instance, the authors' default instance, and Thm 4's claim that no randomised mechanism does better.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core/errors.hpp"
#include "solvers/cost_formula.hpp"
#include "solvers/maximal_leakage.hpp"

using namespace noiselearn;

namespace {

// n = m inputs, F(X_i) = i, cost from a formula of (i, j) in the given numbering.
MaximalLeakageProblem identity_problem(const std::vector<double>& prior, const std::string& formula,
                                       int64_t first_state) {
  const CostFormula cost(formula);
  MaximalLeakageProblem p;
  p.states = static_cast<int64_t>(prior.size());
  p.first_state = first_state;
  p.prior = prior;
  for (int64_t i = 0; i < p.states; ++i) {
    p.start_states.push_back(i);
    std::vector<double> row;
    for (int64_t j = 0; j < p.states; ++j)
      row.push_back(cost(static_cast<double>(i + first_state), static_cast<double>(j + first_state)));
    p.cost.push_back(row);
  }
  return p;
}

// The cost of the deterministic scheme that sends every input to the lowest selected state at or above its start
// (infinite if some input has none), computed directly.
double direct_cost(const MaximalLeakageProblem& p, const std::vector<int64_t>& selected) {
  double total = 0.0;
  for (int64_t i = 0; i < p.inputs(); ++i) {
    const int64_t s = p.start_states[static_cast<size_t>(i)];
    const auto it = std::lower_bound(selected.begin(), selected.end(), s);
    if (it == selected.end()) return std::numeric_limits<double>::infinity();
    total += p.prior[static_cast<size_t>(i)] * p.cost[static_cast<size_t>(i)][static_cast<size_t>(*it)];
  }
  return total;
}

// Least cost over every set of at most k states (2^m subsets).
double brute_force_cost(const MaximalLeakageProblem& p, int64_t k) {
  double best = std::numeric_limits<double>::infinity();
  for (uint32_t mask = 1; mask < (1u << p.states); ++mask) {
    std::vector<int64_t> selected;
    for (int64_t j = 0; j < p.states; ++j)
      if (mask & (1u << j)) selected.push_back(j);
    if (static_cast<int64_t>(selected.size()) <= k) best = std::min(best, direct_cost(p, selected));
  }
  return best;
}

// A random instance: n inputs with random start states and prior (some zero), non-decreasing random costs.
MaximalLeakageProblem random_problem(std::mt19937_64& rng, int64_t n, int64_t m) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int64_t> state(0, m - 1);
  MaximalLeakageProblem p;
  p.states = m;
  double total = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    p.start_states.push_back(state(rng));
    p.prior.push_back(unit(rng) < 0.15 ? 0.0 : unit(rng));
    total += p.prior.back();
    std::vector<double> row(static_cast<size_t>(m), 0.0);
    double c = 3.0 * unit(rng);
    for (int64_t j = p.start_states.back(); j < m; ++j) {
      c += unit(rng) < 0.2 ? 0.0 : unit(rng);  // ties among costs too
      row[static_cast<size_t>(j)] = c;
    }
    p.cost.push_back(row);
  }
  if (total == 0.0) p.prior[0] = total = 1.0;
  for (double& q : p.prior) q /= total;
  return p;
}

}  // namespace

TEST_CASE("maximal leakage: the Fig. 3 instance (7 states, uniform prior, c_ij = j, 1-indexed)",
          "[solvers][maximal-leakage]") {
  const auto p = identity_problem(std::vector<double>(7, 1.0 / 7.0), "j", 1);
  // Section 5.1, Fig. 3: the optimal cost for v = 1 .. 7 and the mixture at v = 3.5.
  const std::vector<double> budgets{1, 2, 3, 4, 5, 6, 7, 3.5};
  const std::vector<double> sevenths{49, 37, 33, 31, 30, 29, 28, 32};
  for (size_t k = 0; k < budgets.size(); ++k) {
    INFO("v = " << budgets[k]);
    const auto s = solve_maximal_leakage(p, budgets[k]);
    CHECK(s.cost == Approx(sevenths[k] / 7.0).epsilon(1e-14));
    CHECK(s.mixture_cost == Approx(sevenths[k] / 7.0).epsilon(1e-14));
    // Every selected column receives a whole input at its cap: the leakage is exactly ln v.
    CHECK(s.leakage == Approx(std::log(budgets[k])).margin(1e-14));
  }
  CHECK(solve_maximal_leakage(p, 3).ceil_scheme.selected == std::vector<int64_t>{1, 3, 6});  // states {2, 4, 7}
  const auto curve = optimal_cost_curve(p, budgets);
  for (size_t k = 0; k < budgets.size(); ++k) CHECK(curve[k] == Approx(sevenths[k] / 7.0).epsilon(1e-14));
}

TEST_CASE("maximal leakage: the mixture at v = 3.5 is Fig. 3(d)'s water-filled matrix", "[solvers][maximal-leakage]") {
  const auto p = identity_problem(std::vector<double>(7, 1.0 / 7.0), "j", 1);
  const auto s = solve_maximal_leakage(p, 3.5);
  REQUIRE(s.lambda == 0.5);
  // Caps: 1/2 on {2, 4, 7} and 1/2 on {1, 3, 5, 7}. Input 1 splits between states 1 and 2 (Fig. 3(d)).
  CHECK(s.mechanism[0][0] == 0.5);
  CHECK(s.mechanism[0][1] == 0.5);
  for (const auto& row : s.mechanism) {
    double total = 0.0;
    for (double x : row) total += x;
    CHECK(total == Approx(1.0).margin(1e-15));
  }
  CHECK(s.column_caps[6] == 1.0);
}

TEST_CASE("maximal leakage: the authors' default instance selects states 1, 4, 6 (0-indexed) at cost 87/7",
          "[solvers][maximal-leakage]") {
  // 7 states, prior (2, 1, 0, 1, 2, 0, 1) / 7, c_ij = j^2 with 0-indexed states, v = 3. State 0 is never the best
  // choice here, but the lowest state must be selectable: see the next test.
  const auto p = identity_problem({2.0 / 7, 1.0 / 7, 0.0, 1.0 / 7, 2.0 / 7, 0.0, 1.0 / 7}, "j^2", 0);
  const auto s = solve_maximal_leakage(p, 3);
  CHECK(s.ceil_scheme.selected == std::vector<int64_t>{1, 4, 6});
  CHECK(s.cost == Approx(87.0 / 7.0).epsilon(1e-14));
  CHECK(brute_force_cost(p, 3) == Approx(87.0 / 7.0).epsilon(1e-14));
}

TEST_CASE("maximal leakage: the lowest state is selected when it is the only optimum", "[solvers][maximal-leakage]") {
  // Almost all prior mass starts at state 0 and moving it costs a lot: {0, top} is the unique optimum for v = 2
  // ({0, 4} costs 0.03 x 64 = 1.92, {1, 4} 0.97 + 0.02 x 64 = 2.25, and the rest more).
  const auto p = identity_problem({0.96, 0.01, 0.01, 0.01, 0.01}, "j^3", 0);
  const auto s = solve_maximal_leakage(p, 2);
  CHECK(s.ceil_scheme.selected == std::vector<int64_t>{0, 4});
  CHECK(s.cost == Approx(brute_force_cost(p, 2)).epsilon(1e-14));
}

TEST_CASE("maximal leakage: the dynamic programme equals brute force over every set of states",
          "[solvers][maximal-leakage]") {
  std::mt19937_64 rng(20250410);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t m = 1 + trial % 9, n = 1 + (trial * 7) % 12;
    const auto p = random_problem(rng, n, m);
    const auto schemes = optimal_deterministic_schemes(p, m);
    for (int64_t k = 1; k <= m; ++k) {
      INFO("trial " << trial << ", m = " << m << ", n = " << n << ", k = " << k);
      const auto& scheme = schemes[static_cast<size_t>(k - 1)];
      CHECK(scheme.cost == Approx(brute_force_cost(p, k)).epsilon(1e-12).margin(1e-14));
      CHECK(static_cast<int64_t>(scheme.selected.size()) <= k);
      CHECK(std::is_sorted(scheme.selected.begin(), scheme.selected.end()));
      // The back-pointers give the scheme whose direct cost is the programme's value.
      CHECK(direct_cost(p, scheme.selected) == Approx(scheme.cost).epsilon(1e-12).margin(1e-14));
      // The water-filled matrix of the scheme (caps 1 on the selected states) costs the same and leaks at most ln k.
      const auto s = solve_maximal_leakage(p, static_cast<double>(k));
      CHECK(s.cost == Approx(scheme.cost).epsilon(1e-12).margin(1e-14));
      CHECK(s.leakage <= std::log(static_cast<double>(k)) + 1e-15);
    }
  }
}

TEST_CASE("maximal leakage: the recomputed leakage is ln v when every input starts in its own state",
          "[solvers][maximal-leakage]") {
  // With positive prior on every state each selected column receives an input at full probability, so the
  // deterministic optimum uses its whole budget; the mixtures use exactly lambda floor v + (1 - lambda) ceil v.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.1, 1.0);
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<double> prior(8);
    double total = 0.0;
    for (double& q : prior) total += (q = unit(rng));
    for (double& q : prior) q /= total;
    const auto p = identity_problem(prior, trial % 2 ? "j - i" : "(j + 1)^1.5", 0);
    for (double v : {1.0, 2.0, 2.25, 3.0, 4.5, 5.0, 7.75, 8.0}) {
      INFO("trial " << trial << ", v = " << v);
      const auto s = solve_maximal_leakage(p, v);
      CHECK(s.leakage == Approx(std::log(v)).margin(1e-12));
      CHECK(s.cost == Approx(s.mixture_cost).epsilon(1e-12).margin(1e-14));
    }
  }
}

TEST_CASE(
    "maximal leakage: no randomised mechanism within the budget costs less than Thm 4's (random caps, water-filled)",
    "[solvers][maximal-leakage]") {
  // Prop. 4 reduces every mechanism to its column caps (water-filling is the cheapest matrix under given caps), so
  // random caps with sum v cover all mechanisms of leakage ln v that matter. Thm 4 says none beats C(v).
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const int64_t m = 3 + trial % 6;
    const auto p = random_problem(rng, 2 * m, m);
    for (int sample = 0; sample < 200; ++sample) {
      // Caps in [0, 1] with the top state at 1 (so every row can be filled).
      std::vector<double> caps(static_cast<size_t>(m));
      for (double& c : caps) c = unit(rng) < 0.3 ? 0.0 : unit(rng);
      caps.back() = 1.0;
      double v = 0.0;
      for (double c : caps) v += c;
      const auto mechanism = water_fill(p, caps);
      const double leakage = maximal_leakage(mechanism);
      CHECK(leakage <= std::log(v) + 1e-12);
      const double budget = std::max(1.0, std::exp(leakage));
      CHECK(expected_cost(p, mechanism) >= solve_maximal_leakage(p, budget).cost - 1e-12);
    }
  }
}

TEST_CASE("maximal leakage: a budget beyond the states gains nothing, ties go to the lowest state",
          "[solvers][maximal-leakage]") {
  const auto p = identity_problem(std::vector<double>(4, 0.25), "j", 1);
  CHECK(solve_maximal_leakage(p, 9.5).cost == Approx(2.5).epsilon(1e-15));
  // A constant cost makes every scheme cost the same: the tie-break takes the lowest next state at every step, so
  // the scheme is {0, 1} and then the highest start state, which must be covered.
  const auto flat = identity_problem(std::vector<double>(4, 0.25), "5", 0);
  const auto s = solve_maximal_leakage(flat, 3);
  CHECK(s.ceil_scheme.selected == std::vector<int64_t>{0, 1, 3});
  CHECK(s.cost == Approx(5.0));
}

TEST_CASE("maximal leakage: bad input names the culprit", "[solvers][maximal-leakage]") {
  auto p = identity_problem(std::vector<double>(3, 1.0 / 3.0), "j", 1);
  CHECK_THROWS_WITH(solve_maximal_leakage(p, 0.5), Catch::Contains("v = 0.5 must be a finite number >= 1"));
  CHECK_THROWS_AS(solve_maximal_leakage(p, std::nan("")), InputError);
  auto bad_prior = p;
  bad_prior.prior[0] = 0.5;
  CHECK_THROWS_WITH(solve_maximal_leakage(bad_prior, 2), Catch::Contains("prior sums to"));
  auto negative = p;
  negative.prior = {1.2, -0.2, 0.0};
  CHECK_THROWS_WITH(solve_maximal_leakage(negative, 2), Catch::Contains("prior q_2 = -0.2"));
  auto decreasing = p;
  decreasing.cost[1][2] = 0.5;
  CHECK_THROWS_WITH(solve_maximal_leakage(decreasing, 2), Catch::Contains("cost row 2 is not non-decreasing"));
  auto outside = p;
  outside.start_states[2] = 3;
  CHECK_THROWS_WITH(solve_maximal_leakage(outside, 2), Catch::Contains("start state F(X_3) = 4"));
  // Below the start state the cost is never used: anything goes there.
  auto below = p;
  below.cost[2][0] = std::numeric_limits<double>::infinity();
  CHECK(solve_maximal_leakage(below, 2).cost == Approx(solve_maximal_leakage(p, 2).cost));
}

TEST_CASE("cost formula: the paper's costs and operator precedence", "[solvers][maximal-leakage]") {
  CHECK(CostFormula("j")(2, 5) == 5.0);
  CHECK(CostFormula("j - i")(2, 5) == 3.0);
  CHECK(CostFormula("j^2")(2, 5) == 25.0);
  CHECK(CostFormula("-j^2 + 2*i*j / 4")(2, 5) == -20.0);
  CHECK(CostFormula("2^3^2")(0, 0) == 512.0);
  CHECK(CostFormula("(j - i) * (j - i)")(1, 4) == 9.0);
  CHECK(CostFormula(" 1.5e1 ")(0, 0) == 15.0);
  CHECK_THROWS_WITH(CostFormula("j -"), Catch::Contains("ends early"));
  CHECK_THROWS_WITH(CostFormula("k + 1"), Catch::Contains("unexpected 'k' at position 1"));
  CHECK_THROWS_WITH(CostFormula("(j"), Catch::Contains("')' expected"));
}

TEST_CASE("maximal leakage: 100 states, uniform prior, c_ij = j - i: equal blocks in closed form for v = 1 .. 40",
          "[solvers][maximal-leakage]") {
  // Each selected state collects the block of inputs just below it; with uniform prior a block of L states costs
  // (0 + 1 + .. + L - 1) / 100, and the optimum makes the v blocks as equal as possible (the cost is convex in L).
  const auto p = identity_problem(std::vector<double>(100, 0.01), "j - i", 0);
  std::vector<double> budgets;
  for (int v = 1; v <= 40; ++v) budgets.push_back(v);
  const auto costs = optimal_cost_curve(p, budgets);
  for (int v = 1; v <= 40; ++v) {
    const int q = 100 / v, extra = 100 % v;
    const double closed = (extra * (q + 1.0) * q / 2.0 + (v - extra) * q * (q - 1.0) / 2.0) / 100.0;
    INFO("v = " << v);
    CHECK(costs[static_cast<size_t>(v - 1)] == Approx(closed).epsilon(1e-12).margin(1e-13));
  }
}
