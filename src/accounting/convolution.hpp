#pragma once
// Linear convolution of two non-negative vectors (probability masses on a common grid), with a rigorous
// bound on the floating-point error of the result in the l1 norm, so that the accountant can widen its
// bounds by it.
#include <vector>

namespace noiselearn {

// values = exact (1 + theta) + e, |theta_i| <= relative_error, ||e||_1 <= error_bound, and (for a tilted
// convolution) sum_k |e_k| w_k <= tilted_error_bound with the weights w_k of TiltWeights below.
struct Convolution {
  std::vector<double> values;   // length x.size() + y.size() - 1, negative rounding noise clamped to 0
  double error_bound = 0.0;     // absolute, in the l1 norm (FFT)
  double relative_error = 0.0;  // entrywise relative (direct summation of non-negative terms; tilting's exp/log)
  double tilted_error_bound = 0.0;
};

// Exponential weights on the entries of x and y: w_x(i) = e^{rate i + x_offset}, w_y(j) = e^{rate j + y_offset};
// their convolution's weights are w(k) = e^{rate k + x_offset + y_offset} (losses add, so do the exponents).
struct TiltWeights {
  double rate = 0.0;  // lambda * loss step
  double x_offset = 0.0, y_offset = 0.0;
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

// The FFT convolution computed twice, once plain and once on the tilted vectors x_i w_x(i), y_j w_y(j) (whose
// convolution is z_k w(k)), and stitched: entries with w(k) < 1 come from the plain product, the others from
// the tilted one divided by w(k). The plain product's absolute error B0 and the tilted one's B1 (both from the
// bound above, B1 in tilted units) give, for the stitched error e,
//   sum |e_k| <= B0 + B1,   sum |e_k| w(k) <= B0 + B1,
// because w < 1 on the plain part and 1/w <= 1 on the tilted part. The tilted part adds a relative error from
// the exponentials (a few u times the size of their arguments).
Convolution convolve_fft_tilted(const std::vector<double>& x, const std::vector<double>& y, const TiltWeights& weights);

// Direct when the non-zero products are few (sparse or short inputs, up to ~3e7 products: its error is
// relative, which stays harmless however often the result is composed again), FFT otherwise.
Convolution convolve(const std::vector<double>& x, const std::vector<double>& y);
// The same choice; the FFT branch tilted with `weights` (direct summation needs no tilt: its error is relative).
Convolution convolve(const std::vector<double>& x, const std::vector<double>& y, const TiltWeights& weights);

}  // namespace noiselearn
