// The planned real FFT (accounting/real_fft.hpp) against the DFT's definition summed in long double, within the
// error allowance the accountant's FFT convolution assumes (10 u per level, convolution.cpp), with both ways of
// computing the twiddles. (Against torch::fft: tests/losses/test_library_references.cpp; this suite links no
// LibTorch.)
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "accounting/real_fft.hpp"

using namespace noiselearn;

namespace {

constexpr long double kPi = 3.141592653589793238462643383279502884L;
constexpr double kUnitRoundoff = 0x1p-53;

// X[k] = sum_j x[j] e^{-2 pi i j k / N}, k = 0 .. N / 2, in long double (the angle reduced exactly: jk mod N).
std::vector<std::complex<long double>> direct_dft(const std::vector<double>& x, int64_t n) {
  std::vector<long double> c(static_cast<size_t>(n)), s(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t) {
    c[static_cast<size_t>(t)] = cosl(2.0L * kPi * static_cast<long double>(t) / static_cast<long double>(n));
    s[static_cast<size_t>(t)] = sinl(2.0L * kPi * static_cast<long double>(t) / static_cast<long double>(n));
  }
  std::vector<std::complex<long double>> out(static_cast<size_t>(n / 2 + 1));
  for (int64_t k = 0; k <= n / 2; ++k) {
    long double re = 0, im = 0;
    for (size_t j = 0; j < x.size(); ++j) {
      const size_t t = static_cast<size_t>((static_cast<int64_t>(j) * k) % n);
      re += x[j] * c[t];
      im -= x[j] * s[t];
    }
    out[static_cast<size_t>(k)] = {re, im};
  }
  return out;
}

double levels(int64_t n) { return std::log2(static_cast<double>(n)); }

}  // namespace

TEST_CASE("planned real FFT: the DFT's definition within 10 u per level, normwise", "[real-fft]") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int64_t n = 4; n <= 2048; n *= 2) {
    for (const int64_t length : {n, n / 2 + 1, int64_t{1}, int64_t{3}}) {
      CAPTURE(n, length);
      std::vector<double> x(static_cast<size_t>(length));
      for (double& v : x) v = uniform(rng);
      std::vector<std::complex<double>> X(static_cast<size_t>(n / 2 + 1));
      RealFft::planned(n).forward(x.data(), length, X.data());
      const auto exact = direct_dft(x, n);
      long double error = 0, norm = 0;
      for (size_t k = 0; k < X.size(); ++k) {
        error += std::norm(std::complex<long double>(X[k].real(), X[k].imag()) - exact[k]);
        norm += std::norm(exact[k]);
      }
      CHECK(std::sqrt(static_cast<double>(error)) <=
            10.0 * kUnitRoundoff * levels(n) * std::sqrt(static_cast<double>(norm)));
      CHECK(X[0].imag() == 0.0);
      CHECK(X[static_cast<size_t>(n / 2)].imag() == 0.0);
      // The inverse gives x back (zero-padded), within the same allowance twice.
      std::vector<double> back(static_cast<size_t>(n));
      RealFft::planned(n).inverse(X.data(), back.data(), n);
      double back_error = 0, x_norm = 0;
      for (int64_t j = 0; j < n; ++j) {
        const double expected = j < length ? x[static_cast<size_t>(j)] : 0.0;
        back_error += (back[static_cast<size_t>(j)] - expected) * (back[static_cast<size_t>(j)] - expected);
        x_norm += expected * expected;
      }
      CHECK(std::sqrt(back_error) <= 2.0 * 10.0 * kUnitRoundoff * levels(n) * std::sqrt(x_norm));
    }
  }
}

TEST_CASE(
    "planned real FFT: the inverse is the DFT's inverse of the Hermitian extension, X[0] and X[N/2] taken as real",
    "[real-fft]") {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int64_t n = 4; n <= 1024; n *= 2) {
    CAPTURE(n);
    const int64_t m = n / 2;
    std::vector<std::complex<double>> X(static_cast<size_t>(m + 1));
    for (auto& v : X) v = {uniform(rng), uniform(rng)};
    std::vector<double> x(static_cast<size_t>(n));
    RealFft::planned(n).inverse(X.data(), x.data(), n);
    // x[j] = (1/N) (Re X[0] + (-1)^j Re X[M] + 2 sum_{0<k<M} Re(X[k] e^{2 pi i j k / N})).
    double error = 0, norm = 0;
    for (int64_t j = 0; j < n; ++j) {
      long double v = X[0].real() + (j % 2 == 0 ? 1.0L : -1.0L) * X[static_cast<size_t>(m)].real();
      for (int64_t k = 1; k < m; ++k) {
        const long double angle = 2.0L * kPi * static_cast<long double>((j * k) % n) / static_cast<long double>(n);
        v += 2.0L * (X[static_cast<size_t>(k)].real() * cosl(angle) - X[static_cast<size_t>(k)].imag() * sinl(angle));
      }
      const double exact = static_cast<double>(v / static_cast<long double>(n));
      error += (x[static_cast<size_t>(j)] - exact) * (x[static_cast<size_t>(j)] - exact);
      norm += exact * exact;
    }
    CHECK(std::sqrt(error) <= 10.0 * kUnitRoundoff * levels(n) * std::sqrt(norm));
    // Shorter outputs are the first entries of the full one (odd and even lengths).
    for (const int64_t length : {int64_t{1}, int64_t{2}, m + 1}) {
      std::vector<double> part(static_cast<size_t>(length));
      RealFft::planned(n).inverse(X.data(), part.data(), length);
      for (int64_t j = 0; j < length; ++j) CHECK(part[static_cast<size_t>(j)] == x[static_cast<size_t>(j)]);
    }
  }
}

