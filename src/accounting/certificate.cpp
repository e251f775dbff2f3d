#include "accounting/certificate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "accounting/refinement.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"

namespace noiselearn {

void CertificateRequest::validate() const {
  if (compositions < 1) throw InputError(fmt::format("compositions {} must be at least 1", compositions));
  if (compositions > kMaxCompositions)
    throw InputError(
        fmt::format("compositions {} exceed the accountant's limit of {}", compositions, kMaxCompositions));
  for (double eps : epsilons)
    if (!std::isfinite(eps) || eps < 0.0) throw InputError(fmt::format("epsilon {} must be finite and >= 0", eps));
  for (double delta : deltas)
    if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta {} must be in (0, 1)", delta));
  if (curve_points < 0 || curve_points == 1 || curve_points > kMaxCurvePoints)
    throw InputError(fmt::format("curve points {} must be 0 or in [2, {}]", curve_points, kMaxCurvePoints));
  if (!(curve_epsilon_max >= 0.0) || !std::isfinite(curve_epsilon_max))
    throw InputError(fmt::format("curve epsilon max {} must be finite and >= 0", curve_epsilon_max));
}

namespace {

// The directions of the upper bound, named for the report.
std::vector<std::pair<std::string, const PrivacyLossDistribution*>> upper_directions_of(const DirectionalPLDs& upper) {
  if (!upper.second_to_first) return {{"A||B = B||A", &upper.first_to_second}};
  return {{"A||B", &upper.first_to_second}, {"B||A", &*upper.second_to_first}};
}

std::vector<std::pair<std::string, const PrivacyLossDistribution*>> upper_directions(const PairBounds& bounds) {
  return upper_directions_of(bounds.upper);
}

double automatic_curve_end(const PairBounds& bounds) {
  const double at_tiny_delta = bounds.epsilon_upper(1e-12);
  if (std::isfinite(at_tiny_delta) && at_tiny_delta > 0.0) return at_tiny_delta;
  double largest_loss = 0.0;
  for (const auto& [name, pld] : upper_directions(bounds))
    if (!pld->masses.empty()) largest_loss = std::max(largest_loss, pld->loss(pld->masses.size() - 1));
  return largest_loss > 0.0 ? largest_loss : 1.0;
}

// Printed bounds are rounded in their direction (core/directed_format.hpp): an upper bound up, a lower bound down,
// so the printed bracket contains everything the computed one does. The user's own values are echoed exactly.
std::string epsilon_text(double eps, Rounding direction) { return format_fixed(eps, 6, direction); }
std::string delta_text(double delta, Rounding direction) { return format_scientific(delta, 7, direction); }

// Names of the computations a bound can come from.
constexpr const char* kAdaptiveProgramme = "exact adaptive programme";
std::string upper_method_name(const PairBounds& bounds, bool adaptive_wins) {
  if (adaptive_wins) return kAdaptiveProgramme;
  if (!bounds.candidates.adaptive.empty() || bounds.upper.name.rfind("envelope", 0) == 0) return "profile envelope";
  return "dominating pair";
}
constexpr const char* kBucketedTest = "threshold test on bucket labels";

std::string lower_method_name(bool adaptive_wins, bool two_outcome_wins) {
  return two_outcome_wins ? "two outcomes per release (binomial)"
         : adaptive_wins  ? kAdaptiveProgramme
                          : "fixed sequences";
}

}  // namespace

AccountingQueries queries_of(const CertificateRequest& request) {
  return AccountingQueries{request.epsilons, request.deltas};
}

Certificate certify_family(const PairFamily& family, const CertificateRequest& request,
                           const AccountantOptions& options) {
  // The options the accountant used: the default may have chosen a finer loss step for the queries.
  const PairBounds bounds = account(family, request.compositions, options, queries_of(request));
  return make_certificate(bounds, request, bounds.context.options);
}

namespace {

// The bounds asked for the request's queries: the exact adaptive programme where a query's bracket is wide (several
// pairs auto: bounds composed without these queries may have kept the envelope), and a composition tilted for each
// query whose bracket the floating-point allowance or the truncations dominate.
PairBounds refined_for_request(const PairBounds& composed, const CertificateRequest& request) {
  // A closed form answers every query to its rounding: nothing to refine.
  if (composed.alternatives.closed_form && composed.alternatives.closed_form->exact) return composed;
  PairBounds bounds = adapted_to_queries(composed, queries_of(request));
  // A tilt that removes the allowance can leave the truncations' mass dominating (10^7 releases at tail mass 1e-15
  // hold delta at 1e-8): a second round composes again with a smaller tail mass.
  for (double eps : request.epsilons)
    for (int round = 0; round < 2; ++round) {
      const size_t before = bounds.alternatives.tilted.size();
      if (bounds.truncation_dominates(eps)) {
        const double tail =
            bounds.tail_mass_for_delta(std::max(bounds.delta_lower(eps), 1e-3 * bounds.delta_upper(eps)));
        bounds = refined_for_epsilon(std::move(bounds), eps, tail);
      } else if (bounds.allowance_dominates(eps)) {
        bounds = refined_for_epsilon(std::move(bounds), eps);
      }
      if (bounds.alternatives.tilted.size() == before) break;
    }
  for (double delta : request.deltas) bounds = refined_for_delta(std::move(bounds), delta);
  return bounds;
}

DiscretisationSummary discretisation_summary(const PairBounds& bounds, const AccountantOptions& used) {
  DiscretisationSummary d;
  for (const auto& [name, pld] : upper_directions(bounds)) {
    d.final_loss_step = std::max(d.final_loss_step, pld->loss_step);
    d.grid_points = std::max<int64_t>(d.grid_points, static_cast<int64_t>(pld->masses.size()));
    d.truncated_mass_upper = std::max(d.truncated_mass_upper, pld->truncated_mass);
    d.allowance.numerical_upper = std::max(d.allowance.numerical_upper, pld->numerical_error);
    d.allowance.relative_upper = std::max(d.allowance.relative_upper, pld->relative_error);
  }
  for (const auto& scenario : bounds.lower) {
    d.allowance.numerical_lower = std::max({d.allowance.numerical_lower, scenario.first_to_second.numerical_error,
                                            scenario.direction(true).numerical_error});
    d.allowance.relative_lower = std::max(
        {d.allowance.relative_lower, scenario.first_to_second.relative_error, scenario.direction(true).relative_error});
  }
  d.loss_step = used.loss_step;
  d.loss_step_wanted = bounds.context.loss_step_wanted;
  d.upper_method = to_string(used.upper_method);
  d.lower_method = to_string(used.lower_method);
  d.tail_mass = used.tail_mass;
  for (const auto& t : bounds.alternatives.tilted) {
    d.tilted.for_epsilons.push_back(t.target_epsilon);
    if (t.tail_mass > 0.0 && t.tail_mass < bounds.context.options.tail_mass &&
        (d.tilted.tail_mass == 0.0 || t.tail_mass < d.tilted.tail_mass))
      d.tilted.tail_mass = t.tail_mass;
  }
  return d;
}

DeltaAtEpsilon delta_at_epsilon(const PairBounds& bounds, double eps) {
  DeltaAtEpsilon entry;
  entry.epsilon = eps;
  entry.delta_upper = bounds.delta_upper(eps);
  entry.delta_lower = bounds.delta_lower(eps);
  for (const auto& [name, pld] : upper_directions(bounds))
    entry.delta_upper_by_direction[name] = pld->delta_for_epsilon(eps);
  for (const auto& t : bounds.alternatives.tilted)
    for (const auto& [name, pld] : upper_directions_of(t.upper))
      entry.delta_upper_by_direction[name] =
          std::min(entry.delta_upper_by_direction[name], pld->delta_for_epsilon(eps));
  // A symmetric copy accounted in the table's place: each direction pays its allowance too.
  for (auto& [name, value] : entry.delta_upper_by_direction)
    value = bounds.substitution_tv == 0.0 ? value : std::min(1.0, value + bounds.substitution_allowance(eps));
  entry.dominating_direction = bounds.dominating_direction_at_epsilon(eps);
  entry.upper_method = upper_method_name(bounds, bounds.adaptive_upper_wins_at_epsilon(eps));
  entry.lower_method =
      lower_method_name(bounds.adaptive_lower_wins_at_epsilon(eps), bounds.two_outcome_lower_wins_at_epsilon(eps));
  if (!bounds.alternatives.adaptive.empty() || bounds.alternatives.closed_form) {
    // The by-direction values are the envelope's; the programme's bound or the closed form, where it wins, covers
    // them all.
    for (auto& [name, value] : entry.delta_upper_by_direction) value = std::min(value, entry.delta_upper);
  }
  if (entry.delta_lower > 0.0 && bounds.bucketed_delta_lower(eps) >= entry.delta_lower)
    entry.lower_method = kBucketedTest;
  if (const auto& closed = bounds.alternatives.closed_form) {
    if (closed->delta_upper(eps) <= entry.delta_upper) entry.upper_method = closed->method;
    if (closed->exact && closed->delta_lower(eps) >= entry.delta_lower) entry.lower_method = closed->method;
  }
  return entry;
}

EpsilonAtDelta epsilon_at_delta(const PairBounds& bounds, double delta) {
  EpsilonAtDelta entry;
  entry.delta = delta;
  entry.epsilon_upper = bounds.epsilon_upper(delta);
  entry.epsilon_lower = bounds.epsilon_lower(delta);
  // With a symmetric copy accounted in the table's place, each direction pays the allowance too.
  const auto by_direction = [&](const PrivacyLossDistribution& pld) {
    return bounds.epsilon_paying_allowance([&](double d) { return std::max(0.0, pld.epsilon_for_delta(d)); }, delta);
  };
  for (const auto& [name, pld] : upper_directions(bounds)) entry.epsilon_upper_by_direction[name] = by_direction(*pld);
  for (const auto& t : bounds.alternatives.tilted)
    for (const auto& [name, pld] : upper_directions_of(t.upper))
      entry.epsilon_upper_by_direction[name] = std::min(entry.epsilon_upper_by_direction[name], by_direction(*pld));
  entry.dominating_direction = bounds.dominating_direction_at_delta(delta);
  entry.upper_method = upper_method_name(bounds, bounds.adaptive_upper_wins_at_delta(delta));
  entry.lower_method =
      lower_method_name(bounds.adaptive_lower_wins_at_delta(delta), bounds.two_outcome_lower_wins_at_delta(delta));
  if (!bounds.alternatives.adaptive.empty() || bounds.alternatives.closed_form)
    for (auto& [name, value] : entry.epsilon_upper_by_direction) value = std::min(value, entry.epsilon_upper);
  // (Its inversion, started elsewhere, may end a few roundings below the one the bound took.)
  if (entry.epsilon_lower > 0.0 && bounds.bucketed_epsilon_lower(delta) >= entry.epsilon_lower * (1.0 - 1e-9))
    entry.lower_method = kBucketedTest;
  if (const auto& closed = bounds.alternatives.closed_form) {
    if (closed->epsilon_upper(delta) <= entry.epsilon_upper) entry.upper_method = closed->method;
    if (closed->exact && closed->epsilon_lower(delta) >= entry.epsilon_lower) entry.lower_method = closed->method;
  }
  return entry;
}

// Both bounds are rigorous, so lower <= upper holds exactly; anything else is a defect, and nothing is printed.
void require_consistent(const Certificate& certificate) {
  for (const auto& d : certificate.deltas)
    if (!(d.delta_lower <= d.delta_upper))
      throw std::logic_error(
          fmt::format("accountant inconsistency at epsilon = {}: lower bound {} above upper bound {}", d.epsilon,
                      d.delta_lower, d.delta_upper));
  for (const auto& e : certificate.epsilons)
    if (!(e.epsilon_lower <= e.epsilon_upper))
      throw std::logic_error(fmt::format("accountant inconsistency at delta = {}: lower bound {} above upper bound {}",
                                         e.delta, e.epsilon_lower, e.epsilon_upper));
}

// The delta(eps) curve on [0, end]: the maximum over directions and scenarios of each curve, evaluated in one pass per
// PLD. Each alternative (the untilted composition and the tilted ones) is rigorous: the curve takes the smallest upper
// and the largest lower value among them.
std::vector<CurvePoint> certificate_curve(const PairBounds& bounds, int64_t points, double end) {
  std::vector<double> grid(static_cast<size_t>(points));
  for (size_t i = 0; i < grid.size(); ++i)
    grid[i] = end * static_cast<double>(i) / static_cast<double>(grid.size() - 1);
  std::vector<double> upper(grid.size(), 0.0), lower(grid.size(), 0.0);
  auto upper_of = [&](const DirectionalPLDs& d) {
    std::vector<double> values(grid.size(), 0.0);
    for (bool reverse : {false, true}) {
      if (reverse && !d.second_to_first) continue;
      const auto v = d.direction(reverse).delta_for_epsilons(grid);
      for (size_t i = 0; i < grid.size(); ++i) values[i] = std::max(values[i], v[i]);
    }
    return values;
  };
  upper = upper_of(bounds.upper);
  for (const auto& t : bounds.alternatives.tilted) {
    const auto values = upper_of(t.upper);
    for (size_t i = 0; i < grid.size(); ++i) upper[i] = std::min(upper[i], values[i]);
  }
  auto raise_lower = [&](const std::vector<DirectionalPLDs>& scenarios) {
    for (const auto& scenario : scenarios) {
      const auto values = upper_of(scenario);
      for (size_t i = 0; i < grid.size(); ++i) lower[i] = std::max(lower[i], values[i]);
    }
  };
  raise_lower(bounds.lower);
  for (const auto& t : bounds.alternatives.tilted) raise_lower(t.lower);
  // The adaptive programme, per direction of the upper bound (the worse direction after each takes its best).
  if (!bounds.alternatives.adaptive.empty()) {
    for (size_t i = 0; i < grid.size(); ++i) {
      upper[i] = bounds.delta_upper(grid[i]);
      for (const auto& a : bounds.alternatives.adaptive) lower[i] = std::max(lower[i], a.delta_lower(grid[i]));
    }
  }
  if (bounds.substitution_tv > 0.0)
    for (size_t i = 0; i < grid.size(); ++i) {
      upper[i] = std::min(1.0, upper[i] + bounds.substitution_allowance(grid[i]));
      lower[i] = std::max(0.0, lower[i] - bounds.substitution_allowance(grid[i]));
    }
  std::vector<CurvePoint> curve;
  for (size_t i = 0; i < grid.size(); ++i) curve.push_back({grid[i], upper[i], lower[i]});
  return curve;
}

// The request's queries, answered.
void answer_queries(const PairBounds& bounds, const CertificateRequest& request, Certificate& certificate) {
  certificate.deltas.clear();
  certificate.epsilons.clear();
  for (double eps : request.epsilons) certificate.deltas.push_back(delta_at_epsilon(bounds, eps));
  for (double delta : request.deltas) certificate.epsilons.push_back(epsilon_at_delta(bounds, delta));
}

}  // namespace

Certificate make_certificate(const PairBounds& composed, const CertificateRequest& request,
                             const AccountantOptions& options) {
  request.validate();
  PairBounds bounds = refined_for_request(composed, request);
  // Composed per query (composed_per_query: a finer loss step, one FFT power) where the caller did not ask for it: the
  // certificate reports the options that were used.
  const AccountantOptions used =
      bounds.context.options.fft_power && !options.fft_power ? bounds.context.options : options;
  Certificate certificate;
  certificate.compositions = bounds.compositions;
  certificate.accounted = bounds.accounted;
  certificate.several_pairs = bounds.alternatives.several_pairs_note;
  certificate.accountant = used;
  certificate.substitution_tv = bounds.substitution_tv;
  if (bounds.alternatives.closed_form && bounds.alternatives.closed_form->exact)
    certificate.closed_form = bounds.alternatives.closed_form->method;
  certificate.infinity_mass.single_release =
      std::max(bounds.single_release_infinity_mass.first, bounds.single_release_infinity_mass.second);
  // Distinguishing events only (the composed PLD's infinity mass also holds truncated tails, which are not):
  // 1 - prod (1 - omega_i)^{n_i} of the worse direction.
  certificate.infinity_mass.composed =
      std::max(bounds.composed_infinity_mass.first, bounds.composed_infinity_mass.second);
  certificate.discretisation = discretisation_summary(bounds, used);
  answer_queries(bounds, request, certificate);
  // Where a bracket stays wider than the tolerance, the bucketed lower bound (refinement.hpp), and the queries again.
  AccountingQueries wide;
  const double width = bounds.context.options.adaptive_skip_width;
  for (const auto& d : certificate.deltas)
    if (!(d.delta_upper - d.delta_lower <= width * d.delta_upper)) wide.epsilons.push_back(d.epsilon);
  for (const auto& e : certificate.epsilons)
    if (!(e.epsilon_upper - e.epsilon_lower <= width * e.epsilon_upper)) wide.deltas.push_back(e.delta);
  if (!wide.empty() && bounds.context.single_release && !bounds.context.single_release->alternatives.bucketed.empty()) {
    bounds = with_bucketed_tests(std::move(bounds), wide, true);
    answer_queries(bounds, request, certificate);
  }
  require_consistent(certificate);
  certificate.dominating_direction = !certificate.epsilons.empty() ? certificate.epsilons.front().dominating_direction
                                     : !certificate.deltas.empty() ? certificate.deltas.front().dominating_direction
                                                                   : bounds.dominating_direction_at_delta(1e-6);
  if (request.curve_points >= 2) {
    const double end = request.curve_epsilon_max > 0.0 ? request.curve_epsilon_max : automatic_curve_end(bounds);
    certificate.curve = certificate_curve(bounds, request.curve_points, end);
  }
  return certificate;
}

std::string Certificate::bound_methods(const std::string& upper, const std::string& lower) const {
  return several_pairs.empty() ? std::string() : fmt::format("; upper by {}, lower by {}", upper, lower);
}

std::string Certificate::no_epsilon_reason(double delta) const {
  if (infinity_mass.composed >= delta)
    return fmt::format(
        "no epsilon certifies delta = {}: the distinguishing events (outputs one input cannot produce) alone "
        "have probability {} after {} composition{}",
        format_exact(delta), format_general(infinity_mass.composed, 3, Rounding::kDown), compositions,
        compositions == 1 ? "" : "s");
  return fmt::format(
      "no epsilon certifies delta = {}: the upper bound's allowances (tail mass {:g} per truncation, "
      "floating-point error) exceed it; a smaller tail mass or loss step may certify it",
      format_exact(delta), discretisation.tail_mass);
}

std::string Certificate::report() const {
  std::string out;
  out +=
      fmt::format("certificate: {} composition{} of {}\n", compositions, compositions == 1 ? "" : "s", accounted.pair);
  const Neighbours& neighbours = accounted.neighbours;
  if (neighbours.records)
    out += fmt::format("  neighbours covered: {}\n", describe(neighbours));
  else
    out += fmt::format("  neighbours covered: {} ({})\n", describe(neighbours), to_string(neighbours.sequences));
  out += fmt::format("  pairs checked: {}\n", accounted.pairs_checked);
  // The distinguishing-event masses are floors of delta: printed rounded down, like lower bounds.
  out += fmt::format("  infinity mass (distinguishing events): {} per release, {} after {} composition{}\n",
                     format_general(infinity_mass.single_release, 6, Rounding::kDown),
                     format_general(infinity_mass.composed, 6, Rounding::kDown), compositions,
                     compositions == 1 ? "" : "s");
  if (!several_pairs.empty()) out += fmt::format("  several candidate pairs per release: {}\n", several_pairs);
  if (substitution_tv > 0.0)
    out += fmt::format(
        "  symmetric copy accounted (the table is symmetric only up to rounding): total variation at most {} over the "
        "{} composition{}, (1 + e^eps) times it added to every upper delta and subtracted from every lower\n",
        format_general(substitution_tv, 3, Rounding::kUp), compositions, compositions == 1 ? "" : "s");
  for (const auto& e : epsilons) {
    out +=
        fmt::format("  delta = {:<9} epsilon in [{}, {}]   (lower, upper; dominated by {}{})\n", format_exact(e.delta),
                    epsilon_text(e.epsilon_lower, Rounding::kDown), epsilon_text(e.epsilon_upper, Rounding::kUp),
                    e.dominating_direction, bound_methods(e.upper_method, e.lower_method));
    if (!std::isfinite(e.epsilon_upper)) out += "    " + no_epsilon_reason(e.delta) + "\n";
  }
  for (const auto& d : deltas) {
    out += fmt::format("  epsilon = {:<7} delta in [{}, {}]   (lower, upper; dominated by {}{})\n",
                       format_exact(d.epsilon), delta_text(d.delta_lower, Rounding::kDown),
                       delta_text(d.delta_upper, Rounding::kUp), d.dominating_direction,
                       bound_methods(d.upper_method, d.lower_method));
  }
  const auto& d = discretisation;
  if (!closed_form.empty())
    out += fmt::format("  {}: delta(eps) exact up to rounding, every bracket the rounding error's\n", closed_form);
  if (!closed_form.empty() && d.grid_points == 0) return out;  // no PLD was made: the closed form alone
  out += fmt::format(
      "  discretisation: loss step {:g} (final {:g}, {} points), upper {}, lower {}, tail mass {:g} per "
      "truncation ({} moved to infinity), floating-point allowance {} + {} relative (upper) / {} + "
      "{} relative (lower)\n",
      d.loss_step, d.final_loss_step, d.grid_points, d.upper_method, d.lower_method, d.tail_mass,
      format_general(d.truncated_mass_upper, 3, Rounding::kUp),
      format_general(d.allowance.numerical_upper, 3, Rounding::kUp),
      format_general(d.allowance.relative_upper, 2, Rounding::kUp),
      format_general(d.allowance.numerical_lower, 3, Rounding::kUp),
      format_general(d.allowance.relative_lower, 2, Rounding::kUp));
  if (d.loss_step_wanted > 0.0)
    out += fmt::format(
        "  the loss step was limited by max_points ({}): one release's loss spread asks for {:g} (a larger "
        "--max-points, at 24 bytes a point, narrows the bracket)\n",
        accountant.max_points, d.loss_step_wanted);
  if (!d.tilted.for_epsilons.empty())
    out +=
        fmt::format("  exponentially tilted compositions (tighter allowance in the tail) for epsilon near {:.4g}{}\n",
                    fmt::join(d.tilted.for_epsilons, ", "),
                    d.tilted.tail_mass > 0.0
                        ? fmt::format(", down to tail mass {:g} per truncation (the release discretised again with it)",
                                      d.tilted.tail_mass)
                        : "");
  return out;
}

}  // namespace noiselearn
