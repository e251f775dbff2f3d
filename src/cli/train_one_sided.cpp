#include "cli/train_one_sided.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include <nlohmann/json.hpp>

#include "accounting/certificate.hpp"
#include "accounting/hybrid_renyi.hpp"
#include "accounting/pair_accountant.hpp"
#include "core/counted_noun.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "core/grid.hpp"
#include "core/utility.hpp"
#include "io/atomic_file.hpp"
#include "io/certificate_files.hpp"
#include "io/plots.hpp"
#include "io/run_directory.hpp"
#include "io/run_directory_lock.hpp"
#include "io/table_files.hpp"
#include "io/training_config.hpp"
#include "solvers/hybrid_renyi_optimum.hpp"

namespace noiselearn::cli {

namespace fs = std::filesystem;

void run_train_one_sided(const TrainOptions& options) {
  if (options.resume)
    throw InputError("--resume does not apply to optimiser.kind = convex (the solve takes seconds and keeps no checkpoint)");
  TrainingConfig c = TrainingConfig::load(options.config, options.overrides);
  if (options.seed) c.optimiser_seed = *options.seed;  // recorded; the solve is deterministic
  const Grid grid = c.grid();
  HybridRenyiOptimumOptions o;
  o.compositions = c.loss_compositions;
  o.epsilon = c.loss_epsilon;
  o.delta = c.loss_delta;
  o.alpha = c.loss_alpha > 0.0 ? c.loss_alpha : 2.0;
  o.range_steps = grid.size - 1;
  o.step = grid.step;
  o.shift_steps = whole_steps(c.pair_sensitivity, grid.step, fmt::format("pair.sensitivity {:g}", c.pair_sensitivity));
  o.cost = c.utility_kind == "l1" ? OneSidedCost::kMean : OneSidedCost::kSecondMoment;
  const NeighbourRelation relation = parse_neighbour_relation(c.certification_neighbours);
  o.neighbours = relation == NeighbourRelation::kSameDirection ? HybridRenyiNeighbours::kSameDirection
                                                               : HybridRenyiNeighbours::kAnyDirection;
  if (!(o.epsilon > 0.0)) throw InputError("loss.epsilon must be positive for loss.kind = hrdp");
  o.validate();
  PairSpecification pair;
  pair.sensitivity = static_cast<double>(o.shift_steps) * grid.step;
  pair.shifts = parse_shift_policy(c.certification_shifts);
  pair.neighbours = relation;
  AccountantOptions accountant;
  accountant.loss_step = c.certification_loss_step;
  accountant.tail_mass = c.certification_tail_mass;
  accountant.max_points = c.certification_max_points;
  accountant.several_pairs = parse_several_pairs_method(c.certification_several_pairs);
  accountant.adaptive_budget = c.certification_adaptive_budget;
  accountant.validate();

  const fs::path directory = options.out.empty() ? fs::path("runs") / fs::path(options.config).stem() : fs::path(options.out);
  prepare_run_directory(directory, options.force);
  RunDirectoryLock lock(directory);
  write_file_atomically(directory / "config.yaml", c.to_yaml(), /*overwrite=*/true);

  spdlog::info("solving the HRDP program on {} (R0 = {}, T = {}, epsilon {} at delta {}, {}, {} cost, alpha {})", describe(grid),
               o.range_steps, o.compositions, format_exact(o.epsilon), format_exact(o.delta),
               o.neighbours == HybridRenyiNeighbours::kAnyDirection ? "any-direction neighbours" : "same-direction neighbours",
               to_string(o.cost), c.loss_alpha > 0.0 ? format_exact(c.loss_alpha) : "searched");
  const auto solve = [&](const HybridRenyiOptimumOptions& options_now) {
    return c.loss_alpha > 0.0 ? hybrid_renyi_optimum(options_now) : hybrid_renyi_optimum_over_alpha(options_now);
  };
  CertificateRequest request;
  request.compositions = o.compositions;
  request.epsilons = c.certification_epsilons.empty() ? std::vector<double>{o.epsilon} : c.certification_epsilons;
  if (c.target_mode == "delta" &&
      std::find(request.epsilons.begin(), request.epsilons.end(), o.epsilon) == request.epsilons.end())
    request.epsilons.insert(request.epsilons.begin(), o.epsilon);
  request.deltas = {o.delta};
  for (double d : c.certification_deltas)
    if (d != o.delta) request.deltas.push_back(d);
  const auto certify = [&](const NoiseTable& t) {
    return make_certificate(account(make_pair_family(t, pair), o.compositions, accountant), request, accountant);
  };
  const auto certified_delta_upper = [&](const Certificate& certificate) {
    for (const auto& d : certificate.deltas)
      if (d.epsilon == o.epsilon) return d.delta_upper;
    return 1.0;
  };
  HybridRenyiOptimum solved = solve(o);
  spdlog::info("{}", solved.report());
  if (!solved.feasible)
    throw InputError(fmt::format("no one-sided table on [0, {}] meets HRDP epsilon {} at delta {} after {} at {}: {} "
                                 "(raise grid.range, loss.epsilon or loss.delta{})",
                                 format_exact(grid.x(grid.size - 1)), format_exact(o.epsilon), format_exact(o.delta),
                                 counted_noun(o.compositions, "release"),
                                 c.loss_alpha > 0.0 ? fmt::format("alpha {}", format_exact(c.loss_alpha)) : "any order searched",
                                 solved.status == HybridRenyiOptimumStatus::kInfeasible ? "proved infeasible" : "no feasible table found",
                                 c.loss_alpha > 0.0 ? ", or set loss.alpha 0 to search the order" : ""));
  double hrdp_budget = o.epsilon;
  std::string calibration_text;
  if (c.target_mode == "delta") {
    // The certificate is tighter than HRDP, so the HRDP optimum at loss.epsilon usually has certified delta well below
    // the target: raise the HRDP budget (bisection on its epsilon, the HRDP delta staying loss.delta) to the largest whose
    // optimum still certifies delta(loss.epsilon) <= target.delta. Every candidate is certified; only certified ones
    // are kept, so the result meets the target whatever the shape of the curve.
    Certificate first = certify(solved.table());
    if (certified_delta_upper(first) > c.target_delta)
      throw InputError(fmt::format("target.delta {}: even the HRDP optimum at loss.epsilon {} certifies delta {} at epsilon {} "
                                   "(lower loss.epsilon or loss.delta, or raise target.delta)",
                                   format_exact(c.target_delta), format_exact(o.epsilon),
                                   format_general(certified_delta_upper(first), 6, Rounding::kUp), format_exact(o.epsilon)));
    double low = o.epsilon, high = 2.0 * o.epsilon;
    HybridRenyiOptimumOptions trial = o;
    for (int expansion = 0; expansion < 8; ++expansion) {  // find a budget that fails the target
      trial.epsilon = high;
      const HybridRenyiOptimum r = solve(trial);
      if (!r.feasible || certified_delta_upper(certify(r.table())) > c.target_delta) break;
      low = high, solved = r, high *= 2.0;
    }
    for (int step = 0; step < 14 && high - low > 1e-4 * low; ++step) {
      trial.epsilon = 0.5 * (low + high);
      const HybridRenyiOptimum r = solve(trial);
      const bool meets = r.feasible && certified_delta_upper(certify(r.table())) <= c.target_delta;
      spdlog::info("HRDP budget {:.6g}: cost {:.10g}, certified delta at {} {}", trial.epsilon, r.cost, format_exact(o.epsilon),
                   meets ? "meets the target" : "misses the target");
      if (meets)
        low = trial.epsilon, solved = r;
      else
        high = trial.epsilon;
    }
    hrdp_budget = low;
    calibration_text = fmt::format(" The HRDP budget was raised from {} to {:.6g} (bisection) so that the certified delta at "
                                   "epsilon {} is at most target.delta = {}.",
                                   format_exact(o.epsilon), hrdp_budget, format_exact(o.epsilon), format_exact(c.target_delta));
  }
  NoiseTable table = solved.table();
  table.provenance().source = "train hrdp-optimum";
  table.provenance().note = fmt::format("least {} one-sided table under HRDP epsilon {} at delta {}, T = {}, alpha {} (Xiao et al. "
                                        "eq. 25-27, convex program); config {}",
                                        to_string(o.cost), format_exact(hrdp_budget), format_exact(o.delta), o.compositions,
                                        format_exact(solved.alpha), options.config);
  table.provenance().parameters = {{"alpha", solved.alpha}, {"hrdp_epsilon", solved.hrdp_epsilon}};

  spdlog::info("certifying the table (n = {}, {})", o.compositions, describe(relation));
  const Certificate certificate = certify(table);

  nlohmann::json extra;
  extra["model"] = {{"kind", "free-logits"}, {"support", "one-sided"}, {"range_steps", o.range_steps}};
  extra["loss"] = {{"kind", "hrdp"},
                   {"epsilon", o.epsilon},
                   {"delta", o.delta},
                   {"compositions", o.compositions},
                   {"neighbours", o.neighbours == HybridRenyiNeighbours::kAnyDirection ? "any" : "same-direction"},
                   {"alpha", solved.alpha},
                   {"hrdp_budget", hrdp_budget},
                   {"hrdp_epsilon", solved.hrdp_epsilon}};
  if (c.target_mode == "delta") extra["target"] = {{"mode", "delta"}, {"delta", c.target_delta}, {"hrdp_budget", hrdp_budget}};
  extra["pair"] = {{"kind", "additive"}, {"sensitivity", pair.sensitivity}, {"shift_steps", o.shift_steps}};
  extra["training"] = {{"optimiser", "convex"},
                       {"cost", to_string(o.cost)},
                       {"cost_value", solved.cost},
                       {"duality_gap", solved.duality_gap},
                       {"stationarity_residual", solved.stationarity_residual},
                       {"newton_steps", solved.phase_one_steps + solved.phase_two_steps},
                       {"seconds", solved.seconds}};
  extra["utility"] = {{"mean", l1_utility(table)}, {"second_moment", second_moment(table)}};
  extra["certificate"] = certificate_json(certificate);
  write_noise_table(table, directory / "noise.csv", extra, /*overwrite=*/true);
  write_certificate_curve(certificate, directory / "certificate.csv", /*overwrite=*/true);

  const EpsilonAtDelta& first = certificate.epsilons.front();
  const std::string paragraph = fmt::format(
      "Solved the HRDP program (Xiao et al. eq. 25-27, corrected) on {}: the least {} one-sided table whose HRDP epsilon after "
      "{} is at most {} at delta = {} has {} = {:.10g} (alpha {:.6g}; duality gap {:.2e}, KKT residual {:.1e}; {:.2f} s). Its "
      "HRDP epsilon is {:.9g}; its certified epsilon at delta = {} is in [{}, {}] (lower, upper; exact PLD of the {}-fold "
      "composition, {}).{} Mean {:.6g}, E[e^2] {:.6g}, largest noise {}. Run directory: {}.\n",
      describe(grid), to_string(o.cost), counted_noun(o.compositions, "release"), format_exact(hrdp_budget), format_exact(o.delta),
      o.cost == OneSidedCost::kMean ? "E[e]" : "E[e^2]", solved.cost, solved.alpha, solved.duality_gap, solved.stationarity_residual,
      solved.seconds, solved.hrdp_epsilon, format_exact(first.delta), format_fixed(first.epsilon_lower, 4, Rounding::kDown),
      std::isfinite(first.epsilon_upper) ? format_fixed(first.epsilon_upper, 4, Rounding::kUp) : "inf", o.compositions,
      describe(relation), calibration_text, l1_utility(table), second_moment(table), format_exact(grid.x(grid.size - 1)),
      directory.string());
  write_file_atomically(directory / "summary.txt", paragraph, /*overwrite=*/true);
  if (c.output_plots) spdlog::info("{}", plot_run(directory, /*overwrite=*/true).message);
  std::cout << certificate.report() << "\n" << paragraph;
}

}  // namespace noiselearn::cli
