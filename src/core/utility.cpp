#include "core/utility.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

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

}  // namespace

double l1_utility(const NoiseTable& table) {
  return expectation(table, [](double x) { return std::abs(x); });
}

double second_moment(const NoiseTable& table) {
  return expectation(table, [](double x) { return x * x; });
}

double l2_utility(const NoiseTable& table) { return std::sqrt(second_moment(table)); }

double tail_probability(const NoiseTable& table, double tau) {
  if (!(tau >= 0.0)) throw InputError(fmt::format("tail threshold tau must be non-negative (got {})", tau));
  const double limit = tau + kGridRelativeTolerance * table.grid().step;
  return expectation(table, [limit](double x) { return std::abs(x) > limit ? 1.0 : 0.0; });
}

double max_abs_error(const NoiseTable& table) {
  double worst = 0.0;
  for (int64_t i = 0; i < table.size(); ++i)
    if (table.p(i) > 0.0) worst = std::max(worst, std::abs(table.x(i)));
  return worst;
}

UtilityKind parse_utility_kind(const std::string& text) {
  if (text == "l1") return UtilityKind::kL1;
  if (text == "l2") return UtilityKind::kL2;
  if (text == "second-moment") return UtilityKind::kSecondMoment;
  if (text == "tail-probability") return UtilityKind::kTailProbability;
  throw InputError(fmt::format("unknown utility '{}' (valid: l1, l2, second-moment, tail-probability)", text));
}

std::string to_string(UtilityKind kind) {
  switch (kind) {
    case UtilityKind::kL1: return "l1";
    case UtilityKind::kL2: return "l2";
    case UtilityKind::kSecondMoment: return "second-moment";
    case UtilityKind::kTailProbability: return "tail-probability";
  }
  return "?";
}

double utility(const NoiseTable& table, const UtilitySpecification& specification) {
  switch (specification.kind) {
    case UtilityKind::kL1: return l1_utility(table);
    case UtilityKind::kL2: return l2_utility(table);
    case UtilityKind::kSecondMoment: return second_moment(table);
    case UtilityKind::kTailProbability: return tail_probability(table, specification.tail_threshold);
  }
  return std::nan("");
}

}  // namespace noiselearn
