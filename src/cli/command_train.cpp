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

ModelSpecification model_specification_of(const TrainingConfig& c) {
  ModelSpecification s;
  s.kind = c.model_kind;
  s.sigmoids = c.model_sigmoids;
  s.slope = c.model_slope;
  s.symmetric = c.model_symmetric;
  s.init = c.model_init;
  s.init_sigma = c.model_init_sigma;
  if (c.model_init == "table") s.init_table = load_table(c.model_init_table).table;
  return s;
}

LossSpecification loss_specification_of(const TrainingConfig& c) {
  LossSpecification s;
  s.kind = c.loss_kind;
  s.epsilon = c.loss_epsilon;
  s.compositions = c.loss_compositions;
  s.moments_lambda_sq = c.loss_moments_lambda_sq;
  s.buckets = c.loss_buckets;
  s.bucket_factor = c.loss_bucket_factor;
  s.soft_pld_loss_step = c.loss_soft_pld_loss_step;
  return s;
}

// Everything a run needs, resolved from the config before any epoch runs (so bad input fails fast).
struct TrainingSetup {
  TrainingConfig config;
  fs::path directory;
  Grid grid;
  PairSpecification pair;
  AccountantOptions accountant;
  TrainingOptions training;
  std::shared_ptr<NoiseModel> model;
  std::shared_ptr<PrivacyLoss> loss;
};

TrainingSetup set_up(const TrainOptions& options) {
  TrainingSetup s;
  s.config = TrainingConfig::load(options.config, options.overrides);
  s.directory = options.out.empty() ? fs::path("runs") / fs::path(options.config).stem() : fs::path(options.out);
  if (options.resume) {
    if (s.config.target_mode != "none") throw InputError("--resume continues a plain run; it does not apply to target.mode");
    if (!fs::exists(s.directory / "checkpoint.pt"))
      throw InputError(fmt::format("--resume: {} has no checkpoint.pt", s.directory.string()));
  } else {
    prepare_run_directory(s.directory, options.force);
  }
  s.grid = s.config.grid();
  torch::manual_seed(static_cast<uint64_t>(s.config.optimiser_seed));
  s.training = training_options_of(s.config, s.grid, s.directory);
  s.pair = pair_of(s.config);
  s.accountant = accountant_of(s.config);
  s.model = make_noise_model(s.grid, model_specification_of(s.config));
  s.loss = make_privacy_loss(loss_specification_of(s.config));
  return s;
}

struct Learned {
  std::optional<NoiseTable> table;  // the target search's pick; otherwise the model's final table
  TrainingSummary summary;
  std::vector<EpochRecord> history;
  std::string target_message;
};

// Target mode: fixed utility weights, warm-started from one trial to the next, judged by the certificate.
Learned search_target(TrainingSetup& s) {
  const TrainingConfig& c = s.config;
  Learned learned;
  TargetSearchOptions search;
  search.kind = c.target_mode == "delta" ? TargetKind::kDelta : TargetKind::kUtility;
  search.target = c.target_mode == "delta" ? c.target_delta : c.target_utility;
  search.trials = c.target_trials;
  search.initial_weight = c.schedule_utility_weight_start;
  auto train_at = [&](double weight) {
    TrainingOptions trial = s.training;
    trial.utility_weight.start = weight;
    trial.utility_weight.decay = false;
    if (c.target_trial_epochs > 0) trial.epochs = c.target_trial_epochs;
    trial.checkpoint_path.clear();
    Trainer trainer(s.model, s.loss, trial);
    const TrainingSummary summary = trainer.run();
    if (summary.stopped_early) throw InputError(fmt::format("{} (target search, utility weight {:g})", summary.stop_reason, weight));
    for (auto record : trainer.history()) {
      record.epoch += learned.summary.epochs_run;
      learned.history.push_back(record);
    }
    learned.summary.epochs_run += summary.epochs_run;
    learned.summary.seconds += summary.seconds;
    return table_of(*s.model);
  };
  auto evaluate = [&](const NoiseTable& table) {
    const PairBounds bounds = account(make_pair_family(table, s.pair), c.loss_compositions, s.accountant);
    return std::pair{bounds.delta_upper(c.loss_epsilon), utility(table, utility_of(c))};
  };
  const TargetSearchResult result = search_utility_weight(train_at, evaluate, search);
  learned.target_message = result.message;
  spdlog::info("{}", result.message);
  learned.table = *(result.best ? result.trials[*result.best] : result.trials.back()).table;
  return learned;
}

Learned learn(TrainingSetup& s, bool resume) {
  if (s.config.target_mode != "none") return search_target(s);
  Learned learned;
  Trainer trainer(s.model, s.loss, s.training);
  if (resume) trainer.resume(s.directory / "checkpoint.pt");
  learned.summary = trainer.run();
  learned.history = trainer.history();
  return learned;
}

