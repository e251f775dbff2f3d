#include "io/solver_configs.hpp"

#include <cmath>
#include <limits>
#include <map>

#include "io/atomic_file.hpp"

namespace noiselearn {

using config_schema::positive;
using config_schema::require;
using config_schema::require_one_of;

namespace {

// Relative paths in a solver config are relative to the config file's directory, made absolute.
std::filesystem::path absolute_directory_of(const std::filesystem::path& path) {
  return std::filesystem::absolute(path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path());
}

}  // namespace

// ---- Maximal Leakage ----

using L = MaximalLeakageConfig;

const std::vector<L::Key>& L::schema() {
  static const std::vector<Key> keys = {
      {"problem.states", &L::problem_states, "", "m, the number of ordered output states (1 to 4096)",
       WholeRange{1, 4096}},
      {"problem.first_state", &L::problem_first_state, "",
       "the number of the lowest state (0 or 1): how problem.start_states, the cost formula's i and j and the outputs "
       "number the states",
       WholeRange{0, 1}},
      {"problem.start_states", &L::problem_start_states, "states",
       "F(X_i) for every input i (whole numbers among the states); []: F(X_i) = i, one input per state"},
      {"problem.prior", &L::problem_prior, "",
       "q_i of every input, divided by problem.prior_denominator; must sum to 1 (within 1e-9); []: uniform"},
      {"problem.prior_denominator", &L::problem_prior_denominator, "",
       "divides every problem.prior entry (write (2, 1, 0) / 3 exactly as [2, 1, 0] and 3)"},
      {"problem.cost", &L::problem_cost, "cost units",
       "c_ij as a formula of the output state j and the start state i = F(X_i) (numbers, + - * / ^, parentheses: j, j "
       "- i, "
       "j^2), non-decreasing in j from i on; or matrix (read problem.cost_matrix)"},
      {"problem.cost_matrix", &L::problem_cost_matrix, "path",
       "with problem.cost = matrix: a CSV of one row per input, m numbers each (entries below the start state are not "
       "used and may be empty or inf); relative to the config file's directory"},
      {"leakage.budget", &L::leakage_budget, "",
       "v >= 1: the leakage ln sum_j max_i p_ij must be at most ln v nats (a real v mixes two schemes)"},
      {"curve.budget_max", &L::curve_budget_max, "",
       "the cost curve (cost_curve.csv) runs over v from 1 to this; 0: m"},
      {"curve.budget_step", &L::curve_budget_step, "", "spacing of v in the cost curve"},
      {"solver.tie_tolerance", &L::solver_tie_tolerance, "",
       "relative cost difference below which the dynamic programme treats next states as tied and takes the lowest"},
      {"output.plots", &L::output_plots, "", "write cost_curve.png with gnuplot"},
  };
  return keys;
}

MaximalLeakageConfig L::parse(const std::string& yaml_text, const std::string& source,
                              const std::vector<std::string>& overrides, const std::filesystem::path& base_directory) {
  return config_schema::parse_config<L>(yaml_text, source, overrides, base_directory);
}

MaximalLeakageConfig L::load(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  return parse(read_file(path), path.string(), overrides, absolute_directory_of(path));
}

void L::validate() const {
  config_schema::validate_whole_numbers(*this);
  for (double s : problem_start_states)
    require(std::isfinite(s) && s == std::floor(s) && s >= static_cast<double>(problem_first_state) &&
                s < static_cast<double>(problem_first_state + problem_states),
            "problem.start_states",
            fmt::format("must be whole numbers from {} to {} (got {})", problem_first_state,
                        problem_first_state + problem_states - 1, s));
  require(positive(problem_prior_denominator), "problem.prior_denominator", "must be positive");
  require(!problem_cost.empty(), "problem.cost", "must be a formula or matrix");
  require(problem_cost != "matrix" || !problem_cost_matrix.empty(), "problem.cost_matrix",
          "must name a CSV file when problem.cost = matrix");
  require(problem_cost == "matrix" || problem_cost_matrix.empty(), "problem.cost_matrix",
          "is only read when problem.cost = matrix (set problem.cost: matrix, or remove it)");
  require(leakage_budget >= 1.0 && std::isfinite(leakage_budget), "leakage.budget",
          fmt::format("must be a finite number >= 1 (got {}; the leakage is ln v >= 0)", leakage_budget));
  require(curve_budget_max == 0.0 || (curve_budget_max >= 1.0 && std::isfinite(curve_budget_max)), "curve.budget_max",
          "must be 0 (m) or >= 1");
  require(positive(curve_budget_step), "curve.budget_step", "must be positive");
  require(solver_tie_tolerance >= 0.0 && solver_tie_tolerance < 1e-3, "solver.tie_tolerance", "must be in [0, 1e-3)");
}

std::string L::to_yaml() const {
  return config_schema::to_yaml(*this, "noiselearn maximal-leakage configuration, resolved (every key with its value)");
}

std::string L::markdown_reference() { return config_schema::markdown_reference<L>(); }

// ---- PAC privacy ----

using P = PacPrivacyConfig;

const std::vector<P::Key>& P::schema() {
  static const std::vector<Key> keys = {
      {"pac.output_variance", &P::pac_output_variance, "x units^2",
       "sigma_Y^2, the bound on the variance of the released F(X)"},
      {"pac.range", &P::pac_range, "x units", "R: the noise lies in [0, R]"},
      {"pac.budget", &P::pac_budget, "x units^2", "B: the budget on the noise's second moment E[e^2]"},
      {"pac.units", &P::pac_units, "", "nats or bits: the unit of the printed mutual information (files carry both)"},
      {"table.step", &P::table_step, "x units",
       "grid step h of noise.csv on [0, R] (R must be a whole number of steps)"},
      {"curve.budget_max", &P::curve_budget_max, "x units^2",
       "mi_curve.csv runs over B up to this; 0: max(B, R^2/3) (where the budget stops binding)"},
      {"curve.points", &P::curve_points, "",
       "number of budgets in mi_curve.csv, evenly spaced from budget_max / points (0: no curve)",
       WholeRange{0, 100000}},
      {"solver.sigma_scan_points", &P::solver_sigma_scan_points, "",
       "coarse log-spaced scan of sigma before the golden section (3 to 10,000)", WholeRange{3, 10000}},
      {"solver.sigma_tolerance", &P::solver_sigma_tolerance, "", "golden section on ln sigma stops at this width"},
      {"solver.mu_tolerance", &P::solver_mu_tolerance, "R",
       "bisection of E[e^2] = B stops at this width (relative to R)"},
      {"output.plots", &P::output_plots, "", "write mi_curve.png and noise.png with gnuplot"},
  };
  return keys;
}

PacPrivacyConfig P::parse(const std::string& yaml_text, const std::string& source,
                          const std::vector<std::string>& overrides, const std::filesystem::path& base_directory) {
  return config_schema::parse_config<P>(yaml_text, source, overrides, base_directory);
}

PacPrivacyConfig P::load(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  return parse(read_file(path), path.string(), overrides, absolute_directory_of(path));
}

void P::validate() const {
  config_schema::validate_whole_numbers(*this);
  require(pac_output_variance >= 0.0 && std::isfinite(pac_output_variance), "pac.output_variance",
          "must be finite and >= 0");
  require(positive(pac_range), "pac.range", "must be positive");
  require(positive(pac_budget), "pac.budget", "must be positive");
  require_one_of(pac_units, "pac.units", {"nats", "bits"});
  require(positive(table_step), "table.step", "must be positive");
  require(pac_range / table_step <= 1e7, "table.step",
          fmt::format("makes {:.3g} grid points on [0, pac.range] (at most 10,000,001)", pac_range / table_step + 1.0));
  require(curve_budget_max == 0.0 || positive(curve_budget_max), "curve.budget_max",
          "must be 0 (automatic) or positive");
  require(solver_sigma_tolerance > 0.0 && solver_sigma_tolerance <= 1e-3, "solver.sigma_tolerance",
          "must be in (0, 1e-3]");
  require(solver_mu_tolerance > 0.0 && solver_mu_tolerance <= 1e-3, "solver.mu_tolerance", "must be in (0, 1e-3]");
}

std::string P::to_yaml() const {
  return config_schema::to_yaml(*this, "noiselearn pac configuration, resolved (every key with its value)");
}

std::string P::markdown_reference() { return config_schema::markdown_reference<P>(); }

}  // namespace noiselearn
