// The registry of noise models (model.kind): one line per kind. A model is its own files in models/, one line building
// it in train/factories.cpp (model_factories()), and one line here; a model with options of its own has its file in
// io/kinds/ (its typed options, rules and registration), one member of TrainingConfig and one part_keys line of its
// schema. The logit models have no options of their own: their registration is their line here.
#include "io/kinds/geometric_tail.hpp"
#include "io/kinds/sigmoid_stack.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

const std::vector<ModelKind>& model_kinds() {
  static const std::vector<ModelKind> kinds{
      sigmoid_stack_model_kind(),
      named_kind("free-logits", ""),
      named_kind("monotone-logits", ""),
      geometric_tail_model_kind(),
  };
  return kinds;
}

}  // namespace noiselearn
