#pragma once
// The default's loss step, chosen per query: how many times to halve the single release's loss step so that the
// discretisation's part of the bracket after n releases is within the tolerance (AccountantOptions::
// adaptive_skip_width) at every query, without a grid larger than max_points.
//
// One release predicts it: after n releases the upper and lower PLDs' composed losses are shifted apart by about n
// times the difference of their means under the Chernoff tilt of the query (the tail that decides the query follows
// that shift), relative to epsilon, or times lambda relative to delta. The prediction overstates the bracket (by
// about twofold on DP-SGD: tests/benchmarks/README.md), and the bracket shrinks with the square of the step
// (connect-the-dots and merge-to-grid err by O(step^2) a release), so one prediction decides how many halvings, at
// most three.
#include <cstdint>
#include <string>

#include "accounting/accountant_options.hpp"
#include "accounting/pair_accountant.hpp"

namespace noiselearn {

// 0 to 3: the halvings of options.loss_step (the step `single` was discretised with) the default makes for n
// compositions of `single` and these queries.
int loss_step_halvings(const PairBounds& single, int64_t n, const AccountingQueries& queries,
                       const AccountantOptions& options);

// The line saying that the default chose a finer loss step (`used`, the options a PairBounds holds) than `requested`
// for the queries, printed before a certificate; empty when it did not.
std::string halved_loss_step_line(const AccountantOptions& used, const AccountantOptions& requested);

}  // namespace noiselearn