TEST_CASE("planned real FFT, octant twiddles: the DFT's definition within 10 u per level, and the direct plan's values",
          "[real-fft]") {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int64_t n = 4; n <= 4096; n *= 2) {
    CAPTURE(n);
    std::vector<double> x(static_cast<size_t>(n / 2 + 1));
    for (double& v : x) v = uniform(rng);
    std::vector<std::complex<double>> X(static_cast<size_t>(n / 2 + 1));
    const RealFft octant(n, RealFft::Twiddles::octant);
    octant.forward(x.data(), static_cast<int64_t>(x.size()), X.data());
    const auto exact = direct_dft(x, n);
    long double error = 0, norm = 0;
    for (size_t k = 0; k < X.size(); ++k) {
      error += std::norm(std::complex<long double>(X[k].real(), X[k].imag()) - exact[k]);
      norm += std::norm(exact[k]);
    }
    CHECK(std::sqrt(static_cast<double>(error)) <=
          10.0 * kUnitRoundoff * levels(n) * std::sqrt(static_cast<double>(norm)));
    std::vector<double> back(static_cast<size_t>(n));
    octant.inverse(X.data(), back.data(), n);
    double back_error = 0, x_norm = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double expected = j < static_cast<int64_t>(x.size()) ? x[static_cast<size_t>(j)] : 0.0;
      back_error += (back[static_cast<size_t>(j)] - expected) * (back[static_cast<size_t>(j)] - expected);
      x_norm += expected * expected;
    }
    CHECK(std::sqrt(back_error) <= 2.0 * 10.0 * kUnitRoundoff * levels(n) * std::sqrt(x_norm));
  }
  // At the accountant's sizes (too large for the O(N^2) definition) the two plans' twiddles differ by at most an ulp,
  // so their transforms agree within a few u a level, normwise: the octant symmetries are the right ones.
  for (const int64_t n : {int64_t{1} << 16, int64_t{1} << 20}) {
    CAPTURE(n);
    std::vector<double> x(static_cast<size_t>(n / 2 + 7));
    for (double& v : x) v = uniform(rng);
    std::vector<std::complex<double>> a(static_cast<size_t>(n / 2 + 1)), b(a.size());
    RealFft(n, RealFft::Twiddles::direct).forward(x.data(), static_cast<int64_t>(x.size()), a.data());
    RealFft(n, RealFft::Twiddles::octant).forward(x.data(), static_cast<int64_t>(x.size()), b.data());
    double difference = 0, norm = 0;
    for (size_t k = 0; k < a.size(); ++k) {
      difference += std::norm(a[k] - b[k]);
      norm += std::norm(a[k]);
    }
    CHECK(std::sqrt(difference) <= 4.0 * kUnitRoundoff * levels(n) * std::sqrt(norm));
    CHECK(std::sqrt(difference) > 0.0);  // they are different roundings (the test would not see a swapped sign)
  }
}

TEST_CASE("planned real FFT: sizes and lengths it cannot take are refused, and plans are kept", "[real-fft]") {
  CHECK_THROWS_AS(RealFft(6), std::invalid_argument);
  CHECK_THROWS_AS(RealFft(2), std::invalid_argument);
  CHECK_FALSE(RealFft::supports(3000));
  CHECK(RealFft::supports(4096));
  std::vector<double> x(9, 1.0);
  std::vector<std::complex<double>> X(5);
  CHECK_THROWS_AS(RealFft::planned(8).forward(x.data(), 9, X.data()), std::invalid_argument);
  CHECK(&RealFft::planned(64) == &RealFft::planned(64));
}

TEST_CASE("planned real FFT: a thread's kept scratch and recent plans, and their release", "[real-fft]") {
  RealFft::release_thread_caches();
  CHECK(RealFft::thread_cache_doubles() == 0);
  const int64_t n = int64_t{1} << 20;
  const std::vector<double> x(1000, 1.0);
  std::vector<std::complex<double>> X(static_cast<size_t>(n / 2 + 1));
  RealFft::recent_octant(n)->forward(x.data(), 1000, X.data());
  CHECK(X[0].real() == 1000.0);
  // The scratch (n / 2 + n / 2 + the padded copy n) and the plan (n points).
  CHECK(RealFft::thread_cache_doubles() >= 3 * n);
  RealFft::release_thread_caches();
  CHECK(RealFft::thread_cache_doubles() == 0);
  // Transforms work as before after the release.
  std::vector<std::complex<double>> Y(static_cast<size_t>(n / 2 + 1));
  RealFft::recent_octant(n)->forward(x.data(), 1000, Y.data());
  CHECK(Y == X);
}
