#pragma once
// `noiselearn lp-optimum` as a library call: the exact single-release optimum (solvers/lp_optimum.hpp) on a grid, in
// either direction of the trade-off, certified by the accountant like every other table and written as one.
//   minimise delta:   the least delta at epsilon under cost <= cost_budget;
//   minimise cost:    the least cost at (epsilon, delta);
//   minimise epsilon: the least epsilon at which the least cost at delta is within cost_budget (bisection over
//                     epsilon, to 1e-6 relative; the table written is the one at the epsilon found).
// The certificate (one release, every difference in [-s, s] both ways) is the guarantee, never the LP's objective:
// the written table is feasible by construction (its cost is within the budget exactly; in the least-cost and
// least-epsilon modes its *certified* delta is at most the target, the LP's delta tightened until it is).
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/certificate.hpp"
#include "core/noise_table.hpp"
#include "solvers/lp_optimum.hpp"

namespace noiselearn {

struct LpOptimumRunOptions {
  double grid_step = 0.0;  // h, x units
  double range = 0.0;      // the grid is [-range, range], or [0, range] when one_sided
  bool one_sided = false;
  double sensitivity = 1.0;                                   // s, x units: a whole number of grid steps
  std::string minimise = "delta";                             // delta | cost | epsilon
  double epsilon = std::numeric_limits<double>::quiet_NaN();  // minimise delta or cost (NaN: not given)
  double delta = 0.0;                                         // minimise cost or epsilon
  double cost_budget = 0.0;                                   // minimise delta or epsilon
  LpCost cost = LpCost::kAbsolute;
  double tail_threshold = 0.0;
  bool symmetric = false, monotone = false;
  AccountantOptions accountant;                                  // of the certificate
  std::vector<double> certificate_epsilons, certificate_deltas;  // extra queries of the certificate
  std::filesystem::path out;  // the table's CSV (its JSON beside it); empty: nothing written
  bool force = false;
};

struct LpOptimumRun {
  NoiseTable table;
  LpOptimum solution;
  double epsilon = 0.0;  // the epsilon of the solution (found by bisection when minimising epsilon)
  int64_t bisection_steps = 0;
  Certificate certificate;
  std::string report() const;  // what lp-optimum prints
};

LpOptimumRun run_lp_optimum(const LpOptimumRunOptions& options);

}  // namespace noiselearn
