#include "solvers/one_sided_composition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "accounting/composition_theorems.hpp"
#include "accounting/hybrid_renyi.hpp"
#include "accounting/vectorised_math.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// log sum over atoms of mass e^((alpha - 1) loss), -inf without atoms.
double log_partial_moment(const std::vector<DiscreteTblAtom>& atoms, double alpha) {
  double top = -kInfinity;
  for (const DiscreteTblAtom& a : atoms) top = std::max(top, std::log(a.mass) + (alpha - 1.0) * a.loss);
  if (top == -kInfinity) return top;
  double sum = 0.0;
  for (const DiscreteTblAtom& a : atoms) sum += std::exp(std::log(a.mass) + (alpha - 1.0) * a.loss - top);
  return top + std::log(sum);
}
}  // namespace

DiscreteTblPair discrete_tbl_pair(int64_t range, double mu, double sigma) {
  if (range < 1) throw InputError(fmt::format("discrete TBL range {} must be at least 1", range));
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw InputError(fmt::format("discrete TBL scale sigma {} must be positive", sigma));
  const double r = static_cast<double>(range);
  if (!(mu >= 0.0 && mu <= r)) throw InputError(fmt::format("discrete TBL shift mu {} must lie in [0, {}]", mu, r));
  // p_j = exp(l_j - log z) with l_j = -|j - mu| / sigma, normalised from the largest l_j (at the point nearest mu).
  const auto log_weight = [&](int64_t j) { return -std::abs(static_cast<double>(j) - mu) / sigma; };
  const int64_t nearest = std::clamp<int64_t>(static_cast<int64_t>(std::llround(mu)), 0, range);
  const double top = log_weight(nearest);
  // The exponentials by two vectorised passes (vectorised_math.hpp): a grid scan builds thousands of tables.
  std::vector<double> probabilities(static_cast<size_t>(range) + 1);
  for (int64_t j = 0; j <= range; ++j) probabilities[static_cast<size_t>(j)] = log_weight(j) - top;
  exp_in_place(probabilities);
  double z = 0.0;
  for (double value : probabilities) z += value;
  const double log_z = top + std::log(z);
  for (int64_t j = 0; j <= range; ++j) probabilities[static_cast<size_t>(j)] = log_weight(j) - log_z;
  exp_in_place(probabilities);
  const auto p = [&](int64_t j) { return probabilities[static_cast<size_t>(j)]; };
  DiscreteTblPair out;
  double forward_up = 0.0, forward_down = 0.0, reverse_up = 0.0, reverse_down = 0.0, second = 0.0;
  double previous = p(0);
  out.first_mass = previous;
  for (int64_t x = 1; x <= range; ++x) {
    const double current = p(x), at = static_cast<double>(x);
    second += at * at * current;
    if (at <= mu) {  // ratio p_x / p_(x-1) = e^(1/sigma)
      forward_up += current, reverse_down += previous;
    } else if (at - 1.0 >= mu) {  // e^(-1/sigma)
      forward_down += current, reverse_up += previous;
    } else {  // mu strictly inside (x - 1, x): its own atom
      const double loss = (2.0 * mu - 2.0 * at + 1.0) / sigma;
      out.forward.push_back({current, loss});
      out.reverse.push_back({previous, -loss});
    }
    previous = current;
  }
  out.last_mass = previous;
  out.second_moment = second;
  const double step = 1.0 / sigma;
  if (forward_up > 0.0) out.forward.push_back({forward_up, step});
  if (forward_down > 0.0) out.forward.push_back({forward_down, -step});
  if (reverse_up > 0.0) out.reverse.push_back({reverse_up, step});
  if (reverse_down > 0.0) out.reverse.push_back({reverse_down, -step});
  return out;
}

HybridRenyiEpsilon discrete_tbl_hybrid_renyi_epsilon(const DiscreteTblPair& pair, int64_t compositions, double delta,
                                                     const std::vector<double>& alphas) {
  if (alphas.empty()) throw InputError("HRDP: at least one order alpha is needed");
  if (compositions < 1) throw InputError(fmt::format("HRDP compositions {} must be at least 1", compositions));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("HRDP delta {} must lie in (0, 1)", delta));
  // Def. 7 (any direction): eps_p and delta_p are each the worse of the two orders; then eq. 24.
  const double t = static_cast<double>(compositions);
  const double slack = delta - t * std::max(pair.first_mass, pair.last_mass);  // delta'
  HybridRenyiEpsilon best{kInfinity, alphas.front()};
  for (double alpha : alphas) {
    if (!(alpha > 1.0) || !std::isfinite(alpha))
      throw InputError(fmt::format("HRDP order alpha {} must be finite and > 1", alpha));
    if (!(slack > 0.0)) continue;
    const double moment = std::max(log_partial_moment(pair.forward, alpha), log_partial_moment(pair.reverse, alpha));
    const double e = (t * moment - std::log(slack)) / (alpha - 1.0);
    if (e < best.epsilon) best = {e, alpha};
  }
  return best;
}

DiscreteTblChoice least_second_moment_discrete_tbl(int64_t compositions, double delta, double epsilon,
                                                   OneSidedComposition accounting, const DiscreteTblGrid& grid) {
  if (compositions < 1) throw InputError(fmt::format("compositions {} must be at least 1", compositions));
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta {} must lie in (0, 1)", delta));
  if (!(epsilon > 0.0) || !std::isfinite(epsilon))
    throw InputError(fmt::format("epsilon {} must be positive", epsilon));
  if (grid.range_step < 1 || grid.max_range < grid.range_step || !(grid.sigma_step > 0.0) ||
      !(grid.max_sigma >= grid.sigma_step))
    throw InputError("discrete TBL grid: steps must be positive and the maxima at least one step");
  const std::vector<double> alphas = grid.alphas.empty() ? paper_integer_alphas() : grid.alphas;
  DiscreteTblChoice best;
  best.second_moment = std::numeric_limits<double>::infinity();
  const int64_t sigma_count = static_cast<int64_t>(std::floor(grid.max_sigma / grid.sigma_step + 1e-9));
  for (int64_t k = 1; k <= sigma_count; ++k) {
    const double sigma = static_cast<double>(k) * grid.sigma_step;
    for (int64_t r = grid.range_step; r <= grid.max_range; r += grid.range_step) {
      const DiscreteTblPair pair = discrete_tbl_pair(r, 0.5 * static_cast<double>(r), sigma);
      const double second = pair.second_moment;
      if (second >= best.second_moment) break;  // E[e^2] grows with R: nothing better for this sigma
      double achieved = kInfinity, alpha = 0.0;
      if (accounting == OneSidedComposition::kAdvanced) {
        const double p0 = std::max(pair.first_mass, pair.last_mass);
        if (static_cast<double>(compositions) * p0 < delta) {
          try {
            achieved = advanced_composition_epsilon(1.0 / sigma, p0, compositions, delta);
          } catch (const InputError&) {}
        }
      } else {
        const HybridRenyiEpsilon e = discrete_tbl_hybrid_renyi_epsilon(pair, compositions, delta, alphas);
        achieved = e.epsilon;
        alpha = e.alpha;
      }
      if (achieved <= epsilon) {
        best = {true, r, sigma, second, achieved, alpha};
        break;  // the least feasible R for this sigma
      }
    }
  }
  if (!best.found) best.second_moment = 0.0;
  return best;
}

}  // namespace noiselearn
