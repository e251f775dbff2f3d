#include "run/preconditioned_gradient_optimiser.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "accounting/pair_accountant.hpp"
#include "core/counted_noun.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "core/utility.hpp"
#include "io/atomic_file.hpp"
#include "io/checkpoint_file.hpp"
#include "losses/renyi_objective.hpp"
#include "losses/soft_pld_family_objective.hpp"
#include "models/geometric_tail_family.hpp"
#include "run/config_options.hpp"
#include "run/family_checkpoint.hpp"
#include "run/same_cost_comparison.hpp"
#include "train/preconditioned_gradient.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

namespace {

GeometricTailShape shape_of(const TrainingConfig& c) {
  GeometricTailShape shape;
  shape.domain = parse_family_domain(c.geometric_tail.domain);
  shape.window = c.geometric_tail.window;
  shape.ratio = c.geometric_tail.tail_ratio;
  shape.bin_width = c.geometric_tail.bin_width;
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
    throw InputError(
        fmt::format("model.cost_budget {} is below what the family's narrowest Gaussian start costs ({}); raise it "
                    "or narrow model.bin_width",
                    budget, cost_at(low)));
  for (int i = 0; i < 200 && high - low > 1e-13 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (cost_at(mid) < budget ? low : high) = mid;
  }
  *sigma_out = 0.5 * (low + high);
  return gaussian_initialisation(shape, *sigma_out);
}

std::vector<double> unique_deltas(const TrainingConfig& c) {
  std::vector<double> deltas{c.loss_delta};
  for (double d : c.certification_deltas)
    if (std::find(deltas.begin(), deltas.end(), d) == deltas.end()) deltas.push_back(d);
  return deltas;
}

std::vector<double> history_row(const PreconditionedIteration& h, int64_t iterations_before, double seconds_before) {
  return {double(h.iteration + iterations_before),
          h.alpha,
          double(h.worst_shift),
          h.gamma,
          h.objective,
          h.step,
          h.seconds + seconds_before,
          h.constraint_residual};
}

class PreconditionedGradientOptimiser final : public RunOptimiser {
 public:
  // Everything a bad config could refuse is checked here, before the run directory exists.
  PreconditionedGradientOptimiser(const RunOptions& options, const TrainingConfig& config)
      : options_(options), c_(config) {
    shape_ = shape_of(c_);
    cost_.kind = parse_cost_kind(c_.geometric_tail.cost);
    cost_.threshold = c_.geometric_tail.cost_threshold;
    cost_.validate();
    shift_bins_ =
        whole_steps(c_.pair_sensitivity, shape_.bin_width, fmt::format("pair.sensitivity {:g}", c_.pair_sensitivity));
    if (shift_bins_ < 1) throw InputError("pair.sensitivity must be at least one bin (model.bin_width)");
    if (shift_bins_ > 1000)
      throw InputError(
          fmt::format("pair.sensitivity / model.bin_width = {} bins: at most 1000 shifts are supported", shift_bins_));
    // The objective holds one row of 2N + m + 1 log-summands per shift (float64, and as much again for the
    // gradient): cap it at 5e7 entries (about 1 GB in all) rather than fail an allocation.
    const double entries = static_cast<double>(shift_bins_) * static_cast<double>(2 * shape_.window + shift_bins_ + 1);
    if (entries > 5e7)
      throw InputError(
          fmt::format("model.window {} with {} shifts (pair.sensitivity / model.bin_width) needs {:.3g} objective "
                      "entries, more than the limit 5e7: lower model.window or widen model.bin_width",
                      shape_.window, shift_bins_, entries));
    pair_.kind = PairKind::kAdditive;
    pair_.sensitivity = static_cast<double>(shift_bins_) * shape_.bin_width;
    pair_.shifts = parse_shift_policy(c_.certification_shifts);
    pair_.neighbours = parse_neighbour_relation(c_.certification_neighbours);
    accountant_ = accountant_options_of(c_);

    const int64_t n = c_.loss_compositions;
    double sigma = 0.0;
    start_ = start_for_budget(shape_, cost_, c_.geometric_tail.cost_budget, &sigma);
    theta_ = start_.log_probabilities;
    constraints_ = {{"normalisation", normalisation_coefficients(shape_), 1.0},
                    {"cost", cost_coefficients(shape_, cost_), c_.geometric_tail.cost_budget}};
    const double residual = impose_linear_constraints(theta_, constraints_);
    if (!(residual <= 1e-9))
      throw InputError(
          fmt::format("the Gaussian start cannot meet model.cost_budget {} exactly (relative residual {:.3g})",
                      c_.geometric_tail.cost_budget, residual));
    RenyiFamilyObjectiveOptions objective_options;
    objective_options.max_shift = shift_bins_;
    objective_options.compositions = n;
    objective_options.delta = c_.loss_delta;
    objective_options.alpha =
        c_.loss_alpha > 0.0 ? c_.loss_alpha : gaussian_optimal_alpha(sigma / pair_.sensitivity, n, c_.loss_delta);
    objective_options.conversion = c_.renyi.rdp_conversion == "balle" ? RdpConversion::kBalle : RdpConversion::kMironov;
    objective_options.validate();
    objective_ = std::make_shared<RenyiFamilyObjective>(shape_.window, shape_.ratio, objective_options);
    pgd_.max_iterations = c_.pgd.iterations;
    pgd_.direction = parse_preconditioned_direction(c_.pgd.direction);
    pgd_.line_search_halvings = static_cast<int>(c_.pgd.line_search_halvings);
    pgd_.outer_update_every = c_.pgd.alpha_update_every;
    pgd_.relative_progress_tolerance = c_.pgd.relative_tolerance;
    if (c_.pgd.max_seconds > 0.0) pgd_.max_seconds = c_.pgd.max_seconds;
    pgd_.history_every = std::max<int64_t>(1, c_.output_history_every);
    pgd_.log_every = c_.output_log_every;
    pgd_.validate();
    alpha_update_ = parse_alpha_outer_update(c_.pgd.alpha_update);
    start_alpha_ = objective_->alpha();
    // loss.kind = soft-pld: the soft epsilon (or log delta) of the composed envelope, optionally after a warm start
    // by the Renyi objective (optimiser.warm_start = renyi: the soft-PLD run starts from the Renyi-optimised table).
    soft_pld_ = c_.loss_kind == "soft-pld";
    warm_start_ = soft_pld_ && c_.pgd.warm_start == "renyi";
    if (soft_pld_ && pgd_.direction == PreconditionedDirection::kNewton)
      throw InputError(
          "optimiser.direction newton applies to loss.kind renyi (the soft-PLD objective has no banded curvature); "
          "use steepest or lbfgs");
    if (soft_pld_) {
      SoftPldFamilyObjectiveOptions soft_options;
      soft_options.max_shift = shift_bins_;
      soft_options.compositions = n;
      soft_options.target = parse_soft_pld_target(c_.soft_pld.minimise);
      soft_options.delta = c_.loss_delta;
      soft_options.epsilon = c_.loss_epsilon;
      soft_options.combination = parse_shift_combination(c_.soft_pld.shifts);
      soft_options.loss_step = c_.soft_pld.loss_step;
      soft_objective_ = std::make_shared<SoftPldFamilyObjective>(shape_.window, shape_.ratio, soft_options);
    }
    objective_name_ = soft_pld_
                          ? fmt::format("the soft-PLD {} ({}, loss step {}){}",
                                        c_.soft_pld.minimise == "epsilon"
                                            ? fmt::format("epsilon at delta = {}", format_exact(c_.loss_delta))
                                            : fmt::format("log delta at epsilon = {}", format_exact(c_.loss_epsilon)),
                                        c_.soft_pld.shifts, format_exact(c_.soft_pld.loss_step),
                                        warm_start_ ? " after a Renyi warm start" : "")
                          : fmt::format("gamma at delta = {}", format_exact(c_.loss_delta));
  }

