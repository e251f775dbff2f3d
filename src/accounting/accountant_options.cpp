#include "accounting/accountant_options.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/enum_names.hpp"
#include "core/errors.hpp"

namespace noiselearn {

constexpr NameTable<SeveralPairsMethod, 3> kSeveralPairsMethods{{{SeveralPairsMethod::kAuto, "auto"},
                                                                 {SeveralPairsMethod::kAdaptive, "adaptive"},
                                                                 {SeveralPairsMethod::kEnvelope, "envelope"}}};
constexpr NameTable<PessimisticMethod, 2> kPessimisticMethods{
    {{PessimisticMethod::kConnectTheDots, "connect-the-dots"}, {PessimisticMethod::kRoundUp, "round-up"}}};
constexpr NameTable<OptimisticMethod, 2> kOptimisticMethods{
    {{OptimisticMethod::kMergeToGrid, "merge-to-grid"}, {OptimisticMethod::kRoundDown, "round-down"}}};

std::string to_string(PessimisticMethod method) { return std::string(name_of(kPessimisticMethods, method)); }
std::string to_string(OptimisticMethod method) { return std::string(name_of(kOptimisticMethods, method)); }
std::string to_string(SeveralPairsMethod method) { return std::string(name_of(kSeveralPairsMethods, method)); }
SeveralPairsMethod parse_several_pairs_method(const std::string& text) {
  return parse_named(kSeveralPairsMethods, text, "several-pairs method");
}
PessimisticMethod parse_pessimistic_method(const std::string& text) {
  return parse_named(kPessimisticMethods, text, "upper-bound method");
}
OptimisticMethod parse_optimistic_method(const std::string& text) {
  return parse_named(kOptimisticMethods, text, "lower-bound method");
}

void AccountantOptions::validate() const {
  if (!(std::isfinite(loss_step) && loss_step > 0.0 && loss_step <= 1.0))
    throw InputError(fmt::format("loss step {} must be in (0, 1]", loss_step));
  if (!(tail_mass >= 0.0 && tail_mass < 1e-3))
    throw InputError(fmt::format("tail mass {} must be in [0, 1e-3)", tail_mass));
  if (!(adaptive_skip_width >= 0.0 && adaptive_skip_width < 1.0))
    throw InputError(fmt::format("adaptive skip width {} must be in [0, 1)", adaptive_skip_width));
  if (!(adaptive_budget >= 0.0) || std::isnan(adaptive_budget))
    throw InputError(fmt::format("adaptive budget {} must be >= 0", adaptive_budget));
  if (!(adaptive_block_budget >= 0.0) || std::isnan(adaptive_block_budget))
    throw InputError(fmt::format("adaptive block budget {} must be >= 0", adaptive_block_budget));
  if (max_points < 1024) throw InputError(fmt::format("max points {} must be at least 1024", max_points));
}

}  // namespace noiselearn
