// The discrete Laplace (two-sided geometric) mechanism: integer noise with P(x) = (1 - r)/(1 + r) r^{|x|},
// r = e^{-1/scale}, for an integer-valued query of integer sensitivity s (dp_accounting's DiscreteLaplaceDpEvent has
// parameter 1/scale).
//
// Worst pair: P = DL(s), Q = DL(0). The privacy loss (|x| - |x - s|)/scale is -s/scale for x <= 0 (Q mass 1/(1+r),
// P mass r^s/(1+r)), +s/scale for x >= s (P mass 1/(1+r), Q mass r^s/(1+r)) and (2x - s)/scale for 0 < x < s (Q mass
// c r^x, P mass c r^{s-x}, c = (1-r)/(1+r)): every atom exactly, nothing cut. A symmetric monotone table on the
// integers: a smaller difference is a post-processing (src/accounting/README.md, "Why one shift suffices").
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "accounting/mechanism_pair.hpp"
#include "core/errors.hpp"

namespace noiselearn {

namespace {

class DiscreteLaplacePair final : public MechanismPair {
 public:
  DiscreteLaplacePair(double scale, int64_t sensitivity) : scale_(scale), s_(sensitivity) {}
  std::string description() const override {
    return fmt::format("discrete Laplace mechanism, scale {:g}, sensitivity {}", scale_, s_);
  }
  std::string worst_case_justification() const override {
    return "the difference s is the worst: symmetric monotone noise on the integers (Sommer et al., Thm 15)";
  }
  bool symmetric() const override { return true; }
  LossLaw loss_law(double) const override {
    if (s_ > 50'000'000) throw InputError(fmt::format("discrete Laplace with sensitivity {}: too many atoms", s_));
    const double log_r = -1.0 / scale_, r = std::exp(log_r);
    const double log_c = std::log(-std::expm1(log_r)) - std::log1p(r), log_end = -std::log1p(r);
    const double s = static_cast<double>(s_);
    LossLaw law;
    law.cells.push_back({-s / scale_, -s / scale_, std::exp(s * log_r + log_end), std::exp(log_end)});
    for (int64_t x = 1; x < s_; ++x) {
      const double l = (2.0 * static_cast<double>(x) - s) / scale_;
      law.cells.push_back({l, l, std::exp(log_c + (s - static_cast<double>(x)) * log_r),
                           std::exp(log_c + static_cast<double>(x) * log_r)});
    }
    law.cells.push_back({s / scale_, s / scale_, std::exp(log_end), std::exp(s * log_r + log_end)});
    return law;
  }

 private:
  double scale_;
  int64_t s_;
};

}  // namespace

MechanismKind discrete_laplace_mechanism_kind() {
  return {"discrete_laplace",
          "integer noise with P(x) proportional to exp(-|x| / scale) added to an integer query",
          {{"scale", std::nullopt, "query units (integers)", "the scale t of P(x) ~ exp(-|x|/t)"},
           {"sensitivity", 1.0, "query units (integers)", "largest change of the query between neighbours", true}},
          [](const MechanismValues& v, const MechanismTables&) -> std::unique_ptr<MechanismPair> {
            return std::make_unique<DiscreteLaplacePair>(v.at("scale"), static_cast<int64_t>(v.at("sensitivity")));
          }};
}

}  // namespace noiselearn
