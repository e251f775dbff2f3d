#include "run/lp_optimum_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include <nlohmann/json.hpp>

#include "accounting/pair_accountant.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "io/certificate_files.hpp"
#include "io/table_files.hpp"

namespace noiselearn {

namespace {

std::string shapes_text(const LpOptimumOptions& o) {
  if (!o.symmetric && !o.monotone) return "none";
  if (o.symmetric && o.monotone) return "symmetric, monotone";
  return o.symmetric ? "symmetric" : "monotone";
}

}  // namespace

namespace {

// The LP's options from the command's: the grid, the shift, the objective and its targets, each checked.
LpOptimumOptions lp_options_of(const LpOptimumRunOptions& r) {
  if (!(r.grid_step > 0.0 && std::isfinite(r.grid_step)))
    throw InputError(fmt::format("--grid-step {} must be positive", r.grid_step));
  if (!(r.range > 0.0 && std::isfinite(r.range))) throw InputError(fmt::format("--range {} must be positive", r.range));
  LpOptimumOptions o;
  o.grid = r.one_sided ? Grid::spanning(0.0, r.range, r.grid_step) : Grid::symmetric(r.range, r.grid_step);
  o.shift_cells = whole_steps(r.sensitivity, r.grid_step, fmt::format("--sensitivity {:g}", r.sensitivity));
  o.cost = r.cost;
  o.tail_threshold = r.tail_threshold;
  o.symmetric = r.symmetric;
  o.monotone = r.monotone;
  if (r.minimise != "delta" && r.minimise != "cost" && r.minimise != "epsilon")
    throw InputError(fmt::format("--minimise {}: must be delta, cost or epsilon", r.minimise));
  const bool least_epsilon = r.minimise == "epsilon";
  if (r.minimise != "epsilon" && !(r.epsilon >= 0.0 && std::isfinite(r.epsilon)))
    throw InputError(fmt::format("--minimise {} needs --epsilon (finite, >= 0)", r.minimise));
  if (r.minimise != "delta" && !(r.delta > 0.0 && r.delta < 1.0))
    throw InputError(fmt::format("--minimise {} needs --delta in (0, 1)", r.minimise));
  if (r.minimise == "delta" && !(r.cost_budget > 0.0 && std::isfinite(r.cost_budget)))
    throw InputError("--minimise delta needs --cost-budget (positive)");
  o.objective = r.minimise == "delta" ? LpObjective::kLeastDelta : LpObjective::kLeastCost;
  o.epsilon = least_epsilon ? 1.0 : r.epsilon;
  o.cost_budget = r.cost_budget;
  o.delta = r.delta;
  if (least_epsilon && !(r.cost_budget > 0.0)) throw InputError("--minimise epsilon needs --cost-budget (positive)");
  o.validate();
  return o;
}

// The certificate of a candidate table: one release of the additive pair, with the loss step aligned to epsilon.
struct LpCertifier {
  Grid grid;
  PairSpecification pair;
  AccountantOptions requested;

  // The LP's optimal tables have privacy losses exactly at +-eps (neighbouring masses in the ratio e^eps). On a loss
  // grid that does not hold eps, the certificate's upper bound splits that mass between the grid points around eps
  // and over-states delta by about (loss step) x (that mass), far above a small delta; so the certificate's loss step
  // is the largest divisor of eps not above the requested one, which puts every such loss on the grid.
  AccountantOptions accountant_at(double epsilon) const {
    AccountantOptions aligned = requested;
    if (epsilon > 0.0) aligned.loss_step = epsilon / std::ceil(epsilon / requested.loss_step - 1e-9);
    return aligned;
  }

