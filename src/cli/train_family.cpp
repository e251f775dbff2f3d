#include "cli/train_family.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "accounting/certificate.hpp"
#include "accounting/continuous_mechanisms.hpp"
#include "accounting/pair_accountant.hpp"
#include "core/baselines.hpp"
#include "core/counted_noun.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "core/utility.hpp"
#include "io/atomic_file.hpp"
#include "io/certificate_files.hpp"
#include "io/checkpoint_file.hpp"
#include "io/plots.hpp"
#include "io/run_directory.hpp"
#include "io/run_directory_lock.hpp"
#include "io/table_files.hpp"
#include "io/training_config.hpp"
#include "losses/renyi_objective.hpp"
#include "losses/soft_pld_family_objective.hpp"
#include "cli/train_setup.hpp"
#include "models/geometric_tail_family.hpp"
#include "train/preconditioned_gradient.hpp"

namespace noiselearn::cli {

namespace fs = std::filesystem;

namespace {

struct FamilySetup {
  TrainingConfig config;
  fs::path directory;
  std::unique_ptr<RunDirectoryLock> lock;
  GeometricTailShape shape;
  CostSpecification cost;
  int64_t shift_bins = 0;  // m = s / Delta
  PairSpecification pair;
  AccountantOptions accountant;
};

GeometricTailShape shape_of(const TrainingConfig& c) {
  GeometricTailShape shape;
  shape.domain = parse_family_domain(c.model_domain);
  shape.window = c.model_window;
  shape.ratio = c.model_tail_ratio;
  shape.bin_width = c.model_bin_width;
  shape.validate();
  return shape;
}

// The Gaussian start of Alg. 2 whose cost is the budget: for the variance the bisection of Alg. 2 itself; for the
// other costs an outer bisection on sigma (the family's cost of the Gaussian start grows with sigma).
GaussianInitialisation start_for_budget(const GeometricTailShape& shape, const CostSpecification& cost, double budget,
                                        double* sigma_out) {
  if (cost.kind == CostKind::kSquare) {
    *sigma_out = std::sqrt(budget);
    try {
      return gaussian_initialisation(shape, *sigma_out);
    } catch (const InputError& e) {
      throw InputError(fmt::format("model.cost_budget {}: {}", budget, e.what()));
    }
  }
  auto cost_at = [&](double sigma) {
    const GaussianInitialisation start = gaussian_initialisation(shape, sigma);
    return GeometricTailFamily(shape, start.log_probabilities).cost(cost);
  };
  double low = shape.bin_width, high = shape.bin_width;
  while (cost_at(high) < budget) {
    low = high;
    high *= 2.0;
    if (high > 1e12 * shape.bin_width)
      throw InputError(fmt::format("model.cost_budget {}: no Gaussian start of the family reaches it", budget));
  }
  if (cost_at(low) > budget)
    throw InputError(fmt::format("model.cost_budget {} is below what the family's narrowest Gaussian start costs ({}); raise it "
                                 "or narrow model.bin_width",
                                 budget, cost_at(low)));
  for (int i = 0; i < 200 && high - low > 1e-13 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (cost_at(mid) < budget ? low : high) = mid;
  }
  *sigma_out = 0.5 * (low + high);
  return gaussian_initialisation(shape, *sigma_out);
}

FamilySetup set_up_family(const TrainOptions& options) {
  FamilySetup s;
  s.config = TrainingConfig::load(options.config, options.overrides);
  if (options.seed) {
    s.config.optimiser_seed = *options.seed;
    s.config.validate();
  }
  const TrainingConfig& c = s.config;
  s.directory = options.out.empty() ? fs::path("runs") / fs::path(options.config).stem() : fs::path(options.out);
  if (options.resume) {
    if (!fs::is_directory(s.directory)) throw InputError(fmt::format("--resume: run directory {} does not exist", s.directory.string()));
    s.lock = std::make_unique<RunDirectoryLock>(s.directory);  // before reading what another run could be writing
    if (!fs::exists(s.directory / "checkpoint.pt"))
      throw InputError(fmt::format("--resume: {} has no checkpoint.pt", s.directory.string()));
    require_same_run(c, s.directory, "optimiser.iterations");
  }
  s.shape = shape_of(c);
  s.cost.kind = parse_cost_kind(c.model_cost);
  s.cost.threshold = c.model_cost_threshold;
  s.cost.validate();
  s.shift_bins = whole_steps(c.pair_sensitivity, s.shape.bin_width, fmt::format("pair.sensitivity {:g}", c.pair_sensitivity));
  if (s.shift_bins < 1) throw InputError("pair.sensitivity must be at least one bin (model.bin_width)");
  if (s.shift_bins > 1000)
    throw InputError(fmt::format("pair.sensitivity / model.bin_width = {} bins: at most 1000 shifts are supported", s.shift_bins));
  // The objective holds one row of 2N + m + 1 log-summands per shift (float64, and as much again for the
  // gradient): cap it at 5e7 entries (about 1 GB in all) rather than fail an allocation.
  const double entries = static_cast<double>(s.shift_bins) * static_cast<double>(2 * s.shape.window + s.shift_bins + 1);
  if (entries > 5e7)
    throw InputError(fmt::format("model.window {} with {} shifts (pair.sensitivity / model.bin_width) needs {:.3g} objective "
                                 "entries, more than the limit 5e7: lower model.window or widen model.bin_width",
                                 s.shape.window, s.shift_bins, entries));
  s.pair.kind = PairKind::kAdditive;
  s.pair.sensitivity = static_cast<double>(s.shift_bins) * s.shape.bin_width;
  s.pair.shifts = parse_shift_policy(c.certification_shifts);
  s.pair.neighbours = parse_neighbour_relation(c.certification_neighbours);
  s.accountant.loss_step = c.certification_loss_step;
  s.accountant.tail_mass = c.certification_tail_mass;
  s.accountant.max_points = c.certification_max_points;
  s.accountant.several_pairs = parse_several_pairs_method(c.certification_several_pairs);
  s.accountant.adaptive_budget = c.certification_adaptive_budget;
  s.accountant.validate();
  return s;
}

std::vector<double> unique_deltas(const TrainingConfig& c) {
  std::vector<double> deltas{c.loss_delta};
  for (double d : c.certification_deltas)
    if (std::find(deltas.begin(), deltas.end(), d) == deltas.end()) deltas.push_back(d);
  return deltas;
}

Certificate certify(const FamilySetup& s, const PairBounds& composed) {
  CertificateRequest request;
  request.compositions = s.config.loss_compositions;
  request.epsilons = s.config.certification_epsilons;
  request.deltas = unique_deltas(s.config);
  return make_certificate(composed, request, s.accountant);
}

// One row of comparison.csv: a noise of the same cost and its certified epsilon at loss.delta.
struct ComparisonRow {
  std::string noise;
  std::string parameter;
  double cost = 0.0;
  double epsilon_lower = 0.0, epsilon_upper = 0.0;
};

ComparisonRow row_of(const std::string& noise, const std::string& parameter, double cost, const PairBounds& composed,
                     double delta) {
  PairBounds bounds = composed;
  bounds.refine_for_delta(delta);
  return ComparisonRow{noise, parameter, cost, bounds.epsilon_lower(delta), bounds.epsilon_upper(delta)};
}

// The references of the same cost (Gilani et al., Fig. 1): the Gaussian and the Laplace mechanisms (continuous, or
// their discrete versions on the integers), the family's own Gaussian start (Alg. 2), and the truncated Gaussian on
// the window. Costs are matched exactly where there is a closed form; the square cost only for the mechanisms.
std::vector<ComparisonRow> compare_same_cost(const FamilySetup& s, const NoiseTable& start_table, double start_cost) {
  const TrainingConfig& c = s.config;
  const int64_t n = c.loss_compositions;
  const double delta = c.loss_delta, budget = c.model_cost_budget, sensitivity = s.pair.sensitivity;
  std::vector<ComparisonRow> rows;
  rows.push_back(row_of("family-gaussian-start", "Alg. 2", start_cost,
                        account(make_pair_family(start_table, s.pair), n, s.accountant), delta));
  if (s.cost.kind != CostKind::kSquare && s.cost.kind != CostKind::kAbsolute) return rows;
  const bool square = s.cost.kind == CostKind::kSquare;
  if (s.shape.domain == FamilyDomain::kContinuous) {
    // Variance sigma^2 = C, or E|x| = sigma sqrt(2/pi) = C; Laplace: 2 b^2 = C, or E|x| = b = C.
    const double sigma = square ? std::sqrt(budget) : budget * std::sqrt(M_PI / 2.0);
    const double scale = square ? std::sqrt(budget / 2.0) : budget;
    rows.push_back(row_of("gaussian", fmt::format("sigma {:.17g}", sigma), budget,
                          compose_bounds(gaussian_mechanism_bounds(sigma, sensitivity, s.accountant), n, s.accountant), delta));
    rows.push_back(row_of("laplace", fmt::format("scale {:.17g}", scale), budget,
                          compose_bounds(laplace_mechanism_bounds(scale, sensitivity, s.accountant), n, s.accountant), delta));
  } else if (square) {
    // Discrete Laplace P(i) ~ r^|i|: variance 2r/(1-r)^2 = C, r = 1 + 1/C - sqrt(1/C^2 + 2/C). A table with geometric
    // tails from its first point: exact.
    const double r = 1.0 + 1.0 / budget - std::sqrt(1.0 / (budget * budget) + 2.0 / budget);
    const std::vector<double> p{(1.0 - r) / (1.0 + r)};
    const NoiseTable discrete_laplace(Grid{0.0, 1.0, 1}, p, std::nullopt, {}, GeometricTails{r});
    rows.push_back(row_of("discrete-laplace", fmt::format("ratio {:.17g}", r), second_moment(discrete_laplace),
                          account(make_pair_family(discrete_laplace, s.pair), n, s.accountant), delta));
  }
  if (square) {
    // The truncated Gaussian on the window's bins, sigma bisected so that its cost (as a member of the family with
    // no tails: the bins' Delta^2 / 12 for the continuous domain) is the budget.
    const double range = static_cast<double>(s.shape.window) * s.shape.bin_width;
    const Grid grid = Grid::symmetric(range, s.shape.bin_width);
    const double within_bin = s.shape.domain == FamilyDomain::kContinuous ? s.shape.bin_width * s.shape.bin_width / 12.0 : 0.0;
    auto cost_at = [&](double sigma) { return second_moment(truncated_gaussian_table(grid, sigma, range)) + within_bin; };
    double low = 1e-3 * std::sqrt(budget), high = std::sqrt(budget);
    while (cost_at(high) < budget && high < 1e6 * range) high *= 2.0;
    if (cost_at(high) >= budget && cost_at(low) <= budget) {
      for (int i = 0; i < 200 && high - low > 1e-14 * high; ++i) {
        const double mid = 0.5 * (low + high);
        (cost_at(mid) < budget ? low : high) = mid;
      }
      const NoiseTable truncated = truncated_gaussian_table(grid, high, range);
      rows.push_back(row_of("truncated-gaussian", fmt::format("sigma {:.17g}, range {:g}", high, range), cost_at(high),
                            account(make_pair_family(truncated, s.pair), n, s.accountant), delta));
    }
  }
  return rows;
}

std::string justification_for(const FamilySetup& s, const std::string& accountant_justification) {
  if (s.shape.domain == FamilyDomain::kDiscrete) return accountant_justification;
  // Gilani et al., Thm 3.6 for the hockey-stick divergence: a real shift t = (a + f) Delta, 0 <= f < 1, splits
  // every bin into a part of width (1 - f) Delta aligned with shift a and one of width f Delta aligned with
  // shift a + 1, with the same density ratio within each part; the part is a public coin (probability 1 - f or f
  // under both neighbours), so the pair is the mixture (1 - f) pair_a + f pair_(a+1) and its hockey-stick
  // divergence the same mixture of theirs, at most their maximum for every eps. The envelope over whole-bin
  // shifts therefore dominates every real difference in [-s, s].
  return accountant_justification +
         "; continuous family: a real shift (a + f) bins is the mixture (1 - f) shift a + f shift (a + 1) with a public "
         "coin, so whole-bin shifts cover every real difference in [-s, s] (Thm 3.6 for the hockey-stick divergence)";
}

// checkpoint.pt of a family run (io/checkpoint_file.hpp adds the header and checksum): JSON with the stage
// ("warm": the Renyi warm start, "main"), the iteration count and time of that stage, alpha, theta = log p_0 .. log p_N
// (every double written with 17 significant digits, so that a resumed run continues from the same point) and the
// stage's history; for the main stage of a warm-started run also the warm start's summary.
nlohmann::json history_json(const std::vector<PreconditionedIteration>& history) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& h : history)
    out.push_back({h.iteration, h.alpha, h.worst_shift, h.gamma, h.objective, h.step, h.seconds, h.constraint_residual});
  return out;
}

