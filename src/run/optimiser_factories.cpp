#include "run/optimiser_factories.hpp"

#include <map>

#include "run/hybrid_renyi_optimiser.hpp"

namespace noiselearn {

namespace {

// A function-local static, so that the learners' registration before main() (link_learners.cpp) finds it built
// whatever the order in which translation units are initialised.
std::map<std::string, OptimiserFactory>& installed() {
  static std::map<std::string, OptimiserFactory> factories{
      // The optimisers the run layer builds itself, one line each (the learners register theirs: link_learners.cpp).
      {"convex", &make_hybrid_renyi_optimiser},
  };
  return factories;
}

}  // namespace

void register_optimiser_factory(const std::string& kind, OptimiserFactory factory) { installed()[kind] = factory; }

OptimiserFactory optimiser_factory(const std::string& kind) {
  const auto& factories = installed();
  const auto found = factories.find(kind);
  return found == factories.end() ? nullptr : found->second;
}

}  // namespace noiselearn
