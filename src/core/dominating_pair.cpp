#include "core/dominating_pair.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/directed_rounding.hpp"
#include "core/enum_names.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

Grid extended_grid(const Grid& grid, int64_t shift_cells) {
  return Grid{grid.origin, grid.step, grid.size + shift_cells};
}

std::vector<double> padded(const std::vector<double>& p, int64_t before, int64_t after) {
  std::vector<double> out(static_cast<size_t>(before), 0.0);
  out.insert(out.end(), p.begin(), p.end());
  out.resize(out.size() + static_cast<size_t>(after), 0.0);
  return out;
}

// A pair of a table with geometric tails: A(i) = p(i - u), B(i) = (1 - q) p(i - u) + q p(i - v) for every integer
// i of the extended grid's index space (p(j) from NoiseTable::p_extended), explicit on 0 .. size-1 of `grid`,
// and one outcome per side beyond it. Below index 0 both i - u and i - v lie below the table's first point
// (u, v >= 0), and above the grid both lie beyond its last (grid.size - 1 >= table size - 1 + max(u, v)), so
// there A/B is the constant 1 / ((1 - q) + q r^(v - u)) (below) or 1 / ((1 - q) + q r^(u - v)) (above).
DominatingPair tailed_pair(const NoiseTable& table, const Grid& grid, int64_t u, int64_t v, double q) {
  DominatingPair pair;
  pair.grid = grid;
  pair.a.resize(static_cast<size_t>(grid.size));
  pair.b.resize(static_cast<size_t>(grid.size));
  for (int64_t i = 0; i < grid.size; ++i) {
    const double a = table.p_extended(i - u);
    pair.a[static_cast<size_t>(i)] = a;
    pair.b[static_cast<size_t>(i)] = q == 1.0 ? table.p_extended(i - v) : (1.0 - q) * a + q * table.p_extended(i - v);
  }
  const int64_t above = grid.size;  // first index beyond the grid
  const double a_below = table.mass_below(-u), a_above = table.mass_from(above - u);
  const double shifted_below = table.mass_below(-v), shifted_above = table.mass_from(above - v);
  pair.a_beyond = {a_below, a_above};
  pair.b_beyond = {q == 1.0 ? shifted_below : (1.0 - q) * a_below + q * shifted_below,
                   q == 1.0 ? shifted_above : (1.0 - q) * a_above + q * shifted_above};
  return pair;
}

}  // namespace

std::vector<double> DominatingPair::all_a() const {
  std::vector<double> out = a;
  out.insert(out.end(), a_beyond.begin(), a_beyond.end());
  return out;
}

std::vector<double> DominatingPair::all_b() const {
  std::vector<double> out = b;
  out.insert(out.end(), b_beyond.begin(), b_beyond.end());
  return out;
}

DominatingPair additive_shift_pair(const NoiseTable& table, int64_t shift_cells) {
  if (shift_cells < 0) throw InputError("shift must be non-negative");
  if (table.tails()) {
    DominatingPair pair = tailed_pair(table, extended_grid(table.grid(), shift_cells), 0, shift_cells, 1.0);
    pair.description = fmt::format("additive, shift {} cells ({:g}), geometric tails", shift_cells,
                                   static_cast<double>(shift_cells) * table.grid().step);
    return pair;
  }
  DominatingPair pair;
  pair.grid = extended_grid(table.grid(), shift_cells);
  pair.a = padded(table.probabilities(), 0, shift_cells);
  pair.b = padded(table.probabilities(), shift_cells, 0);
  pair.description =
      fmt::format("additive, shift {} cells ({:g})", shift_cells, static_cast<double>(shift_cells) * table.grid().step);
  return pair;
}

