#pragma once
// Exponential tilting of a privacy-loss distribution, for accounting at small delta and many compositions.
//
// The FFT's rounding error is absolute: about u times the size of the whole distribution, spread over every
// entry. delta at a large eps depends only on the far tail, which may be far smaller than that error (the
// composition of 1e5 releases at delta = 1e-9). Weighting the masses by e^{lambda l} before the FFT makes
// the tail the bulk of the weighted vector: the absolute error of the weighted product becomes, after
// unweighting, an error of about u e^{lambda (r - l)} at loss l, where e^{lambda r} = E[e^{lambda L}]. For
// delta(eps) that is u times the Chernoff bound e^{lambda (r - eps)} >= P[L >= eps]: relative, not absolute.
// Because losses add under composition, the weights of a composition are the products of the factors'
// weights, so the weighting commutes with convolution (composition.hpp carries the tilted error norm).
//
// Any lambda gives a rigorous bound; the best for a query is the Chernoff-optimal one for its eps.
#include <cstdint>
#include <functional>

#include "accounting/privacy_loss_distribution.hpp"

namespace noiselearn {

// log sum_i m_i e^{lambda l_i} over the finite part (the cumulant generating function K(lambda) of the loss
// restricted to finite losses); -inf for an empty PLD.
double log_moment(const PrivacyLossDistribution& pld, double lambda);

// Gives a single-release PLD the tilt lambda: reference r = K(lambda) / lambda (so that the tilted masses sum to
// 1) and its tilted error norm from its plain one (numerical_error times the largest weight).
void apply_tilt(PrivacyLossDistribution& single, double lambda);

// sum_i m_i e^{lambda (l_i - r)} of a tilted PLD (its tilted mass).
double tilted_mass(const PrivacyLossDistribution& pld);

// Golden-section search for the minimum of a unimodal function of log(lambda) on [log lo, log hi], to log_tolerance
// in log(lambda) (at most 80 steps); the midpoint of the last interval. Any lambda of a Chernoff bound is rigorous: the
// search only makes it tight.
double minimise_over_log_lambda(const std::function<double(double)>& f, double lo, double hi,
                                double log_tolerance = 1e-7);

// The Chernoff-optimal tilt for delta at eps after n compositions of `single`: argmin over lambda > 0 of
// n K(lambda) - lambda eps. 0 if eps is at or below the mean loss (no tilt helps there).
double chernoff_tilt_for_epsilon(const PrivacyLossDistribution& single, int64_t n, double epsilon);

// The Chernoff estimate of eps(delta) after n compositions: min over lambda > 0 of (n K(lambda) + ln(1/delta)) /
// lambda (an estimate of the target eps, used to choose a tilt when the untilted bound is useless).
double chernoff_epsilon(const PrivacyLossDistribution& single, int64_t n, double delta);

}  // namespace noiselearn