  double delta(const std::vector<double>& p, double epsilon) const {
    const NoiseTable table(grid, p);
    return account(make_pair_family(table, pair), 1, accountant_at(epsilon)).delta_upper(epsilon);
  }
};

// One solve of the least-epsilon search at epsilon: whether its optimum is within the cost budget, its delta judged
// exactly or (certified) by the certificate.
using BudgetProbe = std::function<bool(double epsilon, bool certified)>;

// The least cost at (eps, delta) is non-increasing in eps: bisect for the least eps whose optimum is within the
// budget, judging feasibility by the exact delta (fast).
double exact_least_epsilon(const BudgetProbe& within_budget, const LpOptimumOptions& o, const LpOptimumRunOptions& r) {
  double low = 0.0, high = 1.0;
  if (within_budget(0.0, false)) return 0.0;
  while (!within_budget(high, false)) {
    low = high, high *= 2.0;
    if (high > 32.0)
      throw InputError(fmt::format("no table on this grid has {} <= {} at delta {} for any epsilon up to 32",
                                   to_string(o.cost), r.cost_budget, r.delta));
  }
  while (high - low > 1e-6 * high) {
    const double mid = 0.5 * (low + high);
    (within_budget(mid, false) ? high : low) = mid;
  }
  return high;
}

// The written table's delta is judged by the certificate, which is a little above the exact delta: its target is
// then tightened, which can cost a little more. Step up from the exact bisection's epsilon until the certified solve
// is within the budget too, then bisect that last step.
double certified_least_epsilon(const BudgetProbe& within_budget, double high) {
  if (within_budget(high, true)) return high;
  double step = 1e-6 * std::max(high, 1e-3);
  double low = high;
  while (!within_budget(high + step, true)) {
    spdlog::debug("epsilon {:.10g}: the certified table misses the budget", high + step);
    low = high + step, step *= 4.0;
    if (step > 0.1 * std::max(high, 0.1))
      throw std::runtime_error(
          fmt::format("lp-optimum: up to epsilon {:.6g} (10 % above the LP's {:.6g}) no table whose "
                      "certified delta meets --delta is within the budget; try a smaller --loss-step",
                      high + step, high));
  }
  high += step;
  for (int i = 0; i < 12 && high - low > 1e-7 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (within_budget(mid, true) ? high : low) = mid;
  }
  return high;
}

// The least epsilon whose least-cost table at delta is within the budget, by the exact bisection and then the
// certified one; every solve counted in `solves`.
double least_epsilon_within_budget(const LpOptimumOptions& o, const LpOptimumRunOptions& r,
                                   const LpCertifier& certifier, int64_t& solves) {
  const BudgetProbe within_budget = [&](double epsilon, bool certified) {
    LpOptimumOptions at = o;
    at.epsilon = epsilon;
    if (certified) at.delta_judge = [&](const std::vector<double>& p) { return certifier.delta(p, epsilon); };
    const LpOptimum s = solve_lp_optimum(at);
    ++solves;
    spdlog::debug("epsilon {:.10g}{}: {}, cost {:.10g}, margin {:g}", epsilon, certified ? " (certified)" : "",
                  s.status, s.cost, s.margin);
    return s.feasible && s.cost <= r.cost_budget;
  };
  return certified_least_epsilon(within_budget, exact_least_epsilon(within_budget, o, r));
}

// The LP solved for the table that is written; an error that says what to change when no table meets the targets.
LpOptimum solve_for_written_table(const LpOptimumOptions& o, const LpOptimumRunOptions& r, bool least_epsilon) {
  spdlog::info("solving the LP on {} (shift {} cells, minimise {})", describe(o.grid), o.shift_cells, r.minimise);
  LpOptimum solution = solve_lp_optimum(o);
  if (!solution.feasible) {
    if (solution.status == "infeasible")
      throw InputError(
          o.objective == LpObjective::kLeastDelta
              ? fmt::format("no table on this grid has {} <= {}{}: raise --cost-budget or widen --range",
                            to_string(o.cost), r.cost_budget, o.symmetric || o.monotone ? " with these shapes" : "")
              : fmt::format(
                    "no table on this grid has delta <= {} at epsilon {}{}: raise --delta or --epsilon, or widen "
                    "--range",
                    r.delta, o.epsilon, o.symmetric || o.monotone ? " with these shapes" : ""));
    throw std::runtime_error(fmt::format("the LP solver did not finish: {}", solution.status));
  }
  if ((least_epsilon || o.objective == LpObjective::kLeastDelta) && solution.cost > r.cost_budget)
    throw std::runtime_error(
        fmt::format("lp-optimum: the written table's cost {:.17g} exceeds the budget {:.17g} (a defect)", solution.cost,
                    r.cost_budget));
  return solution;
}

// The certificate of the written table at the LP's epsilon (first) and the requested queries.
Certificate certificate_of_lp_table(const NoiseTable& table, const LpOptimumOptions& o, const LpOptimumRunOptions& r,
                                    const LpCertifier& certifier) {
  CertificateRequest request;
  request.compositions = 1;
  request.epsilons = {o.epsilon};
  for (double e : r.certificate_epsilons)
    if (e != o.epsilon) request.epsilons.push_back(e);
  if (r.delta > 0.0) request.deltas = {r.delta};
  for (double d : r.certificate_deltas)
    if (d != r.delta) request.deltas.push_back(d);
  request.validate();
  const AccountantOptions accountant = certifier.accountant_at(o.epsilon);
  return make_certificate(account(make_pair_family(table, certifier.pair), 1, accountant, queries_of(request)), request,
                          accountant);
}

// The table's CSV, with the LP's figures and the certificate in its JSON.
void write_lp_table(const LpOptimumRun& run, const LpOptimumOptions& o, const LpOptimumRunOptions& r) {
  nlohmann::json extra;
  const LpOptimum& s = run.solution;
  extra["lp_optimum"] = {{"minimise", r.minimise},
                         {"epsilon", o.epsilon},
                         {"delta_target", r.delta},
                         {"cost",
                          {{"kind", to_string(o.cost)},
                           {"budget", r.cost_budget},
                           {"value", s.cost},
                           {"tail_threshold", o.tail_threshold}}},
                         {"shapes", shapes_text(o)},
                         {"sensitivity_cells", o.shift_cells},
                         {"lp_objective", s.lp_objective},
                         {"exact_delta", s.delta},
                         {"margin", s.margin},
                         {"rounds", s.rounds},
                         {"active_shifts", s.active_shifts},
                         {"bisection_steps", run.bisection_steps},
                         {"seconds", s.seconds}};
  extra["certificate"] = certificate_json(run.certificate);
  write_noise_table(run.table, r.out, extra, r.force);
}

}  // namespace

LpOptimumRun run_lp_optimum(const LpOptimumRunOptions& r) {
  LpOptimumOptions o = lp_options_of(r);
  const bool least_epsilon = r.minimise == "epsilon";
  LpCertifier certifier{o.grid, {}, r.accountant};
  certifier.pair.sensitivity = static_cast<double>(o.shift_cells) * r.grid_step;

  LpOptimumRun run{
      NoiseTable(o.grid, std::vector<double>(static_cast<size_t>(o.grid.size), 1.0 / static_cast<double>(o.grid.size))),
      {},
      0.0,
      0,
      {}};
  if (least_epsilon) o.epsilon = least_epsilon_within_budget(o, r, certifier, run.bisection_steps);
  run.epsilon = o.epsilon;
  if (o.objective == LpObjective::kLeastCost)
    o.delta_judge = [&](const std::vector<double>& p) { return certifier.delta(p, o.epsilon); };
  run.solution = solve_for_written_table(o, r, least_epsilon);
  TableProvenance provenance{"lp-optimum",
                             {{"epsilon", o.epsilon}, {"sensitivity", certifier.pair.sensitivity}},
                             fmt::format("exact single-release LP optimum: least {} ({} cost, shapes: {})", r.minimise,
                                         to_string(o.cost), shapes_text(o))};
  run.table = NoiseTable(o.grid, run.solution.probabilities, std::nullopt, provenance);
  run.certificate = certificate_of_lp_table(run.table, o, r, certifier);
  if (!r.out.empty()) write_lp_table(run, o, r);
  return run;
}

std::string LpOptimumRun::report() const {
  const LpOptimum& s = solution;
  const DeltaAtEpsilon& d = certificate.deltas.front();
  return fmt::format(
             "LP optimum (GLPK, {} round(s), {} shift(s) in the final LP; {:.2f} s): LP value {:.10g}\n"
             "optimal table: exact delta(eps = {}) = {:.10g} over every difference both ways, cost {:.10g}{}\n"
             "certified delta(eps = {}) in [{}, {}] (lower, upper): the guarantee\n",
             s.rounds, s.active_shifts.size(), s.seconds, s.lp_objective, format_exact(epsilon), s.delta, s.cost,
             s.margin > 0.0 ? fmt::format(" (target tightened by {:g} relative)", s.margin) : "", format_exact(epsilon),
             format_general(d.delta_lower, 8, Rounding::kDown), format_general(d.delta_upper, 8, Rounding::kUp)) +
         certificate.report();
}

}  // namespace noiselearn