DominatingPair subsampled_mixture_pair(const NoiseTable& table, int64_t shift_cells, double sampling_rate) {
  if (!(sampling_rate > 0.0 && sampling_rate <= 1.0))
    throw InputError(fmt::format("sampling rate {} must be in (0, 1]", sampling_rate));
  const int64_t magnitude = shift_cells < 0 ? -shift_cells : shift_cells;
  const Grid grid{table.grid().origin - (shift_cells < 0 ? static_cast<double>(magnitude) * table.grid().step : 0.0),
                  table.grid().step, table.grid().size + magnitude};
  if (table.tails()) {
    // In the extended grid's indices the unshifted table starts at `magnitude` for a shift down, the shifted
    // copy at `magnitude` for a shift up.
    DominatingPair pair =
        tailed_pair(table, grid, shift_cells < 0 ? magnitude : 0, shift_cells < 0 ? 0 : magnitude, sampling_rate);
    pair.description = fmt::format("subsampled mixture, q = {:g}, shift {} cells ({:g}), geometric tails",
                                   sampling_rate, shift_cells, static_cast<double>(shift_cells) * table.grid().step);
    return pair;
  }
  DominatingPair pair;
  pair.grid = grid;
  // A = p on the extended support; the shifted copy sits `magnitude` cells above (or below) it.
  const int64_t a_offset = shift_cells < 0 ? magnitude : 0, shifted_offset = shift_cells < 0 ? 0 : magnitude;
  pair.a = padded(table.probabilities(), a_offset, magnitude - a_offset);
  const std::vector<double> shifted = padded(table.probabilities(), shifted_offset, magnitude - shifted_offset);
  // B = (1-q) p + q shift_C(p): the mixture of the unshifted and the shifted table.
  pair.b.resize(pair.a.size());
  for (size_t i = 0; i < pair.b.size(); ++i) pair.b[i] = (1.0 - sampling_rate) * pair.a[i] + sampling_rate * shifted[i];
  pair.description = fmt::format("subsampled mixture, q = {:g}, shift {} cells ({:g})", sampling_rate, shift_cells,
                                 static_cast<double>(shift_cells) * table.grid().step);
  return pair;
}

constexpr NameTable<ShiftPolicy, 3> kShiftPolicies{
    {{ShiftPolicy::kAuto, "auto"}, {ShiftPolicy::kSingle, "single"}, {ShiftPolicy::kAll, "all"}}};
constexpr NameTable<PairKind, 2> kPairKinds{
    {{PairKind::kAdditive, "additive"}, {PairKind::kSubsampledMixture, "subsampled"}}};

ShiftPolicy parse_shift_policy(const std::string& text) { return parse_named(kShiftPolicies, text, "shift policy"); }

std::string to_string(ShiftPolicy policy) { return std::string(name_of(kShiftPolicies, policy)); }

PairKind parse_pair_kind(const std::string& text) { return parse_named(kPairKinds, text, "pair kind"); }

std::string to_string(PairKind kind) { return std::string(name_of(kPairKinds, kind)); }

