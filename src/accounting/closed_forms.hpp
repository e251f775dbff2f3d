#pragma once
// delta(eps) in closed form, where a composition has one, with rigorous floating-point brackets: no discretisation, so
// the bracket is the rounding error's (1e-13 relative for moderate arguments, growing with their square to 1e-9 at 30).
//
// - Gaussian releases without sampling, any number, any multipliers: the privacy loss of release i is
//   N(mu_i^2 / 2, mu_i^2) with mu_i = sqrt(d_i) / z_i (multiplier z_i in sensitivities, d_i coordinates), so n_i
//   releases of each compose to the Gaussian mechanism of mu^2 = sum_i n_i d_i / z_i^2, whose delta is
//   Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Balle and Wang 2018, Theorem 8; Dong, Roth and Su's mu-GDP).
// - One Laplace release of scale b and sensitivity s (a = s / b): the loss is +a with probability 1/2, -a with e^-a / 2
//   and uniform in between in x, which gives delta(eps) = 1 - e^{(eps - a)/2} for eps < a, 0 beyond.
#include <functional>
#include <string>
#include <vector>

namespace noiselearn {

struct DeltaInterval {
  double lower = 0.0, upper = 1.0;
};

// A delta(eps) curve known in closed form: each query answered from a rigorous interval of the exact value.
struct ClosedFormBounds {
  std::string method;                          // for the certificate, e.g. "closed form (Balle and Wang 2018)"
  std::function<DeltaInterval(double)> delta;  // eps >= 0 -> [lower, upper] containing the exact delta(eps)
  // false: the curve is of a pair that dominates the one accounted (an upper bound only; its lower ends are not used).
  bool exact = true;

  double delta_upper(double epsilon) const { return delta(epsilon).upper; }
  double delta_lower(double epsilon) const { return delta(epsilon).lower; }
  // The least eps whose upper delta is at most `delta` (an upper bound of the exact eps(delta)), by bisection to
  // adjacent doubles; inf when none is (a delta below what the rounding can certify).
  double epsilon_upper(double delta) const;
  // The largest eps whose lower delta exceeds `delta` (the exact eps(delta) is above it), 0 when none does.
  double epsilon_lower(double delta) const;
};

// mu of the composition of Gaussian releases, bracketed for the rounding of sum_i n_i d_i / z_i^2.
struct GaussianMu {
  double lower = 0.0, upper = 0.0;
};
struct GaussianReleases {
  double noise_multiplier = 1.0;  // z, in sensitivities
  double releases = 1.0;          // n (a count, as a double: up to 2^53 exactly)
  double coordinates = 1.0;       // d, each moved by at most the sensitivity (L-infinity)
};
GaussianMu composed_gaussian_mu(const std::vector<GaussianReleases>& releases);

// Balle and Wang's delta(eps) of the Gaussian mechanism with mu, computed in log space: the exact value's logarithm
// lies within log_error of log_value (for mu and eps given exactly; log_error is inf where the two terms cancel beyond
// what the rounding can resolve), and below log_phi_a_upper (its first term, Phi(-eps/mu + mu/2)).
struct RoundedDelta {
  double log_value = 0.0;
  double log_error = 0.0;
  double log_phi_a_upper = 0.0;
};
RoundedDelta gaussian_delta(double mu, double epsilon);

// The closed forms as bounds (delta is increasing in mu and in a, so the ends of the bracket are taken for each side).
ClosedFormBounds gaussian_closed_form(GaussianMu mu);
ClosedFormBounds laplace_closed_form(double scale, double sensitivity);

}  // namespace noiselearn
