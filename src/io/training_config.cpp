#include "io/training_config.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/config_schema.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

using C = TrainingConfig;

namespace {

// grid.*
std::vector<C::Key> grid_keys() {
  return {
      {"grid.range", &C::grid_range, "x units", "half-width r of the symmetric grid [-r, r]; a whole number of steps"},
      {"grid.step", &C::grid_step, "x units",
       "grid step h (the sensitivity must be a whole number of steps); 0: 2 r / (grid.points - 1)"},
      {"grid.points", &C::grid_points, "",
       "number of grid points E (odd, 0 in the middle); 0: 2 r / h + 1; both 0: 60,001 (the paper's scale)",
       WholeRange{0, 10000001}},
  };
}

// model.*: the shared keys, the sigmoid stack's and the geometric-tail family's
std::vector<C::Key> model_keys() {
  return config_schema::joined<C>(
      {{
           {"model.kind", &C::model_kind, "", model_kind_listing()},
           {"model.support", &C::model_support, "",
            "two-sided (the grid [-r, r]) or one-sided (Xiao et al.: noise >= 0 on the grid [0, r], r = grid.range the "
            "largest noise R0 h; grid.step default 1, the integers; needs model.kind = free-logits (model.symmetric "
            "does not apply) and optimiser.kind = convex with loss.kind = hrdp, or adam with any loss; "
            "certification.compare_gaussian does not apply)"},
       },
       part_keys(&C::sigmoid_stack, SigmoidStackConfig::keys()),
       {
           {"model.symmetric", &C::model_symmetric, "", "free-logits only: mirror the logits (symmetric table)"},
           {"model.init", &C::model_init, "",
            "paper (sigmoid stack: A = 10, B ~ U[0,1), F equidistant), uniform, truncated-gaussian (model.init_sigma), "
            "table (model.init_table); logit models start exactly at the given table"},
           {"model.init_table", &C::model_init_table, "path",
            "noise table (CSV) to start from when model.init = table; relative to the config file's directory (to the "
            "working directory in --set); the run's config.yaml records it as an absolute path"},
           {"model.init_sigma", &C::model_init_sigma, "x units",
            "sigma of the truncated Gaussian start (model.init = truncated-gaussian)"},
       },
       part_keys(&C::geometric_tail, GeometricTailConfig::keys())});
}

// pair.*
std::vector<C::Key> pair_keys() {
  return {
      {"pair.kind", &C::pair_kind, "",
       "additive (p vs p shifted by the sensitivity) or subsampled (DP-SGD mixture, eq. 5)"},
      {"pair.sensitivity", &C::pair_sensitivity, "x units",
       "query sensitivity s (clipping norm C for subsampled); a whole number of grid steps, less than 2 grid.range"},
      {"pair.sampling_rate", &C::pair_sampling_rate, "", "q of the subsampled mixture, in (0, 1]"},
  };
}

// loss.*: the shared keys and those of the moments accountant, PrivacyBuckets, the Renyi loss and the soft PLD
std::vector<C::Key> loss_keys() {
  return config_schema::joined<C>(
      {{
           {"loss.kind", &C::loss_kind, "", loss_kind_listing()},
           {"loss.epsilon", &C::loss_epsilon, "nats", "epsilon at which delta is minimised (and certified)"},
           {"loss.compositions", &C::loss_compositions, "", "n, number of compositions (1 to 1,000,000,000)",
            WholeRange{1, 1000000000}},
           {"loss.directions", &C::loss_directions, "", "combine A||B and B||A by sum (the paper) or max"},
       },
       part_keys(&C::moments_accountant, MomentsAccountantConfig::keys()),
       part_keys(&C::privacy_buckets, PrivacyBucketsConfig::keys()),
       {
           {"loss.delta", &C::loss_delta, "",
            "renyi or soft-pld with pgd: the delta at which epsilon is minimised (eq. 25) and certified"},
           {"loss.alpha", &C::loss_alpha, "",
            "renyi: initial Renyi order alpha > 1; 0: the Gaussian optimum sqrt(2 log(1/delta) / n) sigma / s + 1 "
            "(pgd) or 10 (adam); hrdp: the order of the program; 0: searched (alpha - 1 = 2^(k/2) / 16 up to 1024, "
            "then golden section; with target.mode = delta: the order of the least calibrated cost)"},
       },
       part_keys(&C::renyi, RenyiConfig::keys()),
       part_keys(&C::soft_pld, SoftPldConfig::keys())});
}

// utility.*
std::vector<C::Key> utility_keys() {
  return {
      {"utility.kind", &C::utility_kind, "", "l1 (mean |x|), l2 (RMS), second-moment, tail-probability"},
      {"utility.tail_threshold", &C::utility_tail_threshold, "x units", "tau of tail-probability = Pr[|e| > tau]"},
  };
}

// optimiser.*: the shared keys, Adam's and the preconditioned gradient's
std::vector<C::Key> optimiser_keys() {
  return config_schema::joined<C>(
      {{
           {"optimiser.kind", &C::optimiser_kind, "", optimiser_kind_listing()},
       },
       part_keys(&C::adam, AdamConfig::keys()),
       {
           {"optimiser.seed", &C::optimiser_seed, "",
            "random seed (runs are reproducible bit for bit on the same machine and threads)"},
       },
       part_keys(&C::pgd, PreconditionedGradientConfig::keys())});
}

// schedule.*: the utility weight of eq. (3)
std::vector<C::Key> schedule_keys() {
  return {
      {"schedule.utility_weight_start", &C::schedule_utility_weight_start, "", "w_start of eq. (3)"},
      {"schedule.utility_weight_halving_epochs", &C::schedule_utility_weight_halving_epochs, "epochs",
       "gamma of eq. (3)"},
      {"schedule.utility_weight_min", &C::schedule_utility_weight_min, "", "w_min of eq. (3)"},
      {"schedule.utility_weight_decay", &C::schedule_utility_weight_decay, "",
       "decay the utility weight (eq. 3) or keep w_start"},
  };
}

// target.*
std::vector<C::Key> target_keys() {
  return {
      {"target.mode", &C::target_mode, "",
       "none; delta (least utility loss whose certified delta <= target.delta; with optimiser.kind = convex: the HRDP "
       "budget is moved from loss.epsilon (raised, or lowered when the optimum there misses; a Newton step on the "
       "certified epsilon, then regula falsi, to 1e-5 relative) to the cheapest HRDP optimum whose certified delta at "
       "loss.epsilon is <= target.delta); utility (least certified delta whose utility <= target.utility)"},
      {"target.delta", &C::target_delta, "", "target certified delta at (loss.epsilon, loss.compositions)"},
      {"target.utility", &C::target_utility, "utility units", "target utility budget"},
      {"target.trials", &C::target_trials, "", "training runs of the utility-weight search", WholeRange{1, 1000}},
      {"target.trial_epochs", &C::target_trial_epochs, "epochs", "epochs per trial (0 = optimiser.epochs)",
       WholeRange{0, 1000000000}},
  };
}

// certification.*: the certificate's queries and the accountant's options
std::vector<C::Key> certification_keys() {
  return {
      {"certification.epsilons", &C::certification_epsilons, "nats",
       "report delta at these epsilons (default: loss.epsilon)"},
      {"certification.deltas", &C::certification_deltas, "", "report epsilon at these deltas"},
      {"certification.loss_step", &C::certification_loss_step, "nats", "accountant: single-release loss grid step"},
      {"certification.tail_mass", &C::certification_tail_mass, "", "accountant: tail mass per truncation"},
      {"certification.max_points", &C::certification_max_points, "",
       "accountant: largest loss grid (1024 to 16,777,216)", WholeRange{1024, int64_t{1} << 24}},
      {"certification.shifts", &C::certification_shifts, "",
       "auto, single or all (which query differences are certified)"},
      {"certification.several_pairs", &C::certification_several_pairs, "",
       "releases with several candidate pairs (asymmetric tables under 'any', the mixture with both signs): auto "
       "(decides per query: the exact adaptive programme where the envelope's bracket at one of the certificate's "
       "queries is wider than 1e-4 relative, whole within certification.adaptive_budget, else in blocks; a table "
       "symmetric up to rounding through its exact copy where the difference is negligible), adaptive (always) or "
       "envelope (never)"},
      {"certification.adaptive_budget", &C::certification_adaptive_budget, "multiply-adds",
       "largest estimated cost of the whole adaptive programme under several_pairs = auto (about 1e10 per second on a "
       "core with AVX2); over it, the programme runs in blocks within certification.adaptive_block_budget"},
      {"certification.adaptive_block_budget", &C::certification_adaptive_block_budget, "multiply-adds",
       "largest estimated cost of the adaptive programme in blocks, when the whole programme is over "
       "certification.adaptive_budget: blocks of as many releases as this allows (longer blocks, tighter upper bound)"},
      {"certification.neighbours", &C::certification_neighbours, "",
       "any (every release its own query difference in [-s, s]) or same-direction (all releases move the same way)"},
      {"certification.compare_gaussian", &C::certification_compare_gaussian, "",
       "certify the truncated Gaussian at the same utility and at the same certified delta"},
  };
}

// output.*
std::vector<C::Key> output_keys() {
  return {
      {"output.log_every", &C::output_log_every, "epochs", "progress line every N epochs (0: never)",
       WholeRange{0, 1000000000}},
      {"output.history_every", &C::output_history_every, "epochs", "history.csv row every N epochs",
       WholeRange{1, 1000000000}},
      {"output.checkpoint_every", &C::output_checkpoint_every, "epochs or iterations",
       "checkpoint every N epochs (adam) or iterations (pgd) (0: only at the end)", WholeRange{0, 1000000000}},
      {"output.plots", &C::output_plots, "", "write PNG plots with gnuplot at the end"},
  };
}

}  // namespace

