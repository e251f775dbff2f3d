#pragma once
// The training configuration (YAML): every option of grid, model, pair, loss, utility, optimiser,
// schedules, target, certification and output. One schema table (schema()) is the single source of truth:
// it drives parsing, validation messages, `--set key=value`, the resolved config.yaml and the README.
// The keys that only one kind reads are that kind's typed config (AdamConfig, GeometricTailConfig, ...), declared once
// in its file under io/kinds/ (keys, defaults, units, ranges, validate()) and held here as one member each; the keys
// that several kinds read are plain members.
#include <cstdint>
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/certificate.hpp"
#include "core/dominating_pair.hpp"
#include "core/grid.hpp"
#include "io/config_schema.hpp"
#include "io/kinds/adam.hpp"
#include "io/kinds/geometric_tail.hpp"
#include "io/kinds/moments_accountant.hpp"
#include "io/kinds/preconditioned_gradient.hpp"
#include "io/kinds/privacy_buckets.hpp"
#include "io/kinds/renyi.hpp"
#include "io/kinds/sigmoid_stack.hpp"
#include "io/kinds/soft_pld.hpp"

namespace noiselearn {

struct TrainingConfig {
  // grid: a symmetric grid [-range, range]
  double grid_range = 5.0;
  double grid_step = 0.0;   // 0: derived from grid_points
  int64_t grid_points = 0;  // 0: derived from grid_step; both 0: 60,001 (Sommer et al.'s E = 60,000 scale)
  // model
  std::string model_kind = "sigmoid-stack";
  std::string model_support = "two-sided";  // two-sided: the grid [-range, range]; one-sided: [0, range]
  SigmoidStackConfig sigmoid_stack;         // model.kind = sigmoid-stack (io/kinds/sigmoid_stack.hpp)
  bool model_symmetric = true;
  std::string model_init = "paper";
  std::string model_init_table;
  double model_init_sigma = 0.0;
  GeometricTailConfig geometric_tail;  // model.kind = geometric-tail (io/kinds/geometric_tail.hpp)
  // pair
  std::string pair_kind = to_string(PairSpecification{}.kind);
  double pair_sensitivity = PairSpecification{}.sensitivity;
  double pair_sampling_rate = PairSpecification{}.sampling_rate;
  // loss
  std::string loss_kind = "soft-pld";
  double loss_epsilon = 0.3;
  int64_t loss_compositions = 1;
  std::string loss_directions = "sum";
  MomentsAccountantConfig moments_accountant;  // loss.kind = moments-accountant (io/kinds/moments_accountant.hpp)
  PrivacyBucketsConfig privacy_buckets;        // loss.kind = privacy-buckets-* (io/kinds/privacy_buckets.hpp)
  double loss_delta = 1e-6;
  double loss_alpha = 0.0;
  RenyiConfig renyi;       // loss.kind = renyi (io/kinds/renyi.hpp)
  SoftPldConfig soft_pld;  // loss.kind = soft-pld (io/kinds/soft_pld.hpp)
  // utility
  std::string utility_kind = "l1";
  double utility_tail_threshold = 1.0;
  // optimiser
  std::string optimiser_kind = "adam";
  AdamConfig adam;  // optimiser.kind = adam (io/kinds/adam.hpp)
  int64_t optimiser_seed = 1;
  PreconditionedGradientConfig pgd;  // optimiser.kind = pgd (io/kinds/preconditioned_gradient.hpp)
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
  // certification: the accountant's and the pair's defaults (AccountantOptions, PairSpecification)
  std::vector<double> certification_epsilons;
  std::vector<double> certification_deltas = kDefaultCertificateDeltas;
  double certification_loss_step = AccountantOptions{}.loss_step;
  double certification_tail_mass = AccountantOptions{}.tail_mass;
  int64_t certification_max_points = AccountantOptions{}.max_points;
  std::string certification_shifts = to_string(PairSpecification{}.shifts);
  std::string certification_neighbours = to_string(PairSpecification{}.neighbours);
  std::string certification_several_pairs = to_string(AccountantOptions{}.several_pairs);
  double certification_adaptive_budget = AccountantOptions{}.adaptive_budget;
  double certification_adaptive_block_budget = AccountantOptions{}.adaptive_block_budget;
  bool certification_compare_gaussian = true;
  // output
  int64_t output_log_every = 500;
  int64_t output_history_every = 10;
  int64_t output_checkpoint_every = 1000;
  bool output_plots = true;

  using Key = ConfigKey<TrainingConfig>;  // io/config_schema.hpp
  static const std::vector<Key>& schema();

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
