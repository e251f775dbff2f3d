#include "accounting/hybrid_renyi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "core/log_math.hpp"

namespace noiselearn {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

HybridRenyiDirection hybrid_renyi_direction(const NoiseTable& table, int64_t shift_steps, double alpha, bool forward) {
  if (shift_steps < 0) throw InputError(fmt::format("HRDP shift {} must be >= 0 grid steps", shift_steps));
  if (!(alpha > 1.0) || !std::isfinite(alpha))
    throw InputError(fmt::format("HRDP order alpha {} must be finite and > 1", alpha));
  const int64_t n = table.size();
  std::vector<double> terms;
  terms.reserve(static_cast<size_t>(n));
  std::vector<double> degenerate;
  for (int64_t x = 0; x < n + shift_steps; ++x) {
    const double p = x < n ? table.p(x) : 0.0;  // table at x
    const double q =
        x - shift_steps >= 0 && x - shift_steps < n ? table.p(x - shift_steps) : 0.0;  // shifted table at x
    const double a = forward ? p : q, b = forward ? q : p;
    if (!(a > 0.0)) continue;
    if (!(b > 0.0)) {
      degenerate.push_back(a);
    } else {
      terms.push_back(alpha * std::log(a) + (1.0 - alpha) * std::log(b));
    }
  }
  HybridRenyiDirection out;
  out.log_partial_moment = terms.empty() ? -kInfinity : log_sum_exp(terms);
  out.degenerate_mass = compensated_sum(degenerate);
  return out;
}

double hybrid_renyi_epsilon_at(const NoiseTable& table, int64_t shift_steps, int64_t compositions, double delta,
                               double alpha, NeighbourRelation neighbours) {
  if (compositions < 1) throw InputError(fmt::format("HRDP compositions {} must be at least 1", compositions));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("HRDP delta {} must lie in (0, 1)", delta));
  const double t = static_cast<double>(compositions);
  const HybridRenyiDirection up = hybrid_renyi_direction(table, shift_steps, alpha, true);
  const HybridRenyiDirection down = hybrid_renyi_direction(table, shift_steps, alpha, false);
  const auto epsilon_of = [&](double log_moment, double degenerate) {
    const double slack = delta - t * degenerate;  // delta'
    if (!(slack > 0.0)) return kInfinity;
    return (t * log_moment - std::log(slack)) / (alpha - 1.0);
  };
  if (neighbours == NeighbourRelation::kSameDirection)
    return std::max(epsilon_of(up.log_partial_moment, up.degenerate_mass),
                    epsilon_of(down.log_partial_moment, down.degenerate_mass));
  return epsilon_of(std::max(up.log_partial_moment, down.log_partial_moment),
                    std::max(up.degenerate_mass, down.degenerate_mass));
}