// The shared keys, and each kind's keys (io/kinds/, declared there once) taken in by part_keys where they have always
// been listed: the order of config-keys, configs/README.md and config.yaml, which --resume, --skip-if-complete and a
// sweep compare with the config.yaml of an existing run directory as text. A whole-number key's range (none: 0 to 2^63
// - 1) keeps what it sizes (tensors, loss grids, loops) within what the machine and the arithmetic support, so that an
// absurd value is refused before anything is allocated: loss.compositions stops at 10^9, the accountant's own limit.
const std::vector<C::Key>& C::schema() {
  static const std::vector<Key> keys =
      config_schema::joined<C>({grid_keys(), model_keys(), pair_keys(), loss_keys(), utility_keys(), optimiser_keys(),
                                schedule_keys(), target_keys(), certification_keys(), output_keys()});
  return keys;
}

namespace {

using config_schema::positive;
using config_schema::require;
using config_schema::require_one_of;

}  // namespace

TrainingConfig TrainingConfig::parse(const std::string& yaml_text, const std::string& source,
                                     const std::vector<std::string>& overrides,
                                     const std::filesystem::path& base_directory) {
  return config_schema::parse_config<TrainingConfig>(yaml_text, source, overrides, base_directory);
}

TrainingConfig TrainingConfig::load(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  const std::filesystem::path directory = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  return parse(read_file(path), path.string(), overrides, std::filesystem::absolute(directory));
}

