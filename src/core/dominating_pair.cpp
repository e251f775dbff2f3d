#include "core/dominating_pair.hpp"

#include <fmt/format.h>

#include <cmath>

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

}  // namespace

DominatingPair additive_shift_pair(const NoiseTable& table, int64_t shift_cells) {
  if (shift_cells < 0) throw InputError("shift must be non-negative");
  DominatingPair pair;
  pair.grid = extended_grid(table.grid(), shift_cells);
  pair.a = padded(table.probabilities(), 0, shift_cells);
  pair.b = padded(table.probabilities(), shift_cells, 0);
  pair.description = fmt::format("additive, shift {} cells ({:g})", shift_cells,
                                 static_cast<double>(shift_cells) * table.grid().step);
  return pair;
}

DominatingPair subsampled_mixture_pair(const NoiseTable& table, int64_t shift_cells, double sampling_rate) {
  if (!(sampling_rate > 0.0 && sampling_rate <= 1.0))
    throw InputError(fmt::format("sampling rate {} must be in (0, 1]", sampling_rate));
  DominatingPair pair = additive_shift_pair(table, shift_cells);
  // B = (1-q) p + q shift_C(p): the mixture of the unshifted and the shifted table.
  for (size_t i = 0; i < pair.b.size(); ++i) pair.b[i] = (1.0 - sampling_rate) * pair.a[i] + sampling_rate * pair.b[i];
  pair.description = fmt::format("subsampled mixture, q = {:g}, shift {} cells ({:g})", sampling_rate, shift_cells,
                                 static_cast<double>(shift_cells) * table.grid().step);
  return pair;
}

ShiftPolicy parse_shift_policy(const std::string& text) {
  if (text == "auto") return ShiftPolicy::kAuto;
  if (text == "single") return ShiftPolicy::kSingle;
  if (text == "all") return ShiftPolicy::kAll;
  throw InputError(fmt::format("unknown shift policy '{}' (valid: auto, single, all)", text));
}

std::string to_string(ShiftPolicy policy) {
  switch (policy) {
    case ShiftPolicy::kAuto: return "auto";
    case ShiftPolicy::kSingle: return "single";
    case ShiftPolicy::kAll: return "all";
  }
  return "?";
}

PairKind parse_pair_kind(const std::string& text) {
  if (text == "additive") return PairKind::kAdditive;
  if (text == "subsampled") return PairKind::kSubsampledMixture;
  throw InputError(fmt::format("unknown pair kind '{}' (valid: additive, subsampled)", text));
}

std::string to_string(PairKind kind) {
  return kind == PairKind::kAdditive ? "additive" : "subsampled";
}

PairFamily make_pair_family(const NoiseTable& table, const PairSpecification& specification) {
  PairFamily family;
  family.kind = specification.kind;
  const int64_t k =
      whole_steps(specification.sensitivity, table.grid().step, fmt::format("sensitivity {:g}", specification.sensitivity));
  if (k == 0) throw InputError("sensitivity must be positive");
  family.sensitivity_cells = k;
  const bool monotone = table.is_symmetric_monotone();
  const bool mixture = specification.kind == PairKind::kSubsampledMixture;
  const std::string theorem = mixture ? "table is symmetric and monotone; Sommer et al. (section 4.4) carry Thm 15 "
                                        "over to the mixture pair by argument, not proof"
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
  const int64_t first = family.single_shift ? k : 1;
  for (int64_t shift = first; shift <= k; ++shift) {
    if (specification.kind == PairKind::kAdditive)
      family.pairs.push_back(additive_shift_pair(table, shift));
    else
      family.pairs.push_back(subsampled_mixture_pair(table, shift, specification.sampling_rate));
  }
  return family;
}

}  // namespace noiselearn