std::vector<PreconditionedIteration> history_of(const nlohmann::json& rows) {
  std::vector<PreconditionedIteration> out;
  for (const auto& r : rows) {
    PreconditionedIteration h;
    h.iteration = r.at(0).get<int64_t>();
    const auto number = [](const nlohmann::json& x) {
      return x.is_null() ? std::numeric_limits<double>::quiet_NaN() : x.get<double>();  // NaN is written as null
    };
    h.alpha = number(r.at(1));
    h.worst_shift = r.at(2).get<int64_t>();
    h.gamma = number(r.at(3));
    h.objective = number(r.at(4));
    h.step = number(r.at(5));
    h.seconds = number(r.at(6));
    h.constraint_residual = number(r.at(7));
    out.push_back(h);
  }
  return out;
}

struct FamilyCheckpoint {
  std::string stage;  // "warm" or "main"
  int64_t iteration = 0;
  double seconds = 0.0;
  double alpha = 0.0;
  std::vector<double> theta;
  std::vector<PreconditionedIteration> history;
  nlohmann::json warm;  // main stage after a warm start: the warm start's summary
};

FamilyCheckpoint read_family_checkpoint(const fs::path& path, size_t unknowns) {
  FamilyCheckpoint c;
  try {
    const nlohmann::json j = nlohmann::json::parse(read_checkpoint_file(path));
    if (j.value("format", "") != "noiselearn-pgd-checkpoint")
      throw InputError(fmt::format("--resume: {} is a checkpoint of another kind of run (not optimiser.kind = pgd)", path.string()));
    c.stage = j.at("stage").get<std::string>();
    c.iteration = j.at("iteration").get<int64_t>();
    c.seconds = j.at("seconds").get<double>();
    c.alpha = j.at("alpha").get<double>();
    c.theta = j.at("theta").get<std::vector<double>>();
    c.history = history_of(j.at("history"));
    if (j.contains("warm")) c.warm = j.at("warm");
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("--resume: {} is not a pgd checkpoint this version can read ({})", path.string(), e.what()));
  }
  if (c.theta.size() != unknowns || (c.stage != "warm" && c.stage != "main"))
    throw InputError(fmt::format("--resume: {} holds {} unknowns of stage '{}', the config needs {}", path.string(), c.theta.size(),
                                 c.stage, unknowns));
  for (double x : c.theta)
    if (!std::isfinite(x)) throw InputError(fmt::format("--resume: {} holds a non-finite log-probability", path.string()));
  return c;
}

}  // namespace

