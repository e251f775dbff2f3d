// FFT convolution against the O(N M) direct sum, within the stated error bounds.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

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
