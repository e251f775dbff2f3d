#pragma once
// The training configuration (YAML): every option of grid, model, pair, loss, utility, optimiser,
// schedules, target, certification and output. One schema table (schema()) is the single source of truth:
// it drives parsing, validation messages, `--set key=value`, the resolved config.yaml and the README.
#include <cstdint>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "core/grid.hpp"
#include "io/config_schema.hpp"

namespace noiselearn {

struct TrainingConfig {
  // grid: a symmetric grid [-range, range]
  double grid_range = 5.0;
  double grid_step = 0.0;     // 0: derived from grid_points
  int64_t grid_points = 0;    // 0: derived from grid_step; both 0: 60,001 (Sommer et al.'s E = 60,000 scale)
  // model
  std::string model_kind = "sigmoid-stack";
  std::string model_support = "two-sided";  // two-sided: the grid [-range, range]; one-sided: [0, range]
  int64_t model_sigmoids = 10000;
  double model_slope = 500.0;
  bool model_symmetric = true;
  std::string model_init = "paper";
  std::string model_init_table;
  double model_init_sigma = 0.0;
  // model: the geometric-tail families of Gilani et al. (model.kind = geometric-tail)
  std::string model_domain = "continuous";
  int64_t model_window = 2000;
  double model_tail_ratio = 0.9999;
  double model_bin_width = 0.05;
  std::string model_cost = "square";
  double model_cost_budget = 25.0;
  double model_cost_threshold = 0.0;
  // pair
  std::string pair_kind = "additive";
  double pair_sensitivity = 1.0;
  double pair_sampling_rate = 1.0;
  // loss
  std::string loss_kind = "soft-pld";
  double loss_epsilon = 0.3;
  int64_t loss_compositions = 1;
  std::string loss_directions = "sum";
  double loss_moments_lambda_sq = 1.0;
  int64_t loss_buckets = 1000;
  double loss_bucket_factor = 0.0;
  double loss_soft_pld_loss_step = 1e-3;
  double loss_delta = 1e-6;
  double loss_alpha = 0.0;
  std::string loss_rdp_conversion = "mironov";
  std::string loss_alpha_update = "gradient";
  std::string loss_soft_pld_minimise = "epsilon";
  std::string loss_soft_pld_shifts = "envelope";
  // utility
  std::string utility_kind = "l1";
  double utility_tail_threshold = 1.0;
  // optimiser
  std::string optimiser_kind = "adam";
  int64_t optimiser_epochs = 15000;
  double optimiser_learning_rate = 1e-3;
  double optimiser_learning_rate_decay = 0.99995;
  int64_t optimiser_seed = 1;
  int64_t optimiser_iterations = 2000;
  std::string optimiser_direction = "steepest";
  int64_t optimiser_line_search_halvings = 50;
  int64_t optimiser_alpha_update_every = 10;
  std::string optimiser_alpha_update = "newton";
  double optimiser_relative_tolerance = 1e-10;
  double optimiser_max_seconds = 0.0;
  std::string optimiser_warm_start = "none";
  int64_t optimiser_warm_start_iterations = 0;
  // schedule (Sommer et al., eq. 3)
  double schedule_utility_weight_start = 0.5;
  double schedule_utility_weight_halving_epochs = 2500.0;
  double schedule_utility_weight_min = 1e-7;
  bool schedule_utility_weight_decay = true;
  // target mode
  std::string target_mode = "none";
  double target_delta = 1e-6;
  double target_utility = 0.0;
  int64_t target_trials = 8;
  int64_t target_trial_epochs = 0;
  // certification
  std::vector<double> certification_epsilons;
  std::vector<double> certification_deltas{1e-3, 1e-6, 1e-9};
  double certification_loss_step = 1e-4;
  double certification_tail_mass = 1e-15;
  int64_t certification_max_points = int64_t{1} << 20;
  std::string certification_shifts = "auto";
  std::string certification_neighbours = "any";
  std::string certification_several_pairs = "auto";
  double certification_adaptive_budget = 1e11;
  double certification_adaptive_block_budget = 3e10;
  bool certification_compare_gaussian = true;
  // output
  int64_t output_log_every = 500;
  int64_t output_history_every = 10;
  int64_t output_checkpoint_every = 1000;
  bool output_plots = true;

  using Key = ConfigKey<TrainingConfig>;  // io/config_schema.hpp
  static const std::vector<Key>& schema();
  static WholeRange whole_range(const std::string& name);  // the allowed values of a whole-number key

  // Reads a YAML file, applies `overrides` ("section.key=value", YAML scalars or [lists]) and validates.
  // Unknown, mistyped, out-of-range or repeated keys are an InputError naming the key (and the file and
  // line) and listing what is valid.
  // Paths (keys whose unit is "path") are made absolute: a relative path in the file is relative to the
  // file's directory (`base_directory` for parse(); empty: the working directory), one in `overrides` is
  // relative to the working directory. The resolved config therefore runs the same from anywhere.
  static TrainingConfig load(const std::filesystem::path& path, const std::vector<std::string>& overrides = {});
  static TrainingConfig parse(const std::string& yaml_text, const std::string& source,
                              const std::vector<std::string>& overrides = {},
                              const std::filesystem::path& base_directory = {});

  void validate() const;        // ranges and enumerations; InputError naming the key
  std::string to_yaml() const;  // every key with its value (the resolved config)
  std::string value_of(const Key& key) const;

  // The grid these keys describe (InputError naming the keys if they disagree): symmetric [-range, range], or
  // [0, range] for model.support = one-sided (step grid.step; else range / (grid.points - 1); else 1, the integers).
  Grid grid() const;
  bool one_sided() const { return model_support == "one-sided"; }

  // The README table: key, default, unit, description (Markdown).
  static std::string markdown_reference();
};

}  // namespace noiselearn
