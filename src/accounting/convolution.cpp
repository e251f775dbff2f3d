#include "accounting/convolution.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "accounting/real_fft.hpp"
#include "accounting/shift_add.hpp"
#include "accounting/vectorised_math.hpp"
#include "core/directed_rounding.hpp"

namespace noiselearn {

namespace {

double norm1(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += std::abs(x);
  return s;
}

double norm2(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

// The plan for a linear convolution of `length` points: the smallest power of two N >= length (a circular
// convolution of that size has no wrap-around), with octant twiddles, kept for the sizes that recur.
std::shared_ptr<const RealFft> plan_for(int64_t length) {
  int64_t size = 4;
  while (size < length) size *= 2;
  return RealFft::recent_octant(size);
}

}  // namespace

Convolution convolve_direct(const std::vector<double>& x, const std::vector<double>& y) {
  Convolution result;
  if (x.empty() || y.empty()) return result;
  result.values.assign(x.size() + y.size() - 1, 0.0);
  // Only non-zero entries take part (privacy-loss distributions of discrete mechanisms are sparse).
  std::vector<size_t> support_y;
  for (size_t j = 0; j < y.size(); ++j)
    if (y[j] != 0.0) support_y.push_back(j);
  // When y's non-zeros fill at least half of their span, the outputs are formed in blocks of 32 by the kernel of
  // shift_add.hpp: out[k] = sum over the non-zero x_i of x_i y[k - i], each block over the x_i that reach it, on y
  // padded by 32 zeros on each side (products with the padding or with y's zeros are exact zeros). Otherwise each
  // x_i is added over y's non-zeros.
  const bool dense = !support_y.empty() && 2 * support_y.size() >= support_y.back() - support_y.front() + 1;
  size_t nonzero_x = 0;
  if (dense) {
    constexpr int64_t kPad = 32;
    std::vector<double> padded(y.size() + 2 * kPad, 0.0);
    std::copy(y.begin(), y.end(), padded.begin() + kPad);
    std::vector<double> masses;
    std::vector<int64_t> offsets, positions;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] != 0.0) {
        masses.push_back(x[i]);
        positions.push_back(static_cast<int64_t>(i));
        offsets.push_back(kPad - static_cast<int64_t>(i));
      }
    nonzero_x = masses.size();
    const int64_t width = static_cast<int64_t>(result.values.size()), ny = static_cast<int64_t>(y.size());
    size_t first = 0, last = 0;  // the x_i with k0 - ny < i < k0 + kPad reach the block [k0, k0 + 32)
    for (int64_t k0 = 0; k0 < width; k0 += kPad) {
      while (first < positions.size() && positions[first] <= k0 - ny) ++first;
      while (last < positions.size() && positions[last] < k0 + kPad) ++last;
      if (first >= last) continue;
      shift_add(masses.data() + first, offsets.data() + first, last - first, padded.data() + k0,
                std::min(kPad, width - k0), result.values.data() + k0);
    }
  } else {
    for (size_t i = 0; i < x.size(); ++i) {
      const double xi = x[i];
      if (xi == 0.0) continue;
      ++nonzero_x;
      double* out = result.values.data() + i;
      for (size_t j : support_y) out[j] += xi * y[j];
    }
  }
  // Each output is a sum of at most m = min(nnz x, nnz y) non-negative products (one rounding each), so its
  // relative error is at most gamma_{m+1} (Higham, eq. 3.5).
  const double m = static_cast<double>(std::min(nonzero_x, support_y.size())) + 1.0;
  result.relative_error = m * kUnitRoundoff / (1.0 - m * kUnitRoundoff);
  return result;
}

