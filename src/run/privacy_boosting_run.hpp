#pragma once
// `noiselearn boost` as a library call: the privacy-boosting mechanism of Jiang et al. for a utility constraint "the
// answer lands in S(Q) with probability at least rho", certified exactly (accounting/privacy_boosting_accountant.hpp:
// every answer pair on the query lattice, envelope, n-fold composition), beside the Gaussian mechanism that meets the
// same constraint and the paper's own heuristic value (Theorem 1 / Proposition 1, labelled as such: it is not a
// guarantee). scale = 0 calibrates the kernel scale to the least certified epsilon.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accounting/accountant_options.hpp"
#include "solvers/privacy_boosting_calibration.hpp"

namespace noiselearn {

// Every field is the `boost` option of the same name (src/cli/README.md); x units are the query's. The accountant's and
// the calibration's defaults are theirs (AccountantOptions, BoostingCalibrationOptions).
struct PrivacyBoostingRunOptions {
  std::string kernel = "gaussian";
  double scale = 0.0;
  std::string region = "interval";
  double tau = 10.0;
  double theta = 0.1;
  double lower = -10.0;
  double upper = 10.0;
  double rho = 0.9;
  double sensitivity = 1.0;
  double query_step = 1.0;
  int64_t compositions = 1;
  std::vector<double> deltas;  // empty: the calibration's delta
  std::vector<double> epsilons;
  double loss_step = AccountantOptions{}.loss_step;
  double max_scale_factor = BoostingCalibrationOptions{}.max_scale_factor;
};

struct PrivacyBoostingRun {
  nlohmann::json report;  // what --json prints and --out writes
  std::string text;       // what boost prints
};

// InputError naming the option for bad input.
PrivacyBoostingRun run_privacy_boosting(const PrivacyBoostingRunOptions& options);

}  // namespace noiselearn
