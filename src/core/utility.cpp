#include "core/utility.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "core/enum_names.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

// sum_i weight(x_i) p_i with compensated summation: the terms span many orders of magnitude.
template <typename Weight>
double expectation(const NoiseTable& table, Weight weight) {
  std::vector<double> terms(static_cast<size_t>(table.size()));
  for (int64_t i = 0; i < table.size(); ++i) terms[static_cast<size_t>(i)] = weight(table.x(i)) * table.p(i);
  return compensated_sum(terms);
}

// One geometric tail of a table (NoiseTable::tails): outcomes at distance d + k h from 0 with mass p r^k,
// k = 1, 2, ... (d = |x_end|, which must lie on the far side of 0 from the other end).
struct Tail {
  double p, d, h, r;
};

std::vector<Tail> tails_of(const NoiseTable& table) {
  if (!table.tails()) return {};
  const Grid& g = table.grid();
  if (g.origin > 0.0 || g.last() < 0.0)
    throw InputError("utility of a table with geometric tails: its grid must contain 0");
  const double r = table.tails()->ratio;
  return {Tail{table.p(0), -g.origin, g.step, r}, Tail{table.p(table.size() - 1), g.last(), g.step, r}};
}

// sum_{k>=1} r^k (d + k h)^j in closed form: sum r^k = r/(1-r), sum k r^k = r/(1-r)^2, sum k^2 r^k = r(1+r)/(1-r)^3.
double tail_moment(const Tail& t, int power) {
  const double s0 = t.r / (1.0 - t.r), s1 = t.r / ((1.0 - t.r) * (1.0 - t.r)),
               s2 = t.r * (1.0 + t.r) / ((1.0 - t.r) * (1.0 - t.r) * (1.0 - t.r));
  if (power == 1) return t.p * (t.d * s0 + t.h * s1);
  return t.p * (t.d * t.d * s0 + 2.0 * t.d * t.h * s1 + t.h * t.h * s2);
}

}  // namespace

double l1_utility(const NoiseTable& table) {
  const double inside = expectation(table, [](double x) { return std::abs(x); });
  double beyond = 0.0;
  for (const Tail& t : tails_of(table)) beyond += tail_moment(t, 1);
  return inside + beyond;
}

double second_moment(const NoiseTable& table) {
  const double inside = expectation(table, [](double x) { return x * x; });
  double beyond = 0.0;
  for (const Tail& t : tails_of(table)) beyond += tail_moment(t, 2);
  return inside + beyond;
}

double l2_utility(const NoiseTable& table) { return std::sqrt(second_moment(table)); }

double tail_probability(const NoiseTable& table, double tau) {
  if (!(tau >= 0.0)) throw InputError(fmt::format("tail threshold tau must be non-negative (got {})", tau));
  const double limit = tau + kGridRelativeTolerance * table.grid().step;
  double beyond = 0.0;
  for (const Tail& t : tails_of(table)) {
    // The first k >= 1 with d + k h > limit; the rest of the tail from there is p r^k0 / (1 - r).
    const double k0 = std::max(1.0, std::floor((limit - t.d) / t.h) + 1.0);
    beyond += t.p * std::pow(t.r, k0) / (1.0 - t.r);
  }
  return expectation(table, [limit](double x) { return std::abs(x) > limit ? 1.0 : 0.0; }) + beyond;
}

double max_abs_error(const NoiseTable& table) {
  if (table.tails()) return INFINITY;  // unbounded support
  double worst = 0.0;
  for (int64_t i = 0; i < table.size(); ++i)
    if (table.p(i) > 0.0) worst = std::max(worst, std::abs(table.x(i)));
  return worst;
}

constexpr NameTable<UtilityKind, 4> kUtilityKinds{{{UtilityKind::kL1, "l1"},
                                                   {UtilityKind::kL2, "l2"},
                                                   {UtilityKind::kSecondMoment, "second-moment"},
                                                   {UtilityKind::kTailProbability, "tail-probability"}}};

UtilityKind parse_utility_kind(const std::string& text) { return parse_named(kUtilityKinds, text, "utility"); }

std::string to_string(UtilityKind kind) { return std::string(name_of(kUtilityKinds, kind)); }

double utility(const NoiseTable& table, const UtilitySpecification& specification) {
  switch (specification.kind) {
    case UtilityKind::kL1:
      return l1_utility(table);
    case UtilityKind::kL2:
      return l2_utility(table);
    case UtilityKind::kSecondMoment:
      return second_moment(table);
    case UtilityKind::kTailProbability:
      return tail_probability(table, specification.tail_threshold);
  }
  return std::nan("");
}

}  // namespace noiselearn
