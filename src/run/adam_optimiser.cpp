#include "run/adam_optimiser.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <cmath>
#include <map>
#include <optional>

#include "accounting/pair_accountant.hpp"
#include "core/counted_noun.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "core/utility.hpp"
#include "io/atomic_file.hpp"
#include "io/certificate_files.hpp"
#include "io/checkpoint_file.hpp"
#include "io/run_directory.hpp"
#include "io/table_files.hpp"
#include "run/config_options.hpp"
#include "solvers/baseline_comparison.hpp"
#include "train/factories.hpp"
#include "train/target_search.hpp"
#include "train/trainer.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

namespace {

std::string seconds_text(double s) { return s >= 120 ? fmt::format("{:.1f} min", s / 60) : fmt::format("{:.1f} s", s); }

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

TrainingOptions training_options_of(const TrainingConfig& c, const Grid& grid) {
  TrainingOptions o;
  o.epochs = c.adam.epochs;
  o.learning_rate.initial = c.adam.learning_rate;
  o.learning_rate.decay = c.adam.learning_rate_decay;
  o.utility_weight.start = c.schedule_utility_weight_start;
  o.utility_weight.halving_epochs = c.schedule_utility_weight_halving_epochs;
  o.utility_weight.minimum = c.schedule_utility_weight_min;
  o.utility_weight.decay = c.schedule_utility_weight_decay;
  o.directions = parse_direction_combination(c.loss_directions);
  o.utility = utility_of(c);
  o.pair.kind = parse_pair_kind(c.pair_kind);
  o.pair.shift_cells =
      whole_steps(c.pair_sensitivity, grid.step, fmt::format("pair.sensitivity {:g}", c.pair_sensitivity));
  if (o.pair.shift_cells < 1) throw InputError("pair.sensitivity must be at least one grid step");
  o.pair.sampling_rate = c.pair_sampling_rate;
  o.log_every = c.output_log_every;
  o.history_every = c.output_history_every;
  o.checkpoint_every = c.output_checkpoint_every;
  return o;
}

ModelSpecification model_specification_of(const TrainingConfig& c, const RunOptions& options) {
  ModelSpecification s;
  s.kind = c.model_kind;
  s.sigmoids = c.sigmoid_stack.sigmoids;
  s.slope = c.sigmoid_stack.slope;
  s.symmetric = c.model_symmetric && !c.one_sided();  // a one-sided grid has no mirror
  s.init = c.model_init;
  s.init_sigma = c.model_init_sigma;
  if (c.model_init == "table") s.init_table = options.table_at(c.model_init_table);
  return s;
}

LossSpecification loss_specification_of(const TrainingConfig& c) {
  LossSpecification s;
  s.kind = c.loss_kind;
  s.epsilon = c.loss_epsilon;
  s.compositions = c.loss_compositions;
  s.moments_lambda_sq = c.moments_accountant.lambda_sq;
  s.buckets = c.privacy_buckets.buckets;
  s.bucket_factor = c.privacy_buckets.bucket_factor;
  s.soft_pld_loss_step = c.soft_pld.loss_step;
  s.renyi_alpha = c.loss_alpha > 0.0 ? c.loss_alpha : 10.0;
  s.renyi_conversion = c.renyi.rdp_conversion;
  s.renyi_alpha_update = c.renyi.alpha_update;
  return s;
}

class AdamOptimiser final : public RunOptimiser {
 public:
  AdamOptimiser(const RunOptions& options, const TrainingConfig& config)
      : options_(options), c_(config), grid_(config.grid()) {
    torch::manual_seed(static_cast<uint64_t>(c_.optimiser_seed));
    training_ = training_options_of(c_, grid_);
    pair_ = pair_specification_of(c_);
    accountant_ = accountant_options_of(c_);
    model_ = make_noise_model(grid_, model_specification_of(c_, options_));
    loss_ = make_privacy_loss(loss_specification_of(c_));
  }

