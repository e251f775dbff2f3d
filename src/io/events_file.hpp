#pragma once
// Events files: what is released, for `noiselearn account` (accounting/release_events.hpp holds the description and
// its one parser; this reads YAML into it). The format:
//
//   relation: add_remove        # add_remove (default) or replace_one
//   events:                     # one map per event; keys as in release_events.hpp and mechanism_pair.hpp
//     - mechanism: gaussian
//       noise_multiplier: 1.1
//       sampling_rate: 0.0042666667
//       count: 14063
//
// Unknown keys (with the nearest known one), values that are not scalars, a missing 'events' list: InputError naming
// the file, the event and the key.
#include <filesystem>
#include <string>

#include "accounting/release_events.hpp"

namespace noiselearn {

ReleaseDescription read_events_file(const std::filesystem::path& path);
// The same from YAML text; `source` names it in messages, `folder` is where relative table paths start (empty: the
// working directory).
ReleaseDescription parse_events_yaml(const std::string& text, const std::string& source,
                                     const std::filesystem::path& folder = {});

// "mechanism=gaussian,noise_multiplier=1.1,count=10" (the CLI's --event) as key/value fields.
EventFields parse_event_assignments(const std::string& text, const std::string& where);

}  // namespace noiselearn