namespace {

// Linear convolution by the real FFT of accounting/real_fft.hpp (a power-of-two size), negative noise clamped to 0,
// and the l2 error bound.
std::vector<double> fft_product(const RealFft& plan, const std::vector<double>& x, const std::vector<double>& y,
                                bool same, double& l2_error_bound) {
  const int64_t length = static_cast<int64_t>(x.size() + y.size() - 1);
  const int64_t size = plan.size();
  std::vector<std::complex<double>> fx(static_cast<size_t>(size / 2 + 1)), fy;
  plan.forward(x.data(), static_cast<int64_t>(x.size()), fx.data());
  if (!same) {
    fy.resize(fx.size());
    plan.forward(y.data(), static_cast<int64_t>(y.size()), fy.data());
  }
  const std::vector<std::complex<double>>& g = same ? fx : fy;
  for (size_t k = 0; k < fx.size(); ++k) {  // the textbook product (no C99 Annex G special cases: all finite)
    const double a = fx[k].real(), b = fx[k].imag(), c = g[k].real(), d = g[k].imag();
    fx[k] = {a * c - b * d, a * d + b * c};
  }
  std::vector<double> values(static_cast<size_t>(length));
  plan.inverse(fx.data(), values.data(), length);
  // Rounding noise can make true zeros slightly negative; clamping moves every entry towards the exact
  // (non-negative) value, so the error bound below still holds.
  for (double& v : values) v = std::max(v, 0.0);
  // The transform's relative l2 error is at most 6.2 u a level (real_fft.hpp, Higham Thm 24.2); 10 u a level is
  // allowed, for log2 N levels.
  const double kappa = roundings(10.0) * std::ceil(std::log2(static_cast<double>(size)));
  l2_error_bound = (2.0 * kappa + roundings(3.0)) * (norm2(x) * norm1(y) + norm1(x) * norm2(y));
  return values;
}

// v_i e^{rate i + offset - scale}, scale = max_i (log v_i + rate i + offset) so that the largest entry is 1.
// Returns the scale; `relative` receives a bound on the relative error of each entry (the exponent's rounding).
std::vector<double> tilted(const std::vector<double>& v, double rate, double offset, double& scale, double& relative) {
  // ln v_i + rate i + offset, then e^(that - scale) for every entry at once (vectorised_math.hpp); zeros stay zero.
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = v[i] > 0.0 ? v[i] : 1.0;
  log_in_place(out);
  scale = -std::numeric_limits<double>::infinity();
  double largest_argument = 0.0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!(v[i] > 0.0)) continue;
    const double shift = rate * static_cast<double>(i);
    largest_argument = std::max(largest_argument, std::abs(out[i]) + std::abs(shift) + std::abs(offset));
    out[i] += shift + offset;
    scale = std::max(scale, out[i]);
  }
  for (size_t i = 0; i < v.size(); ++i) out[i] = v[i] > 0.0 ? out[i] - scale : -std::numeric_limits<double>::infinity();
  exp_in_place(out);
  largest_argument += std::abs(scale);
  // exp(t) with t carrying an absolute error of at most 4 u times the sum of the magnitudes that formed it.
  relative = roundings(8.0) * (largest_argument + 2.0);
  return out;
}

}  // namespace

Convolution convolve_fft(const std::vector<double>& x, const std::vector<double>& y) {
  Convolution result;
  if (x.empty() || y.empty()) return result;
  double l2_error = 0.0;
  result.values = fft_product(*plan_for(static_cast<int64_t>(x.size() + y.size() - 1)), x, y, &x == &y, l2_error);
  result.error_bound = std::sqrt(static_cast<double>(result.values.size())) * l2_error;
  result.tilted_error_bound = result.error_bound;
  return result;
}