  OptimisedTable optimise(const fs::path& directory, bool resume) override {
    spdlog::info("training {} on {} with {} (epsilon {}, n = {}) and {} utility; run directory {}",
                 model_->model_name(), describe(grid_), loss_->loss_name(), format_exact(c_.loss_epsilon),
                 c_.loss_compositions, c_.utility_kind, directory.string());
    training_.write_checkpoint = [path = directory / "checkpoint.pt"](const std::string& archive) {
      write_checkpoint_file(path, archive);
    };
    std::optional<NoiseTable> picked;  // the target search's pick; otherwise the model's final table
    std::vector<EpochRecord> history;
    if (c_.target_mode != "none")
      picked = search_target(history);
    else
      learn(directory, resume, history);

    // The learned table; its certificate comes from the certified accountant, never from the training loss.
    TableProvenance provenance;
    provenance.source = "train " + model_->model_name();
    provenance.note =
        fmt::format("{} with {} (epsilon {}, n = {}), {} utility; config {}", model_->model_name(), loss_->loss_name(),
                    format_exact(c_.loss_epsilon), c_.loss_compositions, c_.utility_kind, options_.config_path);
    provenance.parameters = {{"seed", static_cast<double>(c_.optimiser_seed)},
                             {"epochs", static_cast<double>(summary_.epochs_run)}};
    OptimisedTable out{picked ? NoiseTable(picked->grid(), picked->probabilities(), picked->support_kind(), provenance)
                              : table_of(*model_, provenance)};
    const NoiseTable& table = out.table;
    out.record["utility"] = {{"l1", l1_utility(table)},
                             {"l2", l2_utility(table)},
                             {"second_moment", second_moment(table)},
                             {"max_abs_error", max_abs_error(table)}};
    out.record["model"] = c_.model_kind;
    out.record["loss"] = {{"kind", c_.loss_kind},
                          {"epsilon", c_.loss_epsilon},
                          {"compositions", c_.loss_compositions},
                          {"directions", c_.loss_directions}};
    out.record["pair"] = {
        {"kind", c_.pair_kind}, {"sensitivity", c_.pair_sensitivity}, {"sampling_rate", c_.pair_sampling_rate}};
    out.record["training"] = {{"epochs_run", summary_.epochs_run},
                              {"epochs_this_session", summary_.epochs_this_session},
                              {"resumed_at_epoch", summary_.first_epoch},
                              {"seconds", summary_.seconds},
                              {"seed", c_.optimiser_seed},
                              {"stopped_early", summary_.stopped_early},
                              {"stop_reason", summary_.stop_reason}};
    if (!target_message_.empty()) out.record["target"] = target_message_;
    out.history_columns = {"epoch", "loss", "privacy", "utility", "utility_weight", "learning_rate", "seconds"};
    for (const auto& r : history)
      out.history_rows.push_back(
          {double(r.epoch), r.loss, r.privacy, r.utility, r.utility_weight, r.learning_rate, r.seconds});
    out.stopped_early = summary_.stopped_early;
    out.stop_reason = summary_.stop_reason;
    return out;
  }

  Certificate certify(const NoiseTable& table) const override {
    CertificateRequest request;
    request.compositions = c_.loss_compositions;
    request.epsilons =
        c_.certification_epsilons.empty() ? std::vector<double>{c_.loss_epsilon} : c_.certification_epsilons;
    request.deltas = c_.certification_deltas;
    return make_certificate(
        account(make_pair_family(table, pair_), c_.loss_compositions, accountant_, queries_of(request)), request,
        accountant_);
  }

  // comparison.csv, baseline.csv/.json and comparison_curves.csv (no truncated Gaussian reference on [0, r]).
  std::string compare(const OptimisedTable& optimised, const Certificate& certificate,
                      const fs::path& directory) const override {
    if (!c_.certification_compare_gaussian || c_.one_sided()) return "";
    ComparisonSettings settings;
    settings.pair = pair_;
    settings.compositions = c_.loss_compositions;
    settings.epsilon = c_.loss_epsilon;
    settings.utility = utility_of(c_);
    settings.accountant = accountant_;
    spdlog::info("certifying the truncated Gaussian at the same utility and at the same certified delta");
    const BaselineComparison comparison = compare_with_truncated_gaussian(optimised.table, settings);
    const auto& su = comparison.same_utility;
    const auto& sd = comparison.same_delta;
    const std::string u = to_string(utility_of(c_).kind);
    std::string csv = fmt::format("table,sigma,{},delta_upper,delta_lower\n", u);
    csv += fmt::format("learned,,{:.17g},{:.17g},{:.17g}\n", comparison.utility, comparison.delta_upper,
                       comparison.delta_lower);
    if (su.found)
      csv += fmt::format("truncated-gaussian-same-utility,{:.17g},{:.17g},{:.17g},{:.17g}\n", su.sigma, su.utility,
                         su.delta_upper, su.delta_lower);
    if (sd.found)
      csv += fmt::format("truncated-gaussian-same-delta,{:.17g},{:.17g},{:.17g},{:.17g}\n", sd.sigma, sd.utility,
                         sd.delta_upper, sd.delta_lower);
    write_file_atomically(directory / "comparison.csv", csv, /*overwrite=*/true);
    if (su.found) {
      write_noise_table(*su.table, directory / "baseline.csv",
                        {{"role", "truncated Gaussian with the learned table's utility"}}, true);
      const PairBounds gaussian = account(make_pair_family(*su.table, pair_), c_.loss_compositions, accountant_);
      std::vector<std::vector<double>> rows;
      for (const auto& point : certificate.curve)
        rows.push_back({point.epsilon, point.delta_upper, point.delta_lower, gaussian.delta_upper(point.epsilon),
                        gaussian.delta_lower(point.epsilon)});
      write_numeric_csv(
          directory / "comparison_curves.csv",
          {"epsilon", "learned_delta_upper", "learned_delta_lower", "gaussian_delta_upper", "gaussian_delta_lower"},
          rows, /*overwrite=*/true);
    }
    const std::string same_utility =
        su.found
            ? fmt::format("the truncated Gaussian with the same {} (sigma {:.4g}) has certified delta {} ({})", u,
                          su.sigma, format_general(su.delta_upper, 4, Rounding::kUp),
                          su.delta_upper >= comparison.delta_upper ? "learned is better or equal" : "learned is worse")
            : "no truncated Gaussian on this grid has the same utility";
    const std::string same_delta =
        sd.found ? fmt::format("the truncated Gaussian with the same certified delta (sigma {:.4g}) has {} {:.4g} ({})",
                               sd.sigma, u, sd.utility,
                               sd.utility >= comparison.utility ? "learned is better or equal" : "learned is worse")
                 : "no truncated Gaussian on this grid reaches the same certified delta";
    return fmt::format(" Against the baseline, {}; {}.", same_utility, same_delta);
  }