void TrainingConfig::validate() const {
  config_schema::validate_whole_numbers(*this);
  require(positive(grid_range), "grid.range", "must be positive");
  require(grid_step >= 0.0 && std::isfinite(grid_step), "grid.step",
          "must be positive (or 0: derived from grid.points)");
  require_one_of(model_support, "model.support", {"two-sided", "one-sided"});
  if (one_sided())
    require(grid_points == 0 || (grid_points >= 3 && grid_points <= 10000001), "grid.points",
            "must be 0 or from 3 to 10,000,001");
  else
    require(grid_points == 0 || (grid_points >= 3 && grid_points % 2 == 1 && grid_points <= 10000001), "grid.points",
            "must be 0 or an odd number from 3 to 10,000,001");
  grid();  // consistency of range, step and points
  require_one_of(model_kind, "model.kind", kind_names(model_kinds()));
  const bool family = model_kind == "geometric-tail";
  geometric_tail.validate();
  require_one_of(optimiser_kind, "optimiser.kind", kind_names(optimiser_kinds()));
  // The family and its optimiser go together, before the support's rules.
  require(!family || optimiser_kind == "pgd", "optimiser.kind", "must be pgd for model.kind = geometric-tail");
  require(family || optimiser_kind != "pgd", "optimiser.kind", "pgd applies to model.kind = geometric-tail only");
  require(!one_sided() || model_kind == "free-logits", "model.kind",
          "must be free-logits for model.support = one-sided");
  require(!one_sided() || optimiser_kind == "convex" || optimiser_kind == "adam", "optimiser.kind",
          "must be convex or adam for model.support = one-sided");
  // The chosen kinds' own rules (io/kinds/), where the convex program's, hrdp's and the family's have always been
  // checked; the loss's name itself is checked below.
  if (const auto& rules = find_optimiser_kind(optimiser_kind)->validate) rules(*this);
  if (const LossKind* loss = find_loss_kind(loss_kind); loss && loss->validate) loss->validate(*this);
  if (const auto& rules = find_model_kind(model_kind)->validate) rules(*this);
  require(loss_delta > 0.0 && loss_delta < 1.0, "loss.delta", "must be in (0, 1)");
  require(loss_alpha == 0.0 || (loss_alpha > 1.0 && std::isfinite(loss_alpha)), "loss.alpha",
          "must be 0 (automatic) or > 1");
  renyi.validate();
  soft_pld.validate();
  pgd.validate();
  require(pgd.warm_start == "none" || (family && loss_kind == "soft-pld"), "optimiser.warm_start",
          "renyi applies to model.kind = geometric-tail with loss.kind = soft-pld");
  sigmoid_stack.validate();
  require_one_of(model_init, "model.init", {"paper", "uniform", "truncated-gaussian", "table"});
  require(model_init != "table" || !model_init_table.empty(), "model.init_table",
          "must name a table when model.init = table");
  require(model_init != "truncated-gaussian" || positive(model_init_sigma), "model.init_sigma",
          "must be positive when model.init = truncated-gaussian");
  require_one_of(pair_kind, "pair.kind", {"additive", "subsampled"});
  require(positive(pair_sensitivity), "pair.sensitivity", "must be positive");
  // A table on [-r, r] and its copy shifted by s >= 2r share at most the one point r: every other output tells
  // the neighbours apart, so every table on this grid has delta >= 1/2 (delta = 1 when s > 2r).
  if (one_sided() && 2.0 * pair_sensitivity > grid_range)
    throw InputError(fmt::format(
        "pair.sensitivity {} is more than half of grid.range {}: a one-sided table on [0, r] needs r >= 2 s "
        "(its bottom and top s carry the distinguishing mass)",
        pair_sensitivity, grid_range));
  if (!family && !one_sided() && pair_sensitivity >= 2.0 * grid_range)
    throw InputError(
        fmt::format("pair.sensitivity {} is not less than the grid's width 2 grid.range = {}: a table and its "
                    "shift by the sensitivity would share at most one grid point, so no table on this grid "
                    "has delta below 1/2 (make grid.range larger than {})",
                    pair_sensitivity, 2.0 * grid_range, pair_sensitivity / 2.0));
  require(pair_sampling_rate > 0.0 && pair_sampling_rate <= 1.0, "pair.sampling_rate", "must be in (0, 1]");
  require_one_of(loss_kind, "loss.kind", kind_names(loss_kinds()));
  require(loss_epsilon >= 0.0 && std::isfinite(loss_epsilon), "loss.epsilon", "must be finite and >= 0");
  require_one_of(loss_directions, "loss.directions", {"sum", "max"});
  moments_accountant.validate();
  privacy_buckets.validate();
  require_one_of(utility_kind, "utility.kind", {"l1", "l2", "second-moment", "tail-probability"});
  require(utility_tail_threshold >= 0.0 && std::isfinite(utility_tail_threshold), "utility.tail_threshold",
          "must be >= 0");
  adam.validate();
  require(schedule_utility_weight_start >= 0.0 && std::isfinite(schedule_utility_weight_start),
          "schedule.utility_weight_start", "must be >= 0");
  require(positive(schedule_utility_weight_halving_epochs), "schedule.utility_weight_halving_epochs",
          "must be positive");
  require(schedule_utility_weight_min >= 0.0 && std::isfinite(schedule_utility_weight_min),
          "schedule.utility_weight_min", "must be >= 0");
  require_one_of(target_mode, "target.mode", {"none", "delta", "utility"});
  require(target_delta > 0.0 && target_delta < 1.0, "target.delta", "must be in (0, 1)");
  require(target_mode != "utility" || positive(target_utility), "target.utility",
          "must be positive when target.mode = utility");
  for (double e : certification_epsilons)
    require(e >= 0.0 && std::isfinite(e), "certification.epsilons", "must be finite and >= 0");
  for (double d : certification_deltas) require(d > 0.0 && d < 1.0, "certification.deltas", "must be in (0, 1)");
  require(certification_loss_step > 0.0 && certification_loss_step <= 1.0, "certification.loss_step",
          "must be in (0, 1]");
  require(certification_tail_mass >= 0.0 && certification_tail_mass < 1e-3, "certification.tail_mass",
          "must be in [0, 1e-3)");
  require_one_of(certification_shifts, "certification.shifts", {"auto", "single", "all"});
  require_one_of(certification_neighbours, "certification.neighbours", {"any", "same-direction"});
  require_one_of(certification_several_pairs, "certification.several_pairs", {"auto", "adaptive", "envelope"});
  require(certification_adaptive_budget >= 0.0 && std::isfinite(certification_adaptive_budget),
          "certification.adaptive_budget", "must be finite and >= 0");
  require(certification_adaptive_block_budget >= 0.0 && std::isfinite(certification_adaptive_block_budget),
          "certification.adaptive_block_budget", "must be finite and >= 0");
}

