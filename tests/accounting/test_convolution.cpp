// FFT convolution against the O(N M) direct sum, within the stated error bounds.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "accounting/convolution.hpp"

using namespace noiselearn;

TEST_CASE("direct convolution of small integer vectors is exact", "[convolution]") {
  const Convolution c = convolve_direct({1, 2, 3}, {1, 0, -1, 4});
  CHECK(c.values == std::vector<double>{1, 2, 2, 2, 5, 12});
  CHECK(convolve_fft({1, 2, 3}, {1, 0, 1}).values.size() == 5);
}

TEST_CASE("FFT convolution agrees with direct summation within the error bounds", "[convolution]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (size_t n : {1u, 2u, 17u, 300u, 1000u, 4097u}) {
    for (size_t m : {1u, 5u, 999u, 3000u}) {
      std::vector<double> x(n), y(m);
      double sx = 0, sy = 0;
      // Heavy-tailed magnitudes spanning 1e-30 .. 1 to exercise the absolute-error nature of the FFT.
      for (double& v : x) sx += (v = std::pow(u(rng), 30.0));
      for (double& v : y) sy += (v = u(rng));
      for (double& v : x) v /= sx;
      for (double& v : y) v /= sy;
      const Convolution direct = convolve_direct(x, y), fft = convolve_fft(x, y);
      REQUIRE(direct.values.size() == n + m - 1);
      REQUIRE(fft.values.size() == n + m - 1);
      double l1 = 0.0;
      for (size_t k = 0; k < direct.values.size(); ++k) {
        CHECK(fft.values[k] >= 0.0);
        l1 += std::abs(direct.values[k] - fft.values[k]);
      }
      // Both results are within their bounds of the exact one z (direct: |d - z| <= rho z entrywise; FFT:
      // ||f - z||_1 <= bound), hence within the sum of each other.
      double direct_total = 0.0;
      for (double v : direct.values) direct_total += v;
      CHECK(direct.error_bound == 0.0);
      CHECK(fft.relative_error == 0.0);
      CHECK(l1 <= direct.relative_error / (1 - direct.relative_error) * direct_total + fft.error_bound);
      CHECK(fft.error_bound < 1e-10);
    }
  }
}

TEST_CASE("self-convolution (same vector twice) uses one transform and is still correct", "[convolution]") {
  std::vector<double> x(5000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::exp(-std::pow((double(i) - 2500.0) / 300.0, 2));
  const Convolution self = convolve_fft(x, x), direct = convolve_direct(x, x);
  double l1 = 0.0;
  for (size_t k = 0; k < self.values.size(); ++k) l1 += std::abs(self.values[k] - direct.values[k]);
  double direct_total = 0.0;
  for (double v : direct.values) direct_total += v;
  CHECK(l1 <= self.error_bound + direct.relative_error / (1 - direct.relative_error) * direct_total);
}

TEST_CASE("direct convolution, dense (blocked kernel) and sparse paths, against a plain double loop in long double",
          "[convolution]") {
  // Dense y (non-zeros fill half their span or more) goes through the 32-output blocks of shift_add.hpp, sparse y
  // through the loop over its non-zeros; lengths around the block size and x longer or shorter than y.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const auto& [nx, ny, density] : std::vector<std::tuple<size_t, size_t, double>>{{1, 1, 1.0},
                                                                                       {1, 40, 1.0},
                                                                                       {40, 1, 1.0},
                                                                                       {31, 33, 1.0},
                                                                                       {300, 70, 0.9},
                                                                                       {70, 300, 0.6},
                                                                                       {257, 1000, 1.0},
                                                                                       {1000, 257, 0.7},
                                                                                       {200, 200, 0.2},
                                                                                       {64, 65, 0.5}}) {
    CAPTURE(nx, ny, density);
    std::vector<double> x(nx), y(ny);
    for (double& v : x) v = unit(rng) < 0.8 ? std::exp(-30.0 * unit(rng)) : 0.0;
    for (double& v : y) v = unit(rng) < density ? std::exp(-30.0 * unit(rng)) : 0.0;
    y.front() = 0.25, y.back() = 0.5;  // the span is all of y
    const Convolution c = convolve_direct(x, y);
    REQUIRE(c.values.size() == nx + ny - 1);
    for (size_t k = 0; k < c.values.size(); ++k) {
      long double exact = 0.0L;
      for (size_t i = 0; i < nx; ++i)
        if (k >= i && k - i < ny) exact += static_cast<long double>(x[i]) * static_cast<long double>(y[k - i]);
      const double e = static_cast<double>(exact);
      CHECK(std::abs(c.values[k] - e) <= c.relative_error * e + 1e-300);
    }
  }
}