  OptimisedTable optimise(const fs::path& directory, bool resume) override {
    const int64_t n = c_.loss_compositions;
    // --resume: the checkpoint's point, alpha, iteration count, time and history (the run compared the config). The
    // L-BFGS memory and the Newton model's weights are not saved: the first step after resuming starts them afresh.
    std::optional<FamilyCheckpoint> resumed;
    if (resume) {
      resumed = read_family_checkpoint(directory / "checkpoint.pt", theta_.size());
      theta_ = resumed->theta;
      if (resumed->alpha > 1.0) objective_->set_alpha(resumed->alpha);
      if (!warm_start_ && resumed->stage == "warm")
        throw InputError(fmt::format("--resume: {} holds a warm start, but optimiser.warm_start is none",
                                     (directory / "checkpoint.pt").string()));
      spdlog::info("resuming {} at iteration {} of the {} stage", directory.string(), resumed->iteration,
                   resumed->stage == "warm" ? "warm-start" : "main");
    }
    const fs::path checkpoint_path = directory / "checkpoint.pt";
    const auto checkpoint_writer = [this, checkpoint_path](const std::string& stage, const nlohmann::json& warm) {
      return [this, checkpoint_path, stage, warm](const PreconditionedCheckpoint& k) {
        write_checkpoint_file(
            checkpoint_path, family_checkpoint_text(FamilyCheckpoint{stage, k.iteration, k.seconds, objective_->alpha(),
                                                                     *k.theta, *k.history, warm}));
      };
    };
    const bool resume_main = resumed && resumed->stage == "main";
    pgd_.checkpoint_every = c_.output_checkpoint_every;
    spdlog::info(
        "training the {} geometric-tail family (N = {}, r = {}, bin width {}) under {} cost {} with the preconditioned "
        "gradient ({}) on {}, n = {}{}; run directory {}",
        c_.geometric_tail.domain, shape_.window, format_exact(shape_.ratio), format_exact(shape_.bin_width),
        c_.geometric_tail.cost, format_exact(c_.geometric_tail.cost_budget), c_.pgd.direction, objective_name_, n,
        !soft_pld_ || warm_start_ ? fmt::format(", alpha from {:.6g}", start_alpha_) : "", directory.string());
    if (warm_start_ && resume_main) {
      // The warm start finished in an earlier session: its summary comes from the checkpoint.
      const nlohmann::json& w = resumed->warm;
      warm_.iterations = w.value("iterations", int64_t{0});
      warm_.seconds = w.value("seconds", 0.0);
      warm_.initial_objective = w.value("gamma_start", 0.0);
      warm_.final_objective = w.value("gamma", 0.0);
      warm_.termination = w.value("termination", std::string());
      if (w.contains("history")) warm_.history = history_of(w.at("history"));
    } else if (warm_start_) {
      PreconditionedGradientOptions warm_pgd = pgd_;
      if (c_.pgd.warm_start_iterations > 0) warm_pgd.max_iterations = c_.pgd.warm_start_iterations;
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
      warm_ = preconditioned_gradient_descent(theta_, constraints_, renyi_family_objective(objective_, alpha_update_),
                                              warm_pgd);
      spdlog::info("Renyi warm start: gamma {:.6g} -> {:.6g} in {:.1f} s ({})", warm_.initial_objective,
                   warm_.final_objective, warm_.seconds, warm_.termination);
    }
    if (resume_main) {
      pgd_.first_iteration = resumed->iteration;
      pgd_.seconds_before = resumed->seconds;
      pgd_.history_before = resumed->history;
    }
    nlohmann::json warm_record;
    if (warm_start_)
      warm_record = {{"iterations", warm_.iterations},         {"seconds", warm_.seconds},
                     {"gamma_start", warm_.initial_objective}, {"gamma", warm_.final_objective},
                     {"termination", warm_.termination},       {"history", history_json(warm_.history)}};
    pgd_.write_checkpoint = checkpoint_writer("main", warm_record);
    pgd_.validate();
    main_ = preconditioned_gradient_descent(
        theta_, constraints_,
        soft_pld_ ? soft_pld_family_objective(soft_objective_) : renyi_family_objective(objective_, alpha_update_),
        pgd_);
    spdlog::info("{}", main_.termination);
    return learned_table();
  }

