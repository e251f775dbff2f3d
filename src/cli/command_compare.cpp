// noiselearn compare TABLE [TABLE...]: certify several tables and print them side by side with the matched
// truncated Gaussian (same utility -> its delta; same certified delta -> its utility).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "accounting/pair_accountant.hpp"
#include "accounting/refinement.hpp"
#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "core/utility.hpp"
#include "io/atomic_file.hpp"
#include "solvers/baseline_comparison.hpp"

namespace noiselearn::cli {

namespace {

struct CompareOptions {
  std::vector<std::string> tables;
  PairOptions pair;
  AccountantCliOptions accountant;
  int64_t compositions = 1;
  double epsilon = 0.3;
  double delta = 1e-6;
  std::string utility = "l1";
  double tail_threshold = 1.0;
  std::string out;
  bool force = false;
  bool no_gaussian = false;
};

// Bounds are printed rounded in their direction (upper up, lower down), the user's values exactly.
std::string upper_text(double v, int digits) { return format_general(v, digits, Rounding::kUp); }
std::string lower_text(double v, int digits) { return format_general(v, digits, Rounding::kDown); }

void run_compare(const CompareOptions& o) {
  if (o.compositions < 1) throw InputError(fmt::format("--compositions {} must be at least 1", o.compositions));
  if (!(o.epsilon >= 0.0) || !std::isfinite(o.epsilon))
    throw InputError(fmt::format("--epsilon {} must be finite and >= 0", o.epsilon));
  if (!(o.delta > 0.0 && o.delta < 1.0)) throw InputError(fmt::format("--delta {} must be in (0, 1)", o.delta));
  ComparisonSettings settings;
  settings.pair = o.pair.specification();
  settings.compositions = o.compositions;
  settings.epsilon = o.epsilon;
  settings.utility = UtilitySpecification{parse_utility_kind(o.utility), o.tail_threshold};
  settings.accountant = o.accountant.options();
  const std::string u = to_string(settings.utility.kind);

  std::string csv = fmt::format(
      "table,{0},delta_upper,delta_lower,epsilon_upper_at_delta,epsilon_lower_at_delta,"
      "gaussian_same_{0}_sigma,gaussian_same_{0}_delta_upper,gaussian_same_delta_sigma,"
      "gaussian_same_delta_{0}\n",
      u);
  std::cout << fmt::format("certified at epsilon = {}, n = {}, delta = {}; utility {}\n", format_exact(o.epsilon),
                           o.compositions, format_exact(o.delta), u);
  std::size_t name_width = 5;  // the table column fits the longest path
  for (const auto& path : o.tables) name_width = std::max(name_width, path.size());
  std::cout << fmt::format("{:<{}} {:>10} {:>26} {:>22} | {:>22} {:>22}\n", "table", name_width, u,
                           "delta [lower, upper]", "epsilon [lower, upper]", "trunc. Gaussian same " + u,
                           "same delta: sigma, " + u);
  for (const auto& path : o.tables) {
    const LoadedTable loaded = load_table(path);
    PairBounds bounds = account(make_pair_family(loaded.table, settings.pair), o.compositions, settings.accountant,
                                {{o.epsilon}, {o.delta}});
    if (bounds.allowance_dominates(o.epsilon)) bounds = refined_for_epsilon(std::move(bounds), o.epsilon);
    bounds = refined_for_delta(std::move(bounds), o.delta);
    const double utility_value = utility(loaded.table, settings.utility);
    BaselineComparison comparison;
    if (!o.no_gaussian && loaded.table.grid().is_symmetric()) {
      comparison = compare_with_truncated_gaussian(loaded.table, settings);
    } else {
      comparison.same_utility.note = comparison.same_delta.note =
          o.no_gaussian ? "not requested" : "grid not symmetric";
    }
    const auto& su = comparison.same_utility;
    const auto& sd = comparison.same_delta;
    const std::string same_utility =
        su.found ? fmt::format("s {:.4g}: d {}", su.sigma, upper_text(su.delta_upper, 4)) : "-";
    const std::string same_delta = sd.found ? fmt::format("s {:.4g}: {} {:.4g}", sd.sigma, u, sd.utility) : "-";
    std::cout << fmt::format("{:<{}} {:>10.6g} [{:>11}, {:>11}] [{:>9}, {:>9}] | {:>22} {:>22}\n", path, name_width,
                             utility_value, lower_text(bounds.delta_lower(o.epsilon), 5),
                             upper_text(bounds.delta_upper(o.epsilon), 5), lower_text(bounds.epsilon_lower(o.delta), 6),
                             upper_text(bounds.epsilon_upper(o.delta), 6), same_utility, same_delta);
    if (!su.found && !su.note.empty()) spdlog::info("{}: truncated Gaussian at the same utility: {}", path, su.note);
    if (!sd.found && !sd.note.empty()) spdlog::info("{}: truncated Gaussian at the same delta: {}", path, sd.note);
    csv += fmt::format(
        "{},{:.17g},{:.17g},{:.17g},{},{},{},{},{},{}\n", path, utility_value, bounds.delta_upper(o.epsilon),
        bounds.delta_lower(o.epsilon), bounds.epsilon_upper(o.delta), bounds.epsilon_lower(o.delta),
        su.found ? fmt::format("{:.17g}", su.sigma) : "", su.found ? fmt::format("{:.17g}", su.delta_upper) : "",
        sd.found ? fmt::format("{:.17g}", sd.sigma) : "", sd.found ? fmt::format("{:.17g}", sd.utility) : "");
  }
  if (!o.out.empty()) {
    write_file_atomically(o.out, csv, o.force);
    spdlog::info("wrote {}", o.out);
  }
}

}  // namespace

Command make_compare_command(CLI::App& parent) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* app = parent.add_subcommand(
      "compare", "Certify several tables side by side, each with the matched truncated Gaussian on its grid");
  app->add_option("tables", o->tables, "Noise tables (noise.csv of noiselearn or two-column CSV x,p)")->required();
  o->pair.add_to(*app, /*sensitivity_required=*/true);
  app->add_option("--compositions,-n", o->compositions, "Number of compositions n")->capture_default_str();
  app->add_option("--epsilon", o->epsilon, "Epsilon at which delta is compared")->capture_default_str();
  app->add_option("--delta", o->delta, "Delta at which epsilon is compared")->capture_default_str();
  app->add_option("--utility", o->utility, "Utility that is matched: l1, l2, second-moment or tail-probability")
      ->capture_default_str();
  app->add_option("--tail-threshold", o->tail_threshold,
                  "tau of --utility tail-probability = Pr[|e| > tau] (units of x)")
      ->capture_default_str();
  app->add_option("--out", o->out, "Also write the comparison as CSV");
  app->add_flag("--force", o->force, "Overwrite an existing --out file");
  app->add_flag("--no-gaussian", o->no_gaussian, "Skip the matched truncated Gaussian (faster)");
  o->accountant.add_to(*app);
  return Command{app, [o] { run_compare(*o); }};
}

}  // namespace noiselearn::cli
