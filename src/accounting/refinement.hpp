#pragma once
// Asking a result more: a composition tilted for an epsilon (exponential_tilt.hpp), the tilts where eps(delta) is
// decided, the exact adaptive programme for the queries it narrows. Each is a call to the accountant that returns the
// bounds with the answer added (BoundAlternatives); the bounds it is given are not changed (pass them with std::move
// where they are no longer needed, to spare the copy). They need the bounds' RefinementContext.
#include "accounting/accounting_queries.hpp"
#include "accounting/pair_bounds.hpp"

namespace noiselearn {

// A composition tilted for eps added (each PLD with its Chernoff-optimal tilt), unless one close to it exists; the
// bounds as they are without context.single_release. tail_mass > 0 composes it with that tail mass per truncation
// instead of the options' (the mass truncated away is paid in full by the upper bound, about 2 n tail_mass, which at
// small delta can be most of the bracket).
PairBounds refined_for_epsilon(PairBounds bounds, double epsilon, double tail_mass = 0.0);
// Refined where eps(delta) is decided: at the current upper bound on eps, or, when that is infinite because the
// untilted allowance exceeds delta, at the Chernoff estimate of eps(delta).
PairBounds refined_for_delta(PairBounds bounds, double delta);
// With the releases' bucketed tests (bucketed_test.hpp) composed, when one of the queries' brackets is wider than
// adaptive_skip_width relative (the lower bound second order in the loss step, at two more compositions per
// direction); as they are otherwise, or when they are made already. known_wide: the caller found every query's bracket
// wide already (make_certificate and the DP-SGD functions that report a bracket, after computing it).
PairBounds with_bucketed_tests(PairBounds bounds, const AccountingQueries& queries, bool known_wide = false);
// Under several_pairs auto, when the exact adaptive programme has not run: with it run if it would narrow the bracket
// at one of the queries (as account() with these queries decides); as they are otherwise. Bounds of a family that
// account() composes per query (composed_per_query), composed without queries: composed again for these.
PairBounds adapted_to_queries(PairBounds bounds, const AccountingQueries& queries);

}  // namespace noiselearn
