#pragma once
// One release of a mechanism without a grid (mechanism_pair.hpp), sampled the ways training samples, as
// single-release bounds for the accountant.
//
// With P, Q the mechanism's worst pair (with and without the record) and q the probability that the record is in the
// batch (Zhu, Dong and Wang 2022, Thm 11; Balle, Barthe and Gaboardi 2018):
//   no sampling, add or remove one / replace one: P||Q (the record added) and Q||P (removed); the sensitivity is the
//     largest difference under the relation (for DP-SGD with clipping norm C: C under add/remove, 2C under replace);
//   Poisson sampling at rate q, add or remove one: remove A||Q and add Q||A with A = (1 - q) Q + q P. The same record
//     is added (or removed) in every release, so each direction is composed on its own and the guarantee is the worse;
//   sampling without replacement (batch b of N, q = b/N), replace one: the pair (A, Q) dominates for eps >= 0 and
//     (P, (1 - q) P + q Q) for eps < 0; for symmetric noise the latter is the add pair Q||A reflected, so the upper
//     bound composes the profile envelope of remove and add (Zhu et al., Def. 7 and Thm 10), which dominates both for
//     every eps. The lower bound composes remove and add themselves: both happen (the other records contribute v, the
//     record v + s or v), so the bracket also shows what the theorem costs.
//   random allocation (each record in exactly one of k steps per epoch), add or remove one: one release is an epoch
//     of k steps (random_allocation.hpp).
// Poisson sampling under replace one, and sampling without replacement under add or remove, are refused (as
// dp_accounting does): their batches are not the ones these pairs describe; so is random allocation under replace
// one (not analysed here).
//
// Every direction's privacy loss is a monotone function g of l = ln(P/Q) (remove: ln(1 - q + q e^l)), so the
// continuous part of l is cut where g crosses the loss grid; each cell's masses under the direction's pair (A_c, B_c)
// are exact, and
//   upper bound: the cell's outcomes, with losses in [L1, L2], are split between L1 and L2 keeping both masses
//     (A_hi = (A_c - e^{L1} B_c) / (1 - e^{L1 - L2}), padded up by the masses' relative error): more informative than
//     the cell, so its delta is an upper bound for every eps and composition (connect-the-dots, Doroshenko et al.
//     2022, without a sub-grid);
//   lower bound: the cell's outcomes merged into one of loss ln(A_c / B_c) (a post-processing), then merged to the
//   grid.
// Cut tails: the upper bound puts them at the extreme loss of their cell (+infinity: the infinity mass), the lower
// bound drops them.
#include <cstdint>
#include <string>

#include "accounting/accountant_options.hpp"
#include "accounting/mechanism_pair.hpp"
#include "accounting/pair_accountant.hpp"

namespace noiselearn {

// Who the neighbours are: RecordRelation (core/neighbour_relation.hpp), add or remove one record, or replace one.

enum class SamplingKind { kNone, kPoisson, kWithoutReplacement, kRandomAllocation };
std::string to_string(SamplingKind kind);  // "none", "poisson", "without_replacement", "random_allocation"
SamplingKind parse_sampling_kind(const std::string& text);

struct Sampling {
  SamplingKind kind = SamplingKind::kNone;
  double rate = 1.0;            // Poisson: each record is in the batch with this probability, in (0, 1]
  int64_t batch_size = 0;       // without replacement: b records drawn from ...
  int64_t dataset_size = 0;     // ... N, 1 <= b <= N
  int64_t steps_per_epoch = 1;  // random allocation: each record in exactly one of this many steps per epoch
  // The probability q that a given record is in the batch (1 without sampling; 1 / steps_per_epoch for random
  // allocation).
  double probability() const;
  // Throws InputError naming the field (rate outside (0, 1], b > N, ...).
  void validate() const;
  std::string describe() const;  // "Poisson sampling at rate 0.00427", "batches of 256 of 60000 without replacement"
};

// Throws InputError when the sampling and the relation do not go together (see above).
void check_sampling_relation(const Sampling& sampling, RecordRelation relation);

// One release of the mechanism under the sampling and the relation, as single-release bounds (compose with
// compose_bounds). `rediscretise` of the result makes it again with other options (a smaller tail mass).
// coordinates > 1: the mechanism on each of d coordinates with independent noise, neighbours differing by at most the
// sensitivity in each (L-infinity clipping); sampling mixes the d-fold products (coordinate_product.hpp).
PairBounds sampled_release_bounds(std::shared_ptr<const MechanismPair> mechanism, const Sampling& sampling,
                                  RecordRelation relation, const AccountantOptions& options, int64_t coordinates = 1);

}  // namespace noiselearn
