#pragma once
// The certified accountant for a family of dominating pairs: rigorous upper and lower bounds on
// delta(eps) and eps(delta) after n compositions, both directions.
//
// What is covered is the family's neighbouring relation (core/dominating_pair.hpp):
//
// * any sequence (default), additive noise: a release may move by any d in {-k..k} cells. The single-release
//   PLDs are A||B of every shift up (shift j up) and B||A of every shift up (= A||B of shift j down); the upper
//   bound composes their profile envelope (profile_envelope.hpp), a dominating pair of every release whatever
//   its difference (Zhu, Dong, Wang 2022, Def. 7 and Thm. 10 for adaptive composition). A mirror-symmetric
//   table has identical up and down PLDs, so with a single shift (Thm 15 or k = 1) no envelope is needed.
// * any sequence, subsampled mixture: the same record is added (or removed) in every release, so A||B and
//   B||A are composed separately (the worse is the guarantee); each is the envelope over shifts of both signs.
// * same direction: all releases move up, or all move down. The upper bound is the worse of the composed
//   envelope of A||B over the shifts (all up) and of B||A (all down).
//
// The lower bound is the worst of scenarios that can happen: the same-shift compositions of the pairs that
// attain the envelope most often (both directions), and, for an asymmetric additive table under the
// any-sequence relation, compositions that mix shifts up and down (a releases up, n - a down).
//
// The bounds and the questions they answer: pair_bounds.hpp; asking them more: refinement.hpp; several families
// composed together: heterogeneous_composition.hpp.
#include <cstdint>

#include "accounting/accountant_options.hpp"
#include "accounting/accounting_queries.hpp"
#include "accounting/pair_bounds.hpp"
#include "core/dominating_pair.hpp"

namespace noiselearn {

// Discretises one release of every pair of the family (no composition yet).
PairBounds single_release_bounds(const PairFamily& family, const AccountantOptions& options);

// n-fold composition of single-release bounds. With queries, the exact adaptive programme (several_pairs auto) runs
// only if it would narrow one of their brackets; without, if it would narrow the epsilon bracket at delta = 1e-3,
// 1e-6 or 1e-10 above the distinguishing events.
PairBounds compose_bounds(const PairBounds& single, int64_t n, const AccountantOptions& options,
                          const AccountingQueries& queries = {});

// Shorthand: single_release_bounds then compose_bounds. Under several_pairs auto with queries, a family of one pair
// (or the symmetric copy of a table symmetric up to rounding) composed at least kPerQueryCompositionFrom times is
// discretised at the loss step chosen for the queries (loss_step_choice.hpp) and composed by one FFT power, as events
// are; the bounds' context.options say so.
PairBounds account(const PairFamily& family, int64_t n, const AccountantOptions& options,
                   const AccountingQueries& queries = {});
inline constexpr int64_t kPerQueryCompositionFrom = 1024;
// Whether account() with queries composes this family per query (above).
bool composed_per_query(const PairFamily& family, int64_t n, const AccountantOptions& options);

}  // namespace noiselearn
