#include "run/pac_privacy_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "core/errors.hpp"
#include "core/grid.hpp"
#include "core/one_sided_baselines.hpp"
#include "core/utility.hpp"
#include "io/atomic_file.hpp"
#include "io/plots.hpp"
#include "io/run_directory.hpp"
#include "io/solver_configs.hpp"
#include "io/table_files.hpp"
#include "solvers/pac_privacy.hpp"

namespace noiselearn {

namespace {

namespace fs = std::filesystem;

constexpr double kBitsPerNat = 1.4426950408889634;

nlohmann::json summary_json(const PacPrivacySummary& s) {
  return {{"kind", "pac-privacy"},
          {"output_variance", s.output_variance},
          {"range", s.range},
          {"budget", s.budget},
          {"mu", s.mu},
          {"sigma", s.sigma},
          {"mean", s.moments.mean},
          {"variance", s.moments.variance},
          {"second_moment", s.moments.second_moment},
          {"entropy_nats", s.moments.entropy},
          {"mutual_information_nats", s.mutual_information},
          {"mutual_information_bits", s.mutual_information * kBitsPerNat},
          {"budget_binding", s.budget_binding},
          {"gaussian_reference_nats", s.gaussian_reference},
          {"optimality",
           {{"multiplier", s.multiplier},
            {"stationarity_residual", s.stationarity_residual},
            {"feasibility_slack", s.feasibility_slack},
            {"complementary_slackness", s.complementary_slackness}}},
          {"sigma_bracket", {s.sigma_bracket_low, s.sigma_bracket_high}},
          {"objective_evaluations", s.objective_evaluations}};
}

std::string plot_script_text(const PacPrivacyConfig& c, const PacPrivacySummary& s, bool curve) {
  std::string text = fmt::format(
      "# Plots of noiselearn pac, written by noiselearn. Run it here: gnuplot plots.gp\n"
      "set terminal pngcairo size 1000,650 noenhanced font ',11'\nset datafile separator ','\nset grid\n"
      "set output 'noise.png'\nset xlabel 'noise e (x units)'\nset ylabel 'probability of the grid cell'\n"
      "set title 'PAC-privacy optimal one-sided noise: N({:.6g}, {:.6g}^2) on [0, {}], E[e^2] = {:.6g}'\n"
      "plot 'noise.csv' every ::1 using 1:2 with lines lw 2 title 'noise.csv (step {})'\n",
      s.mu, s.sigma, c.pac_range, s.moments.second_moment, c.table_step);
  if (curve)
    text += fmt::format(
        "set output 'mi_curve.png'\nset xlabel 'second-moment budget B (x units^2)'\nset ylabel 'mutual information "
        "bound (nats)'\n"
        "set key top right\nset title 'PAC privacy, sigma_Y^2 = {}: truncated Gaussian on [0, {}] against the "
        "zero-mean Gaussian'\n"
        "plot 'mi_curve.csv' every ::1 using 1:2 with lines lw 2 title 'one-sided, R = {}', \\\n"
        "     'mi_curve.csv' every ::1 using 1:5 with lines dt 2 lw 2 title 'zero-mean unbounded Gaussian 1/2 ln(1 + "
        "sigma_Y^2 / B)'\n",
        c.pac_output_variance, c.pac_range, c.pac_range);
  return text;
}

}  // namespace

SolverRunSummary run_pac_privacy(const SolverRunOptions& o) {
  const PacPrivacyConfig c = o.config_path.empty() ? PacPrivacyConfig::parse("", "(defaults)", o.overrides)
                                                   : PacPrivacyConfig::load(o.config_path, o.overrides);
  whole_steps(c.pac_range, c.table_step, fmt::format("pac.range {} with table.step {}", c.pac_range, c.table_step));
  PacPrivacyOptions options;
  options.sigma_scan_points = c.solver_sigma_scan_points;
  options.sigma_tolerance = c.solver_sigma_tolerance;
  options.mu_tolerance = c.solver_mu_tolerance;
  const PacPrivacySummary s = solve_pac_privacy(c.pac_output_variance, c.pac_range, c.pac_budget, options);
  // The noise on the grid 0, h, .., R: whole cells of the truncated Gaussian (the core's TBG table, Def. 5).
  const NoiseTable table = tbg_table(Grid::spanning(0.0, c.pac_range, c.table_step), s.mu, s.sigma);
  std::vector<std::vector<double>> curve;
  if (c.curve_points > 0) {
    const double top =
        c.curve_budget_max > 0.0 ? c.curve_budget_max : std::max(c.pac_budget, c.pac_range * c.pac_range / 3.0);
    for (int64_t k = 1; k <= c.curve_points; ++k) {
      const double budget = top * static_cast<double>(k) / static_cast<double>(c.curve_points);
      const PacPrivacySummary point = solve_pac_privacy(c.pac_output_variance, c.pac_range, budget, options);
      curve.push_back({budget, point.mutual_information, point.mu, point.sigma, point.gaussian_reference});
    }
  }
  SolverRunSummary out;
  out.directory = o.run_directory("pac");
  const fs::path& dir = out.directory;
  const auto lock = open_run_directory(dir, o.force);
  out.summary = summary_json(s);
  out.summary["table"] = {{"file", "noise.csv"},
                          {"step", c.table_step},
                          {"points", table.grid().size},
                          {"second_moment", second_moment(table)}};
  out.summary["run_directory"] = dir.string();
  write_file_atomically(dir / "config.yaml", c.to_yaml(), /*overwrite=*/true);
  nlohmann::json extra;
  extra["pac_privacy"] = summary_json(s);
  write_noise_table(table, dir / "noise.csv", extra, /*overwrite=*/true);
  if (!curve.empty())
    write_numeric_csv(dir / "mi_curve.csv",
                      {"budget", "mutual_information_nats", "mu", "sigma", "gaussian_reference_nats"}, curve,
                      /*overwrite=*/true);
  write_file_atomically(dir / "summary.json", out.summary.dump(2) + "\n", /*overwrite=*/true);
  if (c.output_plots) {
    PlotScript script;
    script.text = plot_script_text(c, s, !curve.empty());
    script.images.emplace_back("noise.png");
    if (!curve.empty()) script.images.emplace_back("mi_curve.png");
    spdlog::info("{}", run_plot_script(dir, script, /*overwrite=*/true).message);
  }
  out.text = s.report();
  if (c.pac_units == "bits") out.text += fmt::format("MI bound {:.8g} bits\n", s.mutual_information * kBitsPerNat);
  out.text +=
      fmt::format("Noise table: {} ({} points, step {}, E[e^2] on the grid {:.8g}). Run directory: {}\n",
                  (dir / "noise.csv").string(), table.grid().size, c.table_step, second_moment(table), dir.string());
  return out;
}

}  // namespace noiselearn
