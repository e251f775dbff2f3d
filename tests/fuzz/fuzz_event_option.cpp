// libFuzzer harness: the command line's `--event KEY=VALUE,...` (io/events_file.hpp, parse_event_assignments) and the
// one parser of an event behind it (accounting/release_events.hpp, parse_release_event), then the description's
// checks under both record relations, as `noiselearn account` runs them. Relative table paths start in a scratch
// directory that holds table.csv. Bad input must be an InputError; anything else that escapes, a crash, a leak or
// undefined behaviour is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "accounting/release_events.hpp"
#include "core/errors.hpp"
#include "io/events_file.hpp"
#include "io/table_files.hpp"
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
  const std::string where = "--event " + text;
  try {
    const noiselearn::EventFields fields = noiselearn::parse_event_assignments(text, where);
    noiselearn::ReleaseDescription description;
    description.events.push_back(
        noiselearn::parse_release_event(fields, where, noiselearn::table_file_reader(scratch().path())));
    description.events.front().describe();
    for (const auto relation : {noiselearn::RecordRelation::kAddOrRemove, noiselearn::RecordRelation::kReplaceOne}) {
      description.relation = relation;
      try {
        description.validate();
      } catch (const noiselearn::InputError&) {}
    }
  } catch (const noiselearn::InputError&) {}
  return 0;
}
