// noiselearn sweep / collect as a user meets them: expansion, refusals, a real run through GNU parallel, resuming.
#include <catch2/catch.hpp>

#include "cli/run_noiselearn.hpp"
#include "cli/sweep_fixture.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;

using namespace noiselearn::testing;

namespace {

// The exit code of a shell command run in `directory`.
int shell(const std::string& command, const fs::path& directory) {
  const int status = std::system(("cd '" + directory.string() + "' && " + command).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool have(const char* program) { return shell(std::string("command -v ") + program + " > /dev/null 2>&1", ".") == 0; }

// Exactly one line on stderr, the error, naming `culprit`; exit code 2.
void require_one_line_error(const Run& run, const std::string& culprit) {
  INFO(run.err);
  CHECK(run.exit_code == 2);
  CHECK(run.err.rfind("noiselearn: error: ", 0) == 0);
  CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
  CHECK_THAT(run.err, Catch::Contains(culprit));
}

const char* kFourPoints = R"(base: base.yaml
set:
  optimiser.epochs: 20
vary:
  loss.compositions: [1, 2]
  schedule.utility_weight_start: {from: 0.05, to: 0.5, steps: 2, scale: log}
)";

const std::vector<std::string> kFourNames = {
    "compositions=1,utility_weight_start=0.05", "compositions=1,utility_weight_start=0.5",
    "compositions=2,utility_weight_start=0.05", "compositions=2,utility_weight_start=0.5"};

fs::path make_sweep(const std::string& name, const std::string& sweep_text) {
  const fs::path dir = scratch(name);
  std::ofstream(dir / "base.yaml") << kSweepBaseConfig;
  std::ofstream(dir / "sweep.yaml") << sweep_text;
  return dir;
}

fs::file_time_type modified(const fs::path& path) { return fs::last_write_time(path); }

}  // namespace

TEST_CASE("sweep expands the cartesian product into validated configs, a job list and the engines' scripts",
          "[cli][sweep]") {
  const fs::path dir = make_sweep("sweep-expand", kFourPoints);
  const Run run = run_noiselearn("sweep sweep.yaml --out out --jobs 3", dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const fs::path out = fs::absolute(dir / "out");
  // points.csv: one row per point, last key fastest, the values as the sweep gives them.
  CHECK(file_text(out / "points.csv") ==
        "point,loss.compositions,schedule.utility_weight_start\n"
        "\"compositions=1,utility_weight_start=0.05\",1,0.05\n\"compositions=1,utility_weight_start=0.5\",1,0.5\n"
        "\"compositions=2,utility_weight_start=0.05\",2,0.05\n\"compositions=2,utility_weight_start=0.5\",2,0.5\n");
  CHECK(file_text(out / "sweep.yaml") == kFourPoints);
  // Every config is the base with the fixed and the varied keys applied, resolved (every key present).
  const std::map<std::string, std::pair<std::string, std::string>> expected = {{kFourNames[0], {"1", "0.05"}},
                                                                               {kFourNames[1], {"1", "0.5"}},
                                                                               {kFourNames[2], {"2", "0.05"}},
                                                                               {kFourNames[3], {"2", "0.5"}}};
  for (const auto& [name, values] : expected) {
    const std::string config = file_text(out / "points" / name / "config.yaml");
    CHECK_THAT(config, Catch::Contains("  compositions: " + values.first + "\n"));
    CHECK_THAT(config, Catch::Contains("  utility_weight_start: " + values.second + "\n"));
    CHECK_THAT(config, Catch::Contains("  epochs: 20\n"));
    CHECK_THAT(config, Catch::Contains("  sigmoids: 20\n"));
  }
  // jobs.txt: line i trains point i, absolute and quoted paths, re-runnable.
  const auto jobs = text_lines(file_text(out / "jobs.txt"));
  REQUIRE(jobs.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(jobs[i].rfind(std::string("'") + NOISELEARN_BINARY + "' --threads 1 train '", 0) == 0);
    CHECK_THAT(jobs[i], Catch::Contains("'" + (out / "points" / kFourNames[i] / "config.yaml").string() + "' --out '" +
                                        (out / "points" / kFourNames[i] / "run").string() +
                                        "' --skip-if-complete --force >> '"));
  }
  const std::string parallel = file_text(out / "run-parallel.sh");
  CHECK_THAT(parallel, Catch::Contains("parallel --joblog \"$sweep/joblog\" --resume-failed -j "
                                       "\"${NOISELEARN_JOBS:-3}\" \"$@\" < \"$sweep/jobs.txt\""));
  CHECK((fs::status(out / "run-parallel.sh").permissions() & fs::perms::owner_exec) != fs::perms::none);
  const std::string slurm = file_text(out / "slurm-array.sbatch");
  CHECK_THAT(slurm, Catch::Contains("#SBATCH --array=1-4\n"));
  CHECK_THAT(slurm, Catch::Contains("sed -n \"${SLURM_ARRAY_TASK_ID}p\" '" + (out / "jobs.txt").string() + "'"));
  CHECK(fs::is_directory(out / "slurm"));

  // The same sweep again changes nothing (the configs keep their time stamps).
  const auto before = modified(out / "points" / kFourNames[0] / "config.yaml");
  const Run again = run_noiselearn("sweep sweep.yaml --out out --jobs 3", dir);
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(modified(out / "points" / kFourNames[0] / "config.yaml") == before);

  // A different sweep into the same directory is refused; --force replaces it, deleting the changed points' runs.
  fs::create_directories(out / "points" / kFourNames[0] / "run");
  std::ofstream(out / "points" / kFourNames[0] / "run" / "noise.json") << "{}";
  std::ofstream(dir / "sweep.yaml")
      << std::string(kFourPoints).replace(std::string(kFourPoints).find("epochs: 20"), 10, "epochs: 25");
  const Run refused = run_noiselearn("sweep sweep.yaml --out out", dir);
  require_one_line_error(refused, "holds a different sweep");
  CHECK_THAT(refused.err, Catch::Contains("--force"));
  CHECK_THAT(file_text(out / "points" / kFourNames[0] / "config.yaml"), Catch::Contains("  epochs: 20\n"));
  const Run forced = run_noiselearn("sweep sweep.yaml --out out --force", dir);
  INFO(forced.err);
  REQUIRE(forced.exit_code == 0);
  CHECK_THAT(file_text(out / "points" / kFourNames[0] / "config.yaml"), Catch::Contains("  epochs: 25\n"));
  CHECK(!fs::exists(out / "points" / kFourNames[0] / "run"));

  // A non-empty directory that is not a sweep is not written into.
  fs::create_directories(dir / "mine");
  std::ofstream(dir / "mine" / "notes.txt") << "my work";
  require_one_line_error(run_noiselearn("sweep sweep.yaml --out mine", dir), "holds no sweep");
  CHECK(!fs::exists(dir / "mine" / "points"));
}

TEST_CASE("sweep zips keys that vary together and names the points by their values", "[cli][sweep]") {
  const fs::path dir = make_sweep("sweep-zip", R"(base: base.yaml
vary:
  loss.kind: [soft-pld, moments-accountant]
zip:
  - loss.compositions: [1, 4]
    schedule.utility_weight_start: [0.5, 0.25]
)");
  const Run run = run_noiselearn("sweep sweep.yaml --out out", dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto records = csv_records(dir / "out" / "points.csv");
  REQUIRE(records.size() == 4);
  CHECK(records[1].at("point") == "kind=soft-pld,compositions=4,utility_weight_start=0.25");
  CHECK(records[1].at("loss.compositions") == "4");
  CHECK(records[1].at("schedule.utility_weight_start") == "0.25");
  CHECK(records[2].at("loss.kind") == "moments-accountant");
  CHECK(records[2].at("loss.compositions") == "1");
  CHECK_THAT(file_text(dir / "out" / "points" / records[1].at("point") / "config.yaml"),
             Catch::Contains("  compositions: 4\n"));
}

// Each kind of problem once through the executable (exit 2, one line, nothing written); every message of the
// sweep-file reader is checked in-process by tests/io/test_sweep_file.cpp.
TEST_CASE("bad sweep files are refused with one line naming the key, before anything is written", "[cli][sweep]") {
  struct Case {
    const char* sweep;
    const char* culprit;
  };
  const std::vector<Case> cases = {
      {"base: base.yaml\nvary:\n  loss.epsilom: [0.1, 0.2]\n", "unknown key 'loss.epsilom'"},
      {"base: base.yaml\nvary:\n  loss.compositions: []\n", "loss.compositions has an empty list"},
      {"base: base.yaml\nvary:\n  loss.epsilon: {from: 0, to: 1, steps: 3, scale: log}\n",
       "loss.epsilon range: scale log needs from and to positive"},
      {"base: base.yaml\nvary:\n  loss.compositions: [0, 1]\n", "loss.compositions must be a whole number"},
      {"base: base.yaml\nvary:\n  loss.kind: [soft-pld, softpld]\n", "loss.kind = 'softpld' is not valid"},
      {"base: base.yaml\nvarry:\n  loss.epsilon: [0.5]\n", "unknown entry 'varry'"},
      {"base: missing.yaml\n", "base: config file"},
      {"base: base.yaml\nvary:\n  loss.epsilon: [0.1\n", "invalid YAML"},
  };
  const fs::path dir = make_sweep("sweep-bad", "");
  for (const auto& c : cases) {
    std::ofstream(dir / "sweep.yaml") << c.sweep;
    INFO(c.sweep);
    require_one_line_error(run_noiselearn("sweep sweep.yaml --out out", dir), c.culprit);
    CHECK(!fs::exists(dir / "out"));
  }
  require_one_line_error(run_noiselearn("collect .", dir), "not a sweep directory");
}

TEST_CASE("a sweep runs for real through GNU parallel, resumes after a kill, and collect reports each noise.json",
          "[cli][sweep]") {
  if (!have("parallel")) {
    WARN("SKIPPED: GNU parallel is not installed (apt-get install parallel; build.sh installs it)");
    return;
  }
  const fs::path dir = make_sweep("sweep-parallel", kFourPoints);
  REQUIRE(run_noiselearn("sweep sweep.yaml --out out", dir).exit_code == 0);
  const fs::path out = fs::absolute(dir / "out");
  const auto jobs = text_lines(file_text(out / "jobs.txt"));
  REQUIRE(jobs.size() == 4);
  auto point = [&](size_t i) { return out / "points" / kFourNames[i]; };

  // A killed sweep: points 0 and 1 finished (two array tasks ran), point 2 was killed mid-training (its run
  // directory holds the config and no table), point 3 never started.
  for (size_t i = 0; i < 2; ++i) REQUIRE(shell(jobs[i], dir) == 0);
  fs::create_directories(point(2) / "run");
  fs::copy_file(point(2) / "config.yaml", point(2) / "run" / "config.yaml");
  const Run partial = run_noiselearn("collect out", dir);
  INFO(partial.err);
  CHECK(partial.exit_code == 1);
  CHECK_THAT(partial.err, Catch::Contains("point " + kFourNames[2] + ": failed: no noise.json"));
  CHECK_THAT(partial.err, Catch::Contains("point " + kFourNames[3] + ": missing"));
  CHECK_THAT(partial.err, Catch::Contains("noiselearn: failure: 2 of 4 points are not done (1 failed, 1 missing"));
  {
    const auto records = csv_records(out / "collected.csv");
    REQUIRE(records.size() == 4);
    CHECK(records[0].at("status") == "done");
    CHECK(records[1].at("status") == "done");
    CHECK(records[2].at("status") == "failed");
    CHECK(records[3].at("status") == "missing");
    CHECK(records[3].at("delta_upper").empty());
  }

  // The re-run through GNU parallel trains only points 2 and 3: 0 and 1 keep their files untouched.
  const auto finished0 = modified(point(0) / "run" / "noise.json"),
             finished1 = modified(point(1) / "run" / "noise.json");
  REQUIRE(shell("NOISELEARN_JOBS=2 ./out/run-parallel.sh > parallel.out 2>&1", dir) == 0);
  CHECK(modified(point(0) / "run" / "noise.json") == finished0);
  CHECK(modified(point(1) / "run" / "noise.json") == finished1);
  CHECK_THAT(file_text(point(0) / "train.log"), Catch::Contains("skipped (--skip-if-complete)"));
  CHECK_THAT(file_text(point(2) / "train.log"), Catch::Contains("holds an incomplete run"));
  CHECK_THAT(file_text(point(3) / "train.log"), Catch::Contains("Trained sigmoid-stack"));
  CHECK(text_lines(file_text(out / "joblog")).size() == 5);  // header + 4 jobs

  // collect: every point done, every number the one its noise.json / comparison.csv holds.
  const Run collected = run_noiselearn("collect out", dir);
  INFO(collected.err);
  REQUIRE(collected.exit_code == 0);
  const auto records = csv_records(out / "collected.csv");
  REQUIRE(records.size() == 4);
  const std::vector<std::pair<std::string, std::string>> varied = {
      {"1", "0.05"}, {"1", "0.5"}, {"2", "0.05"}, {"2", "0.5"}};
  for (size_t i = 0; i < 4; ++i) {
    const auto& r = records[i];
    INFO(r.at("point"));
    CHECK(r.at("point") == kFourNames[i]);
    CHECK(r.at("loss.compositions") == varied[i].first);
    CHECK(r.at("schedule.utility_weight_start") == varied[i].second);
    CHECK(r.at("status") == "done");
    const auto json = json_file(point(i) / "run" / "noise.json");
    const auto& certificate = json["certificate"];
    CHECK(std::stod(r.at("compositions")) == certificate["compositions"].get<double>());
    CHECK(certificate["compositions"].get<int>() == std::stoi(varied[i].first));
    CHECK(std::stod(r.at("epsilon")) == certificate["delta_at_epsilon"][0]["epsilon"].get<double>());
    CHECK(std::stod(r.at("delta_upper")) == certificate["delta_at_epsilon"][0]["delta_upper"].get<double>());
    CHECK(std::stod(r.at("delta_lower")) == certificate["delta_at_epsilon"][0]["delta_lower"].get<double>());
    CHECK(std::stod(r.at("delta_lower")) <= std::stod(r.at("delta_upper")));
    for (const auto& e : certificate["epsilon_at_delta"]) {
      const std::string label = fmt::format("{}", e["delta"].get<double>());
      if (e["epsilon_upper"].is_number())
        CHECK(std::stod(r.at("epsilon_upper_at_" + label)) == e["epsilon_upper"].get<double>());
      else
        CHECK(r.at("epsilon_upper_at_" + label) == "inf");
    }
    CHECK(r.at("utility_kind") == "l1");
    CHECK(std::stod(r.at("utility")) == json["utility"]["l1"].get<double>());
    CHECK(std::stod(r.at("l2")) == json["utility"]["l2"].get<double>());
    CHECK(std::stod(r.at("train_seconds")) == json["training"]["seconds"].get<double>());
    const auto comparison = csv_records(point(i) / "run" / "comparison.csv");
    for (const auto& row : comparison)
      if (row.at("table") == "truncated-gaussian-same-utility") {
        CHECK(r.at("gaussian_same_utility_sigma") == row.at("sigma"));
        CHECK(r.at("gaussian_same_utility_delta_upper") == row.at("delta_upper"));
      }
  }
  // The frontier: one series per number of compositions (the utility weight traces each curve).
  const std::string frontier = file_text(out / "frontier.dat");
  CHECK_THAT(frontier, Catch::Contains("# loss.compositions=1\n"));
  CHECK_THAT(frontier, Catch::Contains("# loss.compositions=2\n"));
  if (have("gnuplot")) CHECK(fs::file_size(out / "frontier.png") > 1000);

  // A point whose table no longer matches its checksum is done no more; the re-run (the joblog removed, as the
  // README says, since it records every line as succeeded) retrains that point alone.
  {
    std::string csv = file_text(point(1) / "run" / "noise.csv");
    // The last digit of the first probability: the sum stays 1 within 1e-12, only the checksum tells.
    const auto at = csv.find('\n', csv.find('\n') + 1);
    REQUIRE(at != std::string::npos);
    REQUIRE(std::isdigit(static_cast<unsigned char>(csv[at - 1])));
    csv[at - 1] = csv[at - 1] == '1' ? '2' : '1';
    std::ofstream(point(1) / "run" / "noise.csv", std::ios::binary | std::ios::trunc) << csv;
  }
  const Run corrupt = run_noiselearn("collect out", dir);
  CHECK(corrupt.exit_code == 1);
  CHECK_THAT(corrupt.err,
             Catch::Contains("point " + kFourNames[1] + ": failed:") && Catch::Contains("checksum mismatch"));
  const auto before = modified(point(0) / "run" / "noise.json"), before2 = modified(point(2) / "run" / "noise.json"),
             before3 = modified(point(3) / "run" / "noise.json"), corrupted = modified(point(1) / "run" / "noise.json");
  fs::remove(out / "joblog");
  REQUIRE(shell("./out/run-parallel.sh -j 2 > parallel.out 2>&1", dir) == 0);
  CHECK(modified(point(0) / "run" / "noise.json") == before);
  CHECK(modified(point(2) / "run" / "noise.json") == before2);
  CHECK(modified(point(3) / "run" / "noise.json") == before3);
  CHECK(modified(point(1) / "run" / "noise.json") != corrupted);
  CHECK(run_noiselearn("collect out", dir).exit_code == 0);
}
