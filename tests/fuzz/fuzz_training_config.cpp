// libFuzzer harness: the training config reader (io/training_config.hpp on io/config_schema.hpp) on arbitrary YAML
// text, with a `--set` override taken from the input's last line when it is one. Bad input must be an InputError;
// anything else that escapes, a crash, a leak or undefined behaviour is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "io/training_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // "#set section.key=value" as the last line: the fuzzer reaches the override parser from the same corpus, and the
  // line is a comment to the YAML reader.
  std::vector<std::string> overrides;
  const size_t last_line = text.rfind('\n');
  const std::string tail = last_line == std::string::npos ? text : text.substr(last_line + 1);
  if (tail.rfind("#set ", 0) == 0) overrides.push_back(tail.substr(5));
  try {
    // An absolute base directory: relative paths in the text are resolved without looking at the file system.
    const noiselearn::TrainingConfig config =
        noiselearn::TrainingConfig::parse(text, "fuzz-config.yaml", overrides, "/nonexistent-base");
    config.to_yaml();
    config.grid();
  } catch (const noiselearn::InputError&) {}
  return 0;
}
