#include "accounting/accountant_options.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/errors.hpp"

namespace noiselearn {

std::string to_string(PessimisticMethod method) {
  return method == PessimisticMethod::kConnectTheDots ? "connect-the-dots" : "round-up";
}
std::string to_string(OptimisticMethod method) {
  return method == OptimisticMethod::kMergeToGrid ? "merge-to-grid" : "round-down";
}
std::string to_string(SeveralPairsMethod method) {
  switch (method) {
    case SeveralPairsMethod::kAuto:
      return "auto";
    case SeveralPairsMethod::kAdaptive:
      return "adaptive";
    case SeveralPairsMethod::kEnvelope:
      return "envelope";
  }
  return "auto";
}
SeveralPairsMethod parse_several_pairs_method(const std::string& text) {
  if (text == "auto") return SeveralPairsMethod::kAuto;
  if (text == "adaptive") return SeveralPairsMethod::kAdaptive;
  if (text == "envelope") return SeveralPairsMethod::kEnvelope;
  throw InputError(fmt::format("unknown several-pairs method '{}' (valid: auto, adaptive, envelope)", text));
}
PessimisticMethod parse_pessimistic_method(const std::string& text) {
  if (text == "connect-the-dots") return PessimisticMethod::kConnectTheDots;
  if (text == "round-up") return PessimisticMethod::kRoundUp;
  throw InputError(fmt::format("unknown upper-bound method '{}' (valid: connect-the-dots, round-up)", text));
}
OptimisticMethod parse_optimistic_method(const std::string& text) {
  if (text == "merge-to-grid") return OptimisticMethod::kMergeToGrid;
  if (text == "round-down") return OptimisticMethod::kRoundDown;
  throw InputError(fmt::format("unknown lower-bound method '{}' (valid: merge-to-grid, round-down)", text));
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