  Certificate certify(const NoiseTable& table) const override {
    const int64_t n = c_.loss_compositions;
    spdlog::info("certifying the learned table (n = {}, {})", n, describe(pair_.neighbours));
    CertificateRequest request;
    request.compositions = n;
    request.epsilons = c_.certification_epsilons;
    request.deltas = unique_deltas(c_);
    Certificate certificate = make_certificate(
        account(make_pair_family(table, pair_), n, accountant_, queries_of(request)), request, accountant_);
    if (shape_.domain == FamilyDomain::kContinuous)
      // Gilani et al., Thm 3.6 for the hockey-stick divergence: a real shift t = (a + f) Delta, 0 <= f < 1, splits
      // every bin into a part of width (1 - f) Delta aligned with shift a and one of width f Delta aligned with
      // shift a + 1, with the same density ratio within each part; the part is a public coin (probability 1 - f or f
      // under both neighbours), so the pair is the mixture (1 - f) pair_a + f pair_(a+1) and its hockey-stick
      // divergence the same mixture of theirs, at most their maximum for every eps. The envelope over whole-bin
      // shifts therefore dominates every real difference in [-s, s].
      certificate.accounted.pairs_checked +=
          "; continuous family: a real shift (a + f) bins is the mixture (1 - f) shift a + f shift (a + 1) with a "
          "public "
          "coin, so whole-bin shifts cover every real difference in [-s, s] (Thm 3.6 for the hockey-stick divergence)";
    return certificate;
  }

