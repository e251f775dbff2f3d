#pragma once
// The one parser of how a release is described and accounted, shared by the command line (cli_common), the run layer
// (run/config_options: a training config's keys) and the Python module (keyword arguments): the words a user writes
// (pair kind, sensitivity, sampling rate, shifts, neighbours; the accountant's options) become a PairSpecification
// and AccountantOptions here and nowhere else. A setting the caller did not give is the one the table records
// (io/recorded_certification.hpp), else the library's default. Every refusal is an InputError naming the setting in
// the caller's own words (`--sampling-rate`, `pair.sampling_rate`, `sampling_rate`).
#include <cstdint>
#include <optional>
#include <string>

#include "accounting/accountant_options.hpp"
#include "core/dominating_pair.hpp"
#include "io/recorded_certification.hpp"

namespace noiselearn {

// What the caller gave; unset: not given.
struct PairSettings {
  std::optional<std::string> kind;  // additive, subsampled
  std::optional<double> sensitivity;
  std::optional<double> sampling_rate;
  std::optional<std::string> shifts;      // auto, single, all
  std::optional<std::string> neighbours;  // any, same-direction
};

struct AccountantSettings {
  std::optional<double> loss_step, tail_mass;
  std::optional<int64_t> max_points;
  std::optional<std::string> upper_method, lower_method, several_pairs;
  std::optional<double> adaptive_budget, adaptive_block_budget;
};

// How the caller names each setting in messages: the option prefix ("--" and dashes), a config section ("pair.",
// "certification."), or the Python keyword (no prefix, underscores).
enum class SettingNames { kCommandLine, kConfig, kPython };
std::string setting_name(const std::string& setting, SettingNames names);

// The pair: given, else recorded, else the default (additive, shifts auto, neighbours any, sampling rate 1); the
// sensitivity has no default when `sensitivity_required` (then an InputError names it and `table`).
PairSpecification resolve_pair(const PairSettings& given, const RecordedCertification& recorded, SettingNames names,
                               bool sensitivity_required, const std::string& table = "");

// The accountant's options: given over recorded over the defaults; validated.
AccountantOptions resolve_accountant(const AccountantSettings& given, const std::optional<AccountantOptions>& recorded);

}  // namespace noiselearn
