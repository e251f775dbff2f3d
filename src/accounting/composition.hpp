#pragma once
// Composition of discretised privacy-loss distributions: n-fold (any n >= 1, not only powers of two) and
// heterogeneous (different PLDs, each with its own count).
//
// The composed PLD is the convolution of the factors (losses add, A-probabilities multiply), computed without
// wrap-around (convolution.hpp). After every convolution the tails are truncated (tail_mass per side, in the
// bound's direction) and, if the distribution still has more than max_points grid points, the loss grid is
// coarsened by powers of two with the bound's own one-directional re-discretisation (connect-the-dots up,
// merge-to-grid down). PrivacyBuckets' coarsening, which can move losses down inside an "upper bound", is
// never used (Sommer et al. erratum E-Sommer-5 of experiments/errata.md). n-fold composition is
// square-and-multiply: about 2 log2(n) convolutions.
#include <cstdint>
#include <utility>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/privacy_loss_distribution.hpp"

namespace noiselearn {

// first (x) second; both must be bounds of the same kind. Grids of different step are brought to the coarser
// step first (steps are the initial step times powers of two).
PrivacyLossDistribution compose(const PrivacyLossDistribution& first, const PrivacyLossDistribution& second,
                                const AccountantOptions& options);

// The n-fold composition of a single release.
PrivacyLossDistribution self_compose(const PrivacyLossDistribution& single, int64_t n,
                                     const AccountantOptions& options);

// Heterogeneous composition: the product over i of parts[i].first composed parts[i].second times.
PrivacyLossDistribution compose_heterogeneous(const std::vector<std::pair<PrivacyLossDistribution, int64_t>>& parts,
                                              const AccountantOptions& options);

}  // namespace noiselearn
