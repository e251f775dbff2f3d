#pragma once
// Other accountants next to the certificate, for comparison only (they compare; they do not
// certify): the Extended Moments Accountant (Sommer et al., Prop. 17), Renyi DP with Mironov's and
// Balle et al.'s conversions (infinite for tables with distinguishing events), Xiao et al.'s Hybrid Renyi DP (which
// puts the distinguishing mass into delta; the RDP orders 1.01 .. 1024), and the advanced and optimal composition
// theorems applied to the certified single-release curve.
#include <string>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/certificate.hpp"
#include "core/dominating_pair.hpp"

namespace noiselearn {

struct EpsilonComparison {
  double delta = 0.0;
  double moments_accountant = 0.0;
  double rdp_mironov = 0.0;
  double rdp_balle = 0.0;
  double advanced_composition = 0.0;  // Dwork-Rothblum-Vadhan, best single-release operating point
  double optimal_composition = 0.0;   // Kairouz-Oh-Viswanath, best single-release operating point
  double hybrid_renyi = 0.0;          // Xiao et al.'s HRDP (Def. 7, Thm 2): finite for one-sided tables
};

struct DeltaComparison {
  double epsilon = 0.0;
  double moments_accountant = 0.0;
  double rdp_mironov = 0.0;
  double rdp_balle = 0.0;
};

struct Comparisons {
  std::vector<EpsilonComparison> at_delta;
  std::vector<DeltaComparison> at_epsilon;
  std::string report() const;
};

Comparisons compare_accountants(const PairFamily& family, const CertificateRequest& request,
                                const AccountantOptions& options);

}  // namespace noiselearn
