// noiselearn baseline NAME: write a textbook noise table (optionally calibrated and certified).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "accounting/pair_accountant.hpp"
#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/baseline_factory.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "core/utility.hpp"
#include "io/certificate_files.hpp"
#include "solvers/calibration.hpp"

namespace noiselearn::cli {

namespace {

struct BaselineOptions {
  std::string family;
  double grid_step = 0.0;
  double range = 0.0;
  std::string out;
  bool force = false;
  std::optional<double> sigma, scale, epsilon, gamma, truncation, shift, optimum_delta;
  // Calibration
  std::string target_utility;  // "l1=2.5", "l2=3", "second-moment=9"
  std::optional<double> target_delta, target_epsilon;
  // Certification (when --compositions is given)
  PairOptions pair;
  AccountantCliOptions accountant;
  CertificateCliOptions certificate;
  CLI::Option* compositions_option = nullptr;
};

nlohmann::json utility_json(const NoiseTable& table) {
  return {{"l1", l1_utility(table)},
          {"l2", l2_utility(table)},
          {"second_moment", second_moment(table)},
          {"max_abs_error", max_abs_error(table)}};
}

void run_baseline(const BaselineOptions& o) {
  require_positive(o.grid_step, "--grid-step");
  require_positive(o.range, "--range");
  // Before anything is allocated: 2 R / h + 1 points must be a grid noiselearn can hold.
  const double points = 2.0 * std::floor(o.range / o.grid_step + 0.5) + 1.0;
  if (!(points <= static_cast<double>(kMaxGridPoints)))
    throw InputError(
        fmt::format("--grid-step {} with --range {} makes {:.3g} grid points; at most {} are allowed "
                    "(a larger --grid-step or a smaller --range)",
                    o.grid_step, o.range, points, kMaxGridPoints));
  // One-sided families (noise >= 0) live on [0, R], the others on [-R, R].
  const Grid grid = is_one_sided_baseline(o.family) ? Grid::spanning(0.0, o.range, o.grid_step)
                                                    : Grid::symmetric(o.range, o.grid_step);
  BaselineParameters parameters;
  parameters.sigma = o.sigma;
  parameters.scale = o.scale;
  parameters.epsilon = o.epsilon;
  parameters.gamma = o.gamma;
  parameters.shift = o.shift;
  parameters.delta = o.optimum_delta;
  if (o.pair.sensitivity_option->count() > 0 && o.family == "staircase") parameters.sensitivity = o.pair.sensitivity;
  const auto takes = baseline_parameter_names(o.family);
  if (std::find(takes.begin(), takes.end(), "range") != takes.end())
    parameters.range = o.truncation.value_or(o.range);
  else if (o.truncation)
    throw InputError(fmt::format("baseline {} does not take --truncation", o.family));

  const bool certify = o.compositions_option->count() > 0 || o.target_delta.has_value();
  nlohmann::json extra;
  std::optional<NoiseTable> table;
  if (!o.target_utility.empty() && o.target_delta)
    throw InputError("give either --target-utility or --target-delta, not both");
  if (!o.target_utility.empty()) {
    const auto equals = o.target_utility.find('=');
    if (equals == std::string::npos)
      throw InputError(
          fmt::format("--target-utility '{}' must look like l1=2.5, l2=3 or second-moment=9", o.target_utility));
    const UtilityKind kind = parse_utility_kind(o.target_utility.substr(0, equals));
    if (kind == UtilityKind::kTailProbability)
      throw InputError("--target-utility: calibrate to l1, l2 or second-moment (tail-probability needs a threshold)");
    double value = 0.0;
    try {
      value = std::stod(o.target_utility.substr(equals + 1));
    } catch (const std::exception&) {
      throw InputError(fmt::format("--target-utility '{}': '{}' is not a number", o.target_utility,
                                   o.target_utility.substr(equals + 1)));
    }
    Calibration c = calibrate_to_utility(o.family, grid, parameters, UtilitySpecification{kind}, value);
    spdlog::info("calibrated {} = {:.10g} for {} utility {:g} ({} evaluations)", calibrated_parameter(o.family),
                 c.value, to_string(kind), value, c.evaluations);
    extra["calibration"] = {{"parameter", calibrated_parameter(o.family)},
                            {"value", c.value},
                            {"target", {{"utility", to_string(kind)}, {"value", value}}}};
    table = std::move(c.table);
  } else if (o.target_delta) {
    DeltaTarget target;
    target.delta = *o.target_delta;
    if (!o.target_epsilon) throw InputError("--target-delta needs --target-epsilon");
    target.epsilon = *o.target_epsilon;
    target.compositions = o.certificate.request.compositions;
    target.pair = o.pair.specification();
    target.accountant = o.accountant.options();
    Calibration c = calibrate_to_delta(o.family, grid, parameters, target);
    spdlog::info("calibrated {} = {:.10g} for certified delta {} at epsilon {}, n = {} ({} evaluations)",
                 calibrated_parameter(o.family), c.value, format_exact(target.delta), format_exact(target.epsilon),
                 target.compositions, c.evaluations);
    extra["calibration"] = {
        {"parameter", calibrated_parameter(o.family)},
        {"value", c.value},
        {"target", {{"delta", target.delta}, {"epsilon", target.epsilon}, {"compositions", target.compositions}}}};
    table = std::move(c.table);
  } else {
    table = make_baseline(o.family, grid, parameters);
  }
  extra["utility"] = utility_json(*table);

  if (certify) {
    const AccountantOptions accountant = o.accountant.options();
    CertificateRequest request = o.certificate.resolved();
    if (o.target_delta && o.target_epsilon) request.epsilons.push_back(*o.target_epsilon);
    const PairSpecification pair = o.pair.specification();
    const PairBounds bounds =
        account(make_pair_family(*table, pair), request.compositions, accountant, queries_of(request));
    const Certificate certificate = make_certificate(bounds, request, accountant);
    // The pair beside the certificate, as a run records it: `evaluate` and `sample` of this table start from both.
    extra["pair"] = {
        {"kind", to_string(pair.kind)}, {"sensitivity", pair.sensitivity}, {"sampling_rate", pair.sampling_rate}};
    extra["certificate"] = certificate_json(certificate);
    std::cout << certificate.report();
  }
  const auto path = table_output_path(o.out);
  write_noise_table(*table, path, extra, o.force);
  std::cout << fmt::format("wrote {} and {} ({}, {}; L1 {:.6g}, L2 {:.6g})\n", path.string(),
                           metadata_path_for(path).string(), describe(table->grid()), to_string(table->support_kind()),
                           l1_utility(*table), l2_utility(*table));
}

std::string families_help() {
  std::string text = "Family:";
  for (const auto& name : baseline_names()) text += fmt::format("\n    {:<19} {}", name, baseline_description(name));
  return text;
}

}  // namespace

Command make_baseline_command(CLI::App& parent) {
  auto o = std::make_shared<BaselineOptions>();
  CLI::App* app = parent.add_subcommand("baseline", "Write a textbook noise table on a grid (noise.csv + noise.json)");
  app->add_option("family", o->family, families_help())->required();
  app->add_option("--grid-step", o->grid_step, "Grid step h (units of x)")->required();
  app->add_option("--range", o->range,
                  "Grid half-width R: the grid is [-R, R], for the one-sided families [0, R] (a whole number of steps)")
      ->required();
  app->add_option("--out", o->out, "Output: FILE.csv (with FILE.json beside it) or a directory (noise.csv, noise.json)")
      ->required();
  app->add_flag("--force", o->force, "Overwrite existing output files");
  app->add_option("--sigma", o->sigma, "Standard deviation (gaussian families, tbg)");
  app->add_option("--scale", o->scale, "Scale b (laplace families: density ~ exp(-|x|/b))");
  app->add_option("--epsilon", o->epsilon, "Epsilon of staircase and one-sided-optimum");
  app->add_option("--optimum-delta", o->optimum_delta, "Delta of one-sided-optimum (one release)");
  app->add_option("--shift", o->shift, "Bias mu of tbl and discrete-tbl (default: R/2)");
  app->add_option("--gamma", o->gamma, "Staircase gamma in [0, 1] (default: optimal for L1, 1/(1+e^{eps/2}))");
  app->add_option("--truncation", o->truncation,
                  "Truncation range r of truncated families, staircase and uniform (default: the grid range)");
  app->add_option("--target-utility", o->target_utility,
                  "Calibrate the scale to a utility: l1=V (mean |x|), l2=V (RMS), second-moment=V");
  app->add_option("--target-delta", o->target_delta,
                  "Calibrate the scale to a certified upper delta at --target-epsilon");
  app->add_option("--target-epsilon", o->target_epsilon, "Epsilon of --target-delta");
  o->pair.add_to(*app, /*sensitivity_required=*/false);
  o->certificate.add_to(*app, /*with_epsilon_queries=*/false);
  o->compositions_option = app->get_option("--compositions");
  o->accountant.add_to(*app);
  app->footer("With --compositions (or --target-delta) the table is certified and the certificate stored in its JSON.");
  return Command{app, [o] { run_baseline(*o); }};
}

}  // namespace noiselearn::cli
