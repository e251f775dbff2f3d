// The registry of training losses (loss.kind): one line per kind. A loss is its own files in losses/, its file in
// io/kinds/ (its typed options, rules and registration), one line building it in train/factories.cpp, and one line
// here; a loss with options is also one member of TrainingConfig and one part_keys line of its schema.
#include "io/kinds/hybrid_renyi_loss.hpp"
#include "io/kinds/moments_accountant.hpp"
#include "io/kinds/privacy_buckets.hpp"
#include "io/kinds/renyi.hpp"
#include "io/kinds/soft_pld.hpp"
#include "io/training_kinds.hpp"

namespace noiselearn {

const std::vector<LossKind>& loss_kinds() {
  static const std::vector<LossKind> kinds{
      soft_pld_loss_kind(),
      moments_accountant_loss_kind(),
      privacy_buckets_adp_loss_kind(),
      privacy_buckets_pdp_loss_kind(),
      renyi_loss_kind(),
      hybrid_renyi_loss_kind(),
  };
  return kinds;
}

}  // namespace noiselearn
