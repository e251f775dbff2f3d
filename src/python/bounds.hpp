#pragma once
// noiselearn.Bounds: the certified bounds of a composition as Python sees them. Each query asks the accountant for
// what the certificates use at that query (the adaptive programme where the default decides it narrows the bracket,
// exponential tilting where the floating-point allowance dominates), then returns (lower, upper).
#include <fmt/format.h>

#include <string>
#include <utility>

#include "accounting/pair_accountant.hpp"
#include "core/errors.hpp"

namespace noiselearn::python {

class Bounds {
 public:
  explicit Bounds(PairBounds bounds) : bounds_(std::move(bounds)) {}
  std::pair<double, double> delta(double epsilon) {
    bounds_.adapt_to_queries({{epsilon}, {}});  // the default decides per query: the adaptive programme if it narrows this one
    bounds_.refine_for_epsilon(epsilon);
    return {bounds_.delta_lower(epsilon), bounds_.delta_upper(epsilon)};
  }
  std::pair<double, double> epsilon(double delta) {
    if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta {} must be in (0, 1)", delta));
    bounds_.adapt_to_queries({{}, {delta}});
    bounds_.refine_for_delta(delta);
    return {bounds_.epsilon_lower(delta), bounds_.epsilon_upper(delta)};
  }
  std::string description() const {
    std::string text = bounds_.pair_description + "; " + bounds_.shift_justification;
    if (!bounds_.several_pairs_note.empty()) text += "; " + bounds_.several_pairs_note;
    return text;
  }
  int64_t compositions() const { return bounds_.compositions; }
  const PairBounds& bounds() const { return bounds_; }

 private:
  PairBounds bounds_;
};

}  // namespace noiselearn::python
