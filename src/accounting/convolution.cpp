#include "accounting/convolution.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace noiselearn {

namespace {

constexpr double kUnitRoundoff = std::numeric_limits<double>::epsilon() / 2.0;

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

// Smallest n >= minimum whose only prime factors are 2, 3 and 5 (fast sizes for the FFT).
int64_t smooth_size(int64_t minimum) {
  int64_t best = int64_t{1} << 62;
  for (int64_t p2 = 1; p2 < 2 * minimum + 2; p2 *= 2)
    for (int64_t p3 = p2; p3 < 2 * minimum + 2; p3 *= 3)
      for (int64_t p5 = p3; p5 < 2 * minimum + 2; p5 *= 5)
        if (p5 >= minimum) best = std::min(best, p5);
  return best;
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
  size_t nonzero_x = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double xi = x[i];
    if (xi == 0.0) continue;
    ++nonzero_x;
    double* out = result.values.data() + i;
    for (size_t j : support_y) out[j] += xi * y[j];
  }
  // Each output is a sum of at most m = min(nnz x, nnz y) non-negative products (one rounding each), so its
  // relative error is at most gamma_{m+1} (Higham, eq. 3.5).
  const double m = static_cast<double>(std::min(nonzero_x, support_y.size())) + 1.0;
  result.relative_error = m * kUnitRoundoff / (1.0 - m * kUnitRoundoff);
  return result;
}

Convolution convolve_fft(const std::vector<double>& x, const std::vector<double>& y) {
  Convolution result;
  if (x.empty() || y.empty()) return result;
  const int64_t length = static_cast<int64_t>(x.size() + y.size() - 1);
  const int64_t size = smooth_size(length);
  const auto options = at::TensorOptions().dtype(at::kDouble);
  // from_blob does not copy; the vectors outlive the tensors.
  const at::Tensor tx = at::from_blob(const_cast<double*>(x.data()), {static_cast<int64_t>(x.size())}, options);
  const at::Tensor ty = at::from_blob(const_cast<double*>(y.data()), {static_cast<int64_t>(y.size())}, options);
  const at::Tensor fx = at::fft_rfft(tx, size);
  at::Tensor product = &x == &y ? fx * fx : fx * at::fft_rfft(ty, size);
  const at::Tensor z = at::fft_irfft(product, size).narrow(0, 0, length).contiguous();
  result.values.resize(static_cast<size_t>(length));
  std::memcpy(result.values.data(), z.data_ptr<double>(), sizeof(double) * static_cast<size_t>(length));
  // Rounding noise can make true zeros slightly negative; clamping moves every entry towards the exact
  // (non-negative) value, so the error bound below still holds. (No relative part: FFT error is absolute.)
  for (double& v : result.values) v = std::max(v, 0.0);
  const double kappa = 10.0 * kUnitRoundoff * std::ceil(std::log2(static_cast<double>(size)));
  const double l2_error = (2.0 * kappa + 3.0 * kUnitRoundoff) * (norm2(x) * norm1(y) + norm1(x) * norm2(y));
  result.error_bound = std::sqrt(static_cast<double>(length)) * l2_error;
  return result;
}

Convolution convolve(const std::vector<double>& x, const std::vector<double>& y) {
  // Direct summation over the non-zero entries is both exact to a relative error and fast when the
  // distributions are sparse or short; the FFT costs a few L log L operations.
  auto nonzeros = [](const std::vector<double>& v) {
    return static_cast<double>(std::count_if(v.begin(), v.end(), [](double e) { return e != 0.0; }));
  };
  const double length = static_cast<double>(x.size() + y.size());
  const double fft_work = 30.0 * length * std::log2(std::max(length, 2.0));
  if (nonzeros(x) * nonzeros(y) <= std::max(fft_work, 3e7)) return convolve_direct(x, y);
  return convolve_fft(x, y);
}

}  // namespace noiselearn
