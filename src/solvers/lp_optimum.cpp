#include "solvers/lp_optimum.hpp"

#include <glpk.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csetjmp>
#include <memory>
#include <stdexcept>

#include "core/enum_names.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

// GLPK owns a problem object; this closes it on every path (GLPK's own errors abort, so inputs are checked first).
struct GlpkProblem {
  glp_prob* lp = glp_create_prob();
  ~GlpkProblem() {
    if (lp) glp_delete_prob(lp);
  }
  GlpkProblem() = default;
  GlpkProblem(const GlpkProblem&) = delete;
  GlpkProblem& operator=(const GlpkProblem&) = delete;
};

// GLPK aborts the process on an internal error unless an error hook leaves by longjmp; then every GLPK object is
// invalid and glp_free_env() must release them (GLPK manual, glp_error_hook). The hook turns such an error into an
// exception of solve_lp_optimum, never a crash.
thread_local std::jmp_buf* glpk_error_jump = nullptr;
void glpk_error_hook(void*) {
  if (glpk_error_jump) std::longjmp(*glpk_error_jump, 1);
}

std::string glpk_status(int status) {
  switch (status) {
    case GLP_OPT:
      return "optimal";
    case GLP_FEAS:
      return "feasible, not proved optimal";
    case GLP_INFEAS:
      return "infeasible (intermediate)";
    case GLP_NOFEAS:
      return "infeasible";
    case GLP_UNBND:
      return "unbounded";
    default:
      return "undefined";
  }
}

double cost_coefficient(double x, const LpOptimumOptions& o) {
  switch (o.cost) {
    case LpCost::kAbsolute:
      return std::abs(x);
    case LpCost::kSquare:
      return x * x;
    case LpCost::kMean:
      return x;
    case LpCost::kTailProbability:
      return std::abs(x) > o.tail_threshold + 1e-9 * o.grid.step ? 1.0 : 0.0;
  }
  return 0.0;
}

// Appends one row a . x (op) bound; GLPK indices are 1-based with slot 0 unused.
void add_row(glp_prob* lp, int type, double lower, double upper, const std::vector<int>& index,
             const std::vector<double>& value) {
  const int row = glp_add_rows(lp, 1);
  glp_set_row_bnds(lp, row, type, lower, upper);
  std::vector<int> ind{0};
  std::vector<double> val{0.0};
  ind.insert(ind.end(), index.begin(), index.end());
  val.insert(val.end(), value.begin(), value.end());
  glp_set_mat_row(lp, row, static_cast<int>(index.size()), ind.data(), val.data());
}

// delta_d(eps; p) = sum_y (p(y) - e^eps p(y - d))_+ in long double.
double single_release_delta_of_shift(const std::vector<double>& p, int64_t d, double epsilon) {
  const long double scale = std::exp(static_cast<long double>(epsilon));
  const auto n = static_cast<int64_t>(p.size());
  long double sum = 0.0L;
  for (int64_t y = 0; y < n; ++y) {
    const long double b = (y - d >= 0 && y - d < n) ? static_cast<long double>(p[static_cast<size_t>(y - d)]) : 0.0L;
    const long double excess = static_cast<long double>(p[static_cast<size_t>(y)]) - scale * b;
    if (excess > 0.0L) sum += excess;
  }
  return static_cast<double>(sum);
}

// glp_simplex from the current basis, with an iteration limit (deterministic, unlike a time limit) far above what a
// healthy solve needs. GLPK's dual simplex can stall from a warm basis on a degenerate LP near infeasibility: the
// least-epsilon bisection of a 121-point tail-probability problem (tests/run/test_run.cpp) ran for minutes on a
// 611 x 726 LP that a fresh advanced basis solves at once. Over the limit: again from a fresh advanced basis, and
// then by the primal simplex from the standard basis; the last code is returned (GLP_EITLIM if all three stalled).
int simplex_with_restarts(glp_prob* lp, glp_smcp parameters) {
  const int size = glp_get_num_rows(lp) + glp_get_num_cols(lp);
  parameters.it_lim = 10 * size + 5000;
  int code = glp_simplex(lp, &parameters);
  if (code != GLP_EITLIM) return code;
  glp_adv_basis(lp, 0);
  code = glp_simplex(lp, &parameters);
  if (code != GLP_EITLIM) return code;
  glp_std_basis(lp);
  parameters.meth = GLP_PRIMAL;
  parameters.it_lim = 200 * size + 10000;
  return glp_simplex(lp, &parameters);
}

}  // namespace

constexpr NameTable<LpCost, 4> kLpCosts{{{LpCost::kAbsolute, "l1"},
                                         {LpCost::kSquare, "second-moment"},
                                         {LpCost::kMean, "mean"},
                                         {LpCost::kTailProbability, "tail-probability"}}};

