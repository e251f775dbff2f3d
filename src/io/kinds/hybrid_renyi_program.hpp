#pragma once
// optimiser.kind = convex (Xiao et al. eq. 25-27, corrected): its registration and its rules on the other keys. It
// has no options of its own: the program reads loss.* (hrdp), utility.* and target.*. How it runs lives above
// (run/hybrid_renyi_optimiser.cpp).
#include "io/training_kinds.hpp"

namespace noiselearn {

OptimiserKind hybrid_renyi_optimiser_kind();

}  // namespace noiselearn