  std::string summary_paragraph(const OptimisedTable& optimised, const Certificate& certificate,
                                const std::string& comparison, const fs::path& directory) const override {
    const NoiseTable& table = optimised.table;
    const auto& first_delta = certificate.deltas.front();
    std::string epsilon_text;
    for (const auto& e : certificate.epsilons) {
      epsilon_text += epsilon_text.empty() ? "" : ", ";
      if (std::isfinite(e.epsilon_upper))
        epsilon_text +=
            fmt::format("epsilon({}) <= {}", format_exact(e.delta), format_fixed(e.epsilon_upper, 4, Rounding::kUp));
      else  // no epsilon reaches this delta: the distinguishing events alone (or the upper bound's tail) exceed it
        epsilon_text +=
            fmt::format("no epsilon certifies delta = {} (distinguishing events alone: {})", format_exact(e.delta),
                        format_general(certificate.infinity_mass.composed, 3, Rounding::kDown));
    }
    // The trained utility, and the L2 (RMS) error beside it unless that is the trained utility.
    const UtilitySpecification trained = utility_of(c_);
    std::string utility_text = fmt::format("{} {:.6g}", to_string(trained.kind), utility(table, trained));
    if (trained.kind != UtilityKind::kL2) utility_text += fmt::format(" and l2 {:.6g}", l2_utility(table));
    return fmt::format(
        "Trained {} on {} with {} {} in {}. The learned table has {}; after n = {} its certified delta at epsilon = {} "
        "is in "
        "[{}, {}] (lower, upper; {}{}){}.{}{} Run directory: {}.\n",
        model_->model_name(), describe(grid_), loss_->loss_name(), epochs_text(), seconds_text(summary_.seconds),
        utility_text, counted_noun(c_.loss_compositions, "composition"), format_exact(first_delta.epsilon),
        format_general(first_delta.delta_lower, 6, Rounding::kDown),
        format_general(first_delta.delta_upper, 6, Rounding::kUp), certificate.accounted.pairs_checked,
        certificate.bound_methods(first_delta.upper_method, first_delta.lower_method),
        epsilon_text.empty() ? "" : "; " + epsilon_text, comparison,
        target_message_.empty() ? "" : " " + target_message_ + ".", directory.string());
  }

