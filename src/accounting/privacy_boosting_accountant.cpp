#include "accounting/privacy_boosting_accountant.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "accounting/continuous_mechanisms.hpp"
#include "accounting/profile_envelope.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"
#include "core/monotone_search.hpp"

namespace noiselearn {

void AnswerSensitivity::validate() const {
  if (!(sensitivity > 0.0 && std::isfinite(sensitivity)))
    throw InputError(fmt::format("sensitivity {}: must be positive and finite", sensitivity));
  if (!(query_step > 0.0 && std::isfinite(query_step)))
    throw InputError(fmt::format("query step {}: must be positive and finite", query_step));
  const double ratio = sensitivity / query_step;
  if (std::abs(ratio - std::round(ratio)) > 1e-9 * std::max(1.0, ratio) || std::round(ratio) < 1.0)
    throw InputError(fmt::format("sensitivity {} is not a whole number of query steps {} (ratio {})", sensitivity,
                                 query_step, ratio));
  if (std::round(ratio) > 100000)
    throw InputError(
        fmt::format("sensitivity {} is {} query steps {}: at most 100000", sensitivity, std::round(ratio), query_step));
}

int64_t AnswerSensitivity::steps() const { return static_cast<int64_t>(std::llround(sensitivity / query_step)); }

std::string BoostingPair::description() const {
  if (kernel_only)
    return fmt::format("kernel pair, difference {:g}, losses raised by {:.3g} (every answer beyond the scanned range)",
                       first_query - second_query, loss_slack);
  return fmt::format("answers {:g} vs {:g}", first_query, second_query);
}

namespace {

// Where the accountant cuts the kernel's tails: at the kernel's tail_mass rho quantile. The A-mass beyond the cut
// is then computed exactly with its weight (boosting_loss_atoms) and paid for as infinite loss.
double tail_cut(const PrivacyBoostingMechanism& mechanism, const AccountantOptions& options) {
  const double tail = std::clamp(options.tail_mass * mechanism.rho(), 1e-300, 1e-3);
  return mechanism.kernel().tail_cut(tail);
}

}  // namespace

std::vector<BoostingPair> boosting_candidate_pairs(const PrivacyBoostingMechanism& mechanism,
                                                   const AnswerSensitivity& answer_bound,
                                                   const AccountantOptions& options) {
  answer_bound.validate();
  const PreferredRegion& region = mechanism.region();
  const double h = answer_bound.query_step;
  const int64_t steps = answer_bound.steps();
  std::vector<BoostingPair> pairs;
  switch (region.kind) {
    case PreferredRegionKind::kInterval:
      // Translation invariance: (Q, Q - d) is (0, -d) moved; the mirror y -> -y maps (0, -d) to (0, d), and
      // swapping the answers of (0, d) gives (d, 0) = (0, -d) moved: one direction of (0, -d) covers all four.
      for (int64_t k = 1; k <= steps; ++k) pairs.push_back({0.0, -static_cast<double>(k) * h});
      break;
    case PreferredRegionKind::kFixed: {
      // Answers are clamped into [lower, upper]: the lattice points inside plus both edges.
      std::vector<double> answers{region.lower};
      for (double k = std::ceil(region.lower / h); k * h <= region.upper; k += 1.0)
        if (k * h > region.lower && k * h < region.upper) answers.push_back(k * h);
      answers.push_back(region.upper);
      if (answers.size() > 200000)
        throw InputError(fmt::format("fixed region [{}, {}] holds {} answers of step {}: too many", region.lower,
                                     region.upper, answers.size(), h));
      for (double first : answers)
        for (double second : answers) {
          // Any two lattice answers at most Delta apart clamp to a pair of these at most Delta apart, and the clamped
          // edge pairs (edge, lattice point) are included as well.
          const double d = std::abs(first - second);
          if (first != second && d <= answer_bound.sensitivity * (1.0 + 1e-12)) pairs.push_back({first, second});
        }
      break;
    }
    case PreferredRegionKind::kRelative: {
      const double c = tail_cut(mechanism, options), delta = answer_bound.sensitivity;
      // For |Q1| >= Qmax and |Q2| >= |Q1| - Delta, both regions contain Q1 -+ (c + ...): theta (|Q1| - Delta) + tau
      // >= c + Delta.
      const double q_max = delta + std::max(0.0, (c + delta - region.tau) / region.theta);
      const double k_max = std::ceil(q_max / h);
      if (k_max > 2'000'000)
        throw InputError(
            fmt::format("relative region: answers up to {:g} would have to be scanned (step {:g}); raise the "
                        "query step or theta",
                        q_max, h));
      for (double k = -k_max; k <= k_max; k += 1.0)
        for (int64_t j = 1; j <= steps; ++j) pairs.push_back({k * h, k * h - static_cast<double>(j) * h});
      // Beyond: the kernel pair at the full sensitivity, losses raised by the largest region constant.
      const double outside = std::exp(log_outside_mass(mechanism.kernel(), region, k_max * h - delta));
      BoostingPair beyond{0.0, -delta, true, -std::log1p(-outside * mechanism.q())};
      pairs.push_back(beyond);
      break;
    }
  }
  return pairs;
}

PrivacyLossAtoms boosting_loss_atoms(const PrivacyBoostingMechanism& mechanism, const BoostingPair& pair,
                                     BoundKind bound, const AccountantOptions& options) {
  const BoostingKernel& kernel = mechanism.kernel();
  const PreferredRegion& region = mechanism.region();
  const double q1 = pair.kernel_only ? pair.first_query : region.effective_query(pair.first_query);
  const double q2 = pair.kernel_only ? pair.second_query : region.effective_query(pair.second_query);
  const bool upper = bound == BoundKind::kUpper;
  const double c = tail_cut(mechanism, options);
  const double lo = q1 - c, hi = q1 + c;
  // Region edges and weights of both answers (kernel-only: one region, weight 1, covering everything).
  const double inf = std::numeric_limits<double>::infinity();
  const auto s1 = pair.kernel_only ? std::make_pair(-inf, inf) : region.at(q1);
  const auto s2 = pair.kernel_only ? std::make_pair(-inf, inf) : region.at(q2);
  const double w1_in = pair.kernel_only ? 0.0 : mechanism.log_weight_inside(q1);
  const double w1_out = pair.kernel_only ? 0.0 : mechanism.log_weight_outside(q1);
  const double w2_in = pair.kernel_only ? 0.0 : mechanism.log_weight_inside(q2);
  const double w2_out = pair.kernel_only ? 0.0 : mechanism.log_weight_outside(q2);
  std::vector<double> breaks{lo, hi, s1.first, s1.second, s2.first, s2.second};
  if (kernel.kind == BoostingKernelKind::kLaplace) {
    breaks.push_back(q1);
    breaks.push_back(q2);
  }
  std::vector<double> cuts;
  for (double b : breaks)
    if (b >= lo && b <= hi) cuts.push_back(b);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  PrivacyLossAtoms atoms;
  // The tails beyond q1 -+ c: infinite loss for the upper bound, dropped for the lower one. The weight of an
  // output there is at most the larger of the two weights.
  const double tail_weight = std::max(w1_in, w1_out);
  const double tails = std::exp(tail_weight + kernel.log_cdf(-c)) * 2.0;
  if (upper) atoms.infinity_mass += tails;
  // The kernel stand-in gives every output weight 1, where the answers it stands for have weight up to
  // 1 / (1 - pbar q) = e^slack inside: the A-mass it leaves out (at most e^slack - 1) is paid as infinite loss.
  if (upper && pair.kernel_only) atoms.infinity_mass += std::expm1(pair.loss_slack);
  const double slack = upper ? pair.loss_slack : 0.0;
  // Pieces of loss width one loss step: the upper bound's rounding to the piece's top costs at most one step of
  // loss per release (refine with a smaller loss step).
  const double width = options.loss_step;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const double y0 = cuts[i], y1 = cuts[i + 1];
    if (!(y1 > y0)) continue;
    const double middle = 0.5 * (y0 + y1);
    const bool in1 = middle >= s1.first && middle <= s1.second, in2 = middle >= s2.first && middle <= s2.second;
    const double log_weight_a = in1 ? w1_in : w1_out, log_weight_b = in2 ? w2_in : w2_out;
    if (log_weight_a == -inf) continue;  // A never outputs here
    if (log_weight_b == -inf) {          // B never outputs here: a distinguishing event
      atoms.infinity_mass += std::exp(log_weight_a + kernel.log_interval(y0 - q1, y1 - q1));
      continue;
    }
    const double constant = log_weight_a - log_weight_b;
    const double l0 = kernel.loss(y0, q1, q2), l1 = kernel.loss(y1, q1, q2);
    const double pieces_real = std::ceil(std::abs(l1 - l0) / width);
    if (pieces_real > 5e7)
      throw InputError(fmt::format("privacy boosting: one segment of {} spans {:.3g} loss steps; raise the loss step",
                                   pair.description(), pieces_real));
    const int64_t pieces = std::max<int64_t>(1, static_cast<int64_t>(pieces_real));
    const double dy = (y1 - y0) / static_cast<double>(pieces);
    // Each piece's kernel mass directly (log_interval is accurate for narrow pieces and deep tails alike; a
    // difference of CDF values would lose digits to cancellation near the centre).
    double left = y0, loss_left = l0;
    for (int64_t k = 0; k < pieces; ++k) {
      const double right = k + 1 == pieces ? y1 : y0 + static_cast<double>(k + 1) * dy;
      const double loss_right = kernel.loss(right, q1, q2);
      const double log_piece = kernel.log_interval(left - q1, right - q1);
      const double mass = std::exp(log_weight_a + log_piece);
      if (mass > 0.0) {
        atoms.losses.push_back(constant +
                               (upper ? std::max(loss_left, loss_right) + slack : std::min(loss_left, loss_right)));
        atoms.masses.push_back(mass);
      }
      left = right;
      loss_left = loss_right;
    }
  }
  return atoms;
}

