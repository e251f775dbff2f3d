#pragma once
// The privacy-boosting (PB) mechanism of Jiang et al. (paper 004, section 3.1): a kernel noise density f
// (Gaussian or Laplace, centred at the true answer Q) reweighted by a step function that favours a preferred
// region S(Q), so that the noisy answer lands in S(Q) with probability at least rho.
//
// Eq. (2), in our words: with pbar(Q) = Pr_f[y not in S(Q)] the kernel's mass outside the region,
//   f_pb(y | Q) = f(y - Q) / (1 - pbar(Q) q)          for y in S(Q),
//   f_pb(y | Q) = f(y - Q) (1 - q) / (1 - pbar(Q) q)  otherwise,
// which integrates to 1 for every q in [0, 1]. Pr[y in S(Q)] = p_S(Q) / (1 - pbar(Q) q) with p_S = 1 - pbar.
// Eq. (3): q is the least boosting rate that meets rho for every Q, i.e. where p_S is smallest:
//   q = 1/rho + 1/pbar - 1/(rho pbar) = (rho - p_S) / (rho pbar)   (0 if the kernel alone meets rho).
//
// The three region types (section 4):
//   interval  [Q - tau, Q + tau]                        data-independent (section 4.3, absolute error);
//   fixed     [lower, upper], with Q clamped into it      section 4.2. The paper takes its worst pair at the edge
//             of the region, which needs Q to stay inside it: an answer outside is clamped first (a function of
//             the data, so the sensitivity does not grow);
//   relative  [Q - theta |Q| - tau, Q + theta |Q| + tau]  section 4.1, relative error; p_S is smallest at Q = 0.
//
// Everything here is the mechanism itself (densities, probabilities, sampling); its privacy is accounted
// exactly in accounting/privacy_boosting_accountant.hpp. The paper's Theorem 1 is not used for the guarantee
// (erratum E-Jiang-1 of experiments/errata.md: it is a heuristic that can under-state delta).
#include <cmath>
#include <random>
#include <string>
#include <utility>

namespace noiselearn {

enum class BoostingKernelKind { kGaussian, kLaplace };
std::string to_string(BoostingKernelKind kind);
BoostingKernelKind parse_boosting_kernel(const std::string& text);  // "gaussian" or "laplace"

// A symmetric kernel noise: Gaussian N(0, scale^2) or Laplace with scale b (density e^{-|x|/b} / 2b).
struct BoostingKernel {
  BoostingKernelKind kind = BoostingKernelKind::kGaussian;
  double scale = 1.0;  // sigma (Gaussian) or b (Laplace)

  double log_density(double x) const;
  double log_cdf(double x) const;                 // log Pr[X <= x]
  double log_interval(double a, double b) const;  // log Pr[a < X <= b], accurate in both tails
  // The kernel loss ln f(y - first) - ln f(y - second): affine in y for the Gaussian, piecewise affine with
  // breakpoints at first and second for the Laplace.
  double loss(double y, double first, double second) const;
  // x with Pr[X > x] <= tail (x >= 0): where the accountant cuts the kernel's tails.
  double tail_cut(double tail) const;
  double quantile(double u) const;  // inverse CDF, u in (0, 1)
  double standard_deviation() const;
};

enum class PreferredRegionKind { kInterval, kFixed, kRelative };
std::string to_string(PreferredRegionKind kind);
PreferredRegionKind parse_preferred_region(const std::string& text);  // "interval", "fixed", "relative"

struct PreferredRegion {
  PreferredRegionKind kind = PreferredRegionKind::kInterval;
  double tau = 1.0;     // interval / relative: the absolute half-width (offset)
  double theta = 0.0;   // relative: the relative error ratio, in [0, 1]
  double lower = -1.0;  // fixed: the region [lower, upper]
  double upper = 1.0;

  // S(Q) as a closed interval [first, second].
  std::pair<double, double> at(double query) const;
  // The answer the mechanism uses: Q clamped into [lower, upper] for a fixed region, Q otherwise.
  double effective_query(double query) const;
  // The answer at which the kernel's mass in S(Q) is smallest (eq. 3's max over Q).
  double least_mass_query() const;
  // Width of the smallest region (|S(Q~)| of section 5.1).
  double smallest_width() const;
  // Throws InputError naming the field.
  void validate() const;
};

// Kernel mass inside / outside S(Q) (log).
double log_region_mass(const BoostingKernel& kernel, const PreferredRegion& region, double query);
double log_outside_mass(const BoostingKernel& kernel, const PreferredRegion& region, double query);

// The boosting rate q of eq. (3) for confidence rho (0 when the kernel already meets rho).
double boosting_rate(const BoostingKernel& kernel, const PreferredRegion& region, double rho);

class PrivacyBoostingMechanism {
 public:
  // Throws InputError for a non-positive scale, rho outside (0, 1], or an invalid region.
  PrivacyBoostingMechanism(BoostingKernel kernel, PreferredRegion region, double rho);

  const BoostingKernel& kernel() const { return kernel_; }
  const PreferredRegion& region() const { return region_; }
  double rho() const { return rho_; }
  double q() const { return q_; }

  // log of the reweighting factors of eq. (2) at answer Q: inside S(Q) and outside (-inf when q = 1).
  double log_weight_inside(double query) const;
  double log_weight_outside(double query) const;
  // log f_pb(y | Q) (Q is clamped for a fixed region).
  double log_density(double y, double query) const;
  // Pr[output in S(Q)] (>= rho for every Q by construction of q).
  double region_probability(double query) const;
  // E[(y - Q)^2] of the output (the squared error), from the kernel's partial moments.
  double mean_squared_error(double query) const;

  // One noisy answer by rejection from the kernel: propose y ~ f(. - Q), accept with probability
  // weight(y) / weight_inside (1 inside S(Q), 1 - q outside). Exact; the expected number of proposals is
  // 1 / (1 - pbar q). The generator is the caller's (production code passes a CSPRNG-backed one).
  template <class UniformRandomBitGenerator>
  double sample(double query, UniformRandomBitGenerator& generator) const {
    const double centre = region_.effective_query(query);
    const auto [first, second] = region_.at(centre);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (;;) {
      double u = uniform(generator);
      while (u <= 0.0) u = uniform(generator);
      const double y = centre + kernel_.quantile(u);
      if (y >= first && y <= second) return y;
      if (uniform(generator) < 1.0 - q_) return y;
    }
  }

 private:
  BoostingKernel kernel_;
  PreferredRegion region_;
  double rho_;
  double q_;
};

// The standard normal quantile Phi^{-1}(u), u in (0, 1), to full double precision (Newton on log Phi).
double normal_quantile(double u);

}  // namespace noiselearn