 private:
  // Target mode: fixed utility weights, each trial warm-started from the best candidate so far (the starting
  // table included), judged by the certificate. Every trial writes checkpoints like a plain run.
  NoiseTable search_target(std::vector<EpochRecord>& history) {
    TargetSearchOptions search;
    search.kind = c_.target_mode == "delta" ? TargetKind::kDelta : TargetKind::kUtility;
    search.target = c_.target_mode == "delta" ? c_.target_delta : c_.target_utility;
    search.trials = c_.target_trials;
    search.initial_weight = c_.schedule_utility_weight_start;
    search.epochs_per_trial = c_.target_trial_epochs > 0 ? c_.target_trial_epochs : c_.adam.epochs;
    plan_ =
        fmt::format("{} of {}", counted_noun(search.trials, "trial"), counted_noun(search.epochs_per_trial, "epoch"));
    spdlog::info("target search: certified {} <= {} at epsilon = {}, n = {}: the starting table, then {} ({} in all)",
                 c_.target_mode == "delta" ? "delta" : "utility", format_exact(search.target),
                 format_exact(c_.loss_epsilon), c_.loss_compositions, plan_,
                 counted_noun(search.trials * search.epochs_per_trial, "epoch"));
    // The parameters of the candidates a later trial may start from: the search only ever starts from the best
    // so far, so the others are dropped as soon as a trial names its start.
    std::map<size_t, ParameterSnapshot> snapshots{{0, parameters_of(*model_, *loss_)}};
    size_t trained = 0;
    auto train_at = [&](double weight, size_t start) {
      for (auto it = snapshots.begin(); it != snapshots.end();)
        it = it->first == start ? std::next(it) : snapshots.erase(it);
      restore_parameters(*model_, *loss_, snapshots.at(start));
      TrainingOptions trial = training_;
      trial.epochs = search.epochs_per_trial;
      trial.utility_weight.start = weight;
      trial.utility_weight.decay = false;
      Trainer trainer(model_, loss_, trial);
      const TrainingSummary summary = trainer.run();
      if (summary.stopped_early)
        throw InputError(fmt::format("{} (target search, utility weight {:g})", summary.stop_reason, weight));
      for (auto record : trainer.history()) {
        record.epoch += summary_.epochs_run;
        history.push_back(record);
      }
      summary_.epochs_run += summary.epochs_run;
      summary_.epochs_this_session += summary.epochs_this_session;
      summary_.seconds += summary.seconds;
      summary_.seconds_this_session += summary.seconds_this_session;
      snapshots[++trained] = parameters_of(*model_, *loss_);
      return table_of(*model_);
    };
    auto evaluate = [&](const NoiseTable& table) {
      const PairBounds bounds =
          account(make_pair_family(table, pair_), c_.loss_compositions, accountant_, {{c_.loss_epsilon}, {}});
      return std::pair{bounds.delta_upper(c_.loss_epsilon), utility(table, utility_of(c_))};
    };
    const TargetSearchResult result = search_utility_weight(train_at, evaluate, table_of(*model_), search);
    target_message_ = result.message;
    spdlog::info("{}", result.message);
    return *result.trials[result.kept].table;
  }

  void learn(const fs::path& directory, bool resume, std::vector<EpochRecord>& history) {
    Trainer trainer(model_, loss_, training_);
    if (resume)
      trainer.resume(read_checkpoint_file(directory / "checkpoint.pt"), (directory / "checkpoint.pt").string());
    if (trainer.next_epoch() > c_.adam.epochs)
      throw InputError(
          fmt::format("--resume: the checkpoint is at epoch {}, beyond optimiser.epochs = {}; raise optimiser.epochs "
                      "to train longer",
                      trainer.next_epoch(), c_.adam.epochs));
    plan_ = counted_noun(c_.adam.epochs, "epoch");
    spdlog::info("training {} for {}{}", model_->model_name(), plan_,
                 trainer.next_epoch() > 0
                     ? fmt::format(" in all: {} after the {} of the checkpoint",
                                   counted_noun(c_.adam.epochs - trainer.next_epoch(), "more epoch", "more epochs"),
                                   counted_noun(trainer.next_epoch(), "epoch"))
                     : "");
    summary_ = trainer.run();
    history = trainer.history();
  }

  // What was trained, in the same words as the log's plan: "for 50 epochs (20 in this session, resumed at epoch
  // 30)", "for 12 of 50 epochs", "in a target search of 8 trials of 500 epochs (4000 epochs)".
  std::string epochs_text() const {
    const TrainingSummary& t = summary_;
    if (c_.target_mode != "none")
      return fmt::format("in a target search of {} ({})", plan_, counted_noun(t.epochs_run, "epoch"));
    std::string text = t.epochs_run == c_.adam.epochs
                           ? fmt::format("for {}", counted_noun(t.epochs_run, "epoch"))
                           : fmt::format("for {} of {}", t.epochs_run, counted_noun(c_.adam.epochs, "epoch"));
    if (t.first_epoch > 0)
      text += fmt::format(" ({} in this session, resumed at epoch {})", t.epochs_this_session, t.first_epoch);
    return text;
  }

  RunOptions options_;
  TrainingConfig c_;
  Grid grid_;
  PairSpecification pair_;
  AccountantOptions accountant_;
  TrainingOptions training_;
  std::shared_ptr<NoiseModel> model_;
  std::shared_ptr<PrivacyLoss> loss_;
  // What optimise() did, for the summary.
  TrainingSummary summary_;
  std::string target_message_;
  std::string plan_;  // what was run, in the words of the log's first line: "50 epochs", "8 trials of 500 epochs"
};

}  // namespace

std::unique_ptr<RunOptimiser> make_adam_optimiser(const RunOptions& options, const TrainingConfig& config) {
  return std::make_unique<AdamOptimiser>(options, config);
}

}  // namespace noiselearn
