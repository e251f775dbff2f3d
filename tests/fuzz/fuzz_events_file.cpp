// libFuzzer harness: the events file reader (io/events_file.hpp, `noiselearn account events.yaml`) on arbitrary YAML
// text, every event through parse_release_event (accounting/release_events.hpp). Relative table paths start in a
// scratch directory that holds table.csv. Bad input must be an InputError; anything else that escapes, a crash, a leak
// or undefined behaviour is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.hpp"
#include "io/events_file.hpp"
#include "scratch_directory.hpp"

namespace {

const noiselearn::fuzz::ScratchDirectory& scratch() {
  static const noiselearn::fuzz::ScratchDirectory directory({{"table.csv", noiselearn::fuzz::kFiveCellTable}});
  return directory;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (noiselearn::fuzz::names_special_file(text)) return 0;
  try {
    const noiselearn::ReleaseDescription description =
        noiselearn::parse_events_yaml(text, "fuzz-events.yaml", scratch().path());
    for (const auto& event : description.events) event.describe();
  } catch (const noiselearn::InputError&) {}
  return 0;
}