std::string to_string(LpCost cost) { return std::string(name_of(kLpCosts, cost)); }

LpCost parse_lp_cost(const std::string& text) { return parse_named(kLpCosts, text, "cost"); }

void LpOptimumOptions::validate() const {
  grid.validate();
  if (grid.size < 2) throw InputError("the LP needs a grid of at least 2 points");
  if (grid.size > 100001)
    throw InputError(fmt::format("a grid of {} points is beyond the LP's limit of 100,001", grid.size));
  if (shift_cells < 1 || shift_cells >= grid.size)
    throw InputError(
        fmt::format("the sensitivity is {} grid cells: it must be 1 .. {} (fewer cells than the grid has points: "
                    "otherwise every output is a distinguishing event); widen the grid or refine its step",
                    shift_cells, grid.size - 1));
  // e^eps multiplies the shifted masses: beyond e^40 the LP's coefficients span more than double precision can scale.
  if (!(epsilon >= 0.0 && epsilon <= 40.0))
    throw InputError(fmt::format("epsilon {} must be in [0, 40] for the LP", epsilon));
  if (objective == LpObjective::kLeastDelta && !(cost_budget > 0.0 && std::isfinite(cost_budget)))
    throw InputError(fmt::format("cost budget {} must be positive and finite", cost_budget));
  if (objective == LpObjective::kLeastCost && !(delta > 0.0 && delta < 1.0))
    throw InputError(fmt::format("delta {} must be in (0, 1)", delta));
  if (cost == LpCost::kTailProbability && !(tail_threshold >= 0.0)) throw InputError("the tail threshold must be >= 0");
  if (symmetric && !grid.is_symmetric())
    throw InputError("the symmetric shape needs a grid symmetric about 0 ([-r, r])");
}

double single_release_delta(const std::vector<double>& p, int64_t k, double epsilon) {
  double worst = 0.0;
  for (int64_t d = -k; d <= k; ++d)
    if (d != 0) worst = std::max(worst, single_release_delta_of_shift(p, d, epsilon));
  return worst;
}

double lp_cost_of(const std::vector<double>& p, const LpOptimumOptions& o) {
  long double sum = 0.0L;
  for (size_t i = 0; i < p.size(); ++i)
    sum += static_cast<long double>(p[i]) * cost_coefficient(o.grid.x(static_cast<int64_t>(i)), o);
  return static_cast<double>(sum);
}

namespace {

// The index of the grid point nearest 0 (the grid's centre when symmetric; 0 on a one-sided grid): the monotone
// shape is non-increasing away from it.
int centre_index(const LpOptimumOptions& o, int n) {
  int centre = 0;
  for (int i = 0; i < n; ++i)
    if (std::abs(o.grid.x(i)) < std::abs(o.grid.x(centre))) centre = i;
  return centre;
}

// The LP in GLPK. Columns: p_0 .. p_{n-1} (1 .. n), then delta (n + 1) for the least-delta objective, then t per
// active shift. Rows: sum p = 1, the cost budget (least delta), the shapes, and per active shift its n excess rows
// and its sum row.
struct ShiftLp {
  const LpOptimumOptions& o;
  glp_prob* lp;
  int n = static_cast<int>(o.grid.size);
  bool least_delta = o.objective == LpObjective::kLeastDelta;
  double scale = std::exp(o.epsilon);  // e^eps
  int delta_column = 0;
  int budget_row = 0;
  std::vector<int64_t> active;
  std::vector<int> sum_rows;  // the sum_y t_{d,y} <= delta row of every active shift

  // The columns of p (and delta), the normalisation, the budget and the shapes' rows.
  void add_table() {
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_cols(lp, n);
    for (int i = 1; i <= n; ++i) {
      glp_set_col_bnds(lp, i, GLP_LO, 0.0, 0.0);
      glp_set_obj_coef(lp, i, least_delta ? 0.0 : cost_coefficient(o.grid.x(i - 1), o));
    }
    if (least_delta) {
      delta_column = glp_add_cols(lp, 1);
      glp_set_col_bnds(lp, delta_column, GLP_LO, 0.0, 0.0);
      glp_set_obj_coef(lp, delta_column, 1.0);
    }
    std::vector<int> all(static_cast<size_t>(n));
    std::vector<double> ones(static_cast<size_t>(n), 1.0), costs(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      all[static_cast<size_t>(i)] = i + 1;
      costs[static_cast<size_t>(i)] = cost_coefficient(o.grid.x(i), o);
    }
    add_row(lp, GLP_FX, 1.0, 1.0, all, ones);
    if (least_delta) {
      add_row(lp, GLP_UP, 0.0, o.cost_budget, all, costs);
      budget_row = glp_get_num_rows(lp);
    }
    if (o.symmetric)
      for (int i = 0; i < n - 1 - i; ++i) add_row(lp, GLP_FX, 0.0, 0.0, {i + 1, n - i}, {1.0, -1.0});
    if (o.monotone) {
      const int centre = centre_index(o, n);
      for (int i = 0; i < centre; ++i) add_row(lp, GLP_UP, 0.0, 0.0, {i + 1, i + 2}, {1.0, -1.0});  // p_i <= p_{i+1}
      for (int i = centre; i < n - 1; ++i)
        add_row(lp, GLP_UP, 0.0, 0.0, {i + 2, i + 1}, {1.0, -1.0});  // p_{i+1} <= p_i
    }
  }

