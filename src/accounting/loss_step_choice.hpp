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
#include <functional>
#include <string>

#include "accounting/accountant_options.hpp"
#include "accounting/pair_accountant.hpp"

namespace noiselearn {

// 0 to 3: the halvings of options.loss_step (the step `single` was discretised with) the default makes for n
// compositions of `single` and these queries.
int loss_step_halvings(const PairBounds& single, int64_t n, const AccountingQueries& queries,
                       const AccountantOptions& options);

// The release discretised at the step the default chooses: the halvings above (at most three), then further ones
// while the step exceeds an eighth of the standard deviation of one release's privacy loss. The prediction above
// assumes the step is small beside that spread; a release sampled at a small rate q has a loss of about q in size
// (q = 1e-6: a step of 1e-5 holds nearly all its mass in three grid points), where the bracket shrinks only with the
// step and the prediction fails both ways. Each halving past the third discretises the release again (`discretise`,
// at the options given) and measures its spread anew (the upper bound's discretisation widens it: the steps converge
// from above). Both stop where the n-fold composition would span more than max_points / 2 grid points
// (then loss_step_wanted says what the spread asked for). tolerance: the relative bracket aimed at
// (adaptive_skip_width, or a share of it).
struct LossStepChoice {
  PairBounds single;
  AccountantOptions options;      // with the step chosen
  double loss_step_wanted = 0.0;  // when max_points stopped a finer step the release's spread asked for: that step
};
LossStepChoice choose_loss_step(PairBounds single, int64_t n, const AccountingQueries& queries,
                                const AccountantOptions& options, double tolerance,
                                const std::function<PairBounds(const AccountantOptions&)>& discretise);

// The line saying that the default chose a finer loss step (`used`, the options a PairBounds holds) than `requested`
// for the queries, printed before a certificate; empty when it did not.
std::string halved_loss_step_line(const AccountantOptions& used, const AccountantOptions& requested);

}  // namespace noiselearn