Grid TrainingConfig::grid() const {
  if (one_sided()) {
    const double step = grid_step > 0.0   ? grid_step
                        : grid_points > 0 ? grid_range / static_cast<double>(grid_points - 1)
                                          : 1.0;
    const Grid g = Grid::spanning(0.0, grid_range, step);
    if (grid_points != 0 && grid_points != g.size)
      throw InputError(fmt::format(
          "grid.points {} disagrees with grid.range {:g} / grid.step {:g} ({} points); set one of them to 0",
          grid_points, grid_range, grid_step, g.size));
    if (g.size > 10000001)
      throw InputError(fmt::format("grid.range / grid.step gives {} points (at most 10,000,001)", g.size));
    return g;
  }
  if (grid_step > 0.0) {
    const Grid g = Grid::symmetric(grid_range, grid_step);
    if (grid_points != 0 && grid_points != g.size)
      throw InputError(fmt::format(
          "grid.points {} disagrees with grid.range {:g} / grid.step {:g} ({} points); set one of them to 0",
          grid_points, grid_range, grid_step, g.size));
    if (g.size > 10000001)
      throw InputError(fmt::format("grid.range / grid.step gives {} points (at most 10,000,001)", g.size));
    return g;
  }
  const int64_t points = grid_points > 0 ? grid_points : 60001;
  return Grid::symmetric(grid_range, 2.0 * grid_range / static_cast<double>(points - 1));
}

std::string TrainingConfig::value_of(const Key& key) const { return config_schema::value_of(*this, key); }

std::string TrainingConfig::to_yaml() const {
  return config_schema::to_yaml(*this, "noiselearn training configuration, resolved (every key with its value)");
}

std::string TrainingConfig::markdown_reference() { return config_schema::markdown_reference<TrainingConfig>(); }

}  // namespace noiselearn
