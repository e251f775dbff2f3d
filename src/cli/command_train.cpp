// noiselearn train CONFIG: learn a noise table, certify it, compare it with the truncated Gaussian, write the run
// directory (io/run_directory.hpp) and plots, and print a one-paragraph summary.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "accounting/certificate.hpp"
#include "accounting/pair_accountant.hpp"
#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/errors.hpp"
#include "core/utility.hpp"
#include "io/atomic_file.hpp"
#include "io/certificate_files.hpp"
#include "io/plots.hpp"
#include "io/run_directory.hpp"
#include "io/training_config.hpp"
#include "solvers/baseline_comparison.hpp"
#include "train/factories.hpp"
#include "train/target_search.hpp"
#include "train/trainer.hpp"

namespace noiselearn::cli {

namespace fs = std::filesystem;

namespace {

struct TrainOptions {
  std::string config;
  std::string out;
  std::vector<std::string> overrides;
  bool force = false;
  bool resume = false;
};

AccountantOptions accountant_of(const TrainingConfig& c) {
  AccountantOptions o;
  o.loss_step = c.certification_loss_step;
  o.tail_mass = c.certification_tail_mass;
  o.max_points = c.certification_max_points;
  o.validate();
  return o;
}

PairSpecification pair_of(const TrainingConfig& c) {
  PairSpecification p;
  p.kind = parse_pair_kind(c.pair_kind);
  p.sensitivity = c.pair_sensitivity;
  p.sampling_rate = c.pair_sampling_rate;
  p.shifts = parse_shift_policy(c.certification_shifts);
  return p;
}

// The training utility: optimised, matched against the truncated Gaussian, and reported.
UtilitySpecification utility_of(const TrainingConfig& c) {
  return UtilitySpecification{parse_utility_kind(c.utility_kind), c.utility_tail_threshold};
}

TrainingOptions training_options_of(const TrainingConfig& c, const Grid& grid, const fs::path& directory) {
  TrainingOptions o;
  o.epochs = c.optimiser_epochs;
  o.learning_rate.initial = c.optimiser_learning_rate;
  o.learning_rate.decay = c.optimiser_learning_rate_decay;
  o.utility_weight.start = c.schedule_utility_weight_start;
  o.utility_weight.halving_epochs = c.schedule_utility_weight_halving_epochs;
  o.utility_weight.minimum = c.schedule_utility_weight_min;
  o.utility_weight.decay = c.schedule_utility_weight_decay;
  o.directions = parse_direction_combination(c.loss_directions);
  o.utility = utility_of(c);
  o.pair.kind = parse_pair_kind(c.pair_kind);
  o.pair.shift_cells = whole_steps(c.pair_sensitivity, grid.step, fmt::format("pair.sensitivity {:g}", c.pair_sensitivity));
  if (o.pair.shift_cells < 1) throw InputError("pair.sensitivity must be at least one grid step");
  o.pair.sampling_rate = c.pair_sampling_rate;
  o.log_every = c.output_log_every;
  o.history_every = c.output_history_every;
  o.checkpoint_every = c.output_checkpoint_every;
  o.checkpoint_path = directory / "checkpoint.pt";
  return o;
}

std::string seconds_text(double s) { return s >= 120 ? fmt::format("{:.1f} min", s / 60) : fmt::format("{:.1f} s", s); }

void run_train(const TrainOptions& options) {
  const TrainingConfig config = TrainingConfig::load(options.config, options.overrides);
  const fs::path directory = options.out.empty() ? fs::path("runs") / fs::path(options.config).stem() : fs::path(options.out);
  if (options.resume) {
    if (!fs::exists(directory / "checkpoint.pt"))
      throw InputError(fmt::format("--resume: {} has no checkpoint.pt", directory.string()));
  } else {
    prepare_run_directory(directory, options.force);
  }
  const Grid grid = config.grid();
  torch::manual_seed(static_cast<uint64_t>(config.optimiser_seed));

  ModelSpecification model_spec;
  model_spec.kind = config.model_kind;
  model_spec.sigmoids = config.model_sigmoids;
  model_spec.slope = config.model_slope;
  model_spec.symmetric = config.model_symmetric;
  model_spec.init = config.model_init;
  model_spec.init_sigma = config.model_init_sigma;
  if (config.model_init == "table") model_spec.init_table = load_table(config.model_init_table).table;
  LossSpecification loss_spec;
  loss_spec.kind = config.loss_kind;
  loss_spec.epsilon = config.loss_epsilon;
  loss_spec.compositions = config.loss_compositions;
  loss_spec.moments_lambda_sq = config.loss_moments_lambda_sq;
  loss_spec.buckets = config.loss_buckets;
  loss_spec.bucket_factor = config.loss_bucket_factor;
  loss_spec.soft_pld_loss_step = config.loss_soft_pld_loss_step;

  TrainingOptions training = training_options_of(config, grid, directory);
  const PairSpecification pair = pair_of(config);
  const AccountantOptions accountant = accountant_of(config);
  std::shared_ptr<NoiseModel> model = make_noise_model(grid, model_spec);
  std::shared_ptr<PrivacyLoss> loss = make_privacy_loss(loss_spec);
  spdlog::info("training {} on {} with {} (epsilon {:g}, n = {}) and {} utility, {} epochs; run directory {}",
               model->model_name(), describe(grid), loss->loss_name(), config.loss_epsilon, config.loss_compositions,
               config.utility_kind, config.optimiser_epochs, directory.string());
  write_file_atomically(directory / "config.yaml", config.to_yaml(), /*overwrite=*/true);

  TrainingSummary summary;
  std::vector<EpochRecord> history;
  std::string target_message;
  std::optional<NoiseTable> chosen;
  if (config.target_mode == "none") {
    Trainer trainer(model, loss, training);
    if (options.resume) trainer.resume(directory / "checkpoint.pt");
    summary = trainer.run();
    history = trainer.history();
  } else {
    // Target mode: fixed utility weights, warm-started from one trial to the next, judged by the certificate.
    TargetSearchOptions search;
    search.kind = config.target_mode == "delta" ? TargetKind::kDelta : TargetKind::kUtility;
    search.target = config.target_mode == "delta" ? config.target_delta : config.target_utility;
    search.trials = config.target_trials;
    search.initial_weight = config.schedule_utility_weight_start;
    auto train_at = [&](double weight) {
      TrainingOptions trial = training;
      trial.utility_weight.start = weight;
      trial.utility_weight.decay = false;
      if (config.target_trial_epochs > 0) trial.epochs = config.target_trial_epochs;
      trial.checkpoint_path.clear();
      Trainer trainer(model, loss, trial);
      const TrainingSummary s = trainer.run();
      if (s.stopped_early) throw InputError(fmt::format("{} (target search, utility weight {:g})", s.stop_reason, weight));
      for (auto record : trainer.history()) {
        record.epoch += summary.epochs_run;
        history.push_back(record);
      }
      summary.epochs_run += s.epochs_run;
      summary.seconds += s.seconds;
      return table_of(*model);
    };
    const UtilitySpecification target_utility = utility_of(config);
    auto evaluate = [&](const NoiseTable& table) {
      const PairBounds bounds = account(make_pair_family(table, pair), config.loss_compositions, accountant);
      return std::pair{bounds.delta_upper(config.loss_epsilon), utility(table, target_utility)};
    };
    const TargetSearchResult result = search_utility_weight(train_at, evaluate, search);
    target_message = result.message;
    spdlog::info("{}", result.message);
    const auto& pick = result.best ? result.trials[*result.best] : result.trials.back();
    chosen = *pick.table;
  }

  // The learned table and its certificate (the certified accountant, never the training loss).
  TableProvenance provenance;
  provenance.source = "train " + model->model_name();
  provenance.note = fmt::format("{} with {} (epsilon {:g}, n = {}), {} utility; config {}", model->model_name(),
                                loss->loss_name(), config.loss_epsilon, config.loss_compositions, config.utility_kind,
                                options.config);
  provenance.parameters = {{"seed", static_cast<double>(config.optimiser_seed)}, {"epochs", static_cast<double>(summary.epochs_run)}};
  const NoiseTable table = chosen ? NoiseTable(chosen->grid(), chosen->probabilities(), chosen->support_kind(), provenance)
                                  : table_of(*model, provenance);
  CertificateRequest request;
  request.compositions = config.loss_compositions;
  request.epsilons = config.certification_epsilons.empty() ? std::vector<double>{config.loss_epsilon} : config.certification_epsilons;
  request.deltas = config.certification_deltas;
  const PairBounds bounds = account(make_pair_family(table, pair), config.loss_compositions, accountant);
  const Certificate certificate = make_certificate(bounds, request, accountant);

  std::optional<BaselineComparison> comparison;
  if (config.certification_compare_gaussian) {
    ComparisonSettings settings;
    settings.pair = pair;
    settings.compositions = config.loss_compositions;
    settings.epsilon = config.loss_epsilon;
    settings.utility = utility_of(config);
    settings.accountant = accountant;
    spdlog::info("certifying the truncated Gaussian at the same utility and at the same certified delta");
    comparison = compare_with_truncated_gaussian(table, settings);
  }

  // Files.
  nlohmann::json extra;
  extra["utility"] = {{"l1", l1_utility(table)}, {"l2", l2_utility(table)}, {"second_moment", second_moment(table)},
                      {"max_abs_error", max_abs_error(table)}};
  extra["model"] = config.model_kind;
  extra["loss"] = {{"kind", config.loss_kind}, {"epsilon", config.loss_epsilon}, {"compositions", config.loss_compositions},
                   {"directions", config.loss_directions}};
  extra["pair"] = {{"kind", config.pair_kind}, {"sensitivity", config.pair_sensitivity}, {"sampling_rate", config.pair_sampling_rate}};
  extra["training"] = {{"epochs_run", summary.epochs_run}, {"seconds", summary.seconds}, {"seed", config.optimiser_seed},
                       {"stopped_early", summary.stopped_early}, {"stop_reason", summary.stop_reason}};
  if (!target_message.empty()) extra["target"] = target_message;
  extra["certificate"] = certificate_json(certificate);
  write_noise_table(table, directory / "noise.csv", extra, /*overwrite=*/true);
  write_certificate_curve(certificate, directory / "certificate.csv", /*overwrite=*/true);
  std::vector<std::vector<double>> history_rows;
  for (const auto& r : history) history_rows.push_back({double(r.epoch), r.loss, r.privacy, r.utility, r.utility_weight, r.learning_rate, r.seconds});
  write_numeric_csv(directory / "history.csv", {"epoch", "loss", "privacy", "utility", "utility_weight", "learning_rate", "seconds"},
                    history_rows, /*overwrite=*/true);

  std::string comparison_sentence;
  if (comparison) {
    const auto& su = comparison->same_utility;
    const auto& sd = comparison->same_delta;
    const std::string u = to_string(utility_of(config).kind);
    std::string csv = fmt::format("table,sigma,{},delta_upper,delta_lower\n", u);
    csv += fmt::format("learned,,{:.17g},{:.17g},{:.17g}\n", comparison->utility, comparison->delta_upper, comparison->delta_lower);
    if (su.found)
      csv += fmt::format("truncated-gaussian-same-utility,{:.17g},{:.17g},{:.17g},{:.17g}\n", su.sigma, su.utility, su.delta_upper, su.delta_lower);
    if (sd.found)
      csv += fmt::format("truncated-gaussian-same-delta,{:.17g},{:.17g},{:.17g},{:.17g}\n", sd.sigma, sd.utility, sd.delta_upper, sd.delta_lower);
    write_file_atomically(directory / "comparison.csv", csv, /*overwrite=*/true);
    if (su.found) {
      write_noise_table(*su.table, directory / "baseline.csv", {{"role", "truncated Gaussian with the learned table's utility"}}, true);
      const PairBounds gaussian = account(make_pair_family(*su.table, pair), config.loss_compositions, accountant);
      std::vector<std::vector<double>> rows;
      std::vector<double> grid_eps;
      for (const auto& point : certificate.curve) grid_eps.push_back(point.epsilon);
      for (size_t i = 0; i < grid_eps.size(); ++i)
        rows.push_back({grid_eps[i], certificate.curve[i].delta_upper, certificate.curve[i].delta_lower,
                        gaussian.delta_upper(grid_eps[i]), gaussian.delta_lower(grid_eps[i])});
      write_numeric_csv(directory / "comparison_curves.csv",
                        {"epsilon", "learned_delta_upper", "learned_delta_lower", "gaussian_delta_upper", "gaussian_delta_lower"},
                        rows, /*overwrite=*/true);
    }
    const std::string same_utility_text =
        su.found ? fmt::format("the truncated Gaussian with the same {} (sigma {:.4g}) has certified delta {:.4g} ({})", u, su.sigma,
                               su.delta_upper, su.delta_upper >= comparison->delta_upper ? "learned is better or equal" : "learned is worse")
                 : "no truncated Gaussian on this grid has the same utility";
    const std::string same_delta_text =
        sd.found ? fmt::format("the truncated Gaussian with the same certified delta (sigma {:.4g}) has {} {:.4g} ({})", sd.sigma, u,
                               sd.utility, sd.utility >= comparison->utility ? "learned is better or equal" : "learned is worse")
                 : "no truncated Gaussian on this grid reaches the same certified delta";
    comparison_sentence = fmt::format(" Against the baseline, {}; {}.", same_utility_text, same_delta_text);
  }

  const auto& first_delta = certificate.deltas.front();
  std::string epsilon_text;
  for (const auto& e : certificate.epsilons)
    epsilon_text += fmt::format("{}epsilon({:g}) <= {}", epsilon_text.empty() ? "" : ", ", e.delta,
                                std::isfinite(e.epsilon_upper) ? fmt::format("{:.4f}", e.epsilon_upper) : "inf");
  const std::string paragraph = fmt::format(
      "Trained {} ({} on {}) with {} for {} epochs in {}. The learned table has {} {:.6g} and L2 {:.6g}; after n = {} "
      "compositions its certified delta at epsilon = {:g} is in [{:.6g}, {:.6g}] (lower, upper; {}){}.{}{} Run directory: {}.\n",
      model->model_name(), config.model_kind, describe(grid), loss->loss_name(), summary.epochs_run, seconds_text(summary.seconds),
      to_string(utility_of(config).kind), utility(table, utility_of(config)), l2_utility(table), config.loss_compositions,
      first_delta.epsilon, first_delta.delta_lower, first_delta.delta_upper, certificate.shift_justification,
      epsilon_text.empty() ? "" : "; " + epsilon_text, comparison_sentence,
      target_message.empty() ? "" : " " + target_message + ".", directory.string());
  write_file_atomically(directory / "summary.txt", paragraph, /*overwrite=*/true);

  if (config.output_plots) {
    const PlotResult plots = plot_run(directory, /*overwrite=*/true);
    spdlog::info("{}", plots.message);
  }
  std::cout << certificate.report() << "\n" << paragraph;
  if (summary.stopped_early)
    throw InputError(fmt::format("{}; the last good table and its certificate are in {}", summary.stop_reason, directory.string()));
}

}  // namespace

Command make_train_command(CLI::App& parent) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App* app = parent.add_subcommand("train", "Learn a noise table from a YAML config, certify it, compare it, plot it");
  app->add_option("config", o->config, "YAML configuration (see configs/ and the README for every key)")->required();
  app->add_option("--out", o->out, "Run directory (default: runs/<config name>)");
  app->add_option("--set", o->overrides, "Override a config key: --set loss.epsilon=0.5 (repeatable)");
  app->add_flag("--force", o->force, "Overwrite a non-empty run directory");
  app->add_flag("--resume", o->resume, "Continue from the run directory's checkpoint.pt");
  return Command{app, [o] { run_train(*o); }};
}

}  // namespace noiselearn::cli
