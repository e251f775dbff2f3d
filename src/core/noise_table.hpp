#pragma once
// A noise table: a probability vector on a uniform grid (DESIGN.md, "the one idea that holds it together").
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

std::optional<TableProblem> find_table_problem(const Grid& grid, const std::vector<double>& probabilities);

// Sum with Neumaier compensation; tables have up to millions of entries of very different magnitude.
double compensated_sum(const std::vector<double>& values);

class NoiseTable {
 public:
  // Validates (throws InputError). If `kind` is nullopt the support kind is inferred.
  NoiseTable(Grid grid, std::vector<double> probabilities, std::optional<SupportKind> kind = std::nullopt,
             TableProvenance provenance = {});

  const Grid& grid() const { return grid_; }
  int64_t size() const { return grid_.size; }
  double x(int64_t i) const { return grid_.x(i); }
  double p(int64_t i) const { return probabilities_[static_cast<size_t>(i)]; }
  const std::vector<double>& probabilities() const { return probabilities_; }
  SupportKind support_kind() const { return kind_; }
  const TableProvenance& provenance() const { return provenance_; }
  TableProvenance& provenance() { return provenance_; }

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
};

// Two probabilities equal up to floating-point rounding of the computation that produced them
// (4 units in the last place, relative).
bool equal_up_to_rounding(double a, double b);

}  // namespace noiselearn
