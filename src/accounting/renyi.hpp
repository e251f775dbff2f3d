#pragma once
// Renyi differential privacy (Mironov 2017) as a COMPARISON accountant: the epsilon that the RDP route would
// report for a noise table, printed next to the certificate. Nothing here is a certificate: the divergences are
// computed in float64 without error bounds, and the conversions to (epsilon, delta) are loose by design.
//
// Divergence (Mironov 2017, Def. 3; for discrete distributions P, Q):
//   D_alpha(P||Q) = 1/(alpha - 1) log sum_i P_i^alpha Q_i^(1 - alpha)          for alpha > 1,
//   D_1(P||Q)     = sum_i P_i log(P_i / Q_i)  (Kullback-Leibler, the limit alpha -> 1),
//   D_inf(P||Q)   = log max_i P_i / Q_i       (the limit alpha -> inf),
// with terms where P_i = 0 contributing nothing and D = +inf as soon as some P_i > 0 has Q_i = 0 (src/README.md,
// numerical rules: a zero against a positive probability is an infinite privacy loss, never clamped away).
//
// Composition (Mironov 2017, Prop. 1): n releases that are each (alpha, rho(alpha))-RDP are
// (alpha, n rho(alpha))-RDP. A mechanism's per-release curve rho(alpha) is the largest divergence over its
// dominating pairs and both directions (A||B and B||A).
//
// Conversions of an (alpha, R)-RDP guarantee (R = n rho(alpha)) to (epsilon, delta)-DP, for 0 < delta < 1:
//   Mironov 2017, Prop. 3:
//     epsilon = R + log(1/delta) / (alpha - 1),   equivalently   log delta = (alpha - 1)(R - epsilon).
//   Balle, Barthe, Gaboardi, Hsu, Sato 2020 ("Hypothesis testing interpretations and Renyi differential
//   privacy", AISTATS; Thm 21 of arXiv:1905.09982); the same bound is Asoodeh et al. 2021 and Canonne, Kamath,
//   Steinke 2020, Prop. 12:
//     epsilon = R + log((alpha - 1)/alpha) - (log delta + log alpha) / (alpha - 1),
//   equivalently (solved for delta; CKS Prop. 12 writes delta = e^{(alpha-1)(R-epsilon)}/(alpha-1) (1-1/alpha)^alpha)
//     log delta = (alpha - 1)(R - epsilon) + (alpha - 1) log(1 - 1/alpha) - log alpha.
//   For every alpha > 1 the second is smaller than the first by log(alpha)/(alpha - 1) - log(1 - 1/alpha) > 0.
// Each alpha gives a valid guarantee; the reported one is the best over an order grid refined by golden section
// (grid_minimisation.hpp), together with the alpha that attains it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/dominating_pair.hpp"

namespace noiselearn {

// D_alpha(first || second) for alpha in [1, +inf] (see above), in log space. Throws InputError if alpha < 1 or
// NaN, if the vectors differ in length, contain a negative or non-finite entry, or `first` has no positive entry.
// The vectors are used as they are (not renormalised); orders within ~1e-4 of 1 lose relative precision
// (the log of a sum close to 1 is divided by alpha - 1) — use alpha = 1 for the KL divergence itself.
double renyi_divergence(const std::vector<double>& first, const std::vector<double>& second, double alpha);

// max(D_alpha(A||B), D_alpha(B||A)) for one dominating pair.
double renyi_dp(const DominatingPair& pair, double alpha);

// A per-release RDP curve alpha -> rho(alpha), for alpha >= 1 (+inf allowed as a value).
using RdpCurve = std::function<double(double)>;

// rho(alpha) = max over the pairs and both directions of D_alpha. The logarithms of the tables are computed once
// and kept by the returned curve. Throws InputError for an empty family or a pair whose a and b differ in length.
RdpCurve rdp_curve(const std::vector<DominatingPair>& pairs);

enum class RdpConversion {
  kMironov,  // Mironov 2017, Prop. 3
  kBalle,    // Balle et al. 2020, Thm 21 (= Asoodeh et al. 2021, Canonne-Kamath-Steinke 2020 Prop. 12)
};
std::string to_string(RdpConversion conversion);

// The conversions at one order alpha > 1 (finite), for a composed RDP value R (may be +inf). Throw InputError
// for alpha not in (1, inf), delta not in (0, 1), or a NaN/negative-infinite argument. Not clamped: epsilon may
// come out negative and log delta positive; the optimised functions below clamp.
double rdp_to_epsilon(RdpConversion conversion, double alpha, double composed_rdp, double delta);
double rdp_to_log_delta(RdpConversion conversion, double alpha, double composed_rdp, double epsilon);

// 1.01..1.99 (step 0.01), 2..64 (step 0.5), 64 * 2^(j/8) up to 1024: 256 orders.
std::vector<double> default_rdp_orders();

struct RdpOrderOptions {
  // Orders searched; strictly increasing, each in (1, inf). The optimum is only refined between grid points,
  // so an alpha reported at an end of the grid means the grid should be extended.
  std::vector<double> orders = default_rdp_orders();
  // Golden-section steps around the best grid order (0: grid only). 80 steps shrink the bracket by 1e-17.
  int refinement_iterations = 80;

  // Throws InputError naming the field.
  void validate() const;
};

struct RdpEpsilon {
  double epsilon;  // best epsilon over the orders, clamped to >= 0 (an (eps < 0)-DP mechanism is 0-DP); +inf
                   // if every order gives +inf
  double alpha;    // the order that attains it; NaN if epsilon is +inf
};

struct RdpDelta {
  double delta;  // best delta over the orders, clamped to <= 1
  double alpha;  // the order that attains it; NaN if no order gives delta < 1
};

// Best conversion of the n-fold composition of a per-release curve (composed RDP = n rho(alpha)).
// Throw InputError for n < 1, delta not in (0, 1), epsilon negative or not finite.
RdpEpsilon optimal_rdp_epsilon(const RdpCurve& rho, int64_t n, double delta, RdpConversion conversion,
                               const RdpOrderOptions& options = {});
RdpDelta optimal_rdp_delta(const RdpCurve& rho, int64_t n, double epsilon, RdpConversion conversion,
                           const RdpOrderOptions& options = {});

struct RdpComparison {
  RdpEpsilon mironov;
  RdpEpsilon balle;
};
struct RdpDeltaComparison {
  RdpDelta mironov;
  RdpDelta balle;
};

// Both conversions for a mechanism given by its dominating pairs (rho = rdp_curve(pairs)); the curve is
// evaluated once per grid order and shared by the two conversions.
RdpComparison rdp_epsilon(const std::vector<DominatingPair>& pairs, int64_t n, double delta,
                          const RdpOrderOptions& options = {});
RdpDeltaComparison rdp_delta(const std::vector<DominatingPair>& pairs, int64_t n, double epsilon,
                             const RdpOrderOptions& options = {});

}  // namespace noiselearn
