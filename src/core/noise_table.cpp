#include "core/noise_table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/directed_rounding.hpp"
#include "core/enum_names.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {
constexpr double kRoundingSlack = roundings(8.0);
}

constexpr NameTable<SupportKind, 3> kSupportKinds{{{SupportKind::kSymmetric, "symmetric"},
                                                   {SupportKind::kGeneral, "general"},
                                                   {SupportKind::kOneSided, "one-sided"}}};

std::string to_string(SupportKind kind) { return std::string(name_of(kSupportKinds, kind)); }

SupportKind parse_support_kind(const std::string& text) { return parse_named(kSupportKinds, text, "support kind"); }

bool equal_up_to_rounding(double a, double b) {
  return std::abs(a - b) <= kRoundingSlack * std::max(std::abs(a), std::abs(b));
}

double compensated_sum(const std::vector<double>& values) {
  double sum = 0.0, compensation = 0.0;
  for (double v : values) {
    const double t = sum + v;
    if (std::abs(sum) >= std::abs(v))
      compensation += (sum - t) + v;
    else
      compensation += (v - t) + sum;
    sum = t;
  }
  return sum + compensation;
}

std::optional<TableProblem> find_table_problem(const Grid& grid, const std::vector<double>& probabilities,
                                               double tail_mass) {
  try {
    grid.validate();
  } catch (const InputError& e) {
    return TableProblem{std::nullopt, e.what()};
  }
  if (static_cast<int64_t>(probabilities.size()) != grid.size)
    return TableProblem{std::nullopt, fmt::format("grid has {} points but there are {} probabilities", grid.size,
                                                  probabilities.size())};
  for (size_t i = 0; i < probabilities.size(); ++i) {
    const double v = probabilities[i];
    if (!std::isfinite(v)) return TableProblem{static_cast<int64_t>(i), fmt::format("probability {} is not finite", v)};
    if (v < 0.0) return TableProblem{static_cast<int64_t>(i), fmt::format("probability {:.17g} is negative", v)};
  }
  std::vector<double> terms = probabilities;
  if (tail_mass != 0.0) terms.push_back(tail_mass);
  const double total = compensated_sum(terms);
  if (std::abs(total - 1.0) > kTableSumTolerance)
    return TableProblem{std::nullopt,
                        fmt::format("probabilities sum to {:.17g}{}, not 1 (tolerance {:g})", total,
                                    tail_mass != 0.0 ? " with the geometric tails" : "", kTableSumTolerance)};
  return std::nullopt;
}

namespace {

bool is_mirrored(const Grid& grid, const std::vector<double>& p) {
  if (!grid.is_symmetric()) return false;
  const int64_t n = grid.size;
  for (int64_t i = 0; i < n / 2; ++i)
    if (!equal_up_to_rounding(p[static_cast<size_t>(i)], p[static_cast<size_t>(n - 1 - i)])) return false;
  return true;
}

bool has_no_mass_below_zero(const Grid& grid, const std::vector<double>& p) {
  const double below_zero = -kGridRelativeTolerance * grid.step;
  for (int64_t i = 0; i < grid.size; ++i)
    if (p[static_cast<size_t>(i)] > 0.0 && grid.x(i) < below_zero) return false;
  return true;
}

}  // namespace

SupportKind NoiseTable::infer_support_kind(const Grid& grid, const std::vector<double>& p) {
  if (is_mirrored(grid, p)) return SupportKind::kSymmetric;
  if (has_no_mass_below_zero(grid, p)) return SupportKind::kOneSided;
  return SupportKind::kGeneral;
}

namespace {

double geometric_tail_mass(double end_probability, const std::optional<GeometricTails>& tails) {
  if (!tails) return 0.0;
  return end_probability * tails->ratio / (1.0 - tails->ratio);
}

}  // namespace

