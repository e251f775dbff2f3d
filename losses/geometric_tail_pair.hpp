#pragma once
// The dominating pair of a geometric-tail family (models/geometric_tail_family.hpp) for an aligned shift of a
// bins, as a differentiable LogPair with finitely many outcomes that is nevertheless EXACT. (losses may not use
// models: the family enters as its theta = log p_0 .. log p_N, so N = theta.size(0) - 1, and its tail ratio r.)
//
// Gilani et al., Thm 3.6 and eq. 65: the worst shifts of the continuous family are aligned with the bins, and
// there g_alpha(p, a) = sum over all integers j of P(j + a)^alpha P(j)^(1 - alpha). The outcome j has mass
// first = P(j + a) and second = P(j), and privacy loss L(j) = log P(j + a) - log P(j). Where both j and j + a
// lie in the same geometric tail the loss is constant:
//   right tail, j >= N (then j + a > N too):      P(j + a) / P(j) = r^a,    L = -a ln(1/r);
//   left tail,  j + a <= -N (then j < -N too):    P(j + a) / P(j) = r^(-a), L = +a ln(1/r).
// Outcomes with the same loss can be merged without changing any f-divergence, privacy profile or PLD, so
// each tail becomes ONE outcome with its closed-form masses (geometric series):
//   left:  first = p_N / (1 - r),         second = p_N r^a / (1 - r);
//   right: first = p_N r^a / (1 - r),     second = p_N / (1 - r).
// The explicit outcomes are j = -N - a + 1 .. N - 1 (2N + a - 1 of them). The layout is
//   [left tail, j = -N - a + 1, ..., j = N - 1, right tail],
// and both sides sum to the family's normalisation (1 for a normalised family) exactly: first covers P(i) for
// i <= -N (left), -N < i < N + a (explicit), i >= N + a (right); second covers j <= -N - a, -N - a < j < N, j >= N.
//
// For a symmetric family the other direction is the same pair reflected (j -> -j - a), so one direction is
// all a Renyi or privacy-profile computation needs.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "losses/differentiable_pair.hpp"

namespace noiselearn {

// theta = log p_0 .. log p_N (float64, 1-D, N >= 1, any device, differentiable); 0 < r < 1; shift a >= 1 bins
// (std::invalid_argument otherwise).
LogPair geometric_tail_pair(const torch::Tensor& theta, double tail_ratio, int64_t shift);

// log P(i) for i = -N - extra + 1 .. N + extra - 1 (2N + 2 extra - 1 entries): the window mirrored and
// continued by the tails, differentiable in theta. Shared by the pair and by the batched Renyi objective.
torch::Tensor extended_log_probabilities(const torch::Tensor& theta, double tail_ratio, int64_t extra);

}  // namespace noiselearn