  // Shift d joins the LP: t_{d,y} >= p_y - e^eps p_{y-d}, t >= 0, sum_y t_{d,y} <= delta.
  void add_shift(int64_t d) {
    const int first = glp_add_cols(lp, n);
    for (int y = 0; y < n; ++y) glp_set_col_bnds(lp, first + y, GLP_LO, 0.0, 0.0);
    for (int y = 0; y < n; ++y) {
      // t_{d,y} - p_y + e^eps p_{y-d} >= 0
      std::vector<int> index{first + y, y + 1};
      std::vector<double> value{1.0, -1.0};
      const int64_t source = y - d;
      if (source >= 0 && source < n) {
        index.push_back(static_cast<int>(source) + 1);
        value.push_back(scale);
      }
      add_row(lp, GLP_LO, 0.0, 0.0, index, value);
    }
    std::vector<int> index;
    std::vector<double> value;
    for (int y = 0; y < n; ++y) index.push_back(first + y), value.push_back(1.0);
    if (least_delta) {
      index.push_back(delta_column);
      value.push_back(-1.0);
      add_row(lp, GLP_UP, 0.0, 0.0, index, value);
    } else {
      add_row(lp, GLP_UP, 0.0, o.delta, index, value);
    }
    sum_rows.push_back(glp_get_num_rows(lp));
    active.push_back(d);
  }

  // The budget (least delta) or every active shift's delta (least cost) at the tightened target.
  void set_target(double target) {
    if (least_delta)
      glp_set_row_bnds(lp, budget_row, GLP_UP, 0.0, target);
    else
      for (int row : sum_rows) glp_set_row_bnds(lp, row, GLP_UP, 0.0, target);
  }

  // Constraint generation: the inactive shift whose divergence exceeds the LP's delta the most, or 0 if none does.
  int64_t most_violated_shift(const std::vector<double>& p, double bound) const {
    std::vector<std::pair<double, int64_t>> violated;
    for (int64_t d = -o.shift_cells; d <= o.shift_cells; ++d) {
      if (d == 0 || std::find(active.begin(), active.end(), d) != active.end()) continue;
      const double value = single_release_delta_of_shift(p, d, o.epsilon);
      if (value > bound * (1.0 + 1e-10) + 1e-15) violated.emplace_back(value, d);
    }
    return violated.empty() ? 0 : std::max_element(violated.begin(), violated.end())->second;
  }

