#pragma once
// The questions a composition is made for: delta at each epsilon, epsilon at each delta. Under several_pairs auto they
// decide whether the exact adaptive programme runs (only where the envelope's bracket at one of them is wider than
// adaptive_skip_width, relative, and the floating-point allowance or the truncations do not make that width) and,
// for many releases, the loss step (loss_step_choice.hpp).
#include <vector>

namespace noiselearn {

struct AccountingQueries {
  std::vector<double> epsilons, deltas;
  bool empty() const { return epsilons.empty() && deltas.empty(); }
};

}  // namespace noiselearn
