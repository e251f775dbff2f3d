// The registry of noise models (model.kind): one entry per kind. A new model is its own files in models/, one line
// building it in train/factories.cpp (model_factories()), and one entry here.
#include <string>

#include "io/training_kinds.hpp"

namespace noiselearn {

const std::vector<ModelKind>& model_kinds() {
  static const std::vector<ModelKind> kinds{
      named_kind("sigmoid-stack", "Sommer et al. eq. 4"),
      named_kind("free-logits", ""),
      named_kind("monotone-logits", ""),
      // Built by its optimiser (the preconditioned gradient), not by train/factories.cpp.
      named_kind("geometric-tail", "Gilani et al. Defs 3.3-3.4: needs optimiser.kind = pgd and loss.kind = renyi or "
                                    "soft-pld; the grid.* keys do not apply"),
  };
  return kinds;
}

}  // namespace noiselearn
