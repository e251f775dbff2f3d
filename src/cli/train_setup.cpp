#include "cli/train_setup.hpp"

#include <fmt/format.h>
#include <torch/torch.h>

#include "cli/cli_common.hpp"
#include "core/errors.hpp"
#include "io/checkpoint_file.hpp"
#include "io/run_directory.hpp"
#include "train/factories.hpp"

namespace noiselearn::cli {

namespace fs = std::filesystem;

namespace {

AccountantOptions accountant_of(const TrainingConfig& c) {
  AccountantOptions o;
  o.loss_step = c.certification_loss_step;
  o.tail_mass = c.certification_tail_mass;
  o.max_points = c.certification_max_points;
  o.several_pairs = parse_several_pairs_method(c.certification_several_pairs);
  o.adaptive_budget = c.certification_adaptive_budget;
  o.validate();
  return o;
}

PairSpecification pair_of(const TrainingConfig& c) {
  PairSpecification p;
  p.kind = parse_pair_kind(c.pair_kind);
  p.sensitivity = c.pair_sensitivity;
  p.sampling_rate = c.pair_sampling_rate;
  p.shifts = parse_shift_policy(c.certification_shifts);
  p.neighbours = parse_neighbour_relation(c.certification_neighbours);
  return p;
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
  o.write_checkpoint = [path = directory / "checkpoint.pt"](const std::string& archive) { write_checkpoint_file(path, archive); };
  return o;
}

ModelSpecification model_specification_of(const TrainingConfig& c) {
  ModelSpecification s;
  s.kind = c.model_kind;
  s.sigmoids = c.model_sigmoids;
  s.slope = c.model_slope;
  s.symmetric = c.model_symmetric && !c.one_sided();  // a one-sided grid has no mirror
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
  s.renyi_alpha = c.loss_alpha > 0.0 ? c.loss_alpha : 10.0;
  s.renyi_conversion = c.loss_rdp_conversion;
  s.renyi_alpha_update = c.loss_alpha_update;
  return s;
}

}  // namespace

// --resume continues the run that config.yaml describes: any key but the length of the run (optimiser.epochs, or
// optimiser.iterations for pgd) changed would make the resumed table the product of two different runs.
void require_same_run(const TrainingConfig& now, const fs::path& directory, const std::string& length_key) {
  const fs::path recorded_path = directory / "config.yaml";
  if (!fs::exists(recorded_path)) throw InputError(fmt::format("--resume: {} has no config.yaml", directory.string()));
  const TrainingConfig recorded = TrainingConfig::load(recorded_path);
  for (const auto& key : TrainingConfig::schema()) {
    if (key.name == length_key) continue;
    if (now.value_of(key) != recorded.value_of(key))
      throw InputError(fmt::format("--resume: {} is {} here but {} in {}; only {} may change when resuming "
                                   "(start afresh with --force to change it)",
                                   key.name, now.value_of(key), recorded.value_of(key), recorded_path.string(), length_key));
  }
}

// The training utility: optimised, matched against the truncated Gaussian, and reported.
UtilitySpecification utility_of(const TrainingConfig& c) {
  return UtilitySpecification{parse_utility_kind(c.utility_kind), c.utility_tail_threshold};
}

TrainingSetup set_up(const TrainOptions& options) {
  TrainingSetup s;
  s.config = TrainingConfig::load(options.config, options.overrides);
  if (options.seed) {
    s.config.optimiser_seed = *options.seed;
    s.config.validate();
  }
  s.directory = options.out.empty() ? fs::path("runs") / fs::path(options.config).stem() : fs::path(options.out);
  if (options.resume) {
    if (s.config.target_mode != "none") throw InputError("--resume continues a plain run; it does not apply to target.mode");
    if (!fs::is_directory(s.directory)) throw InputError(fmt::format("--resume: run directory {} does not exist", s.directory.string()));
    s.lock = std::make_unique<RunDirectoryLock>(s.directory);  // before reading what another run could be writing
    if (!fs::exists(s.directory / "checkpoint.pt"))
      throw InputError(fmt::format("--resume: {} has no checkpoint.pt", s.directory.string()));
    require_same_run(s.config, s.directory, "optimiser.epochs");
  }
  s.grid = s.config.grid();
  torch::manual_seed(static_cast<uint64_t>(s.config.optimiser_seed));
  s.training = training_options_of(s.config, s.grid, s.directory);
  s.pair = pair_of(s.config);
  s.accountant = accountant_of(s.config);
  s.model = make_noise_model(s.grid, model_specification_of(s.config));
  s.loss = make_privacy_loss(loss_specification_of(s.config));
  // Only now, with everything understood, does the run directory come into being.
  if (!options.resume) {
    prepare_run_directory(s.directory, options.force);
    s.lock = std::make_unique<RunDirectoryLock>(s.directory);
  }
  return s;
}

}  // namespace noiselearn::cli
