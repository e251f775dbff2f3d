#pragma once
// The PAC-privacy optimal one-sided noise (Xiao et al., CCS 2025, section 6: eq. 29-31, Thm 5, Alg. 3; erratum
// E-Xiao-8 of experiments/errata.md: in eq. 31 the bracket is the variance of the truncated Gaussian and belongs
// inside the log, with the constant 1/2 ln(2 pi e) that the print drops; the search over sigma is not capped at
// sqrt(B)).
//
// For a black-box release Y = F(X) whose variance is at most sigma_Y^2, independent noise e on [0, R] with
// E[e^2] <= B bounds the mutual information MI(X; Y + e) by
//   1/2 ln(2 pi e (sigma_Y^2 + Var e)) - h(e)                                             (eq. 30)
// (the Gaussian maximises the entropy of Y + e for its variance). Thm 5: the minimiser is a Gaussian N(mu, sigma^2)
// conditioned on [0, R]. Alg. 3: for each sigma the best mu is R/2 when that meets the budget (the objective is
// symmetric about R/2 and, for fixed sigma, falls towards it), else the largest mu with E[e^2] = B (E[e^2] grows
// with mu); then a 1-D search over sigma.
//
// mu may be negative: for a tight budget the best density can fall from 0 on (Thm 5 states mu in [0, R], but its
// maximum-entropy argument, a density exp(-(c1 z^2 + c2 z)), allows any c2). The search is over all real mu <= R/2.
#include <cstdint>
#include <string>

namespace noiselearn {

// The exact moments and differential entropy of N(mu, sigma^2) conditioned on [0, range], from
// a = -mu/sigma, b = (range - mu)/sigma and Z = Phi(b) - Phi(a) (in log space, so deep tails keep their digits):
//   E[e] = mu + sigma (phi(a) - phi(b)) / Z,
//   Var e = sigma^2 (1 + (a phi(a) - b phi(b)) / Z - ((phi(a) - phi(b)) / Z)^2),
//   h(e) = ln(sqrt(2 pi e) sigma Z) + (a phi(a) - b phi(b)) / (2 Z)  (nats).
struct TruncatedGaussianMoments {
  double mean = 0.0, variance = 0.0, second_moment = 0.0, entropy = 0.0, log_mass = 0.0;
};
TruncatedGaussianMoments truncated_gaussian_moments(double mu, double sigma, double range);

// eq. 30 at a truncated Gaussian: 1/2 ln(2 pi e (sigma_Y^2 + Var e)) - h(e), nats.
double pac_mutual_information_bound(double mu, double sigma, double range, double output_variance);

struct PacPrivacyOptions {
  double mu_tolerance = 1e-13;     // bisection of E[e^2] = B: relative width of the final bracket (in units of R)
  int64_t sigma_scan_points = 97;  // coarse log-spaced scan of sigma before the golden-section refinement
  double sigma_tolerance = 1e-11;  // golden section on ln sigma stops at this width
};

struct PacPrivacySummary {
  // inputs
  double output_variance = 0.0;  // sigma_Y^2
  double range = 0.0;            // R
  double budget = 0.0;           // B, on E[e^2]
  // the optimum
  double mu = 0.0, sigma = 0.0;
  TruncatedGaussianMoments moments;
  double mutual_information = 0.0;  // eq. 30 bound, nats
  bool budget_binding = false;      // mu < R/2: E[e^2] = B
  // The optimality conditions of eq. 30 over all densities on [0, R] with E[e^2] <= B (first variation): the density
  // is exp(-(z - m)^2 / (2 V) - lambda z^2 + const) with V = sigma_Y^2 + Var e and m = E[e], i.e. a truncated
  // Gaussian with 1 / (2 sigma^2) = 1 / (2 V) + lambda and mu / sigma^2 = m / V, lambda >= 0, lambda (B - E[e^2]) = 0.
  double multiplier = 0.0;               // lambda = 1/(2 sigma^2) - 1/(2 V); must be >= 0
  double stationarity_residual = 0.0;    // sigma (mu / sigma^2 - m / V): 0 at a stationary point (dimensionless)
  double feasibility_slack = 0.0;        // B - E[e^2] >= 0
  double complementary_slackness = 0.0;  // lambda (B - E[e^2]) (1 / x units^2 times x units^2)
  double gaussian_reference = 0.0;  // 1/2 ln(1 + sigma_Y^2 / B): the zero-mean unbounded Gaussian of second moment B
  double sigma_bracket_low = 0.0, sigma_bracket_high = 0.0;  // the searched sigma range
  int64_t objective_evaluations = 0;
  std::string report() const;  // several lines, nats and bits
};

// For a given sigma, Alg. 3's mu: R/2 if E[e^2](R/2, sigma) <= B, else the largest mu <= R/2 with E[e^2] <= B, by a
// bisection that keeps its feasible (low) end, so the returned mu always meets the budget.
double pac_best_mu(double sigma, double range, double budget, const PacPrivacyOptions& options = {});

// Alg. 3 (corrected). InputError unless sigma_Y^2 >= 0, R > 0 and B > 0 are finite.
PacPrivacySummary solve_pac_privacy(double output_variance, double range, double budget,
                                    const PacPrivacyOptions& options = {});

}  // namespace noiselearn
