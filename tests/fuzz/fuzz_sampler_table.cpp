// libFuzzer harness: the secure sampler's own reader of a noise table (sampler/sampler_table_file.hpp), what a service
// that deploys a table runs. The input is read as a bare noise.csv, and as the noise.json beside a fixed five-point
// table; each also with renormalisation. Bad input must be an InputError; anything else that escapes, a crash, a leak
// or undefined behaviour is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/errors.hpp"
#include "sampler/sampler_table_file.hpp"
#include "scratch_directory.hpp"

namespace {

const noiselearn::fuzz::ScratchDirectory& scratch() {
  static const noiselearn::fuzz::ScratchDirectory directory({{"table.csv", noiselearn::fuzz::kFiveCellTable}});
  return directory;
}

void read_table(const std::filesystem::path& csv) {
  for (const double renormalise_within : {0.0, 1e-6}) {
    try {
      noiselearn::sampler::read_sampler_table(csv, renormalise_within);
    } catch (const noiselearn::InputError&) {}
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  read_table(scratch().write("bare.csv", text));
  scratch().write("table.json", text);
  read_table(scratch().path() / "table.csv");
  return 0;
}
