// The hand-derived backward pass of the fused sigmoid stack (the recursions in models/sigmoid_stack_fused.hpp) on the
// forward evaluation's arrays (sigmoid_stack_fused_evaluation.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "accounting/vectorised_math.hpp"
#include "core/avx2_clones.hpp"
#include "core/branch_free.hpp"
#include "core/partial_sums.hpp"
#include "models/sigmoid_stack_fused_evaluation.hpp"

namespace noiselearn::fused_sigmoid_stack {

namespace {

// From r_i = e^{-|log lin_i - log tail_i|} (held in share on entry) and which term is the larger (lin_larger_i, that is
// log lin_i >= log tail_i), the shares of lin and tail in f: the larger's 1 / (1 + r), the smaller's r / (1 + r).
// Writes γ_i = (g_i lin_share_i) / lin_i where lin_i > 0, else 0 (the backward's dL/d lin), and leaves the tail's share
// in place of r: one pass, branch-free in an AVX2 clone where the machine has it (the divisions go four at a time), the
// same IEEE operations on the same values as a pass for the shares and one for γ (where lin_i <= 0 the quotient is of
// 0 by 1).
// GCC if-converts the selects only when floating-point operations are taken not to trap (NOISELEARN_NO_TRAPPING_MATH).
NOISELEARN_AVX2_CLONES NOISELEARN_NO_TRAPPING_MATH void linear_gradients_and_tail_shares(
    const double* __restrict g, const uint8_t* __restrict lin_larger_flags, const double* __restrict lin,
    double* __restrict share, double* __restrict gamma, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double r = share[i], larger = 1.0 / (1.0 + r), smaller = r * larger;
    const bool lin_larger = lin_larger_flags[i] != 0;
    const double lin_share = lin_larger ? larger : smaller;
    share[i] = lin_larger ? smaller : larger;
    const double alpha = g[i] * lin_share;
    const bool positive = lin[i] > 0.0;
    const double quotient = (positive ? alpha : 0.0) / (positive ? lin[i] : 1.0);
    gamma[i] = positive ? quotient : 0.0;
  }
}

// Σ γ_i, and β'_k += Σ_{i: hi_i = k} δ_i t_i (δ = dL/d log f, t the tail's share), in one pass in index order: Σ γ in a
// register and the β' being filled held in one while neighbouring points share it, instead of a store and a reload
// per point. A function of its own, so that both sums stay in registers (inside the backward pass GCC kept
// Σ γ on the stack: a store and a reload per point). The same additions in the same order: the same bits.
[[gnu::noinline]] double gamma_sum_and_tail_gradients(const double* __restrict gamma, const double* __restrict d_log_f,
                                                      const double* __restrict tail_share, const int32_t* __restrict hi,
                                                      int64_t H, double* __restrict beta) {
  double gamma_sum = 0.0;
  if (H <= 0) return gamma_sum;
  // The β' being filled is stored every point and the next point's loaded, the register kept where the centre is
  // the same (where the load would give the value just stored): no branch on a change of centre, which comes every
  // few points, unpredictably.
  int64_t current = hi[0];
  double filling = beta[current];
  for (int64_t i = 0; i < H; ++i) {
    gamma_sum += gamma[i];
    const int64_t k = hi[i];
    beta[current] = filling;
    const double loaded = beta[k];
    filling = select_kept(k == current, filling, loaded) + d_log_f[i] * tail_share[i];
    current = k;
  }
  beta[current] = filling;
  return gamma_sum;
}

// Normalisation: d log f_k = g_k - p_k Σ g; the mirror folds the right half onto the left; the running maximum
// passes each point's gradient to its argmax. p on the half (p is symmetric: the half's values serve the whole grid)
// comes from the forward pass's normalisation: p_i = e^{running_i - top} / total (within two roundings of
// e^{log p_i}, without an exponential).
std::vector<double> log_f_gradients(const double* grad, const double* shifted, const int32_t* argmax, double total,
                                    int64_t E, int64_t H) {
  const double grad_sum = sum_in_four_lanes(grad, E);
  std::vector<double> d_log_f(static_cast<size_t>(H), 0.0);
  const double inverse_total = 1.0 / total;
  for (int64_t i = 0; i < H; ++i) {
    const double p = shifted[i] * inverse_total;
    double mirrored = grad[i] - p * grad_sum;
    if (E - 1 - i != i) mirrored += grad[E - 1 - i] - p * grad_sum;
    d_log_f[static_cast<size_t>(argmax[i])] += mirrored;
  }
  return d_log_f;
}

// γ_i = dL/d lin_i (into gamma), β'_k = Σ_{i: hi_i = k} dL/d log tail_i (into beta, K + 1 zeros on entry); returns
// Σ γ. The shares lin / f and tail / f (<= 1, summing to 1), by one vectorised exp: with r = e^{-|log lin - log tail|}
// (the smaller term over the larger), the larger's share is 1 / (1 + r) and the smaller's r / (1 + r), each to a few
// roundings relative (no cancellation). Where the forward pass dropped the smaller term (r < e^-40), these are 1 and r
// to rounding, as e^{log lin - log f} and e^{log tail - log f} were.
double linear_and_tail_gradients(const StackShape& s, const double* d_log_f, const int32_t* hi, const double* c,
                                 const double* G, const double* lin, const double* log_lin, Scratch& gamma,
                                 std::vector<double>& beta) {
  const int64_t H = s.H, K = s.K;
  Scratch tail_share(H);  // every element written below
  std::vector<uint8_t> lin_larger(static_cast<size_t>(H));
  for (int64_t i = 0; i < H; ++i) {
    const double log_tail = log_tail_at(i, s.x0, s.h, s.C, hi[i], K, c, G);
    tail_share[static_cast<size_t>(i)] = -std::fabs(log_lin[i] - log_tail);
    lin_larger[static_cast<size_t>(i)] = log_lin[i] >= log_tail ? 1 : 0;
  }
  exp_in_place(tail_share.data(), H);
  // γ and the tail's share in a branch-free pass (its divisions vectorise); then Σ γ and β' in one scalar pass, Σ γ
  // in a register and the β' being filled held in one while neighbouring points share it (they mostly do) instead of
  // a store and a reload per point. The same operations in the same order as one loop: the same bits.
  linear_gradients_and_tail_shares(d_log_f, lin_larger.data(), lin, tail_share.data(), gamma.data(), H);
  return gamma_sum_and_tail_gradients(gamma.data(), d_log_f, tail_share.data(), hi, H, beta.data());
}

// Suffix sums of γ over the points: the saturated runs' Σ γ_i.
Scratch gamma_suffix_sums(const Scratch& gamma, int64_t H) {
  Scratch suffix(H + 1);
  suffix[static_cast<size_t>(H)] = 0.0;
  for (int64_t i = H - 1; i >= 0; --i)
    suffix[static_cast<size_t>(i)] = suffix[static_cast<size_t>(i) + 1] + gamma[static_cast<size_t>(i)];
  return suffix;
}

// What the centre recursion reads, from the forward evaluation and the phases before it.
struct CentreInputs {
  const int64_t* order;
  const double *b, *c, *w;
  const int64_t *start, *end;
  const double *G, *anchor;
  const Scratch& gamma;
  const Scratch& suffix;
  const std::vector<double>& beta;
};

// dL/dB_j = 2 B_j dL/dw_j and dL/dF_j = dL/dc_j (in the centres' own order), centre by centre in ascending order: the
// window sums from the same anchors by the same recurrence as the forward pass (its e and σ), the saturated points'
// suffix sum, and the tail recursion T_j = T_{j-1} e^{-C (c_j - c_{j-1})} + β'_j e^{-G_j}.
void centre_gradients(const StackShape& s, const CentreInputs& in, double* grad_b, double* grad_f) {
  const int64_t H = s.H, K = s.K;
  const double C = s.C;
  const int64_t* order = in.order;
  const double *b = in.b, *c = in.c, *w = in.w, *G = in.G, *anchor = in.anchor;
  const int64_t* start = in.start;
  const int64_t* end = in.end;
  const Scratch& gamma = in.gamma;
  const Scratch& suffix = in.suffix;
  const std::vector<double>& beta = in.beta;
  // The recursion's factors e^{-C (c_j - c_{j-1})} and e^{-G_j}, by one vectorised exp each.
  Scratch step(K), inverse_sum(K);
  step[0] = 0.0;
  for (int64_t j = 1; j < K; ++j) step[static_cast<size_t>(j)] = -C * (c[j] - c[j - 1]);
  for (int64_t j = 0; j < K; ++j) inverse_sum[static_cast<size_t>(j)] = -G[j];
  exp_in_place(step.data(), K);
  exp_in_place(inverse_sum.data(), K);
  const std::vector<double>& rho = grid_step_ratios(s.x0, s.h, H, C);
  double tail_recursion = 0.0;  // T_j
  int64_t a_count = 0;
  for (int64_t j = 0; j < K; ++j) {
    // Two partial sums each (even and odd points of the window), so that consecutive additions do not wait for
    // each other. The anchored runs have an even length (kAnchorEvery), so a point's lane is its parity in the
    // window.
    double d_w_sums[2] = {suffix[static_cast<size_t>(end[j])], 0.0}, d_c_sums[2] = {0.0, 0.0};
    // (The reference drops the slope term where C (c_j - x_i) > T + 1: never inside a window, where it is <= T.)
    double v = 0.0;
    const auto add_pair = [&](int lane, int64_t i) {
      const double sigma = 1.0 / (v + 1.0);
      const double g = gamma[static_cast<size_t>(i)];
      d_w_sums[lane] += g * sigma;
      d_c_sums[lane] -= g * sigma * sigma * v;
      v *= rho[static_cast<size_t>(i)];
    };
    for (int64_t i0 = start[j]; i0 < end[j]; i0 += kAnchorEvery) {
      const int64_t i1 = std::min(end[j], i0 + kAnchorEvery);
      v = anchor[static_cast<size_t>(a_count++)];
      int64_t i = i0;
      for (; i + 1 < i1; i += 2) {
        add_pair(0, i);
        add_pair(1, i + 1);
      }
      if (i < i1) add_pair(0, i);
    }
    double d_w = d_w_sums[0] + d_w_sums[1], d_c = d_c_sums[0] + d_c_sums[1];
    tail_recursion = j == 0 ? 0.0 : tail_recursion * step[static_cast<size_t>(j)];
    if (beta[static_cast<size_t>(j)] != 0.0)
      tail_recursion += beta[static_cast<size_t>(j)] * inverse_sum[static_cast<size_t>(j)];
    if (w[j] > 0.0) d_w += tail_recursion;
    d_c = C * w[j] * (d_c - tail_recursion);
    grad_b[order[j]] = 2.0 * b[order[j]] * d_w;
    grad_f[order[j]] = d_c;
  }
}

}  // namespace

