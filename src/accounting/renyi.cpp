#include "accounting/renyi.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "accounting/grid_minimisation.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"

namespace noiselearn {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void check_order(double alpha) {
  if (std::isnan(alpha) || alpha < 1.0) {
    throw InputError(fmt::format("Renyi order alpha = {} must be >= 1", alpha));
  }
}

// log p_i (-inf for p_i = 0). `which` names the vector in messages; a distribution with no mass at all is
// refused when `requires_mass` (the divergence would be log 0 / (alpha - 1)).
std::vector<double> logarithms(const std::vector<double>& probabilities, const char* which, bool requires_mass) {
  std::vector<double> logs(probabilities.size());
  bool any_positive = false;
  for (size_t i = 0; i < probabilities.size(); ++i) {
    const double p = probabilities[i];
    if (!std::isfinite(p) || p < 0.0) {
      throw InputError(fmt::format("Renyi divergence: {} distribution has entry {} = {}", which, i, p));
    }
    any_positive = any_positive || p > 0.0;
    logs[i] = p > 0.0 ? std::log(p) : kNegativeInfinity;
  }
  if (!any_positive && requires_mass) {
    throw InputError(fmt::format("Renyi divergence: the {} distribution has no positive entry", which));
  }
  return logs;
}

// D_alpha(P||Q) from log P and log Q (same length). Terms with P_i = 0 are skipped; P_i > 0 = Q_i is an
// infinite divergence for every alpha >= 1.
double renyi_divergence_of_logs(const std::vector<double>& log_p, const std::vector<double>& log_q, double alpha) {
  const size_t size = log_p.size();
  for (size_t i = 0; i < size; ++i) {
    if (log_p[i] != kNegativeInfinity && log_q[i] == kNegativeInfinity) return kInfinity;
  }
  if (alpha == 1.0) {
    // Kullback-Leibler divergence, the alpha -> 1 limit (Mironov 2017, Def. 3).
    double kl = 0.0;
    for (size_t i = 0; i < size; ++i) {
      if (log_p[i] != kNegativeInfinity) kl += std::exp(log_p[i]) * (log_p[i] - log_q[i]);
    }
    return kl;
  }
  if (std::isinf(alpha)) {
    double top = kNegativeInfinity;
    for (size_t i = 0; i < size; ++i) {
      if (log_p[i] != kNegativeInfinity) top = std::max(top, log_p[i] - log_q[i]);
    }
    return top;
  }
  // log sum_i exp(alpha log P_i + (1 - alpha) log Q_i): the exponents reach hundreds of nats at large alpha
  // (P_i^alpha Q_i^{1-alpha} over- or underflows), so shift by the largest before exponentiating.
  double top = kNegativeInfinity;
  for (size_t i = 0; i < size; ++i) {
    if (log_p[i] != kNegativeInfinity) top = std::max(top, alpha * log_p[i] + (1.0 - alpha) * log_q[i]);
  }
  double sum = 0.0;
  for (size_t i = 0; i < size; ++i) {
    if (log_p[i] != kNegativeInfinity) sum += std::exp(alpha * log_p[i] + (1.0 - alpha) * log_q[i] - top);
  }
  return (top + std::log(sum)) / (alpha - 1.0);
}

struct PairLogarithms {
  std::vector<double> log_a, log_b;
};

void check_delta(double delta) {
  if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta = {} must lie in (0, 1)", delta));
}

void check_compositions(int64_t n) {
  if (n < 1) throw InputError(fmt::format("number of compositions n = {} must be >= 1", n));
}

void check_epsilon(double epsilon) {
  if (!(std::isfinite(epsilon) && epsilon >= 0.0)) {
    throw InputError(fmt::format("epsilon = {} must be finite and >= 0", epsilon));
  }
}

// The arguments of an n-fold query for epsilon at delta, or for delta at epsilon.
void check_epsilon_query(const RdpOrderOptions& options, int64_t n, double delta) {
  options.validate();
  check_compositions(n);
  check_delta(delta);
}

void check_delta_query(const RdpOrderOptions& options, int64_t n, double epsilon) {
  options.validate();
  check_compositions(n);
  check_epsilon(epsilon);
}

void check_conversion_arguments(double alpha, double composed_rdp) {
  if (!(alpha > 1.0 && std::isfinite(alpha))) {
    throw InputError(fmt::format("RDP conversion: order alpha = {} must lie in (1, inf)", alpha));
  }
  if (std::isnan(composed_rdp) || composed_rdp == -kInfinity) {
    throw InputError(fmt::format("RDP conversion: RDP value {} is not a number", composed_rdp));
  }
}

// Epsilon at one order, without argument checks (the optimisers check once).
double epsilon_at_order(RdpConversion conversion, double alpha, double composed_rdp, double delta) {
  if (composed_rdp == kInfinity) return kInfinity;
  switch (conversion) {
    case RdpConversion::kMironov:  // Mironov 2017, Prop. 3
      return composed_rdp - std::log(delta) / (alpha - 1.0);
    case RdpConversion::kBalle:  // Balle et al. 2020, Thm 21; log((alpha-1)/alpha) = log1p(-1/alpha)
      return composed_rdp + std::log1p(-1.0 / alpha) - (std::log(delta) + std::log(alpha)) / (alpha - 1.0);
  }
  return kNaN;
}

double log_delta_at_order(RdpConversion conversion, double alpha, double composed_rdp, double epsilon) {
  if (composed_rdp == kInfinity) return kInfinity;
  const double exponent = (alpha - 1.0) * (composed_rdp - epsilon);
  switch (conversion) {
    case RdpConversion::kMironov:  // Mironov 2017, Prop. 3 solved for delta
      return exponent;
    case RdpConversion::kBalle:  // Balle et al. 2020, Thm 21 solved for delta (= CKS 2020, Prop. 12)
      return exponent + (alpha - 1.0) * std::log1p(-1.0 / alpha) - std::log(alpha);
  }
  return kNaN;
}

namespace {

// Minimises bound(alpha, n rho(alpha)) over the order grid (values from rho_on_grid) and refines between orders.
template <typename Bound>
GridMinimum minimise_over_orders(const RdpCurve& rho, const std::vector<double>& rho_on_grid, int64_t n,
                                 const RdpOrderOptions& options, Bound bound) {
  const double compositions = static_cast<double>(n);
  std::vector<double> values(options.orders.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = bound(options.orders[i], compositions * rho_on_grid[i]);
  return minimise_on_grid([&](double alpha) { return bound(alpha, compositions * rho(alpha)); }, options.orders, values,
                          options.refinement_iterations);
}

}  // namespace

RdpEpsilon best_epsilon(const RdpCurve& rho, const std::vector<double>& rho_on_grid, int64_t n, double delta,
                        RdpConversion conversion, const RdpOrderOptions& options) {
  const GridMinimum best = minimise_over_orders(rho, rho_on_grid, n, options, [&](double alpha, double composed) {
    return epsilon_at_order(conversion, alpha, composed, delta);
  });
  if (best.value == kInfinity) return {kInfinity, kNaN};
  // (epsilon < 0, delta)-DP implies (0, delta)-DP.
  return {std::max(0.0, best.value), best.argument};
}

RdpDelta best_delta(const RdpCurve& rho, const std::vector<double>& rho_on_grid, int64_t n, double epsilon,
                    RdpConversion conversion, const RdpOrderOptions& options) {
  // Minimising log delta rather than delta: the bound spans hundreds of orders of magnitude over the grid.
  const GridMinimum best = minimise_over_orders(rho, rho_on_grid, n, options, [&](double alpha, double composed) {
    return log_delta_at_order(conversion, alpha, composed, epsilon);
  });
  if (!(best.value < 0.0)) return {1.0, kNaN};  // no order gives anything better than the trivial delta = 1
  return {std::exp(best.value), best.argument};
}

std::vector<double> evaluate_on_orders(const RdpCurve& rho, const std::vector<double>& orders) {
  std::vector<double> values;
  values.reserve(orders.size());
  for (double alpha : orders) values.push_back(rho(alpha));
  return values;
}

}  // namespace

double renyi_divergence(const std::vector<double>& first, const std::vector<double>& second, double alpha) {
  check_order(alpha);
  if (first.size() != second.size()) {
    throw InputError(
        fmt::format("Renyi divergence: distributions of different lengths ({} and {})", first.size(), second.size()));
  }
  return renyi_divergence_of_logs(logarithms(first, "first", true), logarithms(second, "second", false), alpha);
}

double renyi_dp(const DominatingPair& pair, double alpha) {
  const std::vector<double> a = pair.all_a(), b = pair.all_b();
  return std::max(renyi_divergence(a, b, alpha), renyi_divergence(b, a, alpha));
}

RdpCurve rdp_curve(const std::vector<DominatingPair>& pairs) {
  if (pairs.empty()) throw InputError("RDP curve: the pair family is empty");
  auto logs = std::make_shared<std::vector<PairLogarithms>>();
  for (const DominatingPair& pair : pairs) {
    if (pair.a.size() != pair.b.size()) {
      throw InputError(fmt::format("RDP curve: pair '{}' has distributions of different lengths ({} and {})",
                                   pair.description, pair.a.size(), pair.b.size()));
    }
    // Both directions are evaluated, so both sides need mass.
    logs->push_back({logarithms(pair.all_a(), "A", true), logarithms(pair.all_b(), "B", true)});
  }
  return [logs](double alpha) {
    check_order(alpha);
    double worst = kNegativeInfinity;
    for (const PairLogarithms& pair : *logs) {
      worst = std::max(worst, renyi_divergence_of_logs(pair.log_a, pair.log_b, alpha));
      if (worst == kInfinity) break;
      worst = std::max(worst, renyi_divergence_of_logs(pair.log_b, pair.log_a, alpha));
      if (worst == kInfinity) break;
    }
    return worst;
  };
}

std::string to_string(RdpConversion conversion) { return conversion == RdpConversion::kMironov ? "mironov" : "balle"; }

double rdp_to_epsilon(RdpConversion conversion, double alpha, double composed_rdp, double delta) {
  check_conversion_arguments(alpha, composed_rdp);
  check_delta(delta);
  return epsilon_at_order(conversion, alpha, composed_rdp, delta);
}

double rdp_to_log_delta(RdpConversion conversion, double alpha, double composed_rdp, double epsilon) {
  check_conversion_arguments(alpha, composed_rdp);
  check_epsilon(epsilon);
  return log_delta_at_order(conversion, alpha, composed_rdp, epsilon);
}

std::vector<double> default_rdp_orders() {
  // Built from integers so that the grid points are exact decimals (no accumulated rounding).
  std::vector<double> orders;
  for (int i = 1; i <= 99; ++i) orders.push_back(1.0 + i / 100.0);
  for (int i = 0; i <= 124; ++i) orders.push_back(2.0 + i / 2.0);
  for (int j = 1; j <= 32; ++j) orders.push_back(64.0 * std::exp2(j / 8.0));
  return orders;
}

void RdpOrderOptions::validate() const {
  if (orders.empty()) throw InputError("rdp orders: the list is empty");
  for (size_t i = 0; i < orders.size(); ++i) {
    if (!(orders[i] > 1.0 && std::isfinite(orders[i]))) {
      throw InputError(fmt::format("rdp orders: order {} = {} must lie in (1, inf)", i, orders[i]));
    }
    if (i > 0 && !(orders[i] > orders[i - 1])) {
      throw InputError(fmt::format("rdp orders: must be strictly increasing (order {} = {} follows {})", i, orders[i],
                                   orders[i - 1]));
    }
  }
  if (refinement_iterations < 0) {
    throw InputError(fmt::format("rdp refinement_iterations = {} must be >= 0", refinement_iterations));
  }
}

RdpEpsilon optimal_rdp_epsilon(const RdpCurve& rho, int64_t n, double delta, RdpConversion conversion,
                               const RdpOrderOptions& options) {
  check_epsilon_query(options, n, delta);
  return best_epsilon(rho, evaluate_on_orders(rho, options.orders), n, delta, conversion, options);
}

RdpDelta optimal_rdp_delta(const RdpCurve& rho, int64_t n, double epsilon, RdpConversion conversion,
                           const RdpOrderOptions& options) {
  check_delta_query(options, n, epsilon);
  return best_delta(rho, evaluate_on_orders(rho, options.orders), n, epsilon, conversion, options);
}

// Both conversions of one RDP curve, evaluated once on the orders: best(rho, rho_on_grid, conversion).
template <class Result, class Best>
Result both_conversions(const std::vector<DominatingPair>& pairs, const RdpOrderOptions& options, Best best) {
  const RdpCurve rho = rdp_curve(pairs);
  const std::vector<double> rho_on_grid = evaluate_on_orders(rho, options.orders);
  return {best(rho, rho_on_grid, RdpConversion::kMironov), best(rho, rho_on_grid, RdpConversion::kBalle)};
}

RdpComparison rdp_epsilon(const std::vector<DominatingPair>& pairs, int64_t n, double delta,
                          const RdpOrderOptions& options) {
  check_epsilon_query(options, n, delta);
  return both_conversions<RdpComparison>(pairs, options, [&](const RdpCurve& rho, const auto& grid, auto conversion) {
    return best_epsilon(rho, grid, n, delta, conversion, options);
  });
}

RdpDeltaComparison rdp_delta(const std::vector<DominatingPair>& pairs, int64_t n, double epsilon,
                             const RdpOrderOptions& options) {
  check_delta_query(options, n, epsilon);
  return both_conversions<RdpDeltaComparison>(pairs, options,
                                              [&](const RdpCurve& rho, const auto& grid, auto conversion) {
                                                return best_delta(rho, grid, n, epsilon, conversion, options);
                                              });
}

}  // namespace noiselearn