// comparison.csv, baseline.csv/.json and comparison_curves.csv; returns the summary's sentence about them.
std::string write_comparison(const TrainingSetup& s, const BaselineComparison& comparison, const Certificate& certificate) {
  const auto& su = comparison.same_utility;
  const auto& sd = comparison.same_delta;
  const std::string u = to_string(utility_of(s.config).kind);
  std::string csv = fmt::format("table,sigma,{},delta_upper,delta_lower\n", u);
  csv += fmt::format("learned,,{:.17g},{:.17g},{:.17g}\n", comparison.utility, comparison.delta_upper, comparison.delta_lower);
  if (su.found)
    csv += fmt::format("truncated-gaussian-same-utility,{:.17g},{:.17g},{:.17g},{:.17g}\n", su.sigma, su.utility, su.delta_upper, su.delta_lower);
  if (sd.found)
    csv += fmt::format("truncated-gaussian-same-delta,{:.17g},{:.17g},{:.17g},{:.17g}\n", sd.sigma, sd.utility, sd.delta_upper, sd.delta_lower);
  write_file_atomically(s.directory / "comparison.csv", csv, /*overwrite=*/true);
  if (su.found) {
    write_noise_table(*su.table, s.directory / "baseline.csv", {{"role", "truncated Gaussian with the learned table's utility"}}, true);
    const PairBounds gaussian = account(make_pair_family(*su.table, s.pair), s.config.loss_compositions, s.accountant);
    std::vector<std::vector<double>> rows;
    for (const auto& point : certificate.curve)
      rows.push_back({point.epsilon, point.delta_upper, point.delta_lower, gaussian.delta_upper(point.epsilon),
                      gaussian.delta_lower(point.epsilon)});
    write_numeric_csv(s.directory / "comparison_curves.csv",
                      {"epsilon", "learned_delta_upper", "learned_delta_lower", "gaussian_delta_upper", "gaussian_delta_lower"},
                      rows, /*overwrite=*/true);
  }
  const std::string same_utility =
      su.found ? fmt::format("the truncated Gaussian with the same {} (sigma {:.4g}) has certified delta {:.4g} ({})", u, su.sigma,
                             su.delta_upper, su.delta_upper >= comparison.delta_upper ? "learned is better or equal" : "learned is worse")
               : "no truncated Gaussian on this grid has the same utility";
  const std::string same_delta =
      sd.found ? fmt::format("the truncated Gaussian with the same certified delta (sigma {:.4g}) has {} {:.4g} ({})", sd.sigma, u,
                             sd.utility, sd.utility >= comparison.utility ? "learned is better or equal" : "learned is worse")
               : "no truncated Gaussian on this grid reaches the same certified delta";
  return fmt::format(" Against the baseline, {}; {}.", same_utility, same_delta);
}

// noise.csv/.json (with the certificate and the run's facts), certificate.csv, history.csv.
void write_learned(const TrainingSetup& s, const Learned& learned, const NoiseTable& table, const Certificate& certificate) {
  const TrainingConfig& c = s.config;
  nlohmann::json extra;
  extra["utility"] = {{"l1", l1_utility(table)}, {"l2", l2_utility(table)}, {"second_moment", second_moment(table)},
                      {"max_abs_error", max_abs_error(table)}};
  extra["model"] = c.model_kind;
  extra["loss"] = {{"kind", c.loss_kind}, {"epsilon", c.loss_epsilon}, {"compositions", c.loss_compositions}, {"directions", c.loss_directions}};
  extra["pair"] = {{"kind", c.pair_kind}, {"sensitivity", c.pair_sensitivity}, {"sampling_rate", c.pair_sampling_rate}};
  extra["training"] = {{"epochs_run", learned.summary.epochs_run}, {"seconds", learned.summary.seconds}, {"seed", c.optimiser_seed},
                       {"stopped_early", learned.summary.stopped_early}, {"stop_reason", learned.summary.stop_reason}};
  if (!learned.target_message.empty()) extra["target"] = learned.target_message;
  extra["certificate"] = certificate_json(certificate);
  write_noise_table(table, s.directory / "noise.csv", extra, /*overwrite=*/true);
  write_certificate_curve(certificate, s.directory / "certificate.csv", /*overwrite=*/true);
  std::vector<std::vector<double>> rows;
  for (const auto& r : learned.history)
    rows.push_back({double(r.epoch), r.loss, r.privacy, r.utility, r.utility_weight, r.learning_rate, r.seconds});
  write_numeric_csv(s.directory / "history.csv", {"epoch", "loss", "privacy", "utility", "utility_weight", "learning_rate", "seconds"},
                    rows, /*overwrite=*/true);
}

