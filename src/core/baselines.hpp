#pragma once
// Baselines: the textbook noise distributions as noise tables on a given grid.
//
// Continuous laws are discretised by bin masses: grid point x_i receives the mass the law puts on its cell
// [x_i - h/2, x_i + h/2), h the grid step. Discrete laws (discrete Gaussian, discrete Laplace, uniform) put
// their probability mass function on the grid points themselves. Every table is normalised over the grid,
// so a finite grid always truncates; the continuous families record the mass that fell outside the kept cells
// in provenance.parameters["dropped_tail_mass"].
//
// Numerics (Gilani et al. erratum E-Gilani-4, experiments/errata.md: naive differences of the normal CDF
// underflow to 0 beyond about 8 sigma):
// every bin mass is computed as a logarithm, the table is normalised with a log-sum-exp, and only then
// exponentiated. A mass therefore keeps its relative precision down to the smallest normal float64 (the cell
// at 30 sigma holds its correct ~1e-198, not 0): the relative error is a few ulps of its log-mass (about
// 1e-13 at log-mass -450), the conditioning of exp itself. Masses below ~2.2e-308 lose precision (subnormal
// numbers) and masses below ~4.9e-324 become 0 only because float64 cannot hold them; such a 0 is then a true
// property of the stored table (an accountant sees it as a distinguishing event).
//
// Symmetric families on a symmetric grid are computed for one half and mirrored, so that the table is an exact
// mirror image (SupportKind::kSymmetric) and, where the law is unimodal, passes is_symmetric_monotone().
#include <optional>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

// ---- Continuous families: bin masses ----

// Normal(0, sigma^2) on the cells of the grid.
NoiseTable gaussian_table(const Grid& grid, double sigma);
// Laplace(0, scale): density exp(-|x|/scale) / (2 scale).
NoiseTable laplace_table(const Grid& grid, double scale);

// Symmetric truncation to [-range, range]: the cells whose grid point has |x_i| <= range (within
// 1e-9 * step) keep their full bin mass, the others get 0, and the table is renormalised. The outermost kept
// cells extend half a step beyond range, so the table discretises the law truncated to
// [-range - h/2, range + h/2]. range must be a positive whole number of grid steps.
NoiseTable truncated_gaussian_table(const Grid& grid, double sigma, double range);
NoiseTable truncated_laplace_table(const Grid& grid, double scale, double range);

// The staircase mechanism of Geng, Kairouz, Oh, Viswanath (2015) for sensitivity D = `sensitivity`,
// b = e^{-epsilon}: density a * b^k on |x| in [k D, (k + gamma) D) and a * b^{k+1} on [(k + gamma) D, (k+1) D),
// a = (1 - b) / (2 D (gamma + (1 - gamma) b)). Bin masses are exact integrals of the piecewise-constant density;
// it is truncated to [-range, range] like the truncated families above and renormalised.
// The sensitivity must be a positive whole number of grid steps (src/README.md, numerical rules): then cell masses
// one sensitivity apart on the positive side have the ratio e^{-epsilon} exactly, as in the continuous law.
// gamma must lie in [0, 1].
NoiseTable staircase_table(const Grid& grid, double epsilon, double sensitivity, double gamma, double range);
// gamma* = 1 / (1 + e^{epsilon/2}), the gamma minimising E|x| (Geng et al., L1 cost); the minimum is
// E|x| = D e^{epsilon/2} / (e^epsilon - 1).
double staircase_optimal_gamma_l1(double epsilon);

// ---- Discrete families: probability mass on the grid points ----

// Discrete Gaussian (Canonne, Kamath, Steinke 2020): p(x_i) proportional to exp(-x_i^2 / (2 sigma^2)).
NoiseTable discrete_gaussian_table(const Grid& grid, double sigma);
// Discrete Laplace: p(x_i) proportional to exp(-|x_i| / scale).
NoiseTable discrete_laplace_table(const Grid& grid, double scale);
// Equal mass on the grid points with |x_i| <= range (within 1e-9 * step); range must be a positive whole
// number of grid steps, as for the truncated families.
NoiseTable uniform_table(const Grid& grid, double range);

// ---- Log cell masses (exposed for the families built on bins, and for tests) ----

// log Pr[X in [centre - width/2, centre + width/2)] for X ~ Normal(0, sigma^2). Narrow cells
// (width (1 + |centre|) <= sigma / 2) use the Taylor series of Phi around the centre (Hermite polynomials),
// wider ones log_normal_interval (or erf for a cell holding 0). The log-mass is accurate to a few ulps, where a
// difference of two CDF values near 1/2 would lose a factor sigma / width (log_normal_interval does, near 0).
double log_gaussian_cell_mass(double centre, double width, double sigma);
// The same for Laplace(0, scale), from the analytic log-CDF / log-survival function.
double log_laplace_cell_mass(double centre, double width, double scale);

// The staircase law of Geng et al., with the density's breakpoints at |x| = (j + gamma) D, j >= 0.
struct StaircaseLaw {
  double epsilon = 1.0;
  double sensitivity = 1.0;  // D
  double gamma = 0.5;

  // Throws InputError unless epsilon, sensitivity > 0 are finite and gamma is in [0, 1].
  void validate() const;
  // log of the density at x: log a - j epsilon, j = 0 on |x| < gamma D, j = floor((|x| - gamma D)/D) + 1 beyond.
  double log_density(double x) const;
  // log Pr[X >= x] for any x (exact piecewise-linear CDF; never a difference of two values close to 1).
  double log_survival(double x) const;
  // log Pr[X in [centre - width/2, centre + width/2)]: density times overlap length for each constant piece
  // the cell meets, so cells inside one piece have bit-identical masses (and a cell one period D further out
  // on the same side has exactly e^{-epsilon} times the mass). A cell meeting more than 16 breakpoints
  // (width > ~8 D) falls back to a difference of log_survival values.
  double log_cell_mass(double centre, double width) const;
};

}  // namespace noiselearn
