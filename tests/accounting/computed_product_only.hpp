#pragma once
// A mechanism's pair without its closed-form coordinate product (MechanismPair::coordinate_product): the d-fold
// product is then computed on a grid, as for a mechanism without a closed form. Shared by the product's tests
// (test_coordinate_product.cpp) and its benchmark (bench_accountant --coordinates-only), which use the Gaussian's
// closed form as the reference.
#include <memory>
#include <string>
#include <utility>

#include "accounting/mechanism_pair.hpp"

namespace noiselearn::testing {

class ComputedProductOnly final : public MechanismPair {
 public:
  explicit ComputedProductOnly(std::unique_ptr<MechanismPair> inner) : inner_(std::move(inner)) {}
  std::string description() const override { return inner_->description(); }
  std::string worst_case_justification() const override { return inner_->worst_case_justification(); }
  bool symmetric() const override { return inner_->symmetric(); }
  LossLaw loss_law(double tail_mass) const override { return inner_->loss_law(tail_mass); }

 private:
  std::unique_ptr<MechanismPair> inner_;
};

}  // namespace noiselearn::testing