PrivacyBoostingBounds privacy_boosting_bounds(const PrivacyBoostingMechanism& mechanism,
                                              const AnswerSensitivity& answer_bound, const AccountantOptions& options) {
  options.validate();
  const std::vector<BoostingPair> candidates = boosting_candidate_pairs(mechanism, answer_bound, options);
  {
    // Refuse work that would not finish: the pieces of every pair (kernel loss range over the cut / loss step).
    const double c = tail_cut(mechanism, options);
    double pieces = 0.0;
    for (const BoostingPair& p : candidates) {
      const double q1 = p.first_query, q2 = p.second_query;
      pieces += 2.0 * std::abs(mechanism.kernel().loss(q1 - c, q1, q2) - mechanism.kernel().loss(q1 + c, q1, q2)) /
                options.loss_step;
    }
    if (pieces > 4e8)
      throw InputError(
          fmt::format("privacy boosting: {} answer pairs would need {:.3g} loss pieces (at most 4e8); raise the loss "
                      "step, or the query step",
                      candidates.size(), pieces));
  }
  // Both directions of every candidate: A||B of (Q1, Q2) and of (Q2, Q1).
  std::vector<PrivacyLossDistribution> uppers;
  std::vector<size_t> owner;
  double omega = 0.0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    BoostingPair reversed = candidates[i];
    std::swap(reversed.first_query, reversed.second_query);
    for (const BoostingPair& p : {candidates[i], reversed}) {
      uppers.push_back(
          discretise(boosting_loss_atoms(mechanism, p, BoundKind::kUpper, options), BoundKind::kUpper, options));
      owner.push_back(i);
      if (!p.kernel_only && mechanism.q() >= 1.0) {
        // Distinguishing events only (not the truncated tails): the lower bound's atoms keep them exactly.
        omega = std::max(omega, boosting_loss_atoms(mechanism, p, BoundKind::kLower, options).infinity_mass);
      }
    }
  }
  PrivacyBoostingBounds result;
  std::vector<int64_t> attained(candidates.size(), 0);
  PairBounds& bounds = result.bounds;
  if (uppers.size() == 1) {
    bounds.upper.first_to_second = uppers.front();
    attained[0] = 1;
  } else {
    EnvelopeResult env = profile_envelope(uppers, options);
    bounds.upper.first_to_second = std::move(env.envelope);
    for (size_t k = 0; k < uppers.size(); ++k) attained[owner[k]] += env.points_attained[k];
  }
  for (size_t i = 0; i < candidates.size(); ++i) result.pairs.push_back({candidates[i], attained[i]});
  // Lower bound: scenarios that can happen, each one real pair (not the kernel stand-in) used in every release:
  // the pair that attains the envelope at the most grid points, and the pair with the largest single-release
  // epsilon at each of delta = 1e-3, 1e-5, 1e-7, 1e-9 (where the envelope's maximiser differs with delta, as for
  // relative regions). At most five scenarios; the worst of them is the lower bound.
  std::vector<size_t> chosen;
  auto choose = [&](size_t i) {
    if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
  };
  {
    size_t most = candidates.size();
    for (size_t i = 0; i < candidates.size(); ++i)
      if (!candidates[i].kernel_only && (most == candidates.size() || attained[i] > attained[most])) most = i;
    if (most < candidates.size()) choose(most);
    for (double reference : {1e-3, 1e-5, 1e-7, 1e-9}) {
      size_t arg = candidates.size();
      double largest = -std::numeric_limits<double>::infinity();
      for (size_t k = 0; k < uppers.size(); ++k) {
        if (candidates[owner[k]].kernel_only) continue;
        const double e = uppers[k].epsilon_for_delta(reference);
        if (e > largest) {
          largest = e;
          arg = owner[k];
        }
      }
      if (arg < candidates.size()) {
        choose(arg);
        result.worst_pair_at_delta.emplace_back(reference, candidates[arg]);
      }
    }
  }
  if (chosen.empty()) chosen.push_back(0);
  result.worst_pair = candidates[chosen.front()];
  for (size_t i : chosen) result.lower_bound_pairs.push_back(candidates[i]);
  for (size_t i : chosen) {
    BoostingPair forward = candidates[i], reversed = candidates[i];
    std::swap(reversed.first_query, reversed.second_query);
    DirectionalPLDs low;
    low.name = fmt::format("PB mechanism, {}", forward.description());
    low.first_to_second =
        discretise(boosting_loss_atoms(mechanism, forward, BoundKind::kLower, options), BoundKind::kLower, options);
    low.second_to_first =
        discretise(boosting_loss_atoms(mechanism, reversed, BoundKind::kLower, options), BoundKind::kLower, options);
    bounds.lower.push_back(std::move(low));
  }
  bounds.upper.name = candidates.size() == 1
                          ? fmt::format("PB mechanism, {}", candidates.front().description())
                          : fmt::format("envelope of {} answer pairs, both directions", candidates.size());
  bounds.accounted.pair = fmt::format("privacy boosting, {} kernel scale {:g}, {} region, rho {:g}, q {:.6g}",
                                      to_string(mechanism.kernel().kind), mechanism.kernel().scale,
                                      to_string(mechanism.region().kind), mechanism.rho(), mechanism.q());
  bounds.accounted.pairs_checked =
      fmt::format("answers on the lattice {:g} Z, neighbours differ by at most {:g}: {} answer pairs searched",
                  answer_bound.query_step, answer_bound.sensitivity, candidates.size());
  bounds.accounted.neighbours = Neighbours{};
  bounds.context.options = options;
  bounds.single_release_infinity_mass.first = omega;
  bounds.single_release_infinity_mass.second = omega;
  bounds.composed_infinity_mass.first = omega;
  bounds.composed_infinity_mass.second = omega;
  return result;
}