Convolution convolve_fft_tilted(const std::vector<double>& x, const std::vector<double>& y,
                                const TiltWeights& weights) {
  Convolution result;
  if (x.empty() || y.empty()) return result;
  const bool same = &x == &y && weights.x_offset == weights.y_offset;
  double plain_error = 0.0;  // l2
  const std::shared_ptr<const RealFft> plan = plan_for(static_cast<int64_t>(x.size() + y.size() - 1));
  result.values = fft_product(*plan, x, y, same, plain_error);
  double scale_x = 0.0, scale_y = 0.0, relative_x = 0.0, relative_y = 0.0;
  const std::vector<double> tx = tilted(x, weights.rate, weights.x_offset, scale_x, relative_x);
  std::vector<double> ty_storage;
  if (!same) ty_storage = tilted(y, weights.rate, weights.y_offset, scale_y, relative_y);
  const std::vector<double>& ty = same ? tx : ty_storage;
  if (same) {
    scale_y = scale_x;
    relative_y = relative_x;
  }
  const double length = static_cast<double>(result.values.size());
  if (!std::isfinite(scale_x) || !std::isfinite(scale_y)) {  // an all-zero input
    result.error_bound = result.tilted_error_bound = std::sqrt(length) * plain_error;
    return result;
  }
  double tilted_error = 0.0;  // l2, in tilted units
  const std::vector<double> tz = fft_product(*plan, tx, ty, same, tilted_error);
  // Underflow in the tilted inputs (entries below the smallest normal number relative to the largest, 1) is an
  // absolute error of at most 1e-300 per entry, negligible but counted.
  tilted_error += 1e-300 * static_cast<double>(x.size() + y.size()) * (norm1(tx) + norm1(ty) + 1.0);
  // Back to plain units: z_k = tz_k e^{scale_x + scale_y - rate k - offsets}; stitched where w(k) >= 1. The l1
  // bounds of each part in each norm follow from its l2 bound by Cauchy-Schwarz with the weights of that part:
  //   plain part:  sum |e| <= ||e0||_2 sqrt(count),          sum |e| w <= ||e0||_2 ||w||_2,
  //   tilted part: sum |e| w <= ||e1||_2 e^s sqrt(count),    sum |e| <= ||e1||_2 e^s ||1/w||_2
  // (e1 the tilted product's error, e^s its scale), so the weights' decay, not the vector's length, sets them.
  const double offsets = weights.x_offset + weights.y_offset, scales = scale_x + scale_y;
  // log_weight(k) = rate k + offsets rises with k: the plain part is k < first_tilted, the tilted part the rest.
  const size_t length_k = result.values.size();
  size_t first_tilted = 0;
  {
    const double crossing = std::ceil(-offsets / weights.rate);
    first_tilted = crossing <= 0.0                             ? 0
                   : crossing >= static_cast<double>(length_k) ? length_k
                                                               : static_cast<size_t>(crossing);
    while (first_tilted > 0 && weights.rate * static_cast<double>(first_tilted - 1) + offsets >= 0.0) --first_tilted;
    while (first_tilted < length_k && weights.rate * static_cast<double>(first_tilted) + offsets < 0.0) ++first_tilted;
  }
  const double plain_count = static_cast<double>(first_tilted),
               tilted_count = static_cast<double>(length_k - first_tilted);
  std::vector<double> work(length_k);
  for (size_t k = 0; k < length_k; ++k) {
    const double log_weight = weights.rate * static_cast<double>(k) + offsets;
    work[k] = k < first_tilted ? 2.0 * log_weight : -2.0 * log_weight;
  }
  exp_in_place(work);
  double plain_weights = 0.0, tilted_inverse_weights = 0.0;
  for (size_t k = 0; k < first_tilted; ++k) plain_weights += work[k];
  for (size_t k = first_tilted; k < length_k; ++k) tilted_inverse_weights += work[k];
  // Back to plain units in the tilted part: e^(ln tz_k + scales - log_weight), vectorised.
  double largest_argument = 0.0;
  for (size_t k = first_tilted; k < length_k; ++k) work[k] = tz[k] > 0.0 ? tz[k] : 1e-300;
  log_in_place(work.data() + first_tilted, static_cast<int64_t>(length_k - first_tilted));
  for (size_t k = first_tilted; k < length_k; ++k) {
    const double log_weight = weights.rate * static_cast<double>(k) + offsets;
    largest_argument = std::max(largest_argument, std::abs(work[k]) + std::abs(scales) + std::abs(log_weight));
    work[k] = tz[k] > 0.0 ? work[k] + scales - log_weight : -std::numeric_limits<double>::infinity();
  }
  exp_in_place(work.data() + first_tilted, static_cast<int64_t>(length_k - first_tilted));
  for (size_t k = first_tilted; k < length_k; ++k) result.values[k] = work[k];
  const double relative_back = roundings(8.0) * (largest_argument + 2.0);
  result.relative_error = (1.0 + relative_x) * (1.0 + relative_y) * (1.0 + relative_back) - 1.0;
  const double tilted_l2 = tilted_error * std::exp(scales);
  const double slack = 1.0 + 1e-12;  // the weight sums' own rounding
  result.error_bound = slack * (plain_error * std::sqrt(plain_count) + tilted_l2 * std::sqrt(tilted_inverse_weights));
  result.tilted_error_bound = slack * (plain_error * std::sqrt(plain_weights) + tilted_l2 * std::sqrt(tilted_count));
  return result;
}

Convolution convolve(const std::vector<double>& x, const std::vector<double>& y) {
  return convolve(x, y, TiltWeights{});
}

Convolution convolve(const std::vector<double>& x, const std::vector<double>& y, const TiltWeights& weights) {
  // Direct summation over the non-zero entries is both exact to a relative error and fast when the
  // distributions are sparse or short; the FFT costs a few L log L operations.
  auto nonzeros = [](const std::vector<double>& v) {
    return static_cast<double>(std::count_if(v.begin(), v.end(), [](double e) { return e != 0.0; }));
  };
  const double length = static_cast<double>(x.size() + y.size());
  const double fft_work = 30.0 * length * std::log2(std::max(length, 2.0));
  if (nonzeros(x) * nonzeros(y) <= std::max(fft_work, 3e7)) return convolve_direct(x, y);
  if (weights.rate > 0.0) return convolve_fft_tilted(x, y, weights);
  return convolve_fft(x, y);
}

}  // namespace noiselearn
