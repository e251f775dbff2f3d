#include "io/run_status.hpp"

#include <fmt/format.h>

#include "core/enum_names.hpp"
#include "core/errors.hpp"
#include "io/table_files.hpp"

namespace noiselearn {

namespace fs = std::filesystem;

constexpr NameTable<RunState, 3> kRunStates{
    {{RunState::kDone, "done"}, {RunState::kFailed, "failed"}, {RunState::kMissing, "missing"}}};

const char* to_string(RunState state) { return name_of(kRunStates, state).data(); }

RunStatus inspect_run(const fs::path& run_directory) {
  auto failed = [](std::string reason) { return RunStatus{RunState::kFailed, std::move(reason)}; };
  std::error_code ec;
  if (!fs::is_directory(run_directory, ec) || fs::is_empty(run_directory, ec))
    return RunStatus{RunState::kMissing, "not started (no run directory)"};
  if (!fs::exists(run_directory / "noise.json"))
    return failed("no noise.json (interrupted, or failed before the table was written)");
  nlohmann::json metadata;
  try {
    metadata = read_noise_table(run_directory / "noise.csv").metadata;
  } catch (const InputError& e) {
    return failed(e.what());
  }
  // The checksum is what ties noise.csv to its certificate; a noise.json without one cannot vouch for the CSV.
  if (!metadata.contains("csv_checksum")) return failed("noise.json has no csv_checksum");
  if (!metadata.contains("certificate")) return failed("noise.json has no certificate");
  const auto training = metadata.find("training");
  if (training != metadata.end() && training->value("stopped_early", false))
    return failed(
        fmt::format("training stopped early: {}", training->value("stop_reason", std::string("(no reason recorded)"))));
  if (!fs::exists(run_directory / "summary.txt"))
    return failed("no summary.txt (interrupted after the table was written)");
  return RunStatus{RunState::kDone, ""};
}

}  // namespace noiselearn
