#include "io/training_kinds.hpp"

namespace noiselearn {

namespace {

template <class Kind>
const Kind* find_kind(const std::vector<Kind>& kinds, const std::string& name) {
  for (const auto& kind : kinds)
    if (kind.name == name) return &kind;
  return nullptr;
}

}  // namespace

const OptimiserKind* find_optimiser_kind(const std::string& name) { return find_kind(optimiser_kinds(), name); }

const LossKind* find_loss_kind(const std::string& name) { return find_kind(loss_kinds(), name); }

const ModelKind* find_model_kind(const std::string& name) { return find_kind(model_kinds(), name); }

std::string optimiser_kind_listing() { return kind_listing("", optimiser_kinds(), " or "); }

std::string loss_kind_listing() { return kind_listing("privacy surrogate: ", loss_kinds(), ", "); }

std::string model_kind_listing() { return kind_listing("", model_kinds(), ", "); }

}  // namespace noiselearn
