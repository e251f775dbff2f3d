#include "accounting/coordinate_product.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "accounting/convolution.hpp"
#include "core/directed_rounding.hpp"
#include "core/errors.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

namespace {

// Masses at grid indices first, first + 1, ...; `error`: each mass is within a factor (1 +- error) of the exact one.
struct GridMasses {
  int64_t first = 0;
  std::vector<double> p, q;  // q empty for the upper chain (Q = e^{-L} P there)
  double error = 0.0;
};

// The largest k with k h <= loss, and the smallest with k h >= loss, as the products k h are computed (the grid points
// are those products, so a loss at a grid point is on it).
int64_t floor_index(double loss, double h) {
  auto k = static_cast<int64_t>(std::floor(loss / h));
  while (static_cast<double>(k) * h > loss) --k;
  while (static_cast<double>(k + 1) * h <= loss) ++k;
  return k;
}
int64_t ceil_index(double loss, double h) {
  auto k = static_cast<int64_t>(std::ceil(loss / h));
  while (static_cast<double>(k) * h < loss) ++k;
  while (static_cast<double>(k - 1) * h >= loss) --k;
  return k;
}

// The finite loss range of a law's atoms and continuous part (the cells that reach to an infinity end at their finite
// end): the grid the coordinates' losses are put on.
std::pair<double, double> finite_range(const LossLaw& law) {
  double low = INFINITY, high = -INFINITY;
  auto see = [&](double l) {
    if (std::isfinite(l)) {
      low = std::min(low, l);
      high = std::max(high, l);
    }
  };
  for (const LossCell& c : law.cells) {
    if (!(c.p_mass > 0.0) && !(c.q_mass > 0.0)) continue;
    see(c.low);
    see(c.high);
  }
  if (law.continuous) {
    see(law.continuous->low);
    see(law.continuous->high);
  }
  if (!(low <= high)) low = high = 0.0;
  return {low, high};
}

// The pieces of one coordinate's law: cells of the law, and the continuous part cut at the points `cuts` (sorted).
template <class Visit>
void visit_pieces(const LossLaw& law, const std::vector<double>& cuts, Visit&& visit) {
  for (const LossCell& c : law.cells) visit(c.low, c.high, c.p_mass, c.q_mass);
  if (!law.continuous) return;
  const ContinuousLoss& c = *law.continuous;
  double from = c.low;
  for (double cut : cuts) {
    if (cut <= from) continue;
    if (cut >= c.high) break;
    const auto [p, qm] = c.mass(from, cut);
    visit(from, cut, p, qm);
    from = cut;
  }
  if (c.high > from) {
    const auto [p, qm] = c.mass(from, c.high);
    visit(from, c.high, p, qm);
  }
}

// Upper: every piece split between the grid points around it keeping both masses (connect-the-dots), each share
// lowered by the law's error so that the exact split dominates it only by loss rounded up (see the header). Only the
// P masses are kept; what is not on the grid (cut tails above it, rounding) is at +infinity.
GridMasses upper_coordinate(const LossLaw& law, double law_error, double h, double& p_infinity_floor) {
  const auto [low, high] = finite_range(law);
  GridMasses g;
  g.first = floor_index(low, h) - 1;
  g.p.assign(static_cast<size_t>(ceil_index(high, h) + 2 - g.first), 0.0);
  std::vector<int> terms(g.p.size(), 0);
  const double lowered = 1.0 - law_error - roundings(4.0);
  auto add = [&](int64_t k, double mass) {
    if (!(mass > 0.0)) return;
    if (k < g.first || k - g.first >= static_cast<int64_t>(g.p.size()))
      throw std::logic_error("coordinate product: a loss off the grid's range");
    const auto i = static_cast<size_t>(k - g.first);
    g.p[i] += mass;
    ++terms[i];
  };
  std::vector<double> cuts;
  if (law.continuous)
    for (int64_t k = ceil_index(law.continuous->low, h); k <= floor_index(law.continuous->high, h); ++k)
      cuts.push_back(static_cast<double>(k) * h);
  p_infinity_floor = 0.0;
  visit_pieces(law, cuts, [&](double l1, double l2, double a, double b) {
    if (!(a > 0.0)) return;  // outcomes P never gives: their Q mass is at -infinity (derived at the end)
    const double a_low = a * lowered;
    if (l1 == INFINITY) return;  // P mass at +infinity
    if (l2 == INFINITY) {        // [l1, +inf]: e^{L1} b at L1 = floor, the rest at +infinity
      const int64_t k = floor_index(l1, h);
      const double at = b > 0.0 ? std::exp(static_cast<double>(k) * h + std::log(b)) * lowered : 0.0;
      add(k, std::min(at, a_low));
      return;
    }
    if (l1 == -INFINITY) {  // [-inf, l2]: all of P at the grid point above l2, Q's rest at -infinity
      add(ceil_index(l2, h), a_low);
      return;
    }
    const int64_t k1 = floor_index(l1, h);
    int64_t k2 = ceil_index(l2, h);
    if (k2 == k1) {  // on a grid point
      add(k1, a_low);
      return;
    }
    const double L1 = static_cast<double>(k1) * h, L2 = static_cast<double>(k2) * h;
    const double denominator = -std::expm1(L1 - L2);
    const double e_low_b = b > 0.0 ? std::exp(L1 + std::log(b)) : 0.0;
    const double error = std::max(law_error, kUnitRoundoff);
    double at_high = (a - e_low_b) / denominator + 4.0 * error * (a + e_low_b) / denominator;
    at_high = std::clamp(at_high, 0.0, a_low);
    add(k2, at_high);
    add(k1, std::max(0.0, (a_low - at_high) * (1.0 - roundings(2.0))));
  });
  g.error = static_cast<double>(*std::max_element(terms.begin(), terms.end()) + 1) * kUnitRoundoff * 1.01;
  return g;
}

// Lower: every piece merged into the grid point nearest its loss ln(P/Q) (masses summed), the pieces reaching to an
// infinity end into the end points (any merge is a post-processing); the outcomes of infinite loss (Q = 0) and of
// P = 0 apart, as masses.
GridMasses lower_coordinate(const LossLaw& law, double law_error, double h, double& p_infinity,
                            double& q_minus_infinity) {
  const auto [low, high] = finite_range(law);
  GridMasses g;
  const int64_t k_low = static_cast<int64_t>(std::round(low / h)), k_high = static_cast<int64_t>(std::round(high / h));
  g.first = k_low;
  g.p.assign(static_cast<size_t>(k_high - k_low + 1), 0.0);
  g.q.assign(g.p.size(), 0.0);
  std::vector<int> terms(g.p.size(), 0);
  std::vector<double> cuts;
  if (law.continuous)
    for (int64_t k = static_cast<int64_t>(std::floor(law.continuous->low / h - 0.5)); k <= k_high + 1; ++k)
      cuts.push_back((static_cast<double>(k) + 0.5) * h);
  p_infinity = q_minus_infinity = 0.0;
  visit_pieces(law, cuts, [&](double l1, double l2, double a, double b) {
    if (!(a > 0.0) && !(b > 0.0)) return;
    // An outcome of infinite loss (Q = 0 on a cell at +infinity) or of P = 0 (at -infinity) stays one. A mass that
    // underflowed at a finite loss (e^{-1000} of the Laplace at 1000 nats) is dropped: a lower bound may leave mass
    // out, but must not call a finite loss infinite.
    if (!(b > 0.0)) {
      if (l1 == INFINITY) p_infinity += a;
      return;
    }
    if (!(a > 0.0)) {
      if (l2 == -INFINITY) q_minus_infinity += b;
      return;
    }
    double l = std::log(a) - std::log(b);
    if (std::isfinite(l1) && std::isfinite(l2)) l = std::clamp(l, l1, l2);
    const int64_t k = std::clamp<int64_t>(static_cast<int64_t>(std::round(l / h)), k_low, k_high);
    const auto i = static_cast<size_t>(k - g.first);
    g.p[i] += a;
    g.q[i] += b;
    ++terms[i];
  });
  g.error = law_error + static_cast<double>(*std::max_element(terms.begin(), terms.end()) + 1) * kUnitRoundoff * 1.01;
  return g;
}

// Drops the ends whose P and Q masses are each at most `negligible`: the upper chain rounds the low end's loss up to
// the first kept point and sends the high end to +infinity; the lower chain merges each end into its end point.
void prune(GridMasses& g, double h, double negligible, bool upper) {
  const size_t n = g.p.size();
  auto q_of = [&](size_t i) {
    if (!upper) return g.q[i];
    return g.p[i] > 0.0 ? std::exp(std::log(g.p[i]) - static_cast<double>(g.first + static_cast<int64_t>(i)) * h) : 0.0;
  };
  size_t begin = 0, end = n;
  double p_low = 0.0, q_low = 0.0;
  while (begin + 1 < end) {
    const double p = p_low + g.p[begin], qm = q_low + q_of(begin);
    if (p > negligible || qm > negligible) break;
    p_low = p;
    q_low = qm;
    ++begin;
  }
  double p_high = 0.0, q_high = 0.0;
  while (end > begin + 1) {
    const double p = p_high + g.p[end - 1], qm = q_high + q_of(end - 1);
    if (p > negligible || qm > negligible) break;
    p_high = p;
    q_high = qm;
    --end;
  }
  if (begin == 0 && end == n) return;
  std::vector<double> p(g.p.begin() + static_cast<std::ptrdiff_t>(begin),
                        g.p.begin() + static_cast<std::ptrdiff_t>(end));
  p.front() += p_low;
  if (!upper) p.back() += p_high;  // the upper chain's high end goes to +infinity (1 - the finite mass)
  if (!upper) {
    std::vector<double> q(g.q.begin() + static_cast<std::ptrdiff_t>(begin),
                          g.q.begin() + static_cast<std::ptrdiff_t>(end));
    q.front() += q_low;
    q.back() += q_high;
    g.q = std::move(q);
  }
  g.p = std::move(p);
  g.first += static_cast<int64_t>(begin);
  g.error += roundings(2.0);
}

GridMasses multiply(const GridMasses& x, const GridMasses& y, double h, double negligible, bool upper) {
  GridMasses z;
  z.first = x.first + y.first;
  // Direct summation of non-negative products (convolution.hpp): an entrywise relative error bound.
  Convolution p = convolve_direct(x.p, y.p);
  double error = p.relative_error;
  z.p = std::move(p.values);
  if (!upper) {
    Convolution q = convolve_direct(x.q, y.q);
    error = std::max(error, q.relative_error);
    z.q = std::move(q.values);
  }
  z.error = x.error + y.error + x.error * y.error + error * (1.0 + x.error) * (1.0 + y.error) * 1.01;
  prune(z, h, negligible, upper);
  return z;
}

GridMasses power(const GridMasses& base, int64_t d, double h, double negligible, bool upper, int64_t& widest) {
  GridMasses result, square = base;
  bool have = false;
  widest = static_cast<int64_t>(base.p.size());
  for (int64_t e = d; e > 0; e >>= 1) {
    if (e & 1) {
      result = have ? multiply(result, square, h, negligible, upper) : square;
      have = true;
      widest = std::max(widest, static_cast<int64_t>(result.p.size()));
    }
    if (e > 1) {
      square = multiply(square, square, h, negligible, upper);
      widest = std::max(widest, static_cast<int64_t>(square.p.size()));
    }
  }
  return result;
}

// Mean and variance of l under the merged coordinate's P and Q (to size the product's grid).
struct Moments {
  double mean_p = 0.0, var_p = 0.0, mean_q = 0.0, var_q = 0.0;
};

Moments moments(const GridMasses& g, double h) {
  long double sp = 0, mp = 0, vp = 0, sq = 0, mq = 0, vq = 0;
  for (size_t i = 0; i < g.p.size(); ++i) {
    const long double l = static_cast<long double>(g.first + static_cast<int64_t>(i)) * h;
    sp += g.p[i];
    mp += g.p[i] * l;
    vp += g.p[i] * l * l;
    sq += g.q[i];
    mq += g.q[i] * l;
    vq += g.q[i] * l * l;
  }
  Moments m;
  if (sp > 0) {
    m.mean_p = static_cast<double>(mp / sp);
    m.var_p = std::max(0.0, static_cast<double>(vp / sp - (mp / sp) * (mp / sp)));
  }
  if (sq > 0) {
    m.mean_q = static_cast<double>(mq / sq);
    m.var_q = std::max(0.0, static_cast<double>(vq / sq - (mq / sq) * (mq / sq)));
  }
  return m;
}

}  // namespace

