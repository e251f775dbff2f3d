#pragma once
// The results of a sweep directory, one row per point (`noiselearn collect`):
//   collected.csv  point, the varied keys, status (done / failed / missing), the certificate of noise.json
//                  (epsilon, n, delta upper and lower at the first certified epsilon; epsilon upper and lower at
//                  every certified delta), the trained utility and every utility noise.json records, the truncated
//                  Gaussian baselines of comparison.csv (where the run wrote one), the training time, and a note
//                  saying why a point is not done. Numbers read back as the same doubles.
//   frontier.dat   the done points' (certified delta upper, utility), one block per group
//   frontier.png   utility against certified delta upper (log scale), one series per group, drawn by gnuplot
//                  from plots.gp (written next to it)
// A group is one combination of the values of the `group_by` keys; by default every varied key except the last,
// so that the last key (the one the sweep file lists last, usually the trade-off knob) traces each curve.
#include <filesystem>
#include <string>
#include <vector>

#include "io/run_status.hpp"

namespace noiselearn {

struct CollectedPoint {
  std::string name;
  std::vector<std::string> values;  // of SweepCollection::varied_keys
  RunStatus status;
  std::vector<std::string> cells;  // the row of collected.csv
  double delta_upper = 0.0;        // for the frontier (done points)
  double utility = 0.0;
};

struct SweepCollection {
  std::vector<std::string> varied_keys;
  std::vector<std::string> header;  // of collected.csv
  std::vector<CollectedPoint> points;
  size_t count(RunState state) const;
};

// Reads DIR/points.csv and every point's run directory (InputError if DIR is not a sweep directory).
SweepCollection collect_sweep(const std::filesystem::path& directory);

std::string collected_csv(const SweepCollection& collection);

// The frontier's data (frontier.dat) and gnuplot script (drawing frontier.png); `group_by` empty: the default
// grouping. InputError if a group_by key is not a varied key.
struct FrontierPlot {
  std::string data;
  std::string script;
  size_t series = 0;
  size_t points = 0;
};
FrontierPlot frontier_plot(const SweepCollection& collection, std::vector<std::string> group_by);

}  // namespace noiselearn
