#pragma once
// Linear convolution of two non-negative vectors (probability masses on a common grid), with a rigorous
// bound on the floating-point error of the result in the l1 norm, so that the accountant can widen its
// bounds by it.
#include <vector>

namespace noiselearn {

// values = exact (1 + theta) + e, |theta_i| <= relative_error, ||e||_1 <= error_bound.
struct Convolution {
  std::vector<double> values;   // length x.size() + y.size() - 1, negative rounding noise clamped to 0
  double error_bound = 0.0;     // absolute, in the l1 norm (FFT)
  double relative_error = 0.0;  // entrywise relative (direct summation of non-negative terms)
};

// O(N M) direct summation (over the non-zero entries). The reference every faster method is tested against.
// Each output is a sum of at most m = min(non-zeros of x, non-zeros of y) non-negative products: relative
// error gamma_{m+1} entrywise (inputs must be non-negative).
Convolution convolve_direct(const std::vector<double>& x, const std::vector<double>& y);

// Real-to-complex FFT of a size with no wrap-around (>= N + M - 1), pointwise product, inverse FFT (LibTorch,
// float64). Error bound from the standard FFT error analysis (Higham, Accuracy and Stability of Numerical
// Algorithms, Thm 24.2): with kappa = 10 u ceil(log2 L) per transform,
//   || z_hat - z ||_2 <= (2 kappa + 3u) (||x||_2 ||y||_1 + ||x||_1 ||y||_2),  || . ||_1 <= sqrt(L) || . ||_2.
Convolution convolve_fft(const std::vector<double>& x, const std::vector<double>& y);

// Direct when the non-zero products are few (sparse or short inputs, up to ~3e7 products: its error is
// relative, which stays harmless however often the result is composed again), FFT otherwise.
Convolution convolve(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace noiselearn