double boosting_pair_delta_by_integration(const PrivacyBoostingMechanism& mechanism, const BoostingPair& pair,
                                          double epsilon, int64_t points) {
  const PreferredRegion& region = mechanism.region();
  const double q1 = region.effective_query(pair.first_query), q2 = region.effective_query(pair.second_query);
  const double sd = mechanism.kernel().standard_deviation();
  const double lo = std::min(q1, q2) - 60.0 * sd, hi = std::max(q1, q2) + 60.0 * sd;
  const auto s1 = region.at(q1), s2 = region.at(q2);
  std::vector<double> cuts{lo, hi, q1, q2, s1.first, s1.second, s2.first, s2.second};
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  // The integrand (f_A - e^eps f_B)_+ has a kink where it crosses 0: Simpson is then only O(h^2) on that
  // interval, which the fine grid absorbs.
  auto integrand = [&](double y) {
    const double a = std::exp(mechanism.log_density(y, q1));
    const double b = std::exp(mechanism.log_density(y, q2) + epsilon);
    return std::max(0.0, a - b);
  };
  double total = 0.0;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const double a = cuts[i], b = cuts[i + 1];
    if (!(a >= lo && b <= hi && b > a)) continue;
    const int64_t n = points % 2 == 0 ? points : points + 1;
    const double step = (b - a) / static_cast<double>(n);
    // Open ends (just inside each breakpoint): the densities jump at region edges.
    const double nudge = 1e-12 * std::max(1.0, std::abs(a) + std::abs(b));
    double sum = integrand(a + nudge) + integrand(b - nudge);
    for (int64_t k = 1; k < n; ++k) sum += (k % 2 ? 4.0 : 2.0) * integrand(a + static_cast<double>(k) * step);
    total += sum * step / 3.0;
  }
  return total;
}

