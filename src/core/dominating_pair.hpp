#pragma once
// Dominating pairs (A, B): the output distributions of a mechanism on the worst pair of neighbouring inputs
// (Sommer et al., section 2.1.1 and eq. 5). Privacy is a property of the pair in both directions, A||B and
// B||A; the accountant always evaluates both.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/neighbour_relation.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

struct DominatingPair {
  Grid grid;              // common (extended) support of A and B
  std::vector<double> a;  // output distribution on D0
  std::vector<double> b;  // output distribution on D1
  std::string description;
  // Outcomes beyond the grid, for tables with geometric tails: {below the grid, above it}, each with its A- and
  // B-mass. Inside each the privacy loss ln(A/B) is one constant, so one outcome per side loses nothing (the
  // outcomes of equal loss merged: a sufficient statistic). Empty for finite tables.
  std::vector<double> a_beyond;
  std::vector<double> b_beyond;
  // A and B over every outcome, the grid's then the ones beyond it (for accountants that only need the list).
  std::vector<double> all_a() const;
  std::vector<double> all_b() const;
};

// Additive noise with a query difference of `shift_cells` grid cells: A = p, B = p shifted up by k cells,
// both on the extended support [origin, last + k*step].
DominatingPair additive_shift_pair(const NoiseTable& table, int64_t shift_cells);

// DP-SGD subsampled mixture (Sommer et al., eq. 5): A = p, B = (1 - q) p + q shift_C(p), C = k cells. A negative
// shift_cells shifts down (the clipped contribution of the added record points the other way).
DominatingPair subsampled_mixture_pair(const NoiseTable& table, int64_t shift_cells, double sampling_rate);

// Which query differences must be checked for a sensitivity of k cells.
enum class ShiftPolicy {
  kAuto,    // single shift if the table is symmetric and monotone (Thm 15), every shift otherwise
  kSingle,  // the maximal shift k only (the caller asserts Thm 15 applies)
  kAll,     // every shift 1..k; the guarantee is the worst of them
};
ShiftPolicy parse_shift_policy(const std::string& text);
std::string to_string(ShiftPolicy policy);

// Which sequences of neighbouring inputs a certificate covers: NeighbourRelation (core/neighbour_relation.hpp).

enum class PairKind { kAdditive, kSubsampledMixture };
PairKind parse_pair_kind(const std::string& text);
std::string to_string(PairKind kind);

struct PairSpecification {
  PairKind kind = PairKind::kAdditive;
  double sensitivity = 1.0;    // in units of x; must be a whole number of grid steps
  double sampling_rate = 1.0;  // q, for the subsampled mixture
  ShiftPolicy shifts = ShiftPolicy::kAuto;
  NeighbourRelation neighbours = NeighbourRelation::kAnySequence;
};

// The pairs whose worst case is the guarantee, and why these (which theorem, or "every shift").
struct PairFamily {
  PairKind kind = PairKind::kAdditive;
  std::vector<DominatingPair> pairs;
  int64_t sensitivity_cells = 0;
  bool single_shift = true;
  std::string justification;
  // The table is its own mirror image (p(c + x) = p(c - x) bit for bit): shifts up and down are equivalent and
  // A||B has the same privacy-loss distribution as B||A.
  bool mirror_symmetric = false;
  NeighbourRelation neighbours = NeighbourRelation::kAnySequence;
  // A table symmetric (and monotone) only up to rounding (a few ulps: a Gaussian written by another tool) has an
  // exactly symmetric (and monotone) copy, whose family this is: one shift and one sign instead of every shift and both
  // signs. The accountant may account the copy in the table's place where that costs the queries nothing measurable,
  // paying for the difference (substitution_tv below). Null when there is no such copy.
  std::shared_ptr<const PairFamily> rounding_symmetric_copy = nullptr;
  // In the copy's family: a bound on sup_E |P(E) - P'(E)| between one release of the table and of the copy (each side
  // of each pair), rounded up. After n releases the hockey-stick divergence of the table's pairs is within (1 + e^eps)
  // n substitution_tv of the copy's (src/accounting/README.md, "Tables symmetric up to rounding"). 0 for a table's own
  // family.
  double substitution_tv = 0.0;
};

// Builds the pairs for a table and a specification. Throws InputError if the sensitivity is not a whole
// number of grid steps or the sampling rate is outside (0, 1].
PairFamily make_pair_family(const NoiseTable& table, const PairSpecification& specification);

}  // namespace noiselearn
