#pragma once
// noiselearn.Bounds: the certified bounds of a composition as Python sees them. Each query asks the accountant for
// what the certificates use at that query (the adaptive programme where the default decides it narrows the bracket,
// exponential tilting where the floating-point allowance dominates), then returns (lower, upper); the object itself
// does not change.
#include <fmt/format.h>

#include <string>
#include <utility>

#include "accounting/pair_accountant.hpp"
#include "accounting/refinement.hpp"
#include "core/errors.hpp"

namespace noiselearn::python {

class Bounds {
 public:
  explicit Bounds(PairBounds bounds) : bounds_(std::move(bounds)) {}
  // Each answer from the composed bounds and the question alone (the accountant refines a copy for it), so that the
  // same question always gets the same answer, whatever was asked before.
  std::pair<double, double> delta(double epsilon) const {
    // The default decides per query: the adaptive programme if it narrows this one, a tilted composition for it.
    const PairBounds asked = refined_for_epsilon(adapted_to_queries(bounds_, {{epsilon}, {}}), epsilon);
    return {asked.delta_lower(epsilon), asked.delta_upper(epsilon)};
  }
  std::pair<double, double> epsilon(double delta) const {
    if (!(delta > 0.0 && delta < 1.0)) throw InputError(fmt::format("delta {} must be in (0, 1)", delta));
    const PairBounds asked = refined_for_delta(adapted_to_queries(bounds_, {{}, {delta}}), delta);
    return {asked.epsilon_lower(delta), asked.epsilon_upper(delta)};
  }
  std::string description() const {
    std::string text = bounds_.accounted.pair + "; " + bounds_.accounted.pairs_checked;
    if (!bounds_.alternatives.several_pairs_note.empty()) text += "; " + bounds_.alternatives.several_pairs_note;
    return text;
  }
  int64_t compositions() const { return bounds_.compositions; }
  const PairBounds& bounds() const { return bounds_; }

 private:
  PairBounds bounds_;
};

}  // namespace noiselearn::python
