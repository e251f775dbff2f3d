#pragma once
// A lower bound on delta(eps) of an n-fold composition that loses only the square of the loss step, atoms of loss
// included: a threshold test on bucket labels.
//
// Post-process every release to the label k of its outcome's cell, k = floor(l / h) with l the cell's merged loss
// ln(A_c / B_c) (a cell lies within one grid interval, so the label's own loss ln(a_k / b_k) is in [k h, (k + 1) h)).
// Any labelling of the outcomes is a post-processing, so the labels' n-fold pair is dominated by the releases', and
// for the sum S of the n labels and any threshold tau the test {S >= tau} gives
//   delta_n(eps) >= A^n(S >= tau) - e^eps B^n(S >= tau).
// merge-to-grid instead moves each label's loss down to k h, which overstates B by up to e^h a release, a first-order
// loss that compounds; here B's masses are kept. They are composed tilted, b_k e^{k h} (of the size of a_k, so that the
// transform's absolute error does not swamp them), and untilted at the test: B^n(S = s) = e^{-s h} (tilted)(s).
//
// Rigour: the first masses are rounded down and the second up before composing; the composed first masses are a lower
// PLD's (dropped tails, aliasing paid absolutely) and the tilted second ones an upper PLD's (tails kept: above the
// window at infinity, below it moved up onto the window's first index, which only thresholds above that index can
// count, so tau stays above it); both composed errors (relative, and absolute in the tilted norm of a composition
// tilted for the query) are paid on their side. Cells cut at +-
// infinity and outcomes whose label is unknown are mapped to a label that never passes the test (dropped from both
// sides).
#include <cstdint>
#include <optional>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/privacy_loss_distribution.hpp"

namespace noiselearn {

// One cell of a release's outcomes: its merged loss (which decides its label) and its masses under the direction's
// first and second distribution, with the relative error of the masses as computed.
struct BucketCell {
  double loss = 0.0, first = 0.0, second = 0.0;
};

struct BucketedTest {
  double bucket_width = 0.0;  // h
  // The labels' masses under the first distribution (a lower PLD: at most the exact ones up to its errors; its
  // infinity mass is the outcomes of infinite loss, which pass every test) and the second's tilted by e^{k h} (an
  // upper PLD: at least the exact ones up to its errors), on label indices from their first_index.
  PrivacyLossDistribution first;
  PrivacyLossDistribution second_tilted;
  int64_t compositions = 1;
  double tilted_for = 0.0;  // the epsilon its composition was tilted for (0: untilted)
  // Of one release: the mean (under the first distribution) of the loss within its bucket, l - k h, in [0, h).
  double mean_offset = 0.0;
  // The second side's masses are e^{log_second_scale} times second_tilted's (composed scaled to sum to 1; an upper
  // bound of the exponent).
  double log_second_scale = 0.0;
  // The tails the test sums, from each threshold tau in [tail_bottom, tail_top] up: the first side's masses (the
  // infinite-loss outcomes included) and the second side's untilted, e^{-s h} (tilted)(s) (prepare_tails(), which
  // composed_bucketed_test calls; a test without them bounds nothing).
  int64_t tail_bottom = 0, tail_top = -1;
  std::vector<double> first_tail, second_tail;
  void prepare_tails();

  // Rigorous lower bounds: the best threshold's test at eps, and the largest eps whose bound exceeds delta (at least
  // `at_least`).
  double delta_lower(double epsilon) const;
  double epsilon_lower(double delta, double at_least = 0.0) const;
};

// One release's test from its cells (finite losses only), bucket width h (doubled until the labels span at most
// max_labels), masses' relative error `relative_error`, and the mass of outcomes of infinite loss under the first
// distribution. Nothing when there is no finite cell.
std::optional<BucketedTest> single_release_bucketed_test(const std::vector<BucketCell>& cells, double h,
                                                         double relative_error, double infinity_mass,
                                                         int64_t max_labels);

// The n-fold composition of a release's test by one FFT power of each side, tilted for target_epsilon (the Chernoff
// tilt of its first side; 0: untilted); nothing when it does not apply (the window too wide, or a side coarsened beyond
// the bucket width to fit max_points).
std::optional<BucketedTest> composed_bucketed_test(const BucketedTest& test, int64_t n,
                                                   const AccountantOptions& options, double target_epsilon = 0.0);

}  // namespace noiselearn
