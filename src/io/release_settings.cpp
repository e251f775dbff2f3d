#include "io/release_settings.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/errors.hpp"

namespace noiselearn {

std::string setting_name(const std::string& setting, SettingNames names) {
  switch (names) {
    case SettingNames::kCommandLine: {
      std::string option = "--" + setting;
      for (char& c : option)
        if (c == '_') c = '-';
      return option == "--kind" ? "--pair" : option;
    }
    case SettingNames::kConfig: {
      const bool pair = setting == "kind" || setting == "sensitivity" || setting == "sampling_rate";
      return (pair ? "pair." : "certification.") + setting;
    }
    case SettingNames::kPython:
      return setting == "kind" ? "pair" : setting;
  }
  return setting;
}

PairSpecification resolve_pair(const PairSettings& given, const RecordedCertification& recorded, SettingNames names,
                               bool sensitivity_required, const std::string& table) {
  PairSpecification s;
  if (given.kind)
    s.kind = parse_pair_kind(*given.kind);
  else if (recorded.pair_kind)
    s.kind = *recorded.pair_kind;
  if (given.sensitivity) {
    s.sensitivity = *given.sensitivity;
  } else if (recorded.sensitivity) {
    s.sensitivity = *recorded.sensitivity;
  } else if (sensitivity_required) {
    throw InputError(table.empty() ? fmt::format("{} is required", setting_name("sensitivity", names))
                                   : fmt::format("{} is required: {} records none (it has no noise.json with a pair)",
                                                 setting_name("sensitivity", names), table));
  }
  if (!(s.sensitivity > 0.0) || !std::isfinite(s.sensitivity))
    throw InputError(fmt::format("{} must be a positive, finite number (got {})", setting_name("sensitivity", names),
                                 s.sensitivity));
  if (given.sampling_rate)
    s.sampling_rate = *given.sampling_rate;
  else if (recorded.sampling_rate)
    s.sampling_rate = *recorded.sampling_rate;
  if (!(s.sampling_rate > 0.0 && s.sampling_rate <= 1.0))
    throw InputError(
        fmt::format("{} must be in (0, 1] (got {})", setting_name("sampling_rate", names), s.sampling_rate));
  if (given.shifts) s.shifts = parse_shift_policy(*given.shifts);
  if (given.neighbours)
    s.neighbours = parse_neighbour_relation(*given.neighbours);
  else if (recorded.neighbours)
    s.neighbours = *recorded.neighbours;
  return s;
}

AccountantOptions resolve_accountant(const AccountantSettings& given,
                                     const std::optional<AccountantOptions>& recorded) {
  AccountantOptions o = recorded.value_or(AccountantOptions{});
  if (given.loss_step) o.loss_step = *given.loss_step;
  if (given.tail_mass) o.tail_mass = *given.tail_mass;
  if (given.max_points) o.max_points = *given.max_points;
  if (given.upper_method) o.upper_method = parse_pessimistic_method(*given.upper_method);
  if (given.lower_method) o.lower_method = parse_optimistic_method(*given.lower_method);
  if (given.several_pairs) o.several_pairs = parse_several_pairs_method(*given.several_pairs);
  if (given.adaptive_budget) o.adaptive_budget = *given.adaptive_budget;
  if (given.adaptive_block_budget) o.adaptive_block_budget = *given.adaptive_block_budget;
  o.validate();
  return o;
}

}  // namespace noiselearn
