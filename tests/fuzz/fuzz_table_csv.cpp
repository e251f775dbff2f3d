// libFuzzer harness: the noise-table CSV reader (io/table_files.hpp on io/table_csv.hpp) on arbitrary bytes, as a bare
// table (no noise.json beside it), read strictly and with renormalisation. Bad input must be an InputError; anything
// else that escapes, a crash, a leak or undefined behaviour is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/errors.hpp"
#include "io/table_csv.hpp"
#include "io/table_files.hpp"
#include "scratch_directory.hpp"

namespace {

const noiselearn::fuzz::ScratchDirectory& scratch() {
  static const noiselearn::fuzz::ScratchDirectory directory;
  return directory;
}

void read_table(const std::filesystem::path& csv, const noiselearn::TableReadOptions& options) {
  try {
    noiselearn::read_noise_table(csv, options);
  } catch (const noiselearn::InputError&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The number parser alone, on text with the commas and line ends that the CSV reader splits off before calling it.
  double value = 0.0;
  noiselearn::parse_double(text, value);

  const std::filesystem::path csv = scratch().write("noise.csv", text);
  read_table(csv, {});
  read_table(csv, {true, 1e-6});
  return 0;
}