namespace {

// p(c + x) == p(c - x) bit for bit on a grid symmetric about its centre c: shifting up or down, and the two
// directions of a shift pair, give the same privacy-loss distribution.
bool is_mirror_symmetric(const NoiseTable& table) {
  const auto& p = table.probabilities();
  const size_t n = p.size();
  for (size_t i = 0; i < n / 2; ++i)
    if (p[i] != p[n - 1 - i]) return false;
  return true;
}

// p non-increasing away from the centre, exactly: the proof that one shift suffices (src/accounting/README.md, "Why one
// shift suffices") needs the numbers as stored to be ordered; NoiseTable::is_symmetric_monotone forgives a rise of a
// few ulps, which the proof does not cover.
bool is_exactly_monotone_from_centre(const NoiseTable& table) {
  const auto& p = table.probabilities();
  const size_t n = p.size();
  for (size_t i = n / 2 + 1; i < n; ++i)
    if (p[i] > p[i - 1]) return false;
  for (size_t i = (n - 1) / 2; i-- > 0;)
    if (p[i] > p[i + 1]) return false;
  return true;
}

// The copy of a table symmetric (and, when it is monotone up to rounding, monotone) up to rounding that is so exactly:
// mirrored pairs averaged, then running minima outwards from the centre; and the L1 distance to it, rounded up. None
// when the table is exactly so already, is not within rounding of it, has geometric tails or an asymmetric grid.
struct RoundingSymmetricCopy {
  NoiseTable table;
  double tv = 0.0;  // sup_E |P(E) - P'(E)| <= (L1 + |sum p - sum p'|) / 2, rounded up
  bool monotone = false;
};

// Within rounding: a few ulps relative, or a few ulps of 1 absolute (a probability written as a difference of CDF
// values near 1, as other tools write a Gaussian, carries an absolute error of that size however small it is).
bool within_rounding(double a, double b) {
  constexpr double slack = roundings(8.0);
  return std::abs(a - b) <= slack * std::max(std::abs(a), std::abs(b)) + slack;
}

std::optional<RoundingSymmetricCopy> rounding_symmetric_copy(const NoiseTable& table, bool mirror_symmetric,
                                                             bool monotone) {
  if (table.tails() || !table.grid().is_symmetric()) return std::nullopt;
  const std::vector<double>& p = table.probabilities();
  const size_t n = p.size();
  for (size_t i = 0; i < n - 1 - i; ++i)
    if (!within_rounding(p[i], p[n - 1 - i])) return std::nullopt;
  std::vector<double> q = p;
  for (size_t i = 0; i < n - 1 - i; ++i) q[i] = q[n - 1 - i] = 0.5 * (q[i] + q[n - 1 - i]);
  const size_t centre = n / 2;
  bool near_monotone = true;
  for (size_t i = centre + 1; i < n && near_monotone; ++i)
    near_monotone = q[i] <= q[i - 1] || within_rounding(q[i], q[i - 1]);
  if (mirror_symmetric && (monotone || !near_monotone)) return std::nullopt;  // nothing to gain
  if (near_monotone) {
    for (size_t i = centre + 1; i < n; ++i) q[i] = std::min(q[i], q[i - 1]);
    for (size_t i = centre; i-- > 0;) q[i] = std::min(q[i], q[i + 1]);
  }
  // sup_E (P(E) - P'(E)) = sum (p - p')_+ = (L1 + sum p - sum p') / 2. |p - q| of two doubles this close is exact in
  // long double; the sums' rounding is covered by the relative margin.
  long double l1 = 0.0L, difference = 0.0L;
  for (size_t i = 0; i < n; ++i) {
    const long double d = static_cast<long double>(p[i]) - static_cast<long double>(q[i]);
    l1 += std::fabs(d);
    difference += d;
  }
  if (l1 == 0.0L) return std::nullopt;
  try {
    NoiseTable copy(table.grid(), std::move(q), SupportKind::kSymmetric, table.provenance());
    const long double tv = 0.5L * (l1 + std::fabs(difference)) * (1.0L + 1e-9L);
    return RoundingSymmetricCopy{std::move(copy), static_cast<double>(tv), near_monotone};
  } catch (const InputError&) {
    return std::nullopt;  // the copy's sum left the table tolerance: account the table itself
  }
}

}  // namespace