void run_train_family(const TrainOptions& options) {
  FamilySetup s = set_up_family(options);
  const TrainingConfig& c = s.config;
  const int64_t n = c.loss_compositions;

  // Everything a bad config could refuse is checked before the run directory exists.
  double sigma = 0.0;
  const GaussianInitialisation start = start_for_budget(s.shape, s.cost, c.model_cost_budget, &sigma);
  std::vector<double> theta = start.log_probabilities;
  const std::vector<LinearConstraint> constraints{
      {"normalisation", normalisation_coefficients(s.shape), 1.0},
      {"cost", cost_coefficients(s.shape, s.cost), c.model_cost_budget}};
  const double residual = impose_linear_constraints(theta, constraints);
  if (!(residual <= 1e-9))
    throw InputError(fmt::format("the Gaussian start cannot meet model.cost_budget {} exactly (relative residual {:.3g})",
                                 c.model_cost_budget, residual));
  RenyiFamilyObjectiveOptions objective_options;
  objective_options.max_shift = s.shift_bins;
  objective_options.compositions = n;
  objective_options.delta = c.loss_delta;
  objective_options.alpha = c.loss_alpha > 0.0 ? c.loss_alpha : gaussian_optimal_alpha(sigma / s.pair.sensitivity, n, c.loss_delta);
  objective_options.conversion = c.loss_rdp_conversion == "balle" ? RdpConversion::kBalle : RdpConversion::kMironov;
  objective_options.validate();
  auto objective = std::make_shared<RenyiFamilyObjective>(s.shape.window, s.shape.ratio, objective_options);
  PreconditionedGradientOptions pgd;
  pgd.max_iterations = c.optimiser_iterations;
  pgd.direction = parse_preconditioned_direction(c.optimiser_direction);
  pgd.line_search_halvings = static_cast<int>(c.optimiser_line_search_halvings);
  pgd.outer_update_every = c.optimiser_alpha_update_every;
  pgd.relative_progress_tolerance = c.optimiser_relative_tolerance;
  if (c.optimiser_max_seconds > 0.0) pgd.max_seconds = c.optimiser_max_seconds;
  pgd.history_every = std::max<int64_t>(1, c.output_history_every);
  pgd.log_every = c.output_log_every;
  pgd.validate();
  const AlphaOuterUpdate alpha_update = parse_alpha_outer_update(c.optimiser_alpha_update);
  const double start_alpha = objective->alpha();
  // loss.kind = soft-pld: the soft epsilon (or log delta) of the composed envelope, optionally after a warm start
  // by the Renyi objective (optimiser.warm_start = renyi: the soft-PLD run starts from the Renyi-optimised table).
  const bool soft_pld = c.loss_kind == "soft-pld";
  const bool warm_start = soft_pld && c.optimiser_warm_start == "renyi";
  if (soft_pld && pgd.direction == PreconditionedDirection::kNewton)
    throw InputError("optimiser.direction newton applies to loss.kind renyi (the soft-PLD objective has no banded curvature); "
                     "use steepest or lbfgs");
  std::shared_ptr<SoftPldFamilyObjective> soft_objective;
  if (soft_pld) {
    SoftPldFamilyObjectiveOptions soft_options;
    soft_options.max_shift = s.shift_bins;
    soft_options.compositions = n;
    soft_options.target = parse_soft_pld_target(c.loss_soft_pld_minimise);
    soft_options.delta = c.loss_delta;
    soft_options.epsilon = c.loss_epsilon;
    soft_options.combination = parse_shift_combination(c.loss_soft_pld_shifts);
    soft_options.loss_step = c.loss_soft_pld_loss_step;
    soft_objective = std::make_shared<SoftPldFamilyObjective>(s.shape.window, s.shape.ratio, soft_options);
  }
  const std::string objective_name =
      soft_pld ? fmt::format("the soft-PLD {} ({}, loss step {}){}",
                             c.loss_soft_pld_minimise == "epsilon" ? fmt::format("epsilon at delta = {}", format_exact(c.loss_delta))
                                                                   : fmt::format("log delta at epsilon = {}", format_exact(c.loss_epsilon)),
                             c.loss_soft_pld_shifts, format_exact(c.loss_soft_pld_loss_step), warm_start ? " after a Renyi warm start" : "")
               : fmt::format("gamma at delta = {}", format_exact(c.loss_delta));

  // --resume: the checkpoint's point, alpha, iteration count, time and history (the config was compared in
  // set_up_family). The L-BFGS memory and the Newton model's weights are not saved: the first step after resuming
  // starts them afresh.
  std::optional<FamilyCheckpoint> resumed;
  if (options.resume) {
    resumed = read_family_checkpoint(s.directory / "checkpoint.pt", theta.size());
    theta = resumed->theta;
    if (resumed->alpha > 1.0) objective->set_alpha(resumed->alpha);
    if (!warm_start && resumed->stage == "warm")
      throw InputError(fmt::format("--resume: {} holds a warm start, but optimiser.warm_start is none",
                                   (s.directory / "checkpoint.pt").string()));
    spdlog::info("resuming {} at iteration {} of the {} stage", s.directory.string(), resumed->iteration,
                 resumed->stage == "warm" ? "warm-start" : "main");
  } else {
    prepare_run_directory(s.directory, options.force);
    s.lock = std::make_unique<RunDirectoryLock>(s.directory);
    write_file_atomically(s.directory / "config.yaml", c.to_yaml(), /*overwrite=*/true);
  }
  const fs::path checkpoint_path = s.directory / "checkpoint.pt";
  const auto checkpoint_writer = [&](const std::string& stage, const nlohmann::json& warm) {
    return [&, stage, warm](const PreconditionedCheckpoint& k) {
      nlohmann::json j = {{"format", "noiselearn-pgd-checkpoint"}, {"stage", stage}, {"iteration", k.iteration},
                          {"seconds", k.seconds}, {"alpha", objective->alpha()}, {"theta", *k.theta},
                          {"history", history_json(*k.history)}};
      if (!warm.is_null()) j["warm"] = warm;
      write_checkpoint_file(checkpoint_path, j.dump());
    };
  };
  const bool resume_main = resumed && resumed->stage == "main";
  pgd.checkpoint_every = c.output_checkpoint_every;
  spdlog::info("training the {} geometric-tail family (N = {}, r = {}, bin width {}) under {} cost {} with the preconditioned "
               "gradient ({}) on {}, n = {}{}; run directory {}",
               c.model_domain, s.shape.window, format_exact(s.shape.ratio), format_exact(s.shape.bin_width), c.model_cost,
               format_exact(c.model_cost_budget), c.optimiser_direction, objective_name, n,
               !soft_pld || warm_start ? fmt::format(", alpha from {:.6g}", start_alpha) : "", s.directory.string());
  PreconditionedGradientSummary warm_summary;
  if (warm_start && resume_main) {
    // The warm start finished in an earlier session: its summary comes from the checkpoint.
    const nlohmann::json& w = resumed->warm;
    warm_summary.iterations = w.value("iterations", int64_t{0});
    warm_summary.seconds = w.value("seconds", 0.0);
    warm_summary.initial_objective = w.value("gamma_start", 0.0);
    warm_summary.final_objective = w.value("gamma", 0.0);
    warm_summary.termination = w.value("termination", std::string());
    if (w.contains("history")) warm_summary.history = history_of(w.at("history"));
  } else if (warm_start) {
    PreconditionedGradientOptions warm_pgd = pgd;
    if (c.optimiser_warm_start_iterations > 0) warm_pgd.max_iterations = c.optimiser_warm_start_iterations;
    if (resumed) {
      warm_pgd.first_iteration = std::min(resumed->iteration, warm_pgd.max_iterations);
      warm_pgd.seconds_before = resumed->seconds;
      warm_pgd.history_before = resumed->history;
    }
    warm_pgd.write_checkpoint = checkpoint_writer("warm", nullptr);
    // The Renyi optimum by our fastest method for it (optimiser.direction is the soft-PLD stage's): the Newton (SQP)
    // direction with alpha updated every iteration.
    warm_pgd.direction = PreconditionedDirection::kNewton;
    warm_pgd.outer_update_every = 1;
    warm_summary = preconditioned_gradient_descent(theta, constraints, renyi_family_objective(objective, alpha_update), warm_pgd);
    spdlog::info("Renyi warm start: gamma {:.6g} -> {:.6g} in {:.1f} s ({})", warm_summary.initial_objective,
                 warm_summary.final_objective, warm_summary.seconds, warm_summary.termination);
  }
  if (resume_main) {
    pgd.first_iteration = resumed->iteration;
    pgd.seconds_before = resumed->seconds;
    pgd.history_before = resumed->history;
  }
  nlohmann::json warm_record;
  if (warm_start)
    warm_record = {{"iterations", warm_summary.iterations}, {"seconds", warm_summary.seconds},
                   {"gamma_start", warm_summary.initial_objective}, {"gamma", warm_summary.final_objective},
                   {"termination", warm_summary.termination}, {"history", history_json(warm_summary.history)}};
  pgd.write_checkpoint = checkpoint_writer("main", warm_record);
  pgd.validate();
  const PreconditionedGradientSummary summary = preconditioned_gradient_descent(
      theta, constraints, soft_pld ? soft_pld_family_objective(soft_objective) : renyi_family_objective(objective, alpha_update), pgd);
  spdlog::info("{}", summary.termination);

  // The learned table and its certificate: from the certified accountant, never from the training objective.
  const GeometricTailFamily learned_family(s.shape, theta);
  TableProvenance provenance;
  provenance.source = "train geometric-tail";
  provenance.note = fmt::format("{} geometric-tail family, N = {}, r = {}, bin width {}, {} cost {}; pgd on {} (n = {}); "
                                "config {}",
                                c.model_domain, s.shape.window, s.shape.ratio, s.shape.bin_width, c.model_cost,
                                c.model_cost_budget, objective_name, n, options.config);
  provenance.parameters = {{"iterations", static_cast<double>(summary.iterations + warm_summary.iterations)}};
  if (!soft_pld || warm_start) provenance.parameters["alpha"] = objective->alpha();
  const NoiseTable table = learned_family.table(provenance);
  spdlog::info("certifying the learned table (n = {}, {})", n, describe(s.pair.neighbours));
  Certificate certificate = certify(s, account(make_pair_family(table, s.pair), n, s.accountant));
  certificate.shift_justification = justification_for(s, certificate.shift_justification);

  spdlog::info("certifying the references of the same cost");
  const GeometricTailFamily start_family(s.shape, start.log_probabilities);
  std::vector<ComparisonRow> rows = compare_same_cost(s, start_family.table(), start_family.cost(s.cost));
  rows.insert(rows.begin(), ComparisonRow{"learned", "pgd", learned_family.cost(s.cost), certificate.epsilons.front().epsilon_lower,
                                          certificate.epsilons.front().epsilon_upper});

  // The run directory.
  nlohmann::json extra;
  extra["model"] = {{"kind", "geometric-tail"},
                    {"domain", c.model_domain},
                    {"window", s.shape.window},
                    {"tail_ratio", s.shape.ratio},
                    {"bin_width", s.shape.bin_width},
                    {"cost", {{"kind", c.model_cost}, {"budget", c.model_cost_budget}, {"threshold", c.model_cost_threshold},
                              {"achieved", learned_family.cost(s.cost)}}},
                    {"meaning", s.shape.domain == FamilyDomain::kContinuous
                                    ? "noise.csv lists the bin masses at the bin centres; the noise is uniform within each bin "
                                      "(density p / bin_width); beyond the window the masses continue geometrically (tails)"
                                    : "noise.csv lists the probabilities of the integers in the window; beyond it they continue "
                                      "geometrically (tails)"}};
  if (soft_pld) {
    extra["loss"] = {{"kind", "soft-pld"},
                     {"minimise", c.loss_soft_pld_minimise},
                     {"shifts", c.loss_soft_pld_shifts},
                     {"delta", c.loss_delta},
                     {"epsilon", c.loss_epsilon},
                     {"compositions", n},
                     {"loss_step", c.loss_soft_pld_loss_step},
                     {"objective", summary.final_objective},
                     {"objective_start", summary.initial_objective}};
    if (warm_start)
      extra["loss"]["warm_start"] = {{"kind", "renyi"},           {"alpha_start", start_alpha},
                                     {"alpha", objective->alpha()}, {"conversion", c.loss_rdp_conversion},
                                     {"gamma", warm_summary.final_objective}, {"gamma_start", warm_summary.initial_objective},
                                     {"iterations", warm_summary.iterations}, {"seconds", warm_summary.seconds}};
  } else {
    extra["loss"] = {{"kind", "renyi"},          {"delta", c.loss_delta},          {"compositions", n},
                     {"alpha_start", start_alpha}, {"alpha", objective->alpha()},    {"conversion", c.loss_rdp_conversion},
                     {"gamma", summary.final_objective}, {"gamma_start", summary.initial_objective}};
  }
  extra["pair"] = {{"kind", "additive"}, {"sensitivity", s.pair.sensitivity}, {"shift_bins", s.shift_bins}};
  extra["training"] = {{"optimiser", "pgd"},
                       {"direction", c.optimiser_direction},
                       {"alpha_update", c.optimiser_alpha_update},
                       {"iterations", summary.iterations + warm_summary.iterations},
                       {"seconds", summary.seconds + warm_summary.seconds},
                       {"termination", summary.termination},
                       {"max_constraint_residual", summary.max_constraint_residual}};
  extra["utility"] = {{"l1", l1_utility(table)}, {"second_moment", second_moment(table)}};
  extra["certificate"] = certificate_json(certificate);
  write_noise_table(table, s.directory / "noise.csv", extra, /*overwrite=*/true);
  write_certificate_curve(certificate, s.directory / "certificate.csv", /*overwrite=*/true);
  // After a warm start, its records come first and the soft-PLD iterations continue its count (and its clock).
  std::vector<std::vector<double>> history;
  for (const auto& h : warm_summary.history)
    history.push_back({double(h.iteration), h.alpha, double(h.worst_shift), h.gamma, h.objective, h.step, h.seconds,
                       h.constraint_residual});
  for (const auto& h : summary.history)
    history.push_back({double(h.iteration + warm_summary.iterations), h.alpha, double(h.worst_shift), h.gamma, h.objective,
                       h.step, h.seconds + warm_summary.seconds, h.constraint_residual});
  write_numeric_csv(s.directory / "history.csv",
                    {"iteration", "alpha", "worst_shift", "gamma", "objective", "step", "seconds", "constraint_residual"},
                    history, /*overwrite=*/true);
  std::string csv = "noise,parameter,cost,epsilon_lower,epsilon_upper\n";
  for (const auto& r : rows)
    csv += fmt::format("{},{},{:.17g},{:.17g},{:.17g}\n", r.noise, r.parameter, r.cost, r.epsilon_lower, r.epsilon_upper);
  write_file_atomically(s.directory / "comparison.csv", csv, /*overwrite=*/true);

  // The summary: certified epsilons, upper rounded up and lower down.
  const std::string renyi_progress = fmt::format("gamma {:.6g} -> {:.6g}, alpha {:.6g} -> {:.6g}",
                                                 (warm_start ? warm_summary : summary).initial_objective,
                                                 (warm_start ? warm_summary : summary).final_objective, start_alpha, objective->alpha());
  const std::string soft_progress = fmt::format("soft {} {:.6g} -> {:.6g}", c.loss_soft_pld_minimise, summary.initial_objective,
                                                summary.final_objective);
  const std::string objective_progress =
      !soft_pld ? renyi_progress : (warm_start ? renyi_progress + " (warm start), then " + soft_progress : soft_progress);
  std::string comparison_text;
  for (size_t i = 1; i < rows.size(); ++i)
    comparison_text += fmt::format("{}{} {}", i == 1 ? "" : ", ", rows[i].noise,
                                   std::isfinite(rows[i].epsilon_upper) ? format_fixed(rows[i].epsilon_upper, 4, Rounding::kUp) : "inf");
  const auto& first = certificate.epsilons.front();
  const std::string paragraph = fmt::format(
      "Trained the {} geometric-tail family (N = {}, r = {}, bin width {}) with {} cost {} by the preconditioned gradient ({}) "
      "on {} in {} ({}; {:.1f} s): {}. After n = {} its "
      "certified epsilon at delta = {} is in [{}, {}] (lower, upper; {}). Certified epsilon of the same cost: {}. Run "
      "directory: {}.\n",
      c.model_domain, s.shape.window, format_exact(s.shape.ratio), format_exact(s.shape.bin_width), c.model_cost,
      format_exact(c.model_cost_budget), c.optimiser_direction, soft_pld ? objective_name : "the Renyi objective",
      counted_noun(summary.iterations + warm_summary.iterations, "iteration"), summary.termination, summary.seconds + warm_summary.seconds,
      objective_progress, n,
      format_exact(first.delta), format_fixed(first.epsilon_lower, 4, Rounding::kDown),
      std::isfinite(first.epsilon_upper) ? format_fixed(first.epsilon_upper, 4, Rounding::kUp) : "inf",
      certificate.shift_justification, comparison_text, s.directory.string());
  write_file_atomically(s.directory / "summary.txt", paragraph, /*overwrite=*/true);
  if (c.output_plots) spdlog::info("{}", plot_run(s.directory, /*overwrite=*/true).message);
  std::cout << certificate.report() << "\n" << paragraph;
  if (summary.stopped_by_guard)
    throw InputError(fmt::format("{}; the last good table and its certificate are in {}", summary.termination, s.directory.string()));
}

}  // namespace noiselearn::cli