  std::string compare(const OptimisedTable&, const Certificate& certificate, const fs::path& directory) const override {
    spdlog::info("certifying the references of the same cost");
    const GeometricTailFamily start_family(shape_, start_.log_probabilities);
    SameCostSettings settings;
    settings.shape = shape_;
    settings.cost = cost_;
    settings.budget = c_.geometric_tail.cost_budget;
    settings.pair = pair_;
    settings.accountant = accountant_;
    settings.compositions = c_.loss_compositions;
    settings.delta = c_.loss_delta;
    std::vector<SameCostRow> rows = compare_same_cost(settings, start_family.table(), start_family.cost(cost_));
    rows.insert(rows.begin(),
                SameCostRow{"learned", "pgd", GeometricTailFamily(shape_, theta_).cost(cost_),
                            certificate.epsilons.front().epsilon_lower, certificate.epsilons.front().epsilon_upper});
    std::string csv = "noise,parameter,cost,epsilon_lower,epsilon_upper\n";
    for (const auto& r : rows)
      csv += fmt::format("{},{},{:.17g},{:.17g},{:.17g}\n", r.noise, r.parameter, r.cost, r.epsilon_lower,
                         r.epsilon_upper);
    write_file_atomically(directory / "comparison.csv", csv, /*overwrite=*/true);
    std::string text;
    for (size_t i = 1; i < rows.size(); ++i)
      text += fmt::format(
          "{}{} {}", i == 1 ? "" : ", ", rows[i].noise,
          std::isfinite(rows[i].epsilon_upper) ? format_fixed(rows[i].epsilon_upper, 4, Rounding::kUp) : "inf");
    return text;
  }

  // Certified epsilons, upper rounded up and lower down.
  std::string summary_paragraph(const OptimisedTable&, const Certificate& certificate, const std::string& comparison,
                                const fs::path& directory) const override {
    const PreconditionedGradientSummary& renyi = warm_start_ ? warm_ : main_;
    const std::string renyi_progress =
        fmt::format("gamma {:.6g} -> {:.6g}, alpha {:.6g} -> {:.6g}", renyi.initial_objective, renyi.final_objective,
                    start_alpha_, objective_->alpha());
    const std::string soft_progress =
        fmt::format("soft {} {:.6g} -> {:.6g}", c_.soft_pld.minimise, main_.initial_objective, main_.final_objective);
    const std::string objective_progress =
        !soft_pld_ ? renyi_progress
                   : (warm_start_ ? renyi_progress + " (warm start), then " + soft_progress : soft_progress);
    const auto& first = certificate.epsilons.front();
    return fmt::format(
        "Trained the {} geometric-tail family (N = {}, r = {}, bin width {}) with {} cost {} by the preconditioned "
        "gradient ({}) "
        "on {} in {} ({}; {:.1f} s): {}. After n = {} its "
        "certified epsilon at delta = {} is in [{}, {}] (lower, upper; {}{}). Certified epsilon of the same cost: {}. "
        "Run "
        "directory: {}.\n",
        c_.geometric_tail.domain, shape_.window, format_exact(shape_.ratio), format_exact(shape_.bin_width),
        c_.geometric_tail.cost, format_exact(c_.geometric_tail.cost_budget), c_.pgd.direction,
        soft_pld_ ? objective_name_ : "the Renyi objective",
        counted_noun(main_.iterations + warm_.iterations, "iteration"), main_.termination,
        main_.seconds + warm_.seconds, objective_progress, c_.loss_compositions, format_exact(first.delta),
        format_fixed(first.epsilon_lower, 4, Rounding::kDown),
        std::isfinite(first.epsilon_upper) ? format_fixed(first.epsilon_upper, 4, Rounding::kUp) : "inf",
        certificate.accounted.pairs_checked, certificate.bound_methods(first.upper_method, first.lower_method),
        comparison, directory.string());
  }