  // Solves the LP at the current target, a violated shift joining it per round until none is left; p holds the LP's
  // table (negatives to 0). False, with GLPK's status in result, when the simplex finds no optimum.
  bool solve_with_shift_generation(const glp_smcp& parameters, double target, std::vector<double>& p,
                                   LpOptimum& result) {
    for (int round = 0; round < 4 * static_cast<int>(o.shift_cells) + 8; ++round) {
      ++result.rounds;
      const int code = simplex_with_restarts(lp, parameters);
      const int status = glp_get_status(lp);
      result.status = glpk_status(status);
      if (code != 0 || status != GLP_OPT) {
        if (status == GLP_NOFEAS || code == GLP_ENOPFS)
          result.status = "infeasible";
        else if (code != 0)
          result.status = fmt::format("GLPK failed (code {})", code);
        return false;
      }
      for (int i = 0; i < n; ++i) p[static_cast<size_t>(i)] = std::max(0.0, glp_get_col_prim(lp, i + 1));
      const double bound = least_delta ? glp_get_col_prim(lp, delta_column) : target;
      // Only the most violated shift joins per round: every shift adds n columns and n rows, and the dual simplex's
      // re-solve costs grow with them faster than the rounds saved (bench_lp_optimum --free).
      const int64_t worst = most_violated_shift(p, bound);
      if (worst == 0) break;
      add_shift(worst);
    }
    return true;
  }
};

// The cleaned table: negatives (solver tolerance) to 0; the requested shapes made exact (GLPK meets p_i = p_{n-1-i}
// and the order constraints to its tolerance only, 1e-19 apart, which would make the certificate see an asymmetric
// table and check every shift); renormalised (a division by one total keeps both shapes exactly).
void clean_table(const LpOptimumOptions& o, std::vector<double>& p) {
  const int n = static_cast<int>(p.size());
  if (o.symmetric)
    for (int i = 0; i < n - 1 - i; ++i) {
      const double mean = 0.5 * (p[static_cast<size_t>(i)] + p[static_cast<size_t>(n - 1 - i)]);
      p[static_cast<size_t>(i)] = p[static_cast<size_t>(n - 1 - i)] = mean;
    }
  if (o.monotone) {
    // Non-increasing away from the centre, by running minima outwards (as in the LP's rows).
    const int centre = centre_index(o, n);
    for (int i = centre - 1; i >= 0; --i)
      p[static_cast<size_t>(i)] = std::min(p[static_cast<size_t>(i)], p[static_cast<size_t>(i + 1)]);
    for (int i = centre + 1; i < n; ++i)
      p[static_cast<size_t>(i)] = std::min(p[static_cast<size_t>(i)], p[static_cast<size_t>(i - 1)]);
  }
  long double total = 0.0L;
  for (double v : p) total += v;
  for (double& v : p) v = static_cast<double>(static_cast<long double>(v) / total);
}

// The dual simplex with tight tolerances, from an advanced basis of the scaled problem.
glp_smcp prepared_simplex(glp_prob* lp) {
  glp_smcp parameters;
  glp_init_smcp(&parameters);
  parameters.msg_lev = GLP_MSG_OFF;
  parameters.meth = GLP_DUALP;
  parameters.tol_bnd = 1e-12;
  parameters.tol_dj = 1e-12;
  glp_scale_prob(lp, GLP_SF_AUTO);
  glp_adv_basis(lp, 0);
  return parameters;
}

LpOptimum solve_unguarded(const LpOptimumOptions& o, GlpkProblem& problem) {
  const auto start_time = std::chrono::steady_clock::now();
  ShiftLp model{o, problem.lp};
  const int n = model.n;
  const bool least_delta = model.least_delta;
  model.add_table();
  model.add_shift(o.shift_cells);
  model.add_shift(-o.shift_cells);
  const glp_smcp parameters = prepared_simplex(model.lp);

  LpOptimum result;
  // The LP's constraints hold to GLPK's tolerance only; the budget (or delta) is tightened by a relative margin until
  // the cleaned table meets the original one exactly (recomputed here), so the written table is feasible by
  // construction.
  double margin = 0.0;
  std::vector<double> p(static_cast<size_t>(n));
  for (int attempt = 0;; ++attempt) {
    const double target = least_delta ? o.cost_budget * (1.0 - margin) : o.delta * (1.0 - margin);
    model.set_target(target);
    if (!model.solve_with_shift_generation(parameters, target, p, result)) {
      result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
      return result;
    }
    clean_table(o, p);
    result.lp_objective = glp_get_obj_val(model.lp);
    result.delta = single_release_delta(p, o.shift_cells, o.epsilon);
    result.cost = lp_cost_of(p, o);
    result.judged_delta = least_delta ? result.delta : (o.delta_judge ? o.delta_judge(p) : result.delta);
    const bool meets =
        least_delta ? result.cost <= o.cost_budget : (result.delta <= o.delta && result.judged_delta <= o.delta);
    result.margin = margin;
    if (meets || attempt >= 9) {
      result.feasible = meets;
      if (!meets) result.status = "the cleaned table misses the constraint even with a margin of 1e-3";
      break;
    }
    margin = margin == 0.0 ? 1e-11 : margin * 10.0;
  }
  result.probabilities = p;
  result.active_shifts = model.active;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
  return result;
}

}  // namespace

LpOptimum solve_lp_optimum(const LpOptimumOptions& o) {
  o.validate();
  glp_term_out(GLP_OFF);  // scaling and basis messages; errors come back as status codes
  std::jmp_buf jump;
  auto problem = std::make_unique<GlpkProblem>();
  if (setjmp(jump) != 0) {
    glpk_error_jump = nullptr;
    glp_error_hook(nullptr, nullptr);
    problem->lp = nullptr;  // freed with the rest of GLPK's environment
    glp_free_env();
    throw std::runtime_error(fmt::format("the LP solver (GLPK) stopped on an internal error at epsilon {}", o.epsilon));
  }
  glpk_error_jump = &jump;
  glp_error_hook(glpk_error_hook, nullptr);
  LpOptimum result = solve_unguarded(o, *problem);
  glpk_error_jump = nullptr;
  glp_error_hook(nullptr, nullptr);
  return result;
}

}  // namespace noiselearn
