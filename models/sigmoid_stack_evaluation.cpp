#include "models/sigmoid_stack_evaluation.hpp"

#include <tuple>

namespace noiselearn {

namespace {

// Stands for log 0 inside the evaluations. A finite sentinel rather than -inf: the derivative of
// logaddexp(-inf, -inf) is NaN, whereas logaddexp(kLogZero, a) == a exactly for every a > -1e299
// (exp(kLogZero - a) is 0) with derivative 0 towards the sentinel, and kLogZero minus any exponent of the
// model (|C x| < 1e290) is still about kLogZero.
constexpr double kLogZero = -1e300;

// log w for weights w >= 0; kLogZero where w == 0, with gradient 0 there (never 0 * inf).
torch::Tensor log_weight(const torch::Tensor& w) {
  const torch::Tensor positive = w > 0;
  return torch::where(positive, torch::log(torch::where(positive, w, torch::ones_like(w))),
                      torch::full_like(w, kLogZero));
}

torch::Tensor grid_points(const Grid& grid, const torch::TensorOptions& options) {
  return grid.origin + grid.step * torch::arange(grid.size, options);
}

// G_k = log Σ_{j >= k} w_j e^{-C (F_j - a_k)} for ascending centres F, from log w, by recursive doubling:
// after the pass with stride s, G_k covers j in [k, k + 2s). Each pass re-references the partial sum at k + s
// to a_k through the gap C (a_{k+s} - a_k), so every exponent is a sum of a few non-negative gaps between
// nearby centres, accurate to its own size. (A single logcumsumexp of log w_j - C F_j would round C F_j,
// up to 2.5e5 at the paper's scale, to ulp 3e-11, an error the later C x - C F_j cancellation exposes.)
//
// The anchors a = F, detached: the sum does not depend on where it is referenced, and with constant anchors
// F_j enters only through its own term (value log w_j, derivative -C). dG/dF_j is then a product of positive
// factors, accurate relative to itself, where a differentiated anchor would produce it as -C + C (1 - share)
// and lose it to cancellation when the share of F_j is small.
//
// The partner k + s is read with a roll (its backward is a roll, where narrow + cat would allocate and fill
// zeros for every pass); the last s entries, which have no partner, are pushed to log 0 by a gap of 1e300.
torch::Tensor suffix_log_sums(const torch::Tensor& log_weights, const torch::Tensor& centres,
                              const torch::Tensor& anchors, double slope) {
  const int64_t K = log_weights.size(0);
  torch::Tensor log_sums = log_weights - slope * (centres - anchors);
  for (int64_t stride = 1; stride < K; stride *= 2) {
    const int64_t n = K - stride;
    const torch::Tensor gap = torch::cat({slope * (anchors.narrow(0, stride, n) - anchors.narrow(0, 0, n)),
                                          torch::full({stride}, -kLogZero, anchors.options())});
    log_sums = torch::logaddexp(log_sums, log_sums.roll(-stride) - gap);
  }
  return log_sums;
}

// For each grid point i, the number of sorted centres with F_j + reach < x_i (saturated: offset = reach) or
// with F_j - reach <= x_i (not in the tail: offset = -reach). Each centre is located on the uniform grid
// arithmetically (O(K), no binary search per centre) and the counts are cumulative sums
// of a histogram. A centre within rounding of a boundary may be counted on either side; it then has
// |C (x_i - F_j)| = T (1 ± 1e-13), where either treatment is exact to e^{-T}. Rounding is monotone, so the
// located positions are monotone in j (the runs are a prefix, a middle and a suffix of the sorted centres),
// and floor(u) + 1 >= ceil(v) for u >= v, so no point has more saturated centres than non-tail ones.
torch::Tensor run_ends(const torch::Tensor& sorted_centres, const Grid& grid, double offset, bool saturated) {
  const torch::Tensor position = ((sorted_centres + offset - grid.origin) / grid.step).clamp(-1.0, grid.size);
  // #{i : x_i <= F_j + reach} = floor(u) + 1 and #{i : x_i < F_j - reach} = ceil(v), clamped to [0, H].
  const torch::Tensor located = (saturated ? position.floor() + 1.0 : position.ceil()).clamp(0.0, grid.size);
  return torch::bincount(located.to(torch::kLong), /*weights=*/{}, /*minlength=*/grid.size + 1)
      .cumsum(0)
      .narrow(0, 0, grid.size);
}

}  // namespace

torch::Tensor sigmoid_stack_log_profile_direct(const Grid& half, const torch::Tensor& A, const torch::Tensor& B,
                                               const torch::Tensor& F, double slope) {
  const torch::Tensor x = grid_points(half, F.options());
  const torch::Tensor terms =
      log_weight(B.square()).unsqueeze(0) + torch::log_sigmoid(slope * (x.unsqueeze(1) - F.unsqueeze(0)));
  const torch::Tensor offset = log_weight(A.square()).reshape({1, 1}).expand({half.size, 1});
  return torch::logsumexp(torch::cat({offset, terms}, 1), 1);
}

torch::Tensor sigmoid_stack_log_profile_fast(const Grid& half, const torch::Tensor& A, const torch::Tensor& B,
                                             const torch::Tensor& F, double slope) {
  const int64_t H = half.size;
  const torch::Tensor x = grid_points(half, F.options());
  torch::Tensor centres, order;
  std::tie(centres, order) = F.sort();
  const torch::Tensor weights = B.index_select(0, order).square();
  const torch::Tensor sorted = centres.detach();

  // Runs of sorted centres for each x_i: [0, lo_i) saturated, [lo_i, hi_i) window, [hi_i, K) tail.
  const double reach = kSigmoidSaturation / slope;
  const torch::Tensor lo = run_ends(sorted, half, reach, /*saturated=*/true);
  const torch::Tensor hi = run_ends(sorted, half, -reach, /*saturated=*/false);

  // Saturated run: σ = 1, a prefix sum of B_j². A², the prefix and the window are sums of non-negative terms
  // (no cancellation), so they are added in linear space.
  const torch::Tensor prefix = torch::cat({torch::zeros({1}, weights.options()), weights.cumsum(0)});
  torch::Tensor linear_part = A.square() + prefix.index_select(0, lo);

  // Window: the exact sigmoids, evaluated for the (point, centre) pairs of every point's own run only,
  // flattened into one ragged list (no padding to the widest run: training clusters centres, and a padded
  // [H, W] gather would grow with the densest cluster for every point). Adversarial layouts (all centres
  // within T/C of each other) still make the list H K long, as costly as the direct evaluation, and exact.
  const torch::Tensor counts = hi - lo;
  const int64_t pairs = counts.sum().item<int64_t>();  // one host synchronisation
  if (pairs > 0) {
    const torch::Tensor rows = torch::repeat_interleave(torch::arange(H, lo.options()), counts);
    const torch::Tensor starts = counts.cumsum(0) - counts;
    const torch::Tensor columns =
        lo.index_select(0, rows) + (torch::arange(pairs, lo.options()) - starts.index_select(0, rows));
    // σ(z) = 1 / (1 + e^{-z}) spelt out: its derivative is then formed as σ² e^{-z}, a product of accurate
    // factors, where torch::sigmoid's backward forms σ (1 - σ) and loses 1 - σ(25) ≈ 1.4e-11 to cancellation
    // (relative error 1e-5 in dσ/dF).
    const torch::Tensor exponent =
        (slope * (centres.index_select(0, columns) - x.index_select(0, rows))).clamp_max(kSigmoidSaturation + 1.0);
    const torch::Tensor terms = weights.index_select(0, columns) * (exponent.exp() + 1.0).reciprocal();
    linear_part = linear_part.index_add(0, rows, terms);
  }

  // Tail run from centre k = hi: σ(z) = e^z, Σ_j B_j² e^{C (x - F_j)} = e^{C (x - a_k) + G_k}. Index K (empty
  // tail) reads G = log 0 and an arbitrary finite anchor.
  const torch::Tensor tail_sums = torch::cat(
      {suffix_log_sums(log_weight(weights), centres, sorted, slope), torch::full({1}, kLogZero, weights.options())});
  const torch::Tensor anchors = torch::cat({sorted, torch::zeros({1}, sorted.options())});
  const torch::Tensor log_tail = slope * (x - anchors.index_select(0, hi)) + tail_sums.index_select(0, hi);

  return torch::logaddexp(log_weight(linear_part), log_tail);
}

}  // namespace noiselearn
