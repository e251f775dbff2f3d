// noiselearn train CONFIG: learn a noise table, certify it, compare it with the truncated Gaussian, write the run
// directory (io/run_directory.hpp) and plots, and print a one-paragraph summary.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "accounting/certificate.hpp"
#include "accounting/pair_accountant.hpp"
#include "cli/command.hpp"
#include "cli/train_family.hpp"
#include "cli/train_one_sided.hpp"
#include "cli/train_setup.hpp"
#include "core/counted_noun.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "core/utility.hpp"
#include "io/atomic_file.hpp"
#include "io/certificate_files.hpp"
#include "io/checkpoint_file.hpp"
#include "io/plots.hpp"
#include "io/run_directory.hpp"
#include "io/run_status.hpp"
#include "io/table_files.hpp"
#include "io/training_config.hpp"
#include "solvers/baseline_comparison.hpp"
#include "train/target_search.hpp"
#include "train/trainer.hpp"

namespace noiselearn::cli {

namespace fs = std::filesystem;

namespace {

std::string seconds_text(double s) { return s >= 120 ? fmt::format("{:.1f} min", s / 60) : fmt::format("{:.1f} s", s); }

struct Learned {
  std::optional<NoiseTable> table;  // the target search's pick; otherwise the model's final table
  TrainingSummary summary;
  std::vector<EpochRecord> history;
  std::string target_message;
  std::string plan;  // what was run, in the words of the log's first line: "50 epochs", "8 trials of 500 epochs"
};

using ParameterSnapshot = std::vector<torch::Tensor>;

ParameterSnapshot parameters_of(NoiseModel& model, PrivacyLoss& loss) {
  torch::NoGradGuard guard;
  ParameterSnapshot snapshot;
  for (const auto& p : model.parameters()) snapshot.push_back(p.detach().clone());
  for (const auto& p : loss.parameters()) snapshot.push_back(p.detach().clone());
  return snapshot;
}

void restore_parameters(NoiseModel& model, PrivacyLoss& loss, const ParameterSnapshot& snapshot) {
  torch::NoGradGuard guard;
  size_t i = 0;
  for (auto& p : model.parameters()) p.copy_(snapshot[i++]);
  for (auto& p : loss.parameters()) p.copy_(snapshot[i++]);
}

// Target mode: fixed utility weights, each trial warm-started from the best candidate so far (the starting
// table included), judged by the certificate. Every trial writes checkpoints like a plain run.
Learned search_target(TrainingSetup& s) {
  const TrainingConfig& c = s.config;
  Learned learned;
  TargetSearchOptions search;
  search.kind = c.target_mode == "delta" ? TargetKind::kDelta : TargetKind::kUtility;
  search.target = c.target_mode == "delta" ? c.target_delta : c.target_utility;
  search.trials = c.target_trials;
  search.initial_weight = c.schedule_utility_weight_start;
  search.epochs_per_trial = c.target_trial_epochs > 0 ? c.target_trial_epochs : c.optimiser_epochs;
  learned.plan = fmt::format("{} of {}", counted_noun(search.trials, "trial"), counted_noun(search.epochs_per_trial, "epoch"));
  spdlog::info("target search: certified {} <= {} at epsilon = {}, n = {}: the starting table, then {} ({} in all)",
               c.target_mode == "delta" ? "delta" : "utility", format_exact(search.target), format_exact(c.loss_epsilon),
               c.loss_compositions, learned.plan, counted_noun(search.trials * search.epochs_per_trial, "epoch"));
  // The parameters of the candidates a later trial may start from: the search only ever starts from the best
  // so far, so the others are dropped as soon as a trial names its start.
  std::map<size_t, ParameterSnapshot> snapshots{{0, parameters_of(*s.model, *s.loss)}};
  size_t trained = 0;
  auto train_at = [&](double weight, size_t start) {
    for (auto it = snapshots.begin(); it != snapshots.end();) it = it->first == start ? std::next(it) : snapshots.erase(it);
    restore_parameters(*s.model, *s.loss, snapshots.at(start));
    TrainingOptions trial = s.training;
    trial.epochs = search.epochs_per_trial;
    trial.utility_weight.start = weight;
    trial.utility_weight.decay = false;
    Trainer trainer(s.model, s.loss, trial);
    const TrainingSummary summary = trainer.run();
    if (summary.stopped_early) throw InputError(fmt::format("{} (target search, utility weight {:g})", summary.stop_reason, weight));
    for (auto record : trainer.history()) {
      record.epoch += learned.summary.epochs_run;
      learned.history.push_back(record);
    }
    learned.summary.epochs_run += summary.epochs_run;
    learned.summary.epochs_this_session += summary.epochs_this_session;
    learned.summary.seconds += summary.seconds;
    learned.summary.seconds_this_session += summary.seconds_this_session;
    snapshots[++trained] = parameters_of(*s.model, *s.loss);
    return table_of(*s.model);
  };
  auto evaluate = [&](const NoiseTable& table) {
    const PairBounds bounds = account(make_pair_family(table, s.pair), c.loss_compositions, s.accountant);
    return std::pair{bounds.delta_upper(c.loss_epsilon), utility(table, utility_of(c))};
  };
  const TargetSearchResult result = search_utility_weight(train_at, evaluate, table_of(*s.model), search);
  learned.target_message = result.message;
  spdlog::info("{}", result.message);
  learned.table = *result.trials[result.kept].table;
  return learned;
}

Learned learn(TrainingSetup& s, bool resume) {
  const TrainingConfig& c = s.config;
  if (c.target_mode != "none") return search_target(s);
  Learned learned;
  Trainer trainer(s.model, s.loss, s.training);
  if (resume) trainer.resume(read_checkpoint_file(s.directory / "checkpoint.pt"), (s.directory / "checkpoint.pt").string());
  if (trainer.next_epoch() > c.optimiser_epochs)
    throw InputError(fmt::format("--resume: the checkpoint is at epoch {}, beyond optimiser.epochs = {}; raise optimiser.epochs "
                                 "to train longer",
                                 trainer.next_epoch(), c.optimiser_epochs));
  learned.plan = counted_noun(c.optimiser_epochs, "epoch");
  spdlog::info("training {} for {}{}", s.model->model_name(), learned.plan,
               trainer.next_epoch() > 0 ? fmt::format(" in all: {} after the {} of the checkpoint",
                                                      counted_noun(c.optimiser_epochs - trainer.next_epoch(), "more epoch", "more epochs"),
                                                      counted_noun(trainer.next_epoch(), "epoch"))
                                        : "");
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
      su.found ? fmt::format("the truncated Gaussian with the same {} (sigma {:.4g}) has certified delta {} ({})", u, su.sigma,
                             format_general(su.delta_upper, 4, Rounding::kUp),
                             su.delta_upper >= comparison.delta_upper ? "learned is better or equal" : "learned is worse")
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
  extra["training"] = {{"epochs_run", learned.summary.epochs_run},
                       {"epochs_this_session", learned.summary.epochs_this_session},
                       {"resumed_at_epoch", learned.summary.first_epoch},
                       {"seconds", learned.summary.seconds},
                       {"seed", c.optimiser_seed},
                       {"stopped_early", learned.summary.stopped_early},
                       {"stop_reason", learned.summary.stop_reason}};
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

// What was trained, in the same words as the log's plan: "for 50 epochs (20 in this session, resumed at epoch
// 30)", "for 12 of 50 epochs", "in a target search of 8 trials of 500 epochs (4000 epochs)".
std::string epochs_text(const TrainingConfig& c, const Learned& learned) {
  const TrainingSummary& t = learned.summary;
  if (c.target_mode != "none")
    return fmt::format("in a target search of {} ({})", learned.plan, counted_noun(t.epochs_run, "epoch"));
  std::string text = t.epochs_run == c.optimiser_epochs
                         ? fmt::format("for {}", counted_noun(t.epochs_run, "epoch"))
                         : fmt::format("for {} of {}", t.epochs_run, counted_noun(c.optimiser_epochs, "epoch"));
  if (t.first_epoch > 0) text += fmt::format(" ({} in this session, resumed at epoch {})", t.epochs_this_session, t.first_epoch);
  return text;
}

std::string summary_paragraph(const TrainingSetup& s, const Learned& learned, const NoiseTable& table,
                              const Certificate& certificate, const std::string& comparison_sentence) {
  const TrainingConfig& c = s.config;
  const auto& first_delta = certificate.deltas.front();
  std::string epsilon_text;
  for (const auto& e : certificate.epsilons) {
    epsilon_text += epsilon_text.empty() ? "" : ", ";
    if (std::isfinite(e.epsilon_upper))
      epsilon_text += fmt::format("epsilon({}) <= {}", format_exact(e.delta), format_fixed(e.epsilon_upper, 4, Rounding::kUp));
    else  // no epsilon reaches this delta: the distinguishing events alone (or the upper bound's tail) exceed it
      epsilon_text += fmt::format("no epsilon certifies delta = {} (distinguishing events alone: {})", format_exact(e.delta),
                                  format_general(certificate.infinity_mass_composed, 3, Rounding::kDown));
  }
  // The trained utility, and the L2 (RMS) error beside it unless that is the trained utility.
  const UtilitySpecification trained = utility_of(c);
  std::string utility_text = fmt::format("{} {:.6g}", to_string(trained.kind), utility(table, trained));
  if (trained.kind != UtilityKind::kL2) utility_text += fmt::format(" and l2 {:.6g}", l2_utility(table));
  return fmt::format(
      "Trained {} on {} with {} {} in {}. The learned table has {}; after n = {} its certified delta at epsilon = {} is in "
      "[{}, {}] (lower, upper; {}){}.{}{} Run directory: {}.\n",
      s.model->model_name(), describe(s.grid), s.loss->loss_name(), epochs_text(c, learned), seconds_text(learned.summary.seconds),
      utility_text, counted_noun(c.loss_compositions, "composition"), format_exact(first_delta.epsilon),
      format_general(first_delta.delta_lower, 6, Rounding::kDown), format_general(first_delta.delta_upper, 6, Rounding::kUp),
      certificate.shift_justification, epsilon_text.empty() ? "" : "; " + epsilon_text, comparison_sentence,
      learned.target_message.empty() ? "" : " " + learned.target_message + ".", s.directory.string());
}

// --skip-if-complete: true if the run directory already holds a complete run (io/run_status.hpp) of exactly this
// configuration (its config.yaml is the one this command would write), so that a sweep's job can be run again
// after a kill and trains only what is missing.
bool already_complete(const TrainOptions& options, TrainingConfig config) {
  if (options.seed) config.optimiser_seed = *options.seed;
  const fs::path directory = options.out.empty() ? fs::path("runs") / fs::path(options.config).stem() : fs::path(options.out);
  const RunStatus status = inspect_run(directory);
  if (status.state == RunState::kMissing) return false;
  if (status.state == RunState::kFailed) {
    spdlog::info("{} holds an incomplete run ({}): training it again", directory.string(), status.reason);
    return false;
  }
  const fs::path recorded = directory / "config.yaml";
  if (!fs::is_regular_file(recorded) || read_file(recorded) != config.to_yaml()) {
    spdlog::info("{} holds a complete run of another configuration: training this one", directory.string());
    return false;
  }
  spdlog::info("{} already holds this run, complete and checksum-verified: skipped (--skip-if-complete)", directory.string());
  std::cout << fmt::format("Skipped: {} already holds this run, complete.\n", directory.string());
  return true;
}

void run_train(const TrainOptions& options) {
  // The geometric-tail families train by the preconditioned gradient under a cost constraint (train_family.hpp).
  const TrainingConfig peek = TrainingConfig::load(options.config, options.overrides);
  if (options.skip_if_complete && already_complete(options, peek)) return;
  if (peek.model_kind == "geometric-tail") {
    run_train_family(options);
    return;
  }
  // One-sided tables are solved exactly by the convex HRDP program (train_one_sided.hpp).
  if (peek.optimiser_kind == "convex") {
    run_train_one_sided(options);
    return;
  }
  TrainingSetup s = set_up(options);
  const TrainingConfig& c = s.config;
  spdlog::info("training {} on {} with {} (epsilon {}, n = {}) and {} utility; run directory {}", s.model->model_name(),
               describe(s.grid), s.loss->loss_name(), format_exact(c.loss_epsilon), c.loss_compositions, c.utility_kind,
               s.directory.string());
  write_file_atomically(s.directory / "config.yaml", c.to_yaml(), /*overwrite=*/true);
  const Learned learned = learn(s, options.resume);

  // The learned table and its certificate: from the certified accountant, never from the training loss.
  TableProvenance provenance;
  provenance.source = "train " + s.model->model_name();
  provenance.note = fmt::format("{} with {} (epsilon {}, n = {}), {} utility; config {}", s.model->model_name(),
                                s.loss->loss_name(), format_exact(c.loss_epsilon), c.loss_compositions, c.utility_kind, options.config);
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
  if (c.certification_compare_gaussian && !c.one_sided()) {  // no truncated Gaussian reference on [0, r]
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
  auto seed = std::make_shared<int64_t>(0);
  CLI::Option* seed_option =
      app->add_option("--seed", *seed, "Random seed: overrides the config's optimiser.seed (a whole number >= 0)")
          ->check(CLI::NonNegativeNumber);
  app->add_flag("--force", o->force, "Overwrite a non-empty run directory");
  app->add_flag("--skip-if-complete", o->skip_if_complete,
                "Do nothing if --out already holds a complete, checksum-verified run of this config (what a sweep's jobs "
                "use to be re-runnable); otherwise train as usual");
  app->add_flag("--resume", o->resume, "Continue from the run directory's checkpoint.pt (same config; optimiser.epochs, or optimiser.iterations for pgd, may grow)");
  return Command{app, [o, seed, seed_option] {
                   if (seed_option->count() > 0) o->seed = *seed;
                   run_train(*o);
                 }};
}

}  // namespace noiselearn::cli