 private:
  // The learned table with what noise.json and history.csv record of the run.
  OptimisedTable learned_table() const {
    const int64_t n = c_.loss_compositions;
    const GeometricTailFamily learned_family(shape_, theta_);
    TableProvenance provenance;
    provenance.source = "train geometric-tail";
    provenance.note = fmt::format(
        "{} geometric-tail family, N = {}, r = {}, bin width {}, {} cost {}; pgd on {} (n = {}); "
        "config {}",
        c_.geometric_tail.domain, shape_.window, shape_.ratio, shape_.bin_width, c_.geometric_tail.cost,
        c_.geometric_tail.cost_budget, objective_name_, n, options_.config_path);
    provenance.parameters = {{"iterations", static_cast<double>(main_.iterations + warm_.iterations)}};
    if (!soft_pld_ || warm_start_) provenance.parameters["alpha"] = objective_->alpha();
    OptimisedTable out{learned_family.table(provenance)};
    nlohmann::json& r = out.record;
    r["model"] = {
        {"kind", "geometric-tail"},
        {"domain", c_.geometric_tail.domain},
        {"window", shape_.window},
        {"tail_ratio", shape_.ratio},
        {"bin_width", shape_.bin_width},
        {"cost",
         {{"kind", c_.geometric_tail.cost},
          {"budget", c_.geometric_tail.cost_budget},
          {"threshold", c_.geometric_tail.cost_threshold},
          {"achieved", learned_family.cost(cost_)}}},
        {"meaning", shape_.domain == FamilyDomain::kContinuous
                        ? "noise.csv lists the bin masses at the bin centres; the noise is uniform within each bin "
                          "(density p / bin_width); beyond the window the masses continue geometrically (tails)"
                        : "noise.csv lists the probabilities of the integers in the window; beyond it they continue "
                          "geometrically (tails)"}};
    if (soft_pld_) {
      r["loss"] = {{"kind", "soft-pld"},
                   {"minimise", c_.soft_pld.minimise},
                   {"shifts", c_.soft_pld.shifts},
                   {"delta", c_.loss_delta},
                   {"epsilon", c_.loss_epsilon},
                   {"compositions", n},
                   {"loss_step", c_.soft_pld.loss_step},
                   {"objective", main_.final_objective},
                   {"objective_start", main_.initial_objective}};
      if (warm_start_)
        r["loss"]["warm_start"] = {{"kind", "renyi"},
                                   {"alpha_start", start_alpha_},
                                   {"alpha", objective_->alpha()},
                                   {"conversion", c_.renyi.rdp_conversion},
                                   {"gamma", warm_.final_objective},
                                   {"gamma_start", warm_.initial_objective},
                                   {"iterations", warm_.iterations},
                                   {"seconds", warm_.seconds}};
    } else {
      r["loss"] = {{"kind", "renyi"},
                   {"delta", c_.loss_delta},
                   {"compositions", n},
                   {"alpha_start", start_alpha_},
                   {"alpha", objective_->alpha()},
                   {"conversion", c_.renyi.rdp_conversion},
                   {"gamma", main_.final_objective},
                   {"gamma_start", main_.initial_objective}};
    }
    r["pair"] = {{"kind", "additive"}, {"sensitivity", pair_.sensitivity}, {"shift_bins", shift_bins_}};
    r["training"] = {{"optimiser", "pgd"},
                     {"direction", c_.pgd.direction},
                     {"alpha_update", c_.pgd.alpha_update},
                     {"iterations", main_.iterations + warm_.iterations},
                     {"seconds", main_.seconds + warm_.seconds},
                     {"termination", main_.termination},
                     {"max_constraint_residual", main_.max_constraint_residual}};
    r["utility"] = {{"l1", l1_utility(out.table)}, {"second_moment", second_moment(out.table)}};
    // After a warm start, its records come first and the soft-PLD iterations continue its count (and its clock).
    out.history_columns = {"iteration", "alpha", "worst_shift", "gamma",
                           "objective", "step",  "seconds",     "constraint_residual"};
    for (const auto& h : warm_.history) out.history_rows.push_back(history_row(h, 0, 0.0));
    for (const auto& h : main_.history) out.history_rows.push_back(history_row(h, warm_.iterations, warm_.seconds));
    out.stopped_early = main_.stopped_by_guard;
    out.stop_reason = main_.termination;
    return out;
  }

  RunOptions options_;
  TrainingConfig c_;
  GeometricTailShape shape_;
  CostSpecification cost_;
  int64_t shift_bins_ = 0;  // m = s / Delta
  PairSpecification pair_;
  AccountantOptions accountant_;
  GaussianInitialisation start_;
  std::vector<double> theta_;  // log p_0 .. log p_N: the point the optimiser moves
  std::vector<LinearConstraint> constraints_;
  std::shared_ptr<RenyiFamilyObjective> objective_;
  std::shared_ptr<SoftPldFamilyObjective> soft_objective_;
  PreconditionedGradientOptions pgd_;
  AlphaOuterUpdate alpha_update_{};
  double start_alpha_ = 0.0;
  bool soft_pld_ = false, warm_start_ = false;
  std::string objective_name_;
  // What optimise() did, for the record and the summary.
  PreconditionedGradientSummary warm_, main_;
};

}  // namespace

std::unique_ptr<RunOptimiser> make_preconditioned_gradient_optimiser(const RunOptions& options,
                                                                     const TrainingConfig& config) {
  return std::make_unique<PreconditionedGradientOptimiser>(options, config);
}

}  // namespace noiselearn
