#pragma once
// One-sided bounded noise baselines of Xiao et al. (CCS 2025; sections 3-4, appendix B), exact and on the grid:
// noise e >= 0 (dummy messages, padding, delays), so that F(X) + e never reveals less than F(X). A shift of the
// query by the sensitivity s moves mass out of [0, s) or into (R, R + s]: those outcomes distinguish the
// neighbours, and their mass is the delta no one-sided noise can avoid (the paper's remark (1)).
//
// Errata followed (experiments/errata.md, E-Xiao-1 and E-Xiao-2): the turning point of Thm 1 is
// omega = ceil(omega_real) (the printed Tables 1-2 round down, which makes c > 1 and the noise not
// (epsilon, delta)-DP); the TBL rows of the tables use the exact minimal shift mu* with E[e^2] approximated by
// mu^2 + lambda^2, while we give the exact moments; Lemma 1's condition overshoots mu*.
#include <cstdint>
#include <vector>

#include "core/grid.hpp"
#include "core/noise_table.hpp"

namespace noiselearn {

// ---- The single-release optimum (Thm 1, eq. 16-17; appendix B for omega' and c) ----
// For sensitivity 1 on the integers: p_i = delta e^(epsilon i) for i < omega, and delta c e^(epsilon (2 omega - i))
// for omega <= i <= omega'. omega = ceil(omega_real), omega_real = (1/epsilon) ln(2 / (e^eps + 1) +
// (e^eps - 1) / (delta (e^eps + 1))) (eq. 17); c(omega) = (e^eps - 1 - (e^(eps omega) - 1) delta) /
// ((e^(eps (omega + 1)) - 1) delta) normalises with omega' = 2 omega if c(omega) >= e^(-2 eps); otherwise omega' =
// 2 omega - 1 and c = (e^eps - 1 - (e^(eps omega) - 1) delta) / ((e^(eps (omega + 1)) - e^eps) delta). Neighbouring
// probabilities then differ by at most e^eps everywhere except at i = 0 (p_0 = delta, which the shifted noise
// cannot produce) and i = omega' (p_omega' <= delta): it is (epsilon, delta)-DP, and among one-sided noises it
// minimises every moment E[e^k] (Thm 1).
struct SingleReleaseOptimum {
  double epsilon = 0.0, delta = 0.0;
  double omega_real = 0.0;
  int64_t omega = 0;
  int64_t omega_prime = 0;
  double c = 0.0;
  std::vector<double> probabilities;  // p_0 .. p_omega'
  NoiseTable table() const;           // on the integers 0 .. omega' (step 1), one-sided
};
// InputError unless epsilon > 0, 0 < delta < 1 are finite and the construction is valid (omega >= 1).
SingleReleaseOptimum single_release_optimum(double epsilon, double delta);
// The same construction with a given turning point omega (the paper's printed tables use floor(omega_real)). No
// check that c <= 1: that is what the test of the erratum looks at. InputError if omega < 1 or c <= 0.
SingleReleaseOptimum single_release_optimum_at(double epsilon, double delta, int64_t omega);

// ---- Truncated biased Laplace (TBL, Def. 4, eq. 10) ----
// Density proportional to exp(-|z - mu| / lambda) on [0, range].
struct TruncatedBiasedLaplace {
  double mu = 0.0, lambda = 1.0, range = 0.0;
  void validate() const;              // InputError unless lambda > 0, 0 <= mu <= range, range > 0, all finite
  double normaliser() const;          // Z = int_0^range exp(-|z - mu| / lambda) dz
  double mass_below(double x) const;  // Pr[e < x], closed form
  double mean() const;                // exact
  double second_moment() const;       // exact E[e^2]
  // Pr[e < s] and Pr[e > range - s]: the distinguishing masses of a shift by s (the delta of one release when
  // lambda <= s / epsilon, since inside the ratio of densities one s apart is at most e^(s / lambda)).
  double distinguishing_mass(double s) const;
  // Bin masses on the grid 0, h, .., range: grid point x_i takes the mass of the density on [x_i - h/2, x_i + h/2);
  // the outermost cells reach half a step beyond [0, range] (whole cells: half end cells would carry half their
  // neighbours' mass and add ln 2 to the privacy loss there). range must be a whole number of steps.
  NoiseTable table(double step) const;
};
// mu* = (s/epsilon) ln(1 + (e^epsilon - 1) / (2 delta)): the least shift with Pr[e < s] = delta for the TBL with
// lambda = s/epsilon and range = 2 mu (Pr[e < s] = (e^eps - 1) / (2 (e^(mu/lambda) - 1)) solved for mu).
double tbl_exact_minimal_shift(double epsilon, double delta, double sensitivity);
// The TBL of (epsilon, delta)-DP for one release with the least shift: lambda = s/eps, mu = mu*, range = 2 mu*.
TruncatedBiasedLaplace calibrated_tbl(double epsilon, double delta, double sensitivity);
// Lemma 1's shift: the least mu with mu >= s + (s/eps) ln(1 / (2 delta (1 - e^(-mu eps / s)))) (fixed point).
double tbl_lemma1_shift(double epsilon, double delta, double sensitivity);

// ---- Truncated biased Gaussian (TBG, Def. 5, eq. 14) ----
// Density proportional to exp(-(z - mu)^2 / (2 lambda^2)) on [0, range]. With a = -mu/lambda, b = (range - mu)/lambda
// and m = Phi(b) - Phi(a): E[e] = mu + lambda (phi(a) - phi(b)) / m, Var = lambda^2 (1 + (a phi(a) - b phi(b)) / m -
// ((phi(a) - phi(b)) / m)^2) (the moments of a truncated normal).
struct TruncatedBiasedGaussian {
  double mu = 0.0, lambda = 1.0, range = 0.0;
  void validate() const;  // InputError unless lambda > 0, 0 <= mu <= range, range > 0, all finite
  double mean() const;
  double second_moment() const;
  // Whole cells [x_i - h/2, x_i + h/2) of the density on the grid 0, h, .., range, as for the TBL.
  NoiseTable table(double step) const;
};

// ---- Discrete TBL: p_j proportional to exp(-|j - mu| / sigma), j = 0 .. range (integers) ----
NoiseTable discrete_tbl_table(int64_t range, double mu, double sigma);
// The same on the points of a grid starting at 0: p(x) proportional to exp(-|x - mu| / sigma).
NoiseTable discrete_tbl_table(const Grid& grid, double mu, double sigma);

// On a grid 0, h, .., R (the CLI's one-sided grid): Thm 1's optimum for sensitivity h (the integer construction
// scaled by h), zero beyond omega' h; InputError if R < omega' h. TBL bins with range R (the grid's end) and the
// given shift. InputError if the grid does not start at 0.
NoiseTable one_sided_optimum_table(const Grid& grid, double epsilon, double delta);
NoiseTable tbl_table(const Grid& grid, double mu, double lambda);
NoiseTable tbg_table(const Grid& grid, double mu, double lambda);
// For sensitivity 1 and sigma = 1/epsilon (neighbouring ratios exactly e^(+-epsilon)), mu = range/2: the least range
// whose distinguishing masses p_0 = p_range are <= delta; that range has the least E[e^2] among these tables
// (E[e^2] grows with range). InputError if no range up to 10^7 does.
struct DiscreteTblCalibration {
  int64_t range = 0;
  double mu = 0.0, sigma = 0.0;
  NoiseTable table() const { return discrete_tbl_table(range, mu, sigma); }
};
DiscreteTblCalibration calibrated_discrete_tbl(double epsilon, double delta);

}  // namespace noiselearn
