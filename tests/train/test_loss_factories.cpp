// The training losses are built by name (train/factories.hpp), under the kinds registered for loss.kind
// (io/loss_kinds.cpp): every registered kind builds the loss of that name, and an unknown one is refused with the
// nearest.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/training_kinds.hpp"
#include "train/factories.hpp"

using namespace noiselearn;

TEST_CASE("every registered loss.kind is built by its factory, and every factory is a registered kind", "[factories]") {
  std::vector<std::string> built;
  for (const auto& [kind, make] : loss_factories()) built.push_back(kind);
  CHECK(built == kind_names(loss_kinds()));
  for (const auto& kind : loss_kinds()) {
    LossSpecification specification;
    specification.kind = kind.name;
    specification.compositions = 4;
    const auto loss = make_privacy_loss(specification);
    REQUIRE(loss != nullptr);
    CHECK(loss->loss_name() == kind.name);  // each loss names itself as its kind (noise.json's loss.kind)
  }
}

TEST_CASE("an unknown loss kind is one line naming the nearest and every valid one", "[factories]") {
  LossSpecification specification;
  specification.kind = "privacy-buckets-apd";
  CHECK_THROWS_AS(make_privacy_loss(specification), InputError);
  CHECK_THROWS_WITH(make_privacy_loss(specification),
                    "unknown loss.kind 'privacy-buckets-apd'; did you mean 'privacy-buckets-adp'? (valid: soft-pld, "
                    "moments-accountant, privacy-buckets-adp, privacy-buckets-pdp, renyi, hrdp)");
}

TEST_CASE("every registered model.kind but the geometric-tail family (built by its optimiser) is built by its factory",
          "[factories]") {
  std::vector<std::string> built;
  for (const auto& [kind, make] : model_factories()) built.push_back(kind);
  std::vector<std::string> registered = kind_names(model_kinds());
  registered.erase(std::remove(registered.begin(), registered.end(), "geometric-tail"), registered.end());
  CHECK(built == registered);
  const Grid grid = Grid::symmetric(5.0, 0.5);
  for (const auto& name : registered) {
    ModelSpecification specification;
    specification.kind = name;
    specification.sigmoids = 20;
    const auto model = make_noise_model(grid, specification);
    REQUIRE(model != nullptr);
    CHECK(model->model_name() == name);
  }
  ModelSpecification unknown;
  unknown.kind = "geometric-tail";
  CHECK_THROWS_WITH(make_noise_model(grid, unknown),
                    "unknown model.kind 'geometric-tail' (valid: sigmoid-stack, free-logits, monotone-logits)");
}
