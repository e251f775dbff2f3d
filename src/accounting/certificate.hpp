#pragma once
// A certificate: what noiselearn guarantees about a noise table, from the certified accountant only
// (never from a training loss). It bundles n, the pair, rigorous upper and lower bounds on delta(eps) and
// eps(delta) (the maximum over both directions), which direction dominates, and the discretisation used.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/pair_accountant.hpp"

namespace noiselearn {

// Points of a certificate curve at most (a curve is for reading and plotting; 1e6 points is already 60 MB of CSV).
constexpr int64_t kMaxCurvePoints = 1'000'000;

struct CertificateRequest {
  int64_t compositions = 1;
  std::vector<double> epsilons;    // report delta at each
  std::vector<double> deltas;      // report epsilon at each
  int64_t curve_points = 201;      // points of the delta(eps) curve on [0, curve_epsilon_max]; 0 for none
  double curve_epsilon_max = 0.0;  // 0: automatic (the upper-bound epsilon at delta = 1e-12, or the largest loss)

  void validate() const;  // throws InputError naming the field
};

// The queries of a certificate that is asked none (the CLI, the Python module, a training config's
// certification.deltas): epsilon at each of these deltas.
inline const std::vector<double> kDefaultCertificateDeltas{1e-3, 1e-6, 1e-9};

struct DeltaAtEpsilon {
  double epsilon = 0.0;
  double delta_upper = 0.0, delta_lower = 0.0;
  std::map<std::string, double> delta_upper_by_direction;  // "A||B", "B||A" (one entry for mirror pairs)
  std::string dominating_direction;
  // Which computation gave each bound (see bound_method names in certificate.cpp).
  std::string upper_method, lower_method;
};

struct EpsilonAtDelta {
  double delta = 0.0;
  double epsilon_upper = 0.0, epsilon_lower = 0.0;  // +inf when delta is below the infinity mass
  std::map<std::string, double> epsilon_upper_by_direction;
  std::string dominating_direction;
  std::string upper_method, lower_method;
};

struct CurvePoint {
  double epsilon = 0.0, delta_upper = 0.0, delta_lower = 0.0;
};

// The exponentially tilted compositions of a certificate (the allowances of DiscretisationSummary are the untilted
// ones).
struct TiltedCompositions {
  // The eps each was computed for (queries whose bracket the untilted floating-point allowance dominated).
  std::vector<double> for_epsilons;
  // The smallest tail mass one used, when below the options' (0 otherwise): where the truncations' mass, moved to
  // infinity, would have made most of the bracket, the release was discretised again with it.
  double tail_mass = 0.0;
};

// The probability of a distinguishing event (an output one input cannot produce), the larger of the two directions.
struct DistinguishingEvents {
  double single_release = 0.0;
  double composed = 0.0;  // 1 - (1 - omega)^n
};

// The floating-point allowances of the composed PLDs (largest over directions and scenarios).
struct FloatingPointAllowances {
  double numerical_upper = 0.0;  // absolute, added to the upper bound
  double numerical_lower = 0.0;  // ... subtracted from the lower bound
  double relative_upper = 0.0;   // relative, of the upper bound
  double relative_lower = 0.0;   // ... of the lower bound
};

struct DiscretisationSummary {
  double loss_step = 0.0;        // requested single-release loss step
  double final_loss_step = 0.0;  // after coarsening during composition (largest over directions)
  int64_t grid_points = 0;       // points of the composed upper-bound PLD (largest over directions)
  std::string upper_method, lower_method;
  double tail_mass = 0.0;             // per truncation
  double truncated_mass_upper = 0.0;  // moved to the infinity mass in total (largest over directions)
  FloatingPointAllowances allowance;
  TiltedCompositions tilted;
  // When max_points stopped the default's loss step above an eighth of a release's loss spread: the step it asked
  // for (0 otherwise).
  double loss_step_wanted = 0.0;
};

struct Certificate {
  int64_t compositions = 1;
  // The pair, why the pairs checked cover every neighbouring input, which neighbour sequences are covered and for a
  // mechanism which data sets.
  AccountedPairs accounted;
  DistinguishingEvents infinity_mass;
  std::string dominating_direction;  // at the first query (or at delta = 1e-6 if none)
  // Releases with several candidate pairs: how they were accounted (the adaptive programme and its grid, or why the
  // envelope alone was kept); empty when every release has a single undominated pair.
  std::string several_pairs;
  std::vector<DeltaAtEpsilon> deltas;
  std::vector<EpsilonAtDelta> epsilons;
  // "; upper by <upper>, lower by <lower>" where releases have several candidate pairs (the bounds' methods then
  // differ by query), "" otherwise: what the report and the trainers' summaries append to a bound.
  std::string bound_methods(const std::string& upper, const std::string& lower) const;
  std::vector<CurvePoint> curve;
  DiscretisationSummary discretisation;
  // The accountant's options as given (noise.json "accountant"): what a later certificate of the same table uses
  // unless told otherwise (io/recorded_certification.hpp).
  AccountantOptions accountant;
  // The total variation between the table's releases and the symmetric copy accounted in their place (0: none),
  // PairBounds::substitution_tv: paid for in every bound.
  double substitution_tv = 0.0;
  // The closed form that answers the queries (closed_forms.hpp), by its method's name; empty when none does.
  std::string closed_form;

  // Why no epsilon certifies `delta` (its upper bound is infinite): the distinguishing events' mass, or the allowances.
  std::string no_epsilon_reason(double delta) const;
  // A human-readable report, one fact per line.
  std::string report() const;
};

Certificate make_certificate(const PairBounds& bounds, const CertificateRequest& request,
                             const AccountantOptions& options);

// The request's queries, for account(): what decides the default's methods (AccountingQueries).
AccountingQueries queries_of(const CertificateRequest& request);

// The certificate of n = request.compositions releases of the family, composed for the request's queries: under
// several_pairs auto the exact adaptive programme runs only if it narrows one of their brackets.
Certificate certify_family(const PairFamily& family, const CertificateRequest& request,
                           const AccountantOptions& options);

}  // namespace noiselearn