PairFamily make_pair_family(const NoiseTable& table, const PairSpecification& specification) {
  PairFamily family;
  family.kind = specification.kind;
  family.neighbours = specification.neighbours;
  const int64_t k = whole_steps(specification.sensitivity, table.grid().step,
                                fmt::format("sensitivity {:g}", specification.sensitivity));
  if (k == 0) throw InputError("sensitivity must be positive");
  if (k >= table.grid().size && !table.tails())
    throw InputError(
        fmt::format("sensitivity {:g} ({} grid cells) is not smaller than the table's support ({} points): "
                    "every output would be a distinguishing event; widen the grid",
                    specification.sensitivity, k, table.grid().size));
  family.sensitivity_cells = k;
  family.mirror_symmetric = is_mirror_symmetric(table);
  const bool monotone =
      family.mirror_symmetric && table.is_symmetric_monotone() && is_exactly_monotone_from_centre(table);
  // Symmetry (or monotonicity) broken by rounding alone costs every shift and both signs: the exact copy's family goes
  // with this one, for the accountant to use where the difference costs nothing measurable (only where the policy
  // is ours to choose).
  if (specification.shifts == ShiftPolicy::kAuto)
    if (auto copy = rounding_symmetric_copy(table, family.mirror_symmetric, monotone)) {
      PairFamily copied = make_pair_family(copy->table, specification);
      copied.substitution_tv = copy->tv;
      copied.justification += fmt::format(
          "; table symmetric{} up to rounding: its exactly symmetric{} copy accounted, the difference paid for "
          "(total variation {:.3g} per release: (1 + e^eps) n x {:.3g} added to every upper delta, subtracted from "
          "every "
          "lower one)",
          copy->monotone ? " and monotone" : "", copy->monotone ? ", monotone" : "", copy->tv, copy->tv);
      family.rounding_symmetric_copy = std::make_shared<const PairFamily>(std::move(copied));
    }
  const bool mixture = specification.kind == PairKind::kSubsampledMixture;
  if (mixture && specification.neighbours == NeighbourRelation::kSameDirection)
    throw InputError(
        "neighbours 'same-direction' applies to additive pairs only (a subsampled pair already fixes "
        "the direction: the same record is added or removed in every release)");
  // The proof for both pairs, and for adaptive composition: src/accounting/README.md, "Why one shift suffices".
  const std::string theorem = mixture ? "table is symmetric and monotone: Sommer et al., Thm 15, carried to the "
                                        "mixture pair by post-processing (src/accounting/README.md)"
                                      : "table is symmetric and monotone: Sommer et al., Thm 15";
  switch (specification.shifts) {
    case ShiftPolicy::kSingle:
      family.single_shift = true;
      family.justification = monotone ? fmt::format("single shift ({})", theorem)
                                      : "single shift as requested (table is NOT symmetric-monotone: the "
                                        "guarantee covers query differences of exactly the sensitivity only)";
      break;
    case ShiftPolicy::kAll:
      family.single_shift = false;
      family.justification = fmt::format("every shift 1..{} cells (as requested)", k);
      break;
    case ShiftPolicy::kAuto:
      family.single_shift = monotone || k == 1;
      family.justification =
          monotone ? fmt::format("single shift ({})", theorem)
          : k == 1 ? "single shift (the sensitivity is one grid cell: Sommer et al., Lemma 14)"
                   : fmt::format("every shift 1..{} cells (table is not symmetric-monotone, Thm 15 does not apply)", k);
      break;
  }
  if (!family.mirror_symmetric) {
    family.justification += specification.neighbours == NeighbourRelation::kAnySequence
                                ? "; table not symmetric: each release's difference may point up or down"
                                : "; table not symmetric: all-up and all-down compositions, the worse of the two";
  }
  const int64_t first = family.single_shift ? k : 1;
  for (int64_t shift = first; shift <= k; ++shift) {
    if (specification.kind == PairKind::kAdditive) {
      // Shifts down need no pair of their own: A||B of a shift down by j is B||A of the shift up by j.
      family.pairs.push_back(additive_shift_pair(table, shift));
    } else {
      family.pairs.push_back(subsampled_mixture_pair(table, shift, specification.sampling_rate));
      // The clipped contribution may point either way; for an asymmetric table that is a different pair.
      if (!family.mirror_symmetric)
        family.pairs.push_back(subsampled_mixture_pair(table, -shift, specification.sampling_rate));
    }
  }
  return family;
}

}  // namespace noiselearn
