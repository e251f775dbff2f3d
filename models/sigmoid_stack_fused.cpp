#include "models/sigmoid_stack_fused.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "accounting/vectorised_math.hpp"
#include "core/avx2_clones.hpp"
#include "core/branch_free.hpp"
#include "core/log_math.hpp"
#include "core/partial_sums.hpp"
#include "models/sigmoid_stack_evaluation.hpp"

namespace noiselearn {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The window pairs' e^{C (c_j - x_i)} restart from an exact exponential every kAnchorEvery pairs (see evaluate); even,
// so that the backward pass's two lanes split every anchored run as they split the window.
constexpr int64_t kAnchorEvery = 32;
static_assert(kAnchorEvery % 2 == 0);

// log 0 inside the evaluation, as in sigmoid_stack_evaluation.cpp: logaddexp(kLogZero, a) == a exactly.
constexpr double kLogZero = -1e300;
// A suffix sum below e^kSmallestLogSum is left to the reference (its reciprocal enters the backward recursion).
constexpr double kSmallestLogSum = -600.0;

inline double log_weight(double w) { return w > 0.0 ? std::log(w) : kLogZero; }

// log(e^a + e^b) where a term below e^-40 of the other is dropped (its share, under 4.3e-18, is below the
// rounding of the sum): most grid points have no tail, or no linear part, so this saves two transcendentals.
inline double log_add_exp_dropping(double a, double b) {
  if (a - b > 40.0) return a;
  if (b - a > 40.0) return b;
  return log_add_exp(a, b);
}

// n doubles left uninitialised, for buffers whose every element is written before it is read: a std::vector would
// fill them with zeros first, a pass over up to 240 KB each (seven such buffers an epoch at the paper's scale).
class Scratch {
 public:
  explicit Scratch(int64_t n) : data_(new double[static_cast<size_t>(std::max<int64_t>(n, 1))]) {}
  double& operator[](size_t i) { return data_[i]; }
  const double& operator[](size_t i) const { return data_[i]; }
  double* data() { return data_.get(); }
  const double* data() const { return data_.get(); }