StackGradients stack_gradients(const StackShape& s, const torch::Tensor& A, const torch::Tensor& B, const Evaluation& v,
                               const torch::Tensor& grad) {
  const int64_t E = s.E, H = s.H;
  const int32_t* hi = v.hi.data_ptr<int32_t>();
  const double* c = v.c.data_ptr<double>();
  const double* G = v.G.data_ptr<double>();
  const std::vector<double> d_log_f = log_f_gradients(grad.data_ptr<double>(), v.shifted.data_ptr<double>(),
                                                      v.argmax.data_ptr<int32_t>(), v.total, E, H);
  Scratch gamma(H);  // every element written below
  std::vector<double> beta(static_cast<size_t>(s.K) + 1, 0.0);
  const double gamma_sum = linear_and_tail_gradients(s, d_log_f.data(), hi, c, G, v.lin.data_ptr<double>(),
                                                     v.log_lin.data_ptr<double>(), gamma, beta);
  const Scratch suffix = gamma_suffix_sums(gamma, H);

  StackGradients out;
  out.B = torch::zeros({s.K}, torch::kDouble), out.F = torch::zeros({s.K}, torch::kDouble);
  const CentreInputs inputs{v.order.data_ptr<int64_t>(),
                            B.data_ptr<double>(),
                            c,
                            v.w.data_ptr<double>(),
                            v.start.data_ptr<int64_t>(),
                            v.end.data_ptr<int64_t>(),
                            G,
                            v.anchors.data_ptr<double>(),
                            gamma,
                            suffix,
                            beta};
  centre_gradients(s, inputs, out.B.data_ptr<double>(), out.F.data_ptr<double>());
  out.A = torch::full({}, 2.0 * A.item<double>() * gamma_sum, torch::kDouble);
  return out;
}

}  // namespace noiselearn::fused_sigmoid_stack
