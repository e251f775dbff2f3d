// The Laplace mechanism: real-valued noise Laplace(0, b) with b = m s for a query of sensitivity s, noise multiplier
// m (the scale in units of the sensitivity, as dp_accounting's LaplaceDpEvent).
//
// Worst pair: P = Laplace(s, b), Q = Laplace(0, b). With a = 1/m the privacy loss is -a for x <= 0 (P mass e^-a / 2,
// Q mass 1/2), +a for x >= s (P mass 1/2, Q mass e^-a / 2), and (2x/s - 1) a in between, where {l in (l1, l2]} has
// Q mass e^{-(l1 + a)/2} (1 - e^{-(l2 - l1)/2}) / 2 and P mass e^{-(a - l2)/2} (1 - e^{-(l2 - l1)/2}) / 2.
// Symmetric log-concave noise: a smaller difference is a post-processing (Sommer et al., Thm 15, and inside the
// sampled mixture by the argument of src/accounting/README.md, "Why one shift suffices").
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "accounting/mechanism_pair.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

class LaplacePair final : public MechanismPair {
 public:
  explicit LaplacePair(double noise_multiplier) : noise_multiplier_(noise_multiplier), a_(1.0 / noise_multiplier) {}
  std::string description() const override {
    return fmt::format("Laplace mechanism, noise multiplier {:g}", noise_multiplier_);
  }
  std::string worst_case_justification() const override {
    return "the difference s is the worst: symmetric log-concave noise (Sommer et al., Thm 15)";
  }
  bool symmetric() const override { return true; }
  LossLaw loss_law(double) const override {
    const double a = a_;
    LossLaw law;
    law.cells.push_back({-a, -a, 0.5 * std::exp(-a), 0.5});
    law.cells.push_back({a, a, 0.5, 0.5 * std::exp(-a)});
    ContinuousLoss c;
    c.low = -a;
    c.high = a;
    c.mass = [a](double l1, double l2) {
      const double width = -std::expm1(-(l2 - l1) / 2.0);
      return std::pair{0.5 * std::exp(-(a - l2) / 2.0) * width, 0.5 * std::exp(-(l1 + a) / 2.0) * width};
    };
    law.continuous = std::move(c);
    return law;
  }

 private:
  double noise_multiplier_, a_;
};

}  // namespace

MechanismKind laplace_mechanism_kind() {
  return {
      "laplace",
      "real-valued Laplace noise of scale noise_multiplier * sensitivity added to the query",
      {{"noise_multiplier", std::nullopt, "sensitivities", "scale b of the noise divided by the query's sensitivity"}},
      [](const MechanismValues& v, const MechanismTables&) -> std::unique_ptr<MechanismPair> {
        // The loss +-1/m must sit on a loss grid of int64 indices: beyond 1e12 nats per release it would not (and no
        // epsilon of use is left).
        if (!(v.at("noise_multiplier") >= 1e-12))
          throw InputError(
              fmt::format("noise_multiplier {} is below 1e-12 (a privacy loss of more than 1e12 per "
                          "release)",
                          v.at("noise_multiplier")));
        return std::make_unique<LaplacePair>(v.at("noise_multiplier"));
      }};
}

}  // namespace noiselearn
