#include "losses/privacy_buckets_fused.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/avx2_clones.hpp"
#include "core/branch_free.hpp"
#include "losses/privacy_buckets_surrogates.hpp"

namespace noiselearn {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// smallerThan(x, y) = σ(-5 (m + 0.5)) at the whole-number offset m = x - y, and σ (1 - σ), from a table over
// m in [kLowest, kHighest]; beyond it σ is 1 (m < kLowest) or 0 (m > kHighest) in double precision.
constexpr int64_t kLowest = -10, kHighest = 150;
struct SmallerThanTable {
  double value[kHighest - kLowest + 1];
  double slope[kHighest - kLowest + 1];
  SmallerThanTable() {
    for (int64_t m = kLowest; m <= kHighest; ++m) {
      const double s = 1.0 / (1.0 + std::exp(kSmallerThanSlope * (static_cast<double>(m) + 0.5)));
      value[m - kLowest] = s;
      slope[m - kLowest] = s * (1.0 - s);
    }
  }
  double sigma(double m) const {
    return m < kLowest ? 1.0 : m > kHighest ? 0.0 : value[static_cast<int64_t>(m) - kLowest];
  }
  double derivative(double m) const {
    return m < kLowest || m > kHighest ? 0.0 : slope[static_cast<int64_t>(m) - kLowest];
  }
};
const SmallerThanTable& smaller_than_table() {
  static const SmallerThanTable table;
  return table;
}

enum Outcome : int8_t { kNone = 0, kFinite = 1, kDistinguishing = 2 };

// x_i = ceil((lf_i - ls_i) / ln f) for every outcome (infinite or NaN where a log mass is not finite; the caller
// reads it only where both are finite): no branch, so that it vectorises, four divisions at a time under AVX2.
// The same expression as the per-outcome one, so the same bits.
NOISELEARN_AVX2_CLONES void bucket_indices(const double* lf, const double* ls, double log_factor, double* out,
                                           int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::ceil((lf[i] - ls[i]) / log_factor);
}

// The single release's sums over the outcomes (see SingleReleaseBuckets::forward): the kinds, the regular buckets
// (finite, whose slot 0 receives the bucket -h), the bucket -h, infinity's two parts and the range of the indices. A
// function of its own, so that its running sums stay in registers (inside the forward GCC spilled the one on the
// chain of additions, a store and a reload per outcome).
struct BucketSums {
  double below = 0.0, beyond = 0.0, distinguishing = 0.0, lowest = 0.0, highest = 0.0;
  int64_t finite_outcomes = 0;
};
[[gnu::noinline]] BucketSums fill_buckets(const double* __restrict lf, const double* __restrict ls,
                                          const double* __restrict exp_first, double* __restrict index,
                                          int8_t* __restrict kind, double* __restrict finite, int64_t N, int64_t half) {
  BucketSums out;
  double below = 0.0, beyond = 0.0, distinguishing = 0.0;
  const SmallerThanTable& table = smaller_than_table();
  const double h = static_cast<double>(half);
  // The regular bucket being filled is held in a register (acc = finite[current]): neighbouring outcomes mostly
  // share a bucket, and each addition then waits for the previous one in a register, not for a store and a reload.
  // Without a branch on whether the bucket changed (it changes every few outcomes, unpredictably): acc is stored to
  // its bucket every time, the next bucket's sum loaded every time, and the register kept where the bucket is the
  // same (where the load would give the value just stored). The same additions in the same order: the same sums.
  // current starts at slot 0, the bucket -h, which is written last (below).
  int64_t current = 0;
  double acc = 0.0;
  double lowest = 0.0, highest = 0.0;
  int64_t finite_outcomes = 0;
  for (int64_t i = 0; i < N; ++i) {
    if (!std::isfinite(lf[i])) {
      kind[i] = kNone;
      index[i] = 0.0;
      continue;
    }
    const double m = exp_first[i];
    if (!std::isfinite(ls[i])) {
      kind[i] = kDistinguishing;
      index[i] = 0.0;
      distinguishing += m;
      continue;
    }
    kind[i] = kFinite;
    const double x = index[i];  // f^{x-1} < e^L <= f^x
    // The range of the indices that occur (the backward pass's Lorentzian correlation is evaluated over it).
    lowest = finite_outcomes == 0 ? x : std::min(lowest, x);
    highest = finite_outcomes == 0 ? x : std::max(highest, x);
    ++finite_outcomes;
    // smallerThan(x, -h + 1) (bucket -h) and smallerThan(h, x) (infinity): both 0 beyond the table's top, where
    // the addition of m * 0 is skipped (it would add +0).
    const double m_below = x - (-h + 1.0), m_beyond = h - x;
    if (m_below <= static_cast<double>(kHighest)) below += m * table.sigma(m_below);
    if (m_beyond <= static_cast<double>(kHighest)) beyond += m * table.sigma(m_beyond);
    if (x >= -h + 1.0 && x <= h) {
      const int64_t bucket = static_cast<int64_t>(x) + half;
      finite[current] = acc;
      const double loaded = finite[bucket];
      acc = select_kept(bucket == current, acc, loaded) + m;
      current = bucket;
    }
  }
  finite[current] = acc;
  finite[0] = below;
  out.below = below;
  out.beyond = beyond;
  out.distinguishing = distinguishing;
  out.lowest = lowest;
  out.highest = highest;
  out.finite_outcomes = finite_outcomes;
  return out;
}

// What the backward pass's loop over the outcomes reads.
struct OutcomeGradientInputs {
  const double* mass;
  const double* index;
  const int8_t* kind;
  const double* gf;           // dL/d finite
  const double* correlation;  // the Lorentzian correlation (by index range, or per outcome)
  double grad_infinity, inverse_log_factor, lowest;
  int64_t half;
  bool by_range, finite_edge_gradients;
};

// dL/d log first and dL/d log second per outcome (see SingleReleaseBuckets::backward). A function of its own, so that
// its loop's values stay in registers (inside the backward GCC reloaded them from the stack per outcome).
[[gnu::noinline]] void outcome_gradients(const OutcomeGradientInputs& in, int64_t N, double* __restrict grad_first,
                                         double* __restrict grad_second) {
  const double* __restrict mass = in.mass;
  const double* __restrict index = in.index;
  const int8_t* __restrict kind = in.kind;
  const double* __restrict gf = in.gf;
  const double* __restrict correlation = in.correlation;
  const double grad_infinity = in.grad_infinity, inverse_log_factor = in.inverse_log_factor, lowest = in.lowest;
  const int64_t half = in.half;
  const bool by_range = in.by_range, finite_edge_gradients = in.finite_edge_gradients;
  const double h = static_cast<double>(half);
  const SmallerThanTable& table = smaller_than_table();
  for (int64_t i = 0; i < N; ++i) {
    grad_first[i] = 0.0;
    grad_second[i] = 0.0;
    if (kind[i] == kDistinguishing) {
      grad_first[i] = grad_infinity * mass[i];
    } else if (kind[i] == kFinite) {
      const double x = index[i];
      const double m_below = x - (-h + 1.0), m_beyond = h - x;
      const double lorentzian = correlation[by_range ? static_cast<int64_t>(x - lowest) : i];
      double grad_mass, grad_index;
      if (finite_edge_gradients && m_below > static_cast<double>(kHighest) &&
          m_beyond > static_cast<double>(kHighest)) {
        // Most outcomes: a regular bucket far from both ends, where smallerThan and its slope are 0 (the general
        // expressions below add zeros to the same two terms; with a non-finite edge gradient they add NaN, which
        // the general path keeps for the NaN guard).
        grad_mass = gf[static_cast<int64_t>(x) + half];
        grad_index = mass[i] * lorentzian;
      } else {
        grad_mass = gf[0] * table.sigma(m_below) + grad_infinity * table.sigma(m_beyond);
        if (x >= -h + 1.0 && x <= h) grad_mass += gf[static_cast<int64_t>(x) + half];
        grad_index = mass[i] * (gf[0] * -kSmallerThanSlope * table.derivative(m_below) +
                                grad_infinity * kSmallerThanSlope * table.derivative(m_beyond) + lorentzian);
      }
      const double grad_loss = grad_index * inverse_log_factor;  // ceil: straight through
      grad_first[i] = grad_mass * mass[i] + grad_loss;
      grad_second[i] = -grad_loss;
    }
  }
}

class SingleReleaseBuckets : public torch::autograd::Function<SingleReleaseBuckets> {
 public:
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& log_first, const torch::Tensor& log_second,
                               const torch::Tensor& first, double log_factor, int64_t half) {
    const int64_t N = log_first.size(0);
    const double* lf = log_first.data_ptr<double>();
    const double* ls = log_second.data_ptr<double>();
    const auto float64 = torch::TensorOptions().dtype(torch::kDouble);
    const double* exp_first = first.data_ptr<double>();
    torch::Tensor index_t = torch::empty({N}, float64);
    torch::Tensor kind_t = torch::empty({N}, torch::TensorOptions().dtype(torch::kChar));
    double* index = index_t.data_ptr<double>();
    int8_t* kind = kind_t.data_ptr<int8_t>();
    torch::Tensor finite_t = torch::zeros({2 * half + 1}, float64);
    double* finite = finite_t.data_ptr<double>();
    bucket_indices(lf, ls, log_factor, index, N);
    const BucketSums sums = fill_buckets(lf, ls, exp_first, index, kind, finite, N, half);
    // The masses are the caller's e^{log first}, kept without a copy (the backward reads them only where log first
    // is finite); its version is checked there, so that an in-place change in between is an error, not a wrong
    // gradient.
    ctx->saved_data["mass"] = first;
    ctx->saved_data["mass_version"] = static_cast<int64_t>(first._version());
    ctx->saved_data["index"] = index_t;
    ctx->saved_data["kind"] = kind_t;
    ctx->saved_data["log_factor"] = log_factor;
    ctx->saved_data["half"] = half;
    ctx->saved_data["lowest"] = sums.lowest;
    ctx->saved_data["highest"] = sums.highest;
    ctx->saved_data["finite_outcomes"] = sums.finite_outcomes;
    return {finite_t, torch::full({}, sums.distinguishing + sums.beyond, float64)};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const torch::Tensor mass_t = ctx->saved_data["mass"].toTensor(), index_t = ctx->saved_data["index"].toTensor();
    const torch::Tensor kind_t = ctx->saved_data["kind"].toTensor();
    const double log_factor = ctx->saved_data["log_factor"].toDouble();
    const int64_t half = ctx->saved_data["half"].toInt();
    if (static_cast<int64_t>(mass_t._version()) != ctx->saved_data["mass_version"].toInt())
      throw std::logic_error(
          "PrivacyBuckets backward: the masses e^{log first} were modified in place after the forward pass");
    const int64_t N = mass_t.size(0);
    const auto float64 = torch::TensorOptions().dtype(torch::kDouble);
    const torch::Tensor grad_finite_t = grad_outputs[0].defined()
                                            ? grad_outputs[0].to(torch::kCPU, torch::kDouble).contiguous()
                                            : torch::zeros({2 * half + 1}, float64);
    const double grad_infinity = grad_outputs[1].defined() ? grad_outputs[1].item<double>() : 0.0;
    const double* gf = grad_finite_t.data_ptr<double>();
    const double* mass = mass_t.data_ptr<double>();
    const double* index = index_t.data_ptr<double>();
    const int8_t* kind = kind_t.data_ptr<int8_t>();

    // The Lorentzian correlation of the regular buckets' gradients at every index that occurs: over the whole
    // range of indices when it is not much longer than the outcomes, else at each outcome's index.
    const double lowest = ctx->saved_data["lowest"].toDouble(), highest = ctx->saved_data["highest"].toDouble();
    const int64_t finite_outcomes = ctx->saved_data["finite_outcomes"].toInt();
    const torch::Tensor regular = grad_finite_t.narrow(0, 1, 2 * half);
    torch::Tensor correlation_t;
    const bool by_range = finite_outcomes > 0 && highest - lowest <= static_cast<double>(4 * N + 4 * half);
    if (by_range) {
      correlation_t =
          equal_surrogate_correlation(regular, torch::arange(lowest, highest + 0.5, 1.0, float64), half).contiguous();
    } else if (finite_outcomes > 0) {
      correlation_t = equal_surrogate_correlation(
                          regular, torch::where(kind_t == kFinite, index_t, torch::zeros_like(index_t)), half)
                          .contiguous();
    }
    const double* correlation = finite_outcomes > 0 ? correlation_t.data_ptr<double>() : nullptr;

    const double inverse_log_factor = 1.0 / log_factor;  // a multiplication per outcome, not a division
    const bool finite_edge_gradients = std::isfinite(gf[0]) && std::isfinite(grad_infinity);
    // Every element is written below (no zero fill first).
    torch::Tensor grad_first_t = torch::empty({N}, float64), grad_second_t = torch::empty({N}, float64);
    double* grad_first = grad_first_t.data_ptr<double>();
    double* grad_second = grad_second_t.data_ptr<double>();
    outcome_gradients({mass, index, kind, gf, correlation, grad_infinity, inverse_log_factor, lowest, half, by_range,
                       finite_edge_gradients},
                      N, grad_first, grad_second);
    return {grad_first_t, grad_second_t, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

PrivacyBuckets fused_single_release_buckets(const LogPair& pair, const torch::Tensor& first, double log_factor,
                                            int64_t half_buckets) {
  const variable_list out = SingleReleaseBuckets::apply(pair.log_first, pair.log_second, first.detach().contiguous(),
                                                        log_factor, half_buckets);
  return PrivacyBuckets{out[0], out[1]};
}

namespace {

// The sums of finite_loss_moments over raw arrays (see there): an AVX2 clone, so that the four partial sums of
// each pass are one vector of four lanes (the same lanes and additions as the baseline build: the same bits).
NOISELEARN_AVX2_CLONES FiniteLossMoments finite_loss_moment_sums(const double* lf, const double* ls, const double* a,
                                                                 int64_t N) {
  // Sums in four interleaved partial sums (outcome i in lane i mod 4): independent additions. An outcome with an
  // infinite log-mass adds +0 (a select, not a branch, so the lanes vectorise): the same sums as skipping it. The
  // loss lf - ls is finite exactly when both are (an infinity or a NaN on either side makes it infinite or NaN; two
  // finite log masses, at most about 745 in size, cannot overflow): one comparison.
  FiniteLossMoments m;
  double mass[4] = {0.0, 0.0, 0.0, 0.0}, weighted[4] = {0.0, 0.0, 0.0, 0.0};
  const auto finite = [&](int64_t i) { return std::isfinite(lf[i]) && std::isfinite(ls[i]); };
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  const int64_t blocks = N / 4 * 4;
  for (int64_t i0 = 0; i0 < blocks; i0 += 4)
    for (int64_t j = 0; j < 4; ++j) {
      const int64_t i = i0 + j;
      const double loss = lf[i] - ls[i];
      const bool ok = std::fabs(loss) < kInfinity;  // false for NaN too
      mass[j] += ok ? a[i] : 0.0;
      weighted[j] += ok ? a[i] * loss : 0.0;
    }
  for (int64_t i = blocks; i < N; ++i)
    if (finite(i)) {
      mass[i % 4] += a[i];
      weighted[i % 4] += a[i] * (lf[i] - ls[i]);
    }
  m.mass = (mass[0] + mass[1]) + (mass[2] + mass[3]);
  if (m.mass <= 0.0) return m;
  m.mean = ((weighted[0] + weighted[1]) + (weighted[2] + weighted[3])) / m.mass;
  double squares[4] = {0.0, 0.0, 0.0, 0.0};
  for (int64_t i0 = 0; i0 < blocks; i0 += 4)
    for (int64_t j = 0; j < 4; ++j) {
      const int64_t i = i0 + j;
      const double loss = lf[i] - ls[i], d = loss - m.mean;
      squares[j] += std::fabs(loss) < kInfinity ? a[i] * d * d : 0.0;
    }
  for (int64_t i = blocks; i < N; ++i)
    if (finite(i)) {
      const double d = lf[i] - ls[i] - m.mean;
      squares[i % 4] += a[i] * d * d;
    }
  m.variance = ((squares[0] + squares[1]) + (squares[2] + squares[3])) / m.mass;
  return m;
}

}  // namespace

FiniteLossMoments finite_loss_moments(const LogPair& pair, const torch::Tensor& first) {
  const torch::Tensor log_first = pair.log_first.detach(), log_second = pair.log_second.detach();
  const torch::Tensor exp_first = first.detach().contiguous();
  return finite_loss_moment_sums(log_first.data_ptr<double>(), log_second.data_ptr<double>(),
                                 exp_first.data_ptr<double>(), log_first.size(0));
}

}  // namespace noiselearn