HybridRenyiEpsilon hybrid_renyi_epsilon(const NoiseTable& table, int64_t shift_steps, int64_t compositions,
                                        double delta, const std::vector<double>& alphas, NeighbourRelation neighbours) {
  if (alphas.empty()) throw InputError("HRDP: at least one order alpha is needed");
  if (shift_steps < 0) throw InputError(fmt::format("HRDP shift {} must be >= 0 grid steps", shift_steps));
  if (compositions < 1) throw InputError(fmt::format("HRDP compositions {} must be at least 1", compositions));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("HRDP delta {} must lie in (0, 1)", delta));
  // The same sums as hybrid_renyi_direction, with the logarithms taken once for every alpha.
  const int64_t n = table.size();
  std::vector<double> log_a_up, log_b_up, log_a_down, log_b_down, degenerate_up, degenerate_down;
  for (int64_t x = 0; x < n + shift_steps; ++x) {
    const double p = x < n ? table.p(x) : 0.0;
    const double q = x - shift_steps >= 0 && x - shift_steps < n ? table.p(x - shift_steps) : 0.0;
    if (p > 0.0 && q > 0.0) {
      log_a_up.push_back(std::log(p)), log_b_up.push_back(std::log(q));
      log_a_down.push_back(std::log(q)), log_b_down.push_back(std::log(p));
    } else if (p > 0.0) {
      degenerate_up.push_back(p);
    } else if (q > 0.0) {
      degenerate_down.push_back(q);
    }
  }
  const double mass_up = compensated_sum(degenerate_up), mass_down = compensated_sum(degenerate_down);
  const double t = static_cast<double>(compositions);
  std::vector<double> terms(log_a_up.size());
  const auto log_moment = [&](const std::vector<double>& log_a, const std::vector<double>& log_b, double alpha) {
    if (log_a.empty()) return -kInfinity;
    for (size_t i = 0; i < log_a.size(); ++i) terms[i] = alpha * log_a[i] + (1.0 - alpha) * log_b[i];
    return log_sum_exp(terms);
  };
  const auto epsilon_of = [&](double moment, double degenerate, double alpha) {
    const double slack = delta - t * degenerate;
    return slack > 0.0 ? (t * moment - std::log(slack)) / (alpha - 1.0) : kInfinity;
  };
  HybridRenyiEpsilon best{kInfinity, alphas.front()};
  for (double alpha : alphas) {
    if (!(alpha > 1.0) || !std::isfinite(alpha))
      throw InputError(fmt::format("HRDP order alpha {} must be finite and > 1", alpha));
    const double up = log_moment(log_a_up, log_b_up, alpha), down = log_moment(log_a_down, log_b_down, alpha);
    const double e = neighbours == NeighbourRelation::kSameDirection
                         ? std::max(epsilon_of(up, mass_up, alpha), epsilon_of(down, mass_down, alpha))
                         : epsilon_of(std::max(up, down), std::max(mass_up, mass_down), alpha);
    if (e < best.epsilon) best = {e, alpha};
  }
  return best;
}

HybridRenyiEpsilon hybrid_renyi_epsilon(const std::vector<DominatingPair>& pairs, int64_t compositions, double delta,
                                        const std::vector<double>& alphas) {
  if (alphas.empty() || pairs.empty()) throw InputError("HRDP: at least one order alpha and one pair are needed");
  if (compositions < 1) throw InputError(fmt::format("HRDP compositions {} must be at least 1", compositions));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("HRDP delta {} must lie in (0, 1)", delta));
  struct Side {
    std::vector<double> log_a, log_b;
    double degenerate = 0.0;
  };
  std::vector<Side> sides;
  for (const DominatingPair& pair : pairs) {
    const std::vector<double> a = pair.all_a(), b = pair.all_b();
    Side forward, backward;
    std::vector<double> only_a, only_b;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] > 0.0 && b[i] > 0.0) {
        forward.log_a.push_back(std::log(a[i])), forward.log_b.push_back(std::log(b[i]));
        backward.log_a.push_back(std::log(b[i])), backward.log_b.push_back(std::log(a[i]));
      } else if (a[i] > 0.0) {
        only_a.push_back(a[i]);
      } else if (b[i] > 0.0) {
        only_b.push_back(b[i]);
      }
    }
    forward.degenerate = compensated_sum(only_a);
    backward.degenerate = compensated_sum(only_b);
    sides.push_back(std::move(forward));
    sides.push_back(std::move(backward));
  }
  double degenerate = 0.0;
  for (const Side& side : sides) degenerate = std::max(degenerate, side.degenerate);
  const double t = static_cast<double>(compositions), slack = delta - t * degenerate;
  HybridRenyiEpsilon best{kInfinity, alphas.front()};
  if (!(slack > 0.0)) return best;
  std::vector<double> terms;
  for (double alpha : alphas) {
    if (!(alpha > 1.0) || !std::isfinite(alpha))
      throw InputError(fmt::format("HRDP order alpha {} must be finite and > 1", alpha));
    double moment = -kInfinity;
    for (const Side& side : sides) {
      if (side.log_a.empty()) continue;
      terms.resize(side.log_a.size());
      for (size_t i = 0; i < terms.size(); ++i) terms[i] = alpha * side.log_a[i] + (1.0 - alpha) * side.log_b[i];
      moment = std::max(moment, log_sum_exp(terms));
    }
    const double e = (t * moment - std::log(slack)) / (alpha - 1.0);
    if (e < best.epsilon) best = {e, alpha};
  }
  return best;
}

std::vector<double> paper_integer_alphas() {
  std::vector<double> out;
  for (int a = 2; a <= 25; ++a) out.push_back(a);
  return out;
}

}  // namespace noiselearn
