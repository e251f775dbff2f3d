// A sweep's slurm-array.sbatch run for real by a single-node Slurm (munge, slurmctld, slurmd from Debian's
// slurm-wlm) that the test starts on this machine (local_slurm.sh). Where Slurm cannot start (not installable,
// daemons refused by the container), the test says so on one line beginning "SKIPPED: cannot start Slurm here:"
// and passes without checking anything (Catch2 2.x has no SKIP). NOISELEARN_TEST_SLURM=0 skips it on purpose.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"
#include "cli/sweep_fixture.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

namespace fs = std::filesystem;

using namespace noiselearn::testing;

namespace {

std::string output_of(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  ::pclose(pipe);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Stops the daemons however the test ends.
struct LocalSlurm {
  fs::path state;
  ~LocalSlurm() { std::system(("'" NOISELEARN_TEST_SCRIPTS "/local_slurm.sh' stop '" + state.string() + "'").c_str()); }
};

}  // namespace

TEST_CASE("a sweep runs for real as a Slurm job array on a single-node Slurm started by the test",
          "[cli][sweep][slurm]") {
  const fs::path dir = scratch("sweep-slurm");
  LocalSlurm slurm{dir / "slurm-state"};
  const char* wanted = std::getenv("NOISELEARN_TEST_SLURM");
  const std::string started = wanted && std::string(wanted) == "0"
                                  ? "NOISELEARN_TEST_SLURM=0"
                                  : output_of("'" NOISELEARN_TEST_SCRIPTS "/local_slurm.sh' start '" +
                                              slurm.state.string() + "' 2>&1 | tail -1");
  if (started != "ok") {
    const std::string message = "SKIPPED: cannot start Slurm here: " + started;
    std::cout << message << std::endl;
    WARN(message);
    return;
  }
  std::cout << "Slurm started on this machine (" << slurm.state.string() << "); running the sweep's job array"
            << std::endl;
  std::ofstream(dir / "base.yaml") << kSweepBaseConfig;
  std::ofstream(dir / "sweep.yaml") << "base: base.yaml\nvary:\n  loss.compositions: [1, 3]\n";
  const Run swept = run_noiselearn("sweep sweep.yaml --out out", dir);
  INFO(swept.err);
  REQUIRE(swept.exit_code == 0);
  // sbatch --wait returns when every task of the array has ended; its exit code is the array's.
  const std::string submit = "cd '" + dir.string() + "' && SLURM_CONF='" + (slurm.state / "slurm.conf").string() +
                             "' timeout 90 sbatch --wait out/slurm-array.sbatch > sbatch.out 2>&1";
  const int status = std::system(submit.c_str());
  INFO(file_text(dir / "sbatch.out"));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  // Two array tasks ran (their logs are in out/slurm/), each trained its own point.
  size_t task_logs = 0;
  for (const auto& entry : fs::directory_iterator(dir / "out" / "slurm"))
    task_logs += entry.path().extension() == ".out";
  CHECK(task_logs == 2);
  const Run collected = run_noiselearn("collect out", dir);
  INFO(collected.err);
  REQUIRE(collected.exit_code == 0);
  const auto records = csv_records(dir / "out" / "collected.csv");
  REQUIRE(records.size() == 2);
  for (const auto& r : records) {
    CHECK(r.at("status") == "done");
    const auto json = json_file(dir / "out" / "points" / r.at("point") / "run" / "noise.json");
    CHECK(json["certificate"]["compositions"].get<int>() == std::stoi(r.at("loss.compositions")));
    CHECK(std::stod(r.at("delta_upper")) == json["certificate"]["delta_at_epsilon"][0]["delta_upper"].get<double>());
  }
  std::cout << "Slurm ran the job array: " << records.size() << " points done" << std::endl;
}
