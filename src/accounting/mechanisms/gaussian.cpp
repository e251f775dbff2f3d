// The Gaussian mechanism: real-valued noise N(0, (m s)^2) for a query of sensitivity s, noise multiplier m (the
// standard deviation in units of the sensitivity, as Opacus, dp_accounting and prv_accountant name it).
//
// Worst pair: P = N(s, (m s)^2), Q = N(0, (m s)^2); in units of s the privacy loss is l(x) = (2x - 1) / (2 m^2), so
// l ~ N(-1/(2 m^2), 1/m^2) under Q and N(+1/(2 m^2), 1/m^2) under P, and {l in (a, b]} is an interval of x whose
// masses are normal-CDF differences, taken in log space (accurate far into both tails).
// A smaller difference a s (|a| < 1) is a post-processing: the kernel x -> N(a x, (m s)^2 (1 - a^2)) maps Q to Q and P
// to N(a s, (m s)^2), with or without sampling (the mixture (1 - q) Q + q P goes to (1 - q) Q + q N(a s)), so the
// pair at |d| = s dominates every release whatever its difference.
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "accounting/mechanism_pair.hpp"
#include "core/log_math.hpp"

namespace noiselearn {

namespace {

// The K with Phi(-K) <= mass (the normal tail cut for a tail mass).
double normal_cut(double mass) {
  const double log_mass = std::log(mass);
  double k = 1.0;
  while (log_normal_cdf(-k) > log_mass) k += 0.125;
  return k;
}

class GaussianPair final : public MechanismPair {
 public:
  explicit GaussianPair(double noise_multiplier) : noise_multiplier_(noise_multiplier), m_(1.0 / noise_multiplier) {}
  std::string description() const override {
    return fmt::format("Gaussian mechanism, noise multiplier {:g}", noise_multiplier_);
  }
  std::string worst_case_justification() const override {
    return "the difference s is the worst: a smaller one is a post-processing (x -> N(a x, sigma^2 (1 - a^2)))";
  }
  bool symmetric() const override { return true; }
  // d coordinates, each moved by at most s: the difference is a vector of L2 norm at most s sqrt(d) (a corner of the
  // cube), and by the rotation invariance of N(0, (m s)^2 I) the pair is the one-dimensional one at s sqrt(d), whose
  // multiplier is m / sqrt(d) (smaller differences are post-processings, as above).
  std::shared_ptr<const MechanismPair> coordinate_product(int64_t coordinates) const override {
    return std::make_shared<GaussianPair>(noise_multiplier_ / std::sqrt(static_cast<double>(coordinates)));
  }
  LossLaw loss_law(double tail_mass) const override {
    const double half = m_ * m_ / 2.0, k = normal_cut(tail_mass / 1000.0);
    LossLaw law;
    ContinuousLoss c;
    c.low = -half - k * m_;
    c.high = half + k * m_;
    const double m = m_;
    // z under Q and under P of the x where l = value.
    auto z_q = [m, half](double l) { return (l + half) / m; };
    auto z_p = [m, half](double l) { return (l - half) / m; };
    c.mass = [z_q, z_p](double a, double b) {
      return std::pair{std::exp(log_normal_interval(z_p(a), z_p(b))), std::exp(log_normal_interval(z_q(a), z_q(b)))};
    };
    law.cells.push_back({-INFINITY, c.low, std::exp(log_normal_cdf(z_p(c.low))), std::exp(log_normal_cdf(z_q(c.low)))});
    law.cells.push_back(
        {c.high, INFINITY, std::exp(log_normal_cdf(-z_p(c.high))), std::exp(log_normal_cdf(-z_q(c.high)))});
    law.continuous = std::move(c);
    return law;
  }

 private:
  double noise_multiplier_, m_;
};

}  // namespace

MechanismKind gaussian_mechanism_kind() {
  return {"gaussian",
          "real-valued Gaussian noise N(0, (noise_multiplier * sensitivity)^2) added to the query",
          {{"noise_multiplier", std::nullopt, "sensitivities",
            "standard deviation of the noise divided by the query's sensitivity under the relation"}},
          [](const MechanismValues& v, const MechanismTables&) -> std::unique_ptr<MechanismPair> {
            return std::make_unique<GaussianPair>(v.at("noise_multiplier"));
          }};
}

}  // namespace noiselearn
