// The discrete Gaussian mechanism (Canonne, Kamath and Steinke 2020): integer noise with P(x) proportional to
// e^{-x^2 / (2 sigma^2)} on the integers, for an integer-valued query of integer sensitivity s.
//
// Worst pair: P = N_Z(s, sigma^2), Q = N_Z(0, sigma^2); the privacy loss of the output x is exactly
// l(x) = (2 s x - s^2) / (2 sigma^2), an atom per integer. The normaliser Z = sum_x e^{-x^2/(2 sigma^2)} is summed
// directly for sigma < 2 and, for sigma >= 2, is sigma sqrt(2 pi) (1 + 2 e^{-2 pi^2 sigma^2}) by Poisson summation
// (the terms left out are below e^{-8 pi^2 sigma^2} < 1e-130). The atoms cover x within K sigma of 0 and of s; the
// integers beyond are two tail cells whose masses are bounded above by sum_{x >= c} e^{-x^2/(2 sigma^2)} <=
// e^{-c^2/(2 sigma^2)} + sigma sqrt(2 pi) Phi(-c / sigma) (the first term plus the integral), which the upper bound
// may overstate (it only raises delta); the lower bound drops them. A symmetric monotone table on the integers: a
// smaller difference is a post-processing (src/accounting/README.md, "Why one shift suffices").
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "accounting/mechanism_pair.hpp"
#include "core/errors.hpp"
#include "core/log_math.hpp"

namespace noiselearn {

namespace {

constexpr double kSqrtTwoPi = 2.5066282746310002;

class DiscreteGaussianPair final : public MechanismPair {
 public:
  DiscreteGaussianPair(double sigma, int64_t sensitivity) : sigma_(sigma), s_(sensitivity) {
    if (sigma_ >= 2.0) {
      log_z_ = std::log(sigma_ * kSqrtTwoPi) + std::log1p(2.0 * std::exp(-2.0 * M_PI * M_PI * sigma_ * sigma_));
    } else {
      double z = 1.0;
      for (int64_t x = 1; x <= static_cast<int64_t>(40.0 * sigma_) + 2; ++x)
        z += 2.0 * std::exp(-square(x) / (2.0 * sigma_ * sigma_));
      log_z_ = std::log(z);
    }
  }
  std::string description() const override {
    return fmt::format("discrete Gaussian mechanism, sigma {:g}, sensitivity {}", sigma_, s_);
  }
  std::string worst_case_justification() const override {
    return "the difference s is the worst: symmetric monotone noise on the integers (Sommer et al., Thm 15)";
  }
  bool symmetric() const override { return true; }
  LossLaw loss_law(double tail_mass) const override {
    const double log_cut = std::log(tail_mass / 1000.0);
    double k = 1.0;
    while (log_normal_cdf(-k) > log_cut) k += 0.125;
    const int64_t reach = static_cast<int64_t>(std::ceil(k * sigma_)) + 1;
    const int64_t first = -reach, last = s_ + reach;
    if (last - first > 5'000'000)
      throw InputError(
          fmt::format("discrete Gaussian with sigma {:g}: {} atoms; for sigma this large use mechanism "
                      "gaussian (the two differ by less than the accountant's resolution)",
                      sigma_, last - first));
    LossLaw law;
    law.cells.reserve(static_cast<size_t>(last - first) + 3);
    const double two_var = 2.0 * sigma_ * sigma_;
    auto loss = [&](double x) { return (2.0 * static_cast<double>(s_) * x - square(s_)) / two_var; };
    for (int64_t x = first; x <= last; ++x) {
      const double l = loss(static_cast<double>(x));
      law.cells.push_back(
          {l, l, std::exp(-square(x - s_) / two_var - log_z_), std::exp(-square(x) / two_var - log_z_)});
    }
    // Tails: x <= first - 1 and x >= last + 1, bounded above (a hair more, for the rounding of Z).
    auto tail = [&](double c) {
      return (std::exp(-c * c / two_var) + sigma_ * kSqrtTwoPi * std::exp(log_normal_cdf(-c / sigma_))) *
             std::exp(-log_z_) * (1.0 + 1e-12);
    };
    const double below = loss(static_cast<double>(first - 1)), above = loss(static_cast<double>(last + 1));
    law.cells.push_back(
        {-INFINITY, below, tail(static_cast<double>(s_ - first + 1)), tail(static_cast<double>(-first + 1))});
    law.cells.push_back(
        {above, INFINITY, tail(static_cast<double>(last + 1 - s_)), tail(static_cast<double>(last + 1))});
    return law;
  }

 private:
  static double square(double v) { return v * v; }
  static double square(int64_t v) { return static_cast<double>(v) * static_cast<double>(v); }
  double sigma_;
  int64_t s_;
  double log_z_ = 0.0;
};

}  // namespace

MechanismKind discrete_gaussian_mechanism_kind() {
  return {"discrete_gaussian",
          "integer noise with P(x) proportional to exp(-x^2 / (2 sigma^2)) added to an integer query",
          {{"sigma", std::nullopt, "query units (integers)", "the discrete Gaussian's scale parameter sigma"},
           {"sensitivity", 1.0, "query units (integers)", "largest change of the query between neighbours", true}},
          [](const MechanismValues& v, const MechanismTables&) -> std::unique_ptr<MechanismPair> {
            return std::make_unique<DiscreteGaussianPair>(v.at("sigma"), static_cast<int64_t>(v.at("sensitivity")));
          }};
}

}  // namespace noiselearn
