#pragma once
// The YAML configurations of the exact solvers of Xiao et al. (`noiselearn maxl`, `noiselearn pac`), with the
// same schema machinery as training (io/config_schema.hpp): unknown keys, bad values and repeats are refused
// naming the key; `--set`; a resolved config.yaml; the README tables from `noiselearn config-keys maxl|pac`.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/config_schema.hpp"

namespace noiselearn {

// Maximal Leakage (section 5): the problem (states, start states, prior, cost), the budget v and the cost curve.
struct MaximalLeakageConfig {
  int64_t problem_states = 7;
  int64_t problem_first_state = 1;
  std::vector<double> problem_start_states;  // empty: F(X_i) = i, one input per state
  std::vector<double> problem_prior;         // empty: uniform
  double problem_prior_denominator = 1.0;
  std::string problem_cost = "j";
  std::string problem_cost_matrix;
  double leakage_budget = 3.0;
  double curve_budget_max = 0.0;
  double curve_budget_step = 0.25;
  double solver_tie_tolerance = 1e-12;
  bool output_plots = true;

  using Key = ConfigKey<MaximalLeakageConfig>;
  static const std::vector<Key>& schema();
  static MaximalLeakageConfig load(const std::filesystem::path& path, const std::vector<std::string>& overrides = {});
  static MaximalLeakageConfig parse(const std::string& yaml_text, const std::string& source,
                                    const std::vector<std::string>& overrides = {},
                                    const std::filesystem::path& base_directory = {});
  void validate() const;
  std::string to_yaml() const;
  static std::string markdown_reference();
};

// PAC privacy (section 6): sigma_Y^2, R, B, the noise table's grid and the MI-against-B curve.
struct PacPrivacyConfig {
  double pac_output_variance = 20.6;
  double pac_range = 20.0;
  double pac_budget = 100.0;
  std::string pac_units = "nats";
  double table_step = 0.01;
  double curve_budget_max = 0.0;
  int64_t curve_points = 60;
  int64_t solver_sigma_scan_points = 97;
  double solver_sigma_tolerance = 1e-11;
  double solver_mu_tolerance = 1e-13;
  bool output_plots = true;

  using Key = ConfigKey<PacPrivacyConfig>;
  static const std::vector<Key>& schema();
  static PacPrivacyConfig load(const std::filesystem::path& path, const std::vector<std::string>& overrides = {});
  static PacPrivacyConfig parse(const std::string& yaml_text, const std::string& source,
                                const std::vector<std::string>& overrides = {},
                                const std::filesystem::path& base_directory = {});
  void validate() const;
  std::string to_yaml() const;
  static std::string markdown_reference();
};

}  // namespace noiselearn