namespace {

// Privacy profile of the kernel mechanism itself at sensitivity d (both are mirror symmetric).
double kernel_profile(const BoostingKernel& kernel, double d, double epsilon) {
  if (kernel.kind == BoostingKernelKind::kGaussian) return gaussian_mechanism_delta(kernel.scale, d, 1, epsilon);
  const double a = d / kernel.scale;
  if (epsilon >= a) return 0.0;
  if (epsilon <= -a) return -std::expm1(epsilon);
  return -std::expm1(0.5 * (epsilon - a));
}

}  // namespace

double paper_heuristic_delta(const PrivacyBoostingMechanism& mechanism, double first_query, double second_query,
                             double epsilon) {
  const BoostingKernel& kernel = mechanism.kernel();
  const PreferredRegion& region = mechanism.region();
  const double q = mechanism.q(), d = std::abs(first_query - second_query);
  if (q >= 1.0) return 1.0;  // L2 infinite
  const double l2 = -std::log1p(-q);
  double l1 = 0.0, w1 = 0.0, w2 = 0.0;
  if (region.kind == PreferredRegionKind::kInterval) {
    // Remark 4 / Proposition 6 as printed: L1 = 0, W1 = W2 = F(-tau + Delta) - F(-tau).
    w1 = w2 = std::exp(kernel.log_interval(-region.tau, -region.tau + d));
  } else {
    // Eq. (4) and (6): L1 = ln((1 - pbar(Q2) q) / (1 - pbar(Q1) q)); W1, W2 the kernel mass (centred at Q1)
    // between the two upper edges and between the two lower edges.
    const double e1 = region.effective_query(first_query), e2 = region.effective_query(second_query);
    l1 = mechanism.log_weight_inside(e1) - mechanism.log_weight_inside(e2);
    const auto s1 = region.at(e1), s2 = region.at(e2);
    w1 = std::exp(kernel.log_interval(std::min(s1.second, s2.second) - e1, std::max(s1.second, s2.second) - e1));
    w2 = std::exp(kernel.log_interval(std::min(s1.first, s2.first) - e1, std::max(s1.first, s2.first) - e1));
  }
  auto shifted = [&](double eps) { return kernel_profile(kernel, d, eps - l1); };
  return w1 * shifted(epsilon - l2) + w2 * shifted(epsilon + l2) + (1.0 - w1 - w2) * shifted(epsilon);
}

std::pair<double, double> paper_heuristic_pair(const PrivacyBoostingMechanism& mechanism, double sensitivity) {
  const PreferredRegion& region = mechanism.region();
  if (region.kind == PreferredRegionKind::kFixed) return {region.lower, region.lower + sensitivity};
  return {0.0, sensitivity};
}

double paper_heuristic_epsilon(const PrivacyBoostingMechanism& mechanism, double sensitivity, double delta) {
  // Named, not structured bindings: a lambda below uses them (C++17 lets it capture variables only).
  const auto pair = paper_heuristic_pair(mechanism, sensitivity);
  const double a = pair.first, b = pair.second;
  double lo = 0.0, hi = 1.0;
  if (paper_heuristic_delta(mechanism, a, b, 0.0) <= delta) return 0.0;
  while (paper_heuristic_delta(mechanism, a, b, hi) > delta) {
    hi *= 2.0;
    if (hi > 1e6) return std::numeric_limits<double>::infinity();
  }
  return bisect(
             {lo, hi}, [&](double mid) { return paper_heuristic_delta(mechanism, a, b, mid) > delta; },
             [](double low, double high) { return high - low > 1e-12 * high; }, 200)
      .high;
}

}  // namespace noiselearn