NoiseTable::NoiseTable(Grid grid, std::vector<double> probabilities, std::optional<SupportKind> kind,
                       TableProvenance provenance, std::optional<GeometricTails> tails)
    : grid_(grid), probabilities_(std::move(probabilities)), provenance_(std::move(provenance)), tails_(tails) {
  if (tails_ && !(tails_->ratio > 0.0 && tails_->ratio < 1.0))
    throw InputError(fmt::format("noise table: geometric tail ratio {:.17g} must be in (0, 1)", tails_->ratio));
  double tail_mass = 0.0;
  if (tails_ && !probabilities_.empty() && std::isfinite(probabilities_.front()) &&
      std::isfinite(probabilities_.back()))
    tail_mass =
        geometric_tail_mass(probabilities_.front(), tails_) + geometric_tail_mass(probabilities_.back(), tails_);
  if (auto problem = find_table_problem(grid_, probabilities_, tail_mass)) {
    if (problem->index)
      throw InputError(fmt::format("noise table entry {} (x = {:.17g}): {}", *problem->index, grid_.x(*problem->index),
                                   problem->message));
    throw InputError(fmt::format("noise table: {}", problem->message));
  }
  if (!kind) {
    kind_ = infer_support_kind(grid_, probabilities_);
    return;
  }
  // A declared kind must be true of the data; "general" is true of every table.
  const bool consistent = *kind == SupportKind::kGeneral ||
                          (*kind == SupportKind::kSymmetric && is_mirrored(grid_, probabilities_)) ||
                          (*kind == SupportKind::kOneSided && has_no_mass_below_zero(grid_, probabilities_));
  if (!consistent)
    throw InputError(fmt::format("noise table is declared {} but its probabilities are {}", to_string(*kind),
                                 to_string(infer_support_kind(grid_, probabilities_))));
  kind_ = *kind;
}

double NoiseTable::left_tail_mass() const { return geometric_tail_mass(probabilities_.front(), tails_); }
double NoiseTable::right_tail_mass() const { return geometric_tail_mass(probabilities_.back(), tails_); }

double NoiseTable::p_extended(int64_t i) const {
  if (i >= 0 && i < grid_.size) return probabilities_[static_cast<size_t>(i)];
  if (!tails_) return 0.0;
  // p_end * r^k with k cells beyond the end; pow of an integer exponent is exact enough (one rounding).
  if (i < 0) return probabilities_.front() * std::pow(tails_->ratio, static_cast<double>(-i));
  return probabilities_.back() * std::pow(tails_->ratio, static_cast<double>(i - (grid_.size - 1)));
}

double NoiseTable::mass_below(int64_t i) const {
  if (i > 0) throw InputError("mass_below: only for indices at or below the first grid point");
  if (!tails_) return 0.0;
  // sum_{j < i} p_0 r^{-j} = p_0 r^{1-i} / (1 - r)
  return probabilities_.front() * std::pow(tails_->ratio, static_cast<double>(1 - i)) / (1.0 - tails_->ratio);
}

double NoiseTable::mass_from(int64_t i) const {
  const int64_t last = grid_.size - 1;
  if (i < last) throw InputError("mass_from: only for indices at or beyond the last grid point");
  if (!tails_) return i == last ? probabilities_.back() : 0.0;
  // sum_{j >= i} p_last r^{j - last} = p_last r^{i - last} / (1 - r)
  return probabilities_.back() * std::pow(tails_->ratio, static_cast<double>(i - last)) / (1.0 - tails_->ratio);
}

bool NoiseTable::is_symmetric_monotone() const {
  if (!is_mirrored(grid_, probabilities_)) return false;
  // Walk from the centre outwards: each step away from 0 must not increase the probability.
  const int64_t n = grid_.size;
  const int64_t centre = n / 2;  // symmetric grids have an odd number of points or straddle 0
  for (int64_t i = centre + 1; i < n; ++i) {
    const double inner = p(i - 1), outer = p(i);
    if (outer > inner && !equal_up_to_rounding(outer, inner)) return false;
  }
  return true;
}

}  // namespace noiselearn
