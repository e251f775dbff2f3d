#pragma once
// A noise table: a probability vector on a uniform grid (the one idea that holds noiselearn together).
//
// Everything in noiselearn produces, transforms, scores or consumes noise tables. A table is always valid:
// the constructor checks that every probability is finite and non-negative, that they sum to 1 within
// kTableSumTolerance, that the grid is consistent, and that the declared support kind matches the data.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/grid.hpp"

namespace noiselearn {

inline constexpr double kTableSumTolerance = 1e-12;

enum class SupportKind {
  kSymmetric,  // two-sided, symmetric around 0: p(x) = p(-x)
  kGeneral,    // two-sided, any shape
  kOneSided,   // all mass on x >= 0 (dummies, delays)
};

std::string to_string(SupportKind kind);
// Parses "symmetric", "general", "one-sided"; throws InputError otherwise.
SupportKind parse_support_kind(const std::string& text);

// Where a table came from: "baseline gaussian", "train", "csv import", with the parameters that made it.
struct TableProvenance {
  std::string source;
  std::map<std::string, double> parameters;
  std::string note;
};

// The first problem found in a candidate table. `index` is the grid index of the offending entry, or
// nullopt for a problem of the table as a whole (e.g. the sum). Readers map the index to a file line.
struct TableProblem {
  std::optional<int64_t> index;
  std::string message;
};

// `tail_mass` is the mass outside the grid (geometric tails), which the sum check counts.
std::optional<TableProblem> find_table_problem(const Grid& grid, const std::vector<double>& probabilities,
                                               double tail_mass = 0.0);

// Sum with Neumaier compensation; tables have up to millions of entries of very different magnitude.
double compensated_sum(const std::vector<double>& values);

// Geometric tails (Gilani et al., Defs 3.3 and 3.4): beyond each end of the grid the table continues with the
// same step as p_end * ratio^k, k = 1, 2, ... The table then has infinite support; its tail masses
// p_end * ratio / (1 - ratio) count in the sum to 1, and the accountant treats the tails exactly (constant
// privacy loss there), never as mass to throw away.
struct GeometricTails {
  double ratio = 0.0;  // in (0, 1)
};

class NoiseTable {
 public:
  // Validates (throws InputError). If `kind` is nullopt the support kind is inferred.
  NoiseTable(Grid grid, std::vector<double> probabilities, std::optional<SupportKind> kind = std::nullopt,
             TableProvenance provenance = {}, std::optional<GeometricTails> tails = std::nullopt);

  const Grid& grid() const { return grid_; }
  int64_t size() const { return grid_.size; }
  double x(int64_t i) const { return grid_.x(i); }
  double p(int64_t i) const { return probabilities_[static_cast<size_t>(i)]; }
  const std::vector<double>& probabilities() const { return probabilities_; }
  SupportKind support_kind() const { return kind_; }
  const TableProvenance& provenance() const { return provenance_; }
  TableProvenance& provenance() { return provenance_; }
  const std::optional<GeometricTails>& tails() const { return tails_; }
  // Mass beyond the first (last) grid point: p_0 r / (1 - r) (p_last r / (1 - r)); 0 without tails.
  double left_tail_mass() const;
  double right_tail_mass() const;
  // p at grid index i, for any integer i: the table inside the grid, the geometric tails outside (0 without).
  double p_extended(int64_t i) const;
  // Sum of p over the indices below i (i <= 0) or from i on (i >= size - 1), in closed form.
  double mass_below(int64_t i) const;
  double mass_from(int64_t i) const;

  // The support kind the data shows: symmetric if the grid and the probabilities are mirror images,
  // one-sided if no mass lies below 0, general otherwise.
  static SupportKind infer_support_kind(const Grid& grid, const std::vector<double>& probabilities);

  // Symmetric around 0 and non-increasing away from 0 (the hypothesis of Sommer et al., Thm 15).
  bool is_symmetric_monotone() const;

 private:
  Grid grid_;
  std::vector<double> probabilities_;
  SupportKind kind_;
  TableProvenance provenance_;
  std::optional<GeometricTails> tails_;
};

// Two probabilities equal up to floating-point rounding of the computation that produced them
// (4 units in the last place, relative).
bool equal_up_to_rounding(double a, double b);

}  // namespace noiselearn