CoordinateProductLaws coordinate_product_laws(const LossLaw& law, double mass_relative_error, int64_t coordinates,
                                              double step, double negligible, int64_t max_points) {
  if (coordinates < 2) throw std::logic_error("coordinate_product_laws: at least 2 coordinates");
  if (coordinates > 100'000'000)
    throw InputError(fmt::format("coordinates {} is more than the product accountant takes (100000000)", coordinates));
  // The grid: the step asked for, doubled while the product's loss range (both laws' means, 14 standard deviations
  // around them) would need more than max_points points.
  double h = step;
  {
    double pi = 0.0, qmi = 0.0;
    const GridMasses probe = lower_coordinate(law, mass_relative_error, step, pi, qmi);
    const Moments m = moments(probe, step);
    const double d = static_cast<double>(coordinates);
    const auto [low, high] = finite_range(law);
    const double spread = 14.0 * std::sqrt(d * std::max(m.var_p, m.var_q));
    const double range =
        std::min(d * (high - low), d * std::abs(m.mean_p - m.mean_q) + 2.0 * spread) + 2.0 * (high - low);
    while (range / h > static_cast<double>(max_points)) h *= 2.0;
  }
  CoordinateProductLaws out;
  out.step = h;
  const double d = static_cast<double>(coordinates);

  // Upper: the product of the split coordinates, rounded up where pruned.
  double unused = 0.0;
  const GridMasses up_base = upper_coordinate(law, mass_relative_error, h, unused);
  int64_t widest_up = 0, widest_low = 0;
  const GridMasses up = power(up_base, coordinates, h, negligible, true, widest_up);
  {
    const double e = up.error;
    std::vector<double> q_finite(up.p.size(), 0.0);
    for (size_t i = 0; i < up.p.size(); ++i) {
      if (!(up.p[i] > 0.0)) continue;
      const double L = static_cast<double>(up.first + static_cast<int64_t>(i)) * h;
      const double p = up.p[i] * (1.0 + e) * (1.0 + roundings(2.0));
      const double qm = std::exp(std::log(up.p[i]) - L) * (1.0 + e) * (1.0 + roundings(8.0));
      q_finite[i] = std::exp(std::log(up.p[i]) - L);
      out.upper.cells.push_back({L, L, p, qm});
    }
    const double keep = 1.0 - e - roundings(16.0);
    const double p_infinity = std::min(1.0, std::max(0.0, 1.0 - compensated_sum(up.p) * keep) + roundings(4.0));
    const double q_minus_infinity =
        std::min(1.0, std::max(0.0, 1.0 - compensated_sum(q_finite) * keep) + roundings(4.0));
    if (p_infinity > 0.0) out.upper.cells.push_back({INFINITY, INFINITY, p_infinity, 0.0});
    if (q_minus_infinity > 0.0) out.upper.cells.push_back({-INFINITY, -INFINITY, 0.0, q_minus_infinity});
  }

  // Lower: the product of the merged coordinates, merged by the index sum.
  double p_inf = 0.0, q_minf = 0.0;
  const GridMasses low_base = lower_coordinate(law, mass_relative_error, h, p_inf, q_minf);
  const GridMasses low = power(low_base, coordinates, h, negligible, false, widest_low);
  {
    const double e = low.error;
    const double keep = 1.0 - e - roundings(4.0);
    const double width = 2.0 * e + roundings(8.0);
    for (size_t i = 0; i < low.p.size(); ++i) {
      if (!(low.p[i] > 0.0) || !(low.q[i] > 0.0)) continue;  // dropped: a lower bound may leave mass out
      const double l = std::log(low.p[i]) - std::log(low.q[i]);
      out.lower.cells.push_back({l - width, l + width, low.p[i] * keep, low.q[i] * keep});
    }
    // Products with a coordinate of infinite loss (and none where P = 0), and with one where P = 0.
    const double p_infinity = -std::expm1(d * std::log1p(-std::min(p_inf, 1.0))) * (1.0 - 1e-12);
    const double q_minus_infinity = -std::expm1(d * std::log1p(-std::min(q_minf, 1.0))) * (1.0 - 1e-12);
    if (p_infinity > 0.0) out.lower.cells.push_back({INFINITY, INFINITY, p_infinity, 0.0});
    if (q_minus_infinity > 0.0) out.lower.cells.push_back({-INFINITY, -INFINITY, 0.0, q_minus_infinity});
  }
  out.relative_error = std::max(up.error, low.error);
  out.points = std::max(widest_up, widest_low);
  return out;
}

}  // namespace noiselearn
