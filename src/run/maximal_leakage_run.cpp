#include "run/maximal_leakage_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/plots.hpp"
#include "io/run_directory.hpp"
#include "io/solver_configs.hpp"
#include "solvers/cost_formula.hpp"
#include "solvers/maximal_leakage.hpp"

namespace noiselearn {

namespace {

namespace fs = std::filesystem;

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// problem.cost_matrix: one row per input, m comma-separated numbers; an empty field or inf (only meaningful below
// the start state, where the cost is never used) reads as +inf. Lines that are empty or start with # are skipped.
std::vector<std::vector<double>> read_cost_matrix(const fs::path& path, int64_t rows, int64_t columns) {
  std::ifstream file(path);
  if (!file) throw InputError(fmt::format("problem.cost_matrix: cannot read {}", path.string()));
  std::vector<std::vector<double>> matrix;
  std::string line;
  for (int64_t number = 1; std::getline(file, line); ++number) {
    if (trimmed(line).empty() || trimmed(line)[0] == '#') continue;
    const std::string where = fmt::format("{}:{}", path.string(), number);
    std::vector<double> row;
    std::stringstream fields(line);
    std::string field;
    while (std::getline(fields, field, ',')) {
      field = trimmed(field);
      if (field.empty() || field == "inf" || field == "Inf" || field == "infinity") {
        row.push_back(std::numeric_limits<double>::infinity());
        continue;
      }
      char* end = nullptr;
      const double value = std::strtod(field.c_str(), &end);
      if (end != field.c_str() + field.size() || std::isnan(value))
        throw InputError(fmt::format("{}: field {} '{}' is not a number", where, row.size() + 1, field));
      row.push_back(value);
    }
    if (!line.empty() && line.back() == ',') row.push_back(std::numeric_limits<double>::infinity());
    if (static_cast<int64_t>(row.size()) != columns)
      throw InputError(fmt::format("{}: {} fields, but problem.states = {} (one cost per output state)", where,
                                   row.size(), columns));
    matrix.push_back(std::move(row));
  }
  if (static_cast<int64_t>(matrix.size()) != rows)
    throw InputError(
        fmt::format("{}: {} rows, but there are {} inputs (one row per input)", path.string(), matrix.size(), rows));
  return matrix;
}

MaximalLeakageProblem problem_of(const MaximalLeakageConfig& c) {
  MaximalLeakageProblem p;
  p.states = c.problem_states;
  p.first_state = c.problem_first_state;
  if (c.problem_start_states.empty()) {
    for (int64_t i = 0; i < p.states; ++i) p.start_states.push_back(i);
  } else {
    for (double s : c.problem_start_states) p.start_states.push_back(static_cast<int64_t>(s) - p.first_state);
  }
  const auto n = static_cast<size_t>(p.inputs());
  if (c.problem_prior.empty()) {
    p.prior.assign(n, 1.0 / static_cast<double>(n));
  } else {
    if (c.problem_prior.size() != n)
      throw InputError(
          fmt::format("problem.prior has {} entries but there are {} inputs{}", c.problem_prior.size(), n,
                      c.problem_start_states.empty() ? " (one per state: problem.start_states is [])" : ""));
    for (double q : c.problem_prior) p.prior.push_back(q / c.problem_prior_denominator);
  }
  const std::string source = c.problem_cost == "matrix" ? "problem.cost_matrix " + c.problem_cost_matrix
                                                        : fmt::format("problem.cost '{}'", c.problem_cost);
  if (c.problem_cost == "matrix") {
    p.cost = read_cost_matrix(c.problem_cost_matrix, p.inputs(), p.states);
  } else {
    const CostFormula formula(c.problem_cost);
    for (int64_t i = 0; i < p.inputs(); ++i) {
      std::vector<double> row(static_cast<size_t>(p.states), std::numeric_limits<double>::infinity());
      const double start = static_cast<double>(p.start_states[i] + p.first_state);
      for (int64_t j = p.start_states[i]; j < p.states; ++j)
        row[static_cast<size_t>(j)] = formula(start, static_cast<double>(j + p.first_state));
      p.cost.push_back(std::move(row));
    }
  }
  try {
    p.validate();
  } catch (const InputError& e) {
    // Name where the offending numbers came from.
    const std::string what = e.what();
    const bool from_cost = what.rfind("cost", 0) == 0;
    const bool from_prior = what.find("prior") != std::string::npos;
    throw InputError(fmt::format("{}: {}", from_cost ? source : from_prior ? "problem.prior" : "problem", what));
  }
  return p;
}

std::vector<double> curve_budgets(const MaximalLeakageConfig& c) {
  const double top = c.curve_budget_max > 0.0 ? c.curve_budget_max : static_cast<double>(c.problem_states);
  std::vector<double> budgets;
  for (int64_t k = 0;; ++k) {
    const double v = 1.0 + static_cast<double>(k) * c.curve_budget_step;
    if (v > top + 1e-9 * top) break;
    budgets.push_back(v);
    if (budgets.size() > 1000000) throw InputError("curve.budget_step makes more than 1,000,000 curve points");
  }
  return budgets;
}

nlohmann::json summary_json(const MaximalLeakageSummary& s, const MaximalLeakageProblem& p) {
  auto labels = [&](const DeterministicScheme& scheme) {
    std::vector<int64_t> out;
    for (int64_t j : scheme.selected) out.push_back(j + p.first_state);
    return out;
  };
  return {{"kind", "maximal-leakage"},
          {"budget", s.budget},
          {"ln_budget_nats", std::log(s.budget)},
          {"states", p.states},
          {"inputs", p.inputs()},
          {"first_state", p.first_state},
          {"lambda", s.lambda},
          {"floor_scheme",
           {{"budget", std::floor(s.budget)}, {"states", labels(s.floor_scheme)}, {"cost", s.floor_scheme.cost}}},
          {"ceil_scheme",
           {{"budget", std::ceil(s.budget)}, {"states", labels(s.ceil_scheme)}, {"cost", s.ceil_scheme.cost}}},
          {"cost", s.cost},
          {"mixture_cost", s.mixture_cost},
          {"leakage_nats", s.leakage},
          {"leakage_bits", s.leakage / std::log(2.0)}};
}

void write_outputs(const fs::path& dir, const MaximalLeakageConfig& c, const MaximalLeakageProblem& p,
                   const MaximalLeakageSummary& s, const std::vector<double>& budgets, const std::vector<double>& costs,
                   const nlohmann::json& summary) {
  write_file_atomically(dir / "config.yaml", c.to_yaml(), /*overwrite=*/true);
  std::vector<std::string> header{"input", "start_state", "prior"};
  for (int64_t j = 0; j < p.states; ++j) header.push_back(fmt::format("p_{}", j + p.first_state));
  std::vector<std::vector<double>> rows;
  for (int64_t i = 0; i < p.inputs(); ++i) {
    std::vector<double> row{static_cast<double>(i + p.first_state),
                            static_cast<double>(p.start_states[i] + p.first_state), p.prior[i]};
    row.insert(row.end(), s.mechanism[i].begin(), s.mechanism[i].end());
    rows.push_back(std::move(row));
  }
  write_numeric_csv(dir / "mechanism.csv", header, rows, /*overwrite=*/true);
  rows.clear();
  auto member = [](const DeterministicScheme& scheme, int64_t j) {
    return std::find(scheme.selected.begin(), scheme.selected.end(), j) != scheme.selected.end() ? 1.0 : 0.0;
  };
  for (int64_t j = 0; j < p.states; ++j) {
    double column_max = 0.0;
    for (const auto& row : s.mechanism) column_max = std::max(column_max, row[j]);
    rows.push_back({static_cast<double>(j + p.first_state), s.column_caps[j], column_max, member(s.floor_scheme, j),
                    member(s.ceil_scheme, j)});
  }
  write_numeric_csv(dir / "states.csv", {"state", "column_cap", "column_max", "in_floor_scheme", "in_ceil_scheme"},
                    rows, /*overwrite=*/true);
  rows.clear();
  for (size_t k = 0; k < budgets.size(); ++k) rows.push_back({budgets[k], std::log(budgets[k]), costs[k]});
  write_numeric_csv(dir / "cost_curve.csv", {"v", "leakage_nats", "cost"}, rows, /*overwrite=*/true);
  write_file_atomically(dir / "summary.json", summary.dump(2) + "\n", /*overwrite=*/true);
  if (c.output_plots) {
    PlotScript script;
    script.text = fmt::format(
        "# Optimal cost against the leakage budget, written by noiselearn maxl. Run it here: gnuplot plots.gp\n"
        "set terminal pngcairo size 1000,650 noenhanced font ',11'\nset output 'cost_curve.png'\nset datafile "
        "separator ','\n"
        "set key top right\nset grid\nset xlabel 'leakage budget v (leakage <= ln v nats)'\nset ylabel 'optimal "
        "expected cost'\n"
        "set title 'Maximal Leakage optimum (Xiao et al. Thm 4): {} states, {} inputs, cost {}'\n"
        "plot 'cost_curve.csv' every ::1 using 1:3 with lines lw 2 title 'C(v), piecewise linear between integers', "
        "\\\n"
        "     'cost_curve.csv' every ::1 using ($1 == int($1) ? $1 : 1/0):3 with points pt 7 title 'deterministic "
        "optima (integer v)', \\\n"
        "     '-' using 1:2 with points pt 6 ps 2 title 'this run (v = {})'\n{},{}\ne\n",
        p.states, p.inputs(), c.problem_cost, s.budget, s.budget, s.cost);
    script.images.emplace_back("cost_curve.png");
    spdlog::info("{}", run_plot_script(dir, script, /*overwrite=*/true).message);
  }
}

}  // namespace

SolverRunSummary run_maximal_leakage(const SolverRunOptions& o) {
  const MaximalLeakageConfig c = o.config_path.empty() ? MaximalLeakageConfig::parse("", "(defaults)", o.overrides)
                                                       : MaximalLeakageConfig::load(o.config_path, o.overrides);
  const MaximalLeakageProblem p = problem_of(c);
  MaximalLeakageOptions options;
  options.tie_tolerance = c.solver_tie_tolerance;
  const MaximalLeakageSummary s = solve_maximal_leakage(p, c.leakage_budget, options);
  const std::vector<double> budgets = curve_budgets(c);
  const std::vector<double> costs = optimal_cost_curve(p, budgets, options);
  // Only now, with everything understood and solved, does the run directory come into being.
  SolverRunSummary out;
  out.directory = o.run_directory("maxl");
  const auto lock = open_run_directory(out.directory, o.force);
  out.summary = summary_json(s, p);
  out.summary["run_directory"] = out.directory.string();
  write_outputs(out.directory, c, p, s, budgets, costs, out.summary);
  out.text = s.report() + fmt::format("Run directory: {}\n", out.directory.string());
  return out;
}

}  // namespace noiselearn