 private:
  std::unique_ptr<double[]> data_;
};

// x_i = x0 + h i, i < n, as every evaluation writes them.
Scratch grid_points(double x0, double h, int64_t n) {
  Scratch x(n);
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = x0 + h * static_cast<double>(i);
  return x;
}

// ρ_i = e^{-C (x_{i+1} - x_i)} on the points x_i = x0 + h i, i < n (ρ_{n-1} = 1, unused), kept per thread for the
// last grid and slope asked: a training asks for the same every epoch.
const std::vector<double>& grid_step_ratios(double x0, double h, int64_t n, double C) {
  struct Ratios {
    double x0 = 0.0, h = 0.0, C = 0.0;
    int64_t n = -1;
    std::vector<double> rho;
  };
  thread_local Ratios cached;
  if (cached.n != n || cached.x0 != x0 || cached.h != h || cached.C != C) {
    const Scratch x = grid_points(x0, h, n);
    std::vector<double> rho(static_cast<size_t>(std::max<int64_t>(n, 1)), 1.0);
    for (int64_t i = 0; i + 1 < n; ++i)
      rho[static_cast<size_t>(i)] = -C * (x[static_cast<size_t>(i) + 1] - x[static_cast<size_t>(i)]);
    if (n > 1) exp_in_place(rho.data(), n - 1);
    cached = {x0, h, C, n, std::move(rho)};
  }
  return cached.rho;
}

// log tail_i = C (x_i - c_k) + G_k, k = hi_i the first tail centre (C x_i + log 0 where none is): the forward pass's
// expression, which the backward pass evaluates again rather than keeping an array of it.
inline double log_tail_at(int64_t i, double x0, double h, double C, int64_t k, int64_t K, const double* c,
                          const double* G) {
  const double x = x0 + h * static_cast<double>(i);
  return C * (x - (k < K ? c[k] : 0.0)) + G[k];
}

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

// Each centre's window [start_j, end_j) of the grid points within reach of c_j (see evaluate), in an AVX2 clone where
// the machine has it: there ceil and floor are instructions instead of calls into libm (the same bits).
NOISELEARN_AVX2_CLONES void window_ends(const double* __restrict c, int64_t K, double reach, double x0, double h,
                                        double size, int64_t* __restrict start, int64_t* __restrict end) {
  for (int64_t j = 0; j < K; ++j) {
    const double v = std::clamp((c[j] + (-reach) - x0) / h, -1.0, size);
    const double u = std::clamp((c[j] + reach - x0) / h, -1.0, size);
    start[j] = static_cast<int64_t>(std::clamp(std::ceil(v), 0.0, size));
    end[j] = static_cast<int64_t>(std::clamp(std::floor(u) + 1.0, 0.0, size));
  }
}

// The permutation sorting the centres f ascending (ties in index order). The hint is the previous call's order:
// training moves centres a little, so it is usually still sorted, or a few insertions away; a budget of moves
// bounds the insertion sort, beyond which a full sort runs.
void sort_centres(const double* f, int64_t K, int64_t* order, std::vector<int64_t>* hint) {
  const auto before = [f](int64_t i, int64_t j) { return f[i] < f[j] || (f[i] == f[j] && i < j); };
  if (hint != nullptr && static_cast<int64_t>(hint->size()) == K) {
    std::copy(hint->begin(), hint->end(), order);
    int64_t budget = 8 * K;
    bool sorted = true;
    for (int64_t m = 1; m < K && sorted; ++m) {
      const int64_t item = order[m];
      int64_t n = m;
      while (n > 0 && before(item, order[n - 1])) {
        order[n] = order[n - 1];
        --n;
        if (--budget < 0) {
          sorted = false;
          break;
        }
      }
      order[n] = item;
    }
    if (!sorted) {
      std::iota(order, order + K, int64_t{0});
      std::sort(order, order + K, before);
    }
  } else {
    std::iota(order, order + K, int64_t{0});
    if (!std::is_sorted(f, f + K)) std::sort(order, order + K, before);
  }
  if (hint != nullptr) hint->assign(order, order + K);
}

torch::Tensor longs(int64_t n) { return torch::empty({n}, torch::TensorOptions().dtype(torch::kLong)); }
torch::Tensor ints(int64_t n) { return torch::empty({n}, torch::TensorOptions().dtype(torch::kInt)); }
torch::Tensor doubles(int64_t n) { return torch::empty({n}, torch::TensorOptions().dtype(torch::kDouble)); }

// What the backward pass reads, from the forward evaluation.
struct Evaluation {
  torch::Tensor order, c, w, start, end, hi, G, lin, anchors, log_lin, argmax, log_p;
  torch::Tensor shifted;    // e^{running_i - top} on the half: p_i = shifted_i / total
  double normaliser = 0.0;  // log p_i = log f_{argmax_i} - normaliser on the half
  double total = 0.0;
};

// The sizes and scalars of one evaluation: E grid points, the half's H (the points up to the centre), K centres, the
// grid x_i = x0 + h i and the slope C.
struct StackShape {
  int64_t E, H, K;
  double x0, h, C;
};

// The centres c in ascending order and their weights w_j = B_j² in the same order (training keeps them nearly
// sorted: sort_centres checks first).
void sort_weighted_centres(const StackShape& s, const double* b, const double* f, std::vector<int64_t>* order_hint,
                           Evaluation& v) {
  const int64_t K = s.K;
  v.order = longs(K);
  int64_t* order = v.order.data_ptr<int64_t>();
  sort_centres(f, K, order, order_hint);
  v.c = doubles(K), v.w = doubles(K);
  double* c = v.c.data_ptr<double>();
  double* w = v.w.data_ptr<double>();
  for (int64_t j = 0; j < K; ++j) {
    c[j] = f[order[j]];
    w[j] = b[order[j]] * b[order[j]];
  }
}

// How many windows end and start at each point of the half: their running sums are lo_i = #{j : end_j <= i} (the
// saturated prefix) and hi_i = #{j : start_j <= i} (the first tail centre).
struct WindowCounts {
  std::vector<int32_t> ends, starts;
};

// Each centre's window of grid points [start_j, end_j): x_i < c_j - reach is its tail (σ = e^z), x_i > c_j + reach
// saturated (σ = 1); located as in run_ends (sigmoid_stack_evaluation.cpp), so the runs are the reference's.
WindowCounts locate_windows(const StackShape& s, Evaluation& v) {
  const int64_t H = s.H, K = s.K;
  const double* c = v.c.data_ptr<double>();
  const double reach = kSigmoidSaturation / s.C, size = static_cast<double>(H);
  v.start = longs(K), v.end = longs(K);
  int64_t* start = v.start.data_ptr<int64_t>();
  int64_t* end = v.end.data_ptr<int64_t>();
  window_ends(c, K, reach, s.x0, s.h, size, start, end);
  WindowCounts counts{std::vector<int32_t>(static_cast<size_t>(H) + 1, 0),
                      std::vector<int32_t>(static_cast<size_t>(H) + 1, 0)};
  for (int64_t j = 0; j < K; ++j) {
    ++counts.ends[static_cast<size_t>(end[j])];
    ++counts.starts[static_cast<size_t>(start[j])];
  }
  return counts;
}

// Suffix log sums G_k = ln S_k, S_k = Σ_{j >= k} w_j e^{-C (c_j - c_k)} = w_k + r_k S_{k+1} with
// r_k = e^{-C (c_{k+1} - c_k)} <= 1 (the centres ascend); G_K = log 0. In linear space (the r_k by one vectorised
// exp, a multiply-add per centre, one vectorised log) when every S_k is far above underflow, else in log space as the
// reference: G_k = logaddexp(ln w_k, G_{k+1} - C (c_{k+1} - c_k)). Both add an ulp or two of relative error per step
// to the damped error of the step before: they agree to rounding (the equality tests hold them to 1e-12).
void suffix_log_sums(const StackShape& s, Evaluation& v) {
  const int64_t K = s.K;
  const double C = s.C;
  const double* c = v.c.data_ptr<double>();
  const double* w = v.w.data_ptr<double>();
  v.G = doubles(K + 1);
  double* G = v.G.data_ptr<double>();
  G[K] = kLogZero;
  if (K == 0) return;
  Scratch r(K);  // every element written below
  for (int64_t k = 0; k + 1 < K; ++k) r[static_cast<size_t>(k)] = -C * (c[k + 1] - c[k]);
  exp_in_place(r.data(), K - 1);
  r[static_cast<size_t>(K) - 1] = 0.0;
  constexpr double kSmallestLinearSum = 1e-200;
  bool linear = true;
  double sum = 0.0;
  for (int64_t k = K - 1; k >= 0 && linear; --k) {
    sum = w[k] + r[static_cast<size_t>(k)] * sum;
    G[k] = sum;
    linear = sum >= kSmallestLinearSum;
  }
  if (linear) {
    log_in_place(G, K);
  } else {
    G[K - 1] = log_weight(w[K - 1]);
    for (int64_t k = K - 2; k >= 0; --k) G[k] = log_add_exp(log_weight(w[k]), G[k + 1] - C * (c[k + 1] - c[k]));
  }
}

// The linear part's constant and saturated terms, lin_i = A² + Σ_{j < lo_i} w_j (the window sigmoids are added
// next), and hi_i, in 32 bits (K < 2^31, checked by the caller): the backward pass reads it again, and half the bytes
// are half the memory traffic. lo_i is used only here, where it is counted.
void saturated_linear_part(const StackShape& s, double a, const WindowCounts& counts, Evaluation& v) {
  const int64_t H = s.H, K = s.K;
  const double* w = v.w.data_ptr<double>();
  v.hi = ints(H);
  int32_t* hi = v.hi.data_ptr<int32_t>();
  v.lin = doubles(H);
  double* lin = v.lin.data_ptr<double>();
  Scratch prefix(K + 1);
  prefix[0] = 0.0;
  for (int64_t j = 0; j < K; ++j) prefix[static_cast<size_t>(j) + 1] = prefix[static_cast<size_t>(j)] + w[j];
  int32_t saturated = 0, not_tail = 0;  // lo_i and hi_i
  for (int64_t i = 0; i < H; ++i) {
    saturated += counts.ends[static_cast<size_t>(i)];
    not_tail += counts.starts[static_cast<size_t>(i)];
    hi[i] = not_tail;
    lin[i] = a * a + prefix[static_cast<size_t>(saturated)];
  }
}

// The window sigmoids w_j σ(C (x_i - c_j)), σ = 1 / (1 + e), added to lin per point in ascending centre order as
// the reference. e = e^{C (c_j - x_i)} along each centre's window (a contiguous run of points and of pairs) by the
// recurrence e_{i+1} = e_i ρ_i, ρ_i = e^{-C (x_{i+1} - x_i)} (the grid's, computed once per grid and slope),
// restarted by an exact exponential every kAnchorEvery pairs; the exponents at the anchors, C (c_j - x_i), are the
// reference's expression, all by one vectorised exp. In the window C (c_j - x_i) <= T, so the reference's clamp at
// T + 1 never acts. Against the reference's exp per pair: at most kAnchorEvery multiplications, each one rounding,
// plus the rounding of C (x_{i+1} - x_i) (about 1e-16 of C h): a few 1e-15 relative, where the exponent's own
// rounding (C times the rounding of x_i ~ 500) moves e by up to 5e-11 either way in both versions.
// The pairs' e and σ are not kept: the backward pass walks the windows again from the same anchors by the same
// recurrence and divides again (the same operations on the same values, so the same bits), which costs less than
// storing and reloading them: the window loop is bound by its stores.
void add_window_sigmoids(const StackShape& s, Evaluation& v) {
  const int64_t H = s.H, K = s.K;
  const double x0 = s.x0, h = s.h, C = s.C;
  const double* c = v.c.data_ptr<double>();
  const double* w = v.w.data_ptr<double>();
  const int64_t* start = v.start.data_ptr<int64_t>();
  const int64_t* end = v.end.data_ptr<int64_t>();
  double* lin = v.lin.data_ptr<double>();
  const std::vector<double>& rho = grid_step_ratios(x0, h, H, C);
  int64_t anchors = 0;
  for (int64_t j = 0; j < K; ++j)
    anchors += (std::max<int64_t>(end[j] - start[j], 0) + kAnchorEvery - 1) / kAnchorEvery;
  v.anchors = doubles(anchors);
  double* anchor = v.anchors.data_ptr<double>();
  int64_t a_count = 0;
  for (int64_t j = 0; j < K; ++j)
    for (int64_t i = start[j]; i < end[j]; i += kAnchorEvery)
      anchor[static_cast<size_t>(a_count++)] = C * (c[j] - (x0 + h * static_cast<double>(i)));  // x_i as grid_points
  exp_in_place(anchor, anchors);
  a_count = 0;
  for (int64_t j = 0; j < K; ++j) {
    const double weight = w[j];
    for (int64_t i0 = start[j]; i0 < end[j]; i0 += kAnchorEvery) {
      const int64_t i1 = std::min(end[j], i0 + kAnchorEvery);
      double e = anchor[static_cast<size_t>(a_count++)];
      for (int64_t i = i0; i < i1; ++i) {
        const double sigma = 1.0 / (e + 1.0);
        lin[i] += weight * sigma;
        e *= rho[static_cast<size_t>(i)];
      }
    }
  }
}

// log f = logaddexp(log lin, log tail) and its running maximum (ties take the later index, as torch's cummax) with
// its argmax. log f lives in a register; the running maximum is written into log p's first half, to be normalised
// there in place (the same subtraction as from a separate array: the same bits, one array less). False when a suffix
// sum is too small for the backward recursion.
bool running_maximum_of_log_f(const StackShape& s, Evaluation& v) {
  const int64_t E = s.E, H = s.H, K = s.K;
  const double* c = v.c.data_ptr<double>();
  const double* G = v.G.data_ptr<double>();
  const int32_t* hi = v.hi.data_ptr<int32_t>();
  const double* lin = v.lin.data_ptr<double>();
  v.log_lin = doubles(H), v.argmax = ints(H);
  double* log_lin = v.log_lin.data_ptr<double>();
  int32_t* argmax = v.argmax.data_ptr<int32_t>();
  v.log_p = doubles(E);
  double* running = v.log_p.data_ptr<double>();  // the half, before normalisation
  std::copy(lin, lin + H, log_lin);
  log_in_place(log_lin, H);
  for (int64_t i = 0; i < H; ++i) {
    const int64_t k = hi[i];
    if (k < K && G[k] > 0.5 * kLogZero && G[k] < kSmallestLogSum) return false;
    if (!(lin[i] > 0.0)) log_lin[i] = kLogZero;
    const double log_f = log_add_exp_dropping(log_lin[i], log_tail_at(i, s.x0, s.h, s.C, k, K, c, G));
    if (i == 0 || log_f >= running[i - 1]) {
      running[i] = log_f;
      argmax[i] = static_cast<int32_t>(i);
    } else {
      running[i] = running[i - 1];
      argmax[i] = argmax[i - 1];
    }
  }
  return true;
}

// The normalisation log p = running - log Σ p, mirrored to the whole grid. The running maximum's last value is the
// largest of the half, hence of the whole (mirrored) grid: the sum is of e^{running_i - top}.
void normalise_and_mirror(const StackShape& s, Evaluation& v) {
  const int64_t E = s.E, H = s.H;
  double* log_p = v.log_p.data_ptr<double>();
  const double* running = log_p;
  const double top = running[H - 1];
  // Σ over the whole grid from the half: every point of the half twice, the repeated centre (E odd) once.
  v.shifted = doubles(H);
  double* shifted = v.shifted.data_ptr<double>();
  for (int64_t i = 0; i < H; ++i) shifted[i] = running[i] - top;
  v.shifted.exp_();
  double total = sum_in_four_lanes(shifted, H);
  total = 2.0 * total - (E % 2 == 1 ? shifted[H - 1] : 0.0);
  const double normaliser = std::log(total) + top;
  for (int64_t i = 0; i < H; ++i) log_p[i] = running[i] - normaliser;
  for (int64_t i = H; i < E; ++i) log_p[i] = log_p[E - 1 - i];
  v.normaliser = normaliser;
  v.total = total;
}

// The forward evaluation; false when a suffix sum is too small for the backward recursion.
bool evaluate(const Grid& grid, const torch::Tensor& A, const torch::Tensor& B, const torch::Tensor& F, double slope,
              std::vector<int64_t>* order_hint, Evaluation& out) {
  const int64_t E = grid.size;
  const StackShape s{E, E - E / 2, F.size(0), grid.origin, grid.step, slope};
  const double a = A.item<double>();
  Evaluation v;
  sort_weighted_centres(s, B.data_ptr<double>(), F.data_ptr<double>(), order_hint, v);
  const WindowCounts counts = locate_windows(s, v);
  suffix_log_sums(s, v);
  saturated_linear_part(s, a, counts, v);
  add_window_sigmoids(s, v);
  if (!running_maximum_of_log_f(s, v)) return false;
  normalise_and_mirror(s, v);
  out = std::move(v);
  return true;
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

class FusedSigmoidStack : public torch::autograd::Function<FusedSigmoidStack> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& A, const torch::Tensor& B,
                               const torch::Tensor& F, const Grid& grid, double slope, const Evaluation& evaluation) {
    ctx->saved_data["A"] = A.detach();
    ctx->saved_data["B"] = B.detach();
    const Evaluation& v = evaluation;
    for (const auto& [name, t] : {std::pair<const char*, const torch::Tensor*>{"order", &v.order},
                                  {"c", &v.c},
                                  {"w", &v.w},
                                  {"start", &v.start},
                                  {"end", &v.end},
                                  {"hi", &v.hi},
                                  {"G", &v.G},
                                  {"lin", &v.lin},
                                  {"anchors", &v.anchors},
                                  {"log_lin", &v.log_lin},
                                  {"argmax", &v.argmax},
                                  {"shifted", &v.shifted}})
      ctx->saved_data[name] = *t;
    ctx->saved_data["C"] = slope;
    ctx->saved_data["E"] = grid.size;
    ctx->saved_data["x0"] = grid.origin;
    ctx->saved_data["h"] = grid.step;
    (void)F;
    ctx->saved_data["normaliser"] = v.normaliser;
    ctx->saved_data["total"] = v.total;
    // log p itself is not kept for the backward pass (it recomputes the half from log f), so it is returned as it
    // is, without a copy.
    return v.log_p;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = [ctx](const char* name) { return ctx->saved_data[name].toTensor(); };
    const int64_t E = ctx->saved_data["E"].toInt(), H = E - E / 2;
    const torch::Tensor A_t = saved("A"), B_t = saved("B"), order_t = saved("order"), c_t = saved("c"),
                        w_t = saved("w");
    const torch::Tensor start_t = saved("start"), end_t = saved("end"), hi_t = saved("hi"), g_t = saved("G"),
                        lin_t = saved("lin");
    const torch::Tensor anchor_t = saved("anchors"), log_lin_t = saved("log_lin");
    const torch::Tensor argmax_t = saved("argmax"), shifted_t = saved("shifted");
    const StackShape s{E,
                       H,
                       c_t.size(0),
                       ctx->saved_data["x0"].toDouble(),
                       ctx->saved_data["h"].toDouble(),
                       ctx->saved_data["C"].toDouble()};
    const int32_t* hi = hi_t.data_ptr<int32_t>();
    const double* c = c_t.data_ptr<double>();
    const double* G = g_t.data_ptr<double>();
    const torch::Tensor grad_t = grad_outputs[0].to(torch::kCPU, torch::kDouble).contiguous();

    const std::vector<double> d_log_f =
        log_f_gradients(grad_t.data_ptr<double>(), shifted_t.data_ptr<double>(), argmax_t.data_ptr<int32_t>(),
                        ctx->saved_data["total"].toDouble(), E, H);
    Scratch gamma(H);  // every element written below
    std::vector<double> beta(static_cast<size_t>(s.K) + 1, 0.0);
    const double gamma_sum = linear_and_tail_gradients(s, d_log_f.data(), hi, c, G, lin_t.data_ptr<double>(),
                                                       log_lin_t.data_ptr<double>(), gamma, beta);
    const Scratch suffix = gamma_suffix_sums(gamma, H);

    torch::Tensor grad_b_t = torch::zeros({s.K}, torch::kDouble), grad_f_t = torch::zeros({s.K}, torch::kDouble);
    const CentreInputs inputs{order_t.data_ptr<int64_t>(),
                              B_t.data_ptr<double>(),
                              c,
                              w_t.data_ptr<double>(),
                              start_t.data_ptr<int64_t>(),
                              end_t.data_ptr<int64_t>(),
                              G,
                              anchor_t.data_ptr<double>(),
                              gamma,
                              suffix,
                              beta};
    centre_gradients(s, inputs, grad_b_t.data_ptr<double>(), grad_f_t.data_ptr<double>());
    const torch::Tensor grad_a = torch::full({}, 2.0 * A_t.item<double>() * gamma_sum, torch::kDouble);
    return {grad_a, grad_b_t, grad_f_t, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

bool fusable(const torch::Tensor& t) {
  return t.device().is_cpu() && t.scalar_type() == torch::kDouble && t.is_contiguous();
}

}  // namespace

torch::Tensor sigmoid_stack_log_probabilities_fused(const Grid& grid, const torch::Tensor& A, const torch::Tensor& B,
                                                    const torch::Tensor& F, double slope,
                                                    std::vector<int64_t>* order_hint, torch::Tensor* probabilities) {
  if (!fusable(A) || !fusable(B) || !fusable(F) || B.dim() != 1 || F.sizes() != B.sizes()) return torch::Tensor();
  // The evaluation counts centres and indexes points in 32 bits (hi, argmax): larger stacks or grids go to the
  // reference.
  constexpr int64_t kLargest32 = std::numeric_limits<int32_t>::max() - 1;
  if (F.size(0) > kLargest32 || grid.size > kLargest32) return torch::Tensor();
  {
    torch::NoGradGuard guard;
    // Non-finite parameters (a diverged step) go to the reference, which propagates them for the NaN guard.
    const auto all_finite = [](const torch::Tensor& t) {
      const double* v = t.data_ptr<double>();
      return std::all_of(v, v + t.numel(), [](double x) { return std::isfinite(x); });
    };
    if (!all_finite(A) || !all_finite(B) || !all_finite(F)) return torch::Tensor();
  }
  Evaluation evaluation;
  {
    torch::NoGradGuard guard;
    if (!evaluate(grid, A, B, F, slope, order_hint, evaluation)) return torch::Tensor();
    if (probabilities != nullptr) {
      const int64_t E = grid.size, H = E - E / 2;
      *probabilities = doubles(E);
      double* p = probabilities->data_ptr<double>();
      const double* shifted = evaluation.shifted.data_ptr<double>();
      const double inverse_total = 1.0 / evaluation.total;
      for (int64_t i = 0; i < H; ++i) p[i] = shifted[i] * inverse_total;
      for (int64_t i = H; i < E; ++i) p[i] = p[E - 1 - i];
    }
  }
  return FusedSigmoidStack::apply(A, B, F, grid, slope, evaluation);
}

}  // namespace noiselearn