std::string summary_paragraph(const TrainingSetup& s, const Learned& learned, const NoiseTable& table,
                              const Certificate& certificate, const std::string& comparison_sentence) {
  const TrainingConfig& c = s.config;
  const auto& first_delta = certificate.deltas.front();
  std::string epsilon_text;
  for (const auto& e : certificate.epsilons) {
    epsilon_text += epsilon_text.empty() ? "" : ", ";
    if (std::isfinite(e.epsilon_upper))
      epsilon_text += fmt::format("epsilon({:g}) <= {:.4f}", e.delta, e.epsilon_upper);
    else  // no epsilon reaches this delta: the distinguishing events alone (or the upper bound's tail) exceed it
      epsilon_text += fmt::format("no epsilon certifies delta = {:g} (distinguishing events alone: {:.3g})", e.delta,
                                  certificate.infinity_mass_composed);
  }
  return fmt::format(
      "Trained {} on {} with {} for {} epochs in {}. The learned table has {} {:.6g} and L2 {:.6g}; after n = {} "
      "compositions its certified delta at epsilon = {:g} is in [{:.6g}, {:.6g}] (lower, upper; {}){}.{}{} Run directory: {}.\n",
      s.model->model_name(), describe(s.grid), s.loss->loss_name(), learned.summary.epochs_run, seconds_text(learned.summary.seconds),
      to_string(utility_of(c).kind), utility(table, utility_of(c)), l2_utility(table), c.loss_compositions, first_delta.epsilon,
      first_delta.delta_lower, first_delta.delta_upper, certificate.shift_justification, epsilon_text.empty() ? "" : "; " + epsilon_text,
      comparison_sentence, learned.target_message.empty() ? "" : " " + learned.target_message + ".", s.directory.string());
}

void run_train(const TrainOptions& options) {
  TrainingSetup s = set_up(options);
  const TrainingConfig& c = s.config;
  spdlog::info("training {} on {} with {} (epsilon {:g}, n = {}) and {} utility, {} epochs; run directory {}",
               s.model->model_name(), describe(s.grid), s.loss->loss_name(), c.loss_epsilon, c.loss_compositions,
               c.utility_kind, c.optimiser_epochs, s.directory.string());
  write_file_atomically(s.directory / "config.yaml", c.to_yaml(), /*overwrite=*/true);
  const Learned learned = learn(s, options.resume);

  // The learned table and its certificate: from the certified accountant, never from the training loss.
  TableProvenance provenance;
  provenance.source = "train " + s.model->model_name();
  provenance.note = fmt::format("{} with {} (epsilon {:g}, n = {}), {} utility; config {}", s.model->model_name(),
                                s.loss->loss_name(), c.loss_epsilon, c.loss_compositions, c.utility_kind, options.config);
  provenance.parameters = {{"seed", static_cast<double>(c.optimiser_seed)}, {"epochs", static_cast<double>(learned.summary.epochs_run)}};
  const NoiseTable table = learned.table ? NoiseTable(learned.table->grid(), learned.table->probabilities(),
                                                      learned.table->support_kind(), provenance)
                                         : table_of(*s.model, provenance);
  CertificateRequest request;
  request.compositions = c.loss_compositions;
  request.epsilons = c.certification_epsilons.empty() ? std::vector<double>{c.loss_epsilon} : c.certification_epsilons;
  request.deltas = c.certification_deltas;
  const Certificate certificate =
      make_certificate(account(make_pair_family(table, s.pair), c.loss_compositions, s.accountant), request, s.accountant);
  write_learned(s, learned, table, certificate);

  std::string comparison_sentence;
  if (c.certification_compare_gaussian) {
    ComparisonSettings settings;
    settings.pair = s.pair;
    settings.compositions = c.loss_compositions;
    settings.epsilon = c.loss_epsilon;
    settings.utility = utility_of(c);
    settings.accountant = s.accountant;
    spdlog::info("certifying the truncated Gaussian at the same utility and at the same certified delta");
    comparison_sentence = write_comparison(s, compare_with_truncated_gaussian(table, settings), certificate);
  }
  const std::string paragraph = summary_paragraph(s, learned, table, certificate, comparison_sentence);
  write_file_atomically(s.directory / "summary.txt", paragraph, /*overwrite=*/true);
  if (c.output_plots) spdlog::info("{}", plot_run(s.directory, /*overwrite=*/true).message);
  std::cout << certificate.report() << "\n" << paragraph;
  if (learned.summary.stopped_early)
    throw InputError(fmt::format("{}; the last good table and its certificate are in {}", learned.summary.stop_reason,
                                 s.directory.string()));
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
