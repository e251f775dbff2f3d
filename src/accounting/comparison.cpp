#include "accounting/comparison.hpp"

#include <fmt/format.h>

#include <cmath>

#include "accounting/composition_theorems.hpp"
#include "accounting/hybrid_renyi.hpp"
#include "accounting/moments_accountant.hpp"
#include "accounting/pair_accountant.hpp"
#include "accounting/renyi.hpp"

namespace noiselearn {

namespace {

std::string show(double value) { return std::isfinite(value) ? fmt::format("{:.6f}", value) : "inf"; }
std::string show_delta(double value) { return fmt::format("{:.6e}", value); }

}  // namespace

Comparisons compare_accountants(const PairFamily& family, const CertificateRequest& request,
                                const AccountantOptions& options) {
  Comparisons out;
  const int64_t n = request.compositions;
  const PairBounds single = account(family, 1, options);
  const auto single_release_delta = [&single](double eps) { return single.delta_upper(eps); };
  std::vector<double> hrdp_orders;
  for (double alpha : default_rdp_orders())
    if (alpha > 1.0) hrdp_orders.push_back(alpha);
  for (double delta : request.deltas) {
    EpsilonComparison c;
    c.delta = delta;
    c.moments_accountant = moments_accountant_epsilon(family.pairs, n, delta).value;
    const RdpComparison rdp = rdp_epsilon(family.pairs, n, delta);
    c.rdp_mironov = rdp.mironov.epsilon;
    c.rdp_balle = rdp.balle.epsilon;
    c.advanced_composition = best_advanced_composition(single_release_delta, n, delta).epsilon;
    c.optimal_composition = best_optimal_homogeneous_composition(single_release_delta, n, delta).epsilon;
    c.hybrid_renyi = hybrid_renyi_epsilon(family.pairs, n, delta, hrdp_orders).epsilon;
    out.at_delta.push_back(c);
  }
  for (double eps : request.epsilons) {
    DeltaComparison c;
    c.epsilon = eps;
    c.moments_accountant = moments_accountant_delta(family.pairs, n, eps).value;
    const RdpDeltaComparison rdp = rdp_delta(family.pairs, n, eps);
    c.rdp_mironov = rdp.mironov.delta;
    c.rdp_balle = rdp.balle.delta;
    out.at_epsilon.push_back(c);
  }
  return out;
}

std::string Comparisons::report() const {
  std::string text = "comparisons (upper bounds from other accountants; not certificates):\n";
  for (const auto& c : at_delta)
    text += fmt::format(
        "  delta = {:<9.3g} epsilon: moments accountant {}, RDP {} (Mironov) / {} (Balle et al.), "
        "HRDP {}, advanced composition {}, optimal composition {}\n",
        c.delta, show(c.moments_accountant), show(c.rdp_mironov), show(c.rdp_balle), show(c.hybrid_renyi),
        show(c.advanced_composition), show(c.optimal_composition));
  for (const auto& c : at_epsilon)
    text +=
        fmt::format("  epsilon = {:<7.4g} delta: moments accountant {}, RDP {} (Mironov) / {} (Balle et al.)\n",
                    c.epsilon, show_delta(c.moments_accountant), show_delta(c.rdp_mironov), show_delta(c.rdp_balle));
  return text;
}

}  // namespace noiselearn
