#pragma once
// Baselines by name, for the CLI and the configs: `noiselearn baseline FAMILY --sigma ...`.
#include <optional>
#include <string>
#include <vector>

#include "core/baselines.hpp"

namespace noiselearn {

// Parameters of a baseline by name; each family takes the ones listed by baseline_parameter_names.
struct BaselineParameters {
  std::optional<double> sigma;
  std::optional<double> scale;
  std::optional<double> epsilon;
  std::optional<double> sensitivity;  // staircase only; the CLI may pass it to every family (pair setting)
  std::optional<double> gamma;        // staircase; default staircase_optimal_gamma_l1(epsilon)
  std::optional<double> range;
  std::optional<double> shift;  // tbl, discrete-tbl, tbg: the bias mu (default: half the grid's end)
  std::optional<double> delta;  // one-sided-optimum: the delta it is built for
};

// The one-sided families (tbl, discrete-tbl, tbg, one-sided-optimum) live on the grid [0, R] (Grid::spanning(0, R, h)),
// the others on [-R, R].
bool is_one_sided_baseline(const std::string& name);

// gaussian, laplace, truncated-gaussian, truncated-laplace, staircase, discrete-gaussian, discrete-laplace,
// uniform, tbl, discrete-tbl, tbg, one-sided-optimum.
std::vector<std::string> baseline_names();
// One line for --help; throws InputError for an unknown name.
std::string baseline_description(const std::string& name);
// The parameter names (config keys, CLI options without "--") family `name` takes; gamma and shift are optional.
std::vector<std::string> baseline_parameter_names(const std::string& name);

// Builds baseline `name` on `grid`. Throws InputError for an unknown name (listing the valid ones), a missing
// parameter ("baseline truncated-gaussian needs --sigma"), a parameter the family does not take (other than
// sensitivity), or an invalid value.
NoiseTable make_baseline(const std::string& name, const Grid& grid, const BaselineParameters& parameters);

}  // namespace noiselearn
