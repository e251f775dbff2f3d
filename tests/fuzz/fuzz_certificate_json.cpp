// libFuzzer harness: the readers of a table's noise.json (io/table_files.hpp: the grid, support, tails and provenance
// it declares; io/recorded_certification.hpp: the pair and certificate it records, resolved as `noiselearn evaluate`
// resolves them by io/release_settings.hpp). The input is the noise.json beside a fixed five-point noise.csv, and
// is also handed to recorded_certification directly, so that certificates reach it whatever their table metadata
// says. Bad input must be an InputError; anything else that escapes, a crash, a leak or undefined behaviour is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "io/recorded_certification.hpp"
#include "io/release_settings.hpp"
#include "io/table_files.hpp"
#include "scratch_directory.hpp"

namespace {

const noiselearn::fuzz::ScratchDirectory& scratch() {
  static const noiselearn::fuzz::ScratchDirectory directory({{"noise.csv", noiselearn::fuzz::kFiveCellTable}});
  return directory;
}

void use_recorded(const nlohmann::json& metadata) {
  try {
    const noiselearn::RecordedCertification recorded = noiselearn::recorded_certification(metadata);
    recorded.describe();
    noiselearn::resolve_pair({}, recorded, noiselearn::SettingNames::kCommandLine, true, "noise.csv");
    noiselearn::resolve_accountant({}, recorded.accountant);
  } catch (const noiselearn::InputError&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json metadata = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!metadata.is_discarded()) use_recorded(metadata);

  scratch().write("noise.json", text);
  try {
    const noiselearn::LoadedTable loaded = noiselearn::read_noise_table(scratch().path() / "noise.csv");
    use_recorded(loaded.metadata);
  } catch (const noiselearn::InputError&) {}
  return 0;
}
