#pragma once
// loss.kind = hrdp (Xiao et al. Def. 7, Thm 2): its registration and its rule on the optimiser. It reads the loss
// section's shared keys (loss.epsilon, loss.delta, loss.alpha, loss.compositions) and, with Adam, loss.alpha_update.
#include "io/training_kinds.hpp"

namespace noiselearn {

LossKind hybrid_renyi_loss_kind();

}  // namespace noiselearn
