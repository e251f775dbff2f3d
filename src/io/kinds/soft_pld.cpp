#include "io/kinds/soft_pld.hpp"

namespace noiselearn {

const std::vector<ConfigKey<SoftPldConfig>>& SoftPldConfig::keys() {
  static const std::vector<ConfigKey<SoftPldConfig>> keys = {
      {"loss.soft_pld_loss_step", &SoftPldConfig::loss_step, "nats",
       "soft PLD: loss grid step; its error grows with n (at n = 128, 1e-3 gives ~3e-4 relative in delta: use 2e-4 to "
       "resolve finer improvements)"},
      {"loss.soft_pld_minimise", &SoftPldConfig::minimise, "",
       "soft-pld with model.kind = geometric-tail: epsilon (epsilon at loss.delta, gradient by the implicit function) "
       "or "
       "log-delta (log delta at loss.epsilon)"},
      {"loss.soft_pld_shifts", &SoftPldConfig::shifts, "",
       "soft-pld with model.kind = geometric-tail: envelope (one PLD dominating every shift 1 .. s / Delta, as "
       "certified) or "
       "worst-shift (the largest same-shift composition: the certificate's lower-bound scenario, m times the work)"},
  };
  return keys;
}

void SoftPldConfig::validate() const {
  config_schema::require(loss_step > 0.0 && loss_step <= 1.0, "loss.soft_pld_loss_step", "must be in (0, 1]");
  config_schema::require_one_of(minimise, "loss.soft_pld_minimise", {"epsilon", "log-delta"});
  config_schema::require_one_of(shifts, "loss.soft_pld_shifts", {"envelope", "worst-shift"});
}

LossKind soft_pld_loss_kind() { return named_kind("soft-pld", "ours"); }

}  // namespace noiselearn
