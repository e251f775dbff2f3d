// What the accountant computes without LibTorch, against what LibTorch computes (this suite links it; the accounting
// suite does not):
//   - the planned real FFT (accounting/real_fft.hpp) against torch::fft at the losses' sizes;
//   - the vectorised log, exp and expm1 (accounting/vectorised_math.hpp, Sleef called directly) against ATen's
//     Tensor::log_, exp_ and expm1_, which the accountant used before: the same bits, tails included, so that no
//     certificate or table changed when the accountant stopped using ATen.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "accounting/real_fft.hpp"
#include "accounting/vectorised_math.hpp"

using namespace noiselearn;

TEST_CASE("planned real FFT agrees with torch::fft at the losses' sizes", "[real-fft]") {
  torch::manual_seed(3);
  for (const int64_t n : {int64_t{2048}, int64_t{4096}, int64_t{16384}}) {
    CAPTURE(n);
    const torch::Tensor x = torch::rand({n / 2 + 1}, torch::kDouble);
    const torch::Tensor reference = torch::fft::rfft(x, n);
    torch::Tensor ours = torch::empty({n / 2 + 1}, torch::kComplexDouble);
    RealFft::planned(n).forward(x.data_ptr<double>(), x.size(0),
                                reinterpret_cast<std::complex<double>*>(ours.data_ptr()));
    CHECK((ours - reference).abs().max().item<double>() <= 1e-14 * reference.abs().max().item<double>());
    const torch::Tensor back = torch::fft::irfft(reference, n);
    torch::Tensor ours_back = torch::empty({n}, torch::kDouble);
    RealFft::planned(n).inverse(reinterpret_cast<const std::complex<double>*>(reference.data_ptr()),
                                ours_back.data_ptr<double>(), n);
    CHECK((ours_back - back).abs().max().item<double>() <= 1e-14 * back.abs().max().item<double>());
  }
}

namespace {

bool same_bits(double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("vectorised log, exp and expm1 are ATen's values bit for bit, at every length (tails too)",
          "[vectorised-math]") {
  std::mt19937_64 rng(29);
  const double inf = std::numeric_limits<double>::infinity();
  for (const int which : {0, 1, 2}) {
    for (const int64_t n : {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{7}, int64_t{9}, int64_t{31}, int64_t{100003}}) {
      CAPTURE(which, n);
      std::vector<double> x(static_cast<size_t>(n));
      std::uniform_real_distribution<double> exponent(which == 0 ? -700.0 : -745.0, which == 0 ? 700.0 : 710.0);
      for (double& v : x) v = which == 0 ? std::exp(exponent(rng)) : exponent(rng) * (which == 2 ? 1e-3 : 1.0);
      // Special values where they fit: 0, 1, a subnormal, -1, infinities, NaN.
      const double specials[] = {0.0, 1.0, 4.9e-320, -1.0, inf, -inf, std::nan(""), 1e-300};
      for (size_t i = 0; i < x.size() && i < 8 && n > 8; ++i) x[i * 3 % x.size()] = specials[i];
      torch::Tensor reference = torch::from_blob(x.data(), {n}, torch::kDouble).clone();
      std::vector<double> ours = x;
      if (which == 0) {
        reference.log_();
        log_in_place(ours);
      } else if (which == 1) {
        reference.exp_();
        exp_in_place(ours);
      } else {
        reference.expm1_();
        expm1_in_place(ours);
      }
      const double* r = reference.data_ptr<double>();
      int64_t differing = 0;
      for (int64_t i = 0; i < n; ++i) differing += same_bits(ours[static_cast<size_t>(i)], r[i]) ? 0 : 1;
      CHECK(differing == 0);
    }
  }
}
