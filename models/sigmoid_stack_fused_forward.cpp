// The forward evaluation of the fused sigmoid stack (sigmoid_stack_fused_evaluation.hpp): log f on the half grid
// by the three runs of every centre, its running maximum, the mirror and the normalisation.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "accounting/vectorised_math.hpp"
#include "core/avx2_clones.hpp"
#include "core/log_math.hpp"
#include "core/partial_sums.hpp"
#include "models/sigmoid_stack_evaluation.hpp"
#include "models/sigmoid_stack_fused_evaluation.hpp"

namespace noiselearn::fused_sigmoid_stack {

namespace {

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

// x_i = x0 + h i, i < n, as every evaluation writes them.
Scratch grid_points(double x0, double h, int64_t n) {
  Scratch x(n);
  for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = x0 + h * static_cast<double>(i);
  return x;
}

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace noiselearn::fused_sigmoid_stack
