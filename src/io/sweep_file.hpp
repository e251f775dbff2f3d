#pragma once
// A sweep file (YAML) and its expansion into points, each a complete, validated training configuration.
//
//   base: sigmoid-stack.yaml      # a training config: a path (relative to the sweep file) or an inline mapping
//   set:                          # optional: keys fixed for every point (applied after base)
//     optimiser.epochs: 3000
//   vary:                         # keys that take every value of a list or a range; the cartesian product
//     loss.kind: [soft-pld, privacy-buckets-adp]
//     loss.epsilon: {from: 0.1, to: 1, steps: 5, scale: log}   # scale: linear (default) or log
//   zip:                          # optional: groups of keys whose lists have one length and vary together
//     - loss.compositions: [1, 4, 16]
//       schedule.utility_weight_start: [1, 0.5, 0.25]
//
// Points are the cartesian product of the `vary` keys (in file order, the last one fastest) and the `zip` groups
// (each group one axis, after the `vary` keys). Every point is parsed by the training-config parser itself, so a
// key that is unknown, mistyped or out of range is refused (InputError naming the key) before anything is
// written. A point's name is made of its varied values only ("kind=soft-pld,epsilon=0.1"), so it is stable: the
// same sweep always gives the same names, whatever else changes.
#include <filesystem>
#include <string>
#include <vector>

#include "io/training_config.hpp"

namespace noiselearn {

struct SweepPoint {
  std::string name;                 // directory name under DIR/points/
  std::vector<std::string> values;  // one text per SweepPlan::varied_keys, as written in points.csv
  TrainingConfig config;            // resolved and validated
};

struct SweepPlan {
  std::string sweep_text;                // the sweep file as read (copied to DIR/sweep.yaml)
  std::vector<std::string> varied_keys;  // "section.key", vary keys first, then the zip groups' keys
  std::vector<SweepPoint> points;
};

// Reads, checks and expands a sweep file. InputError (one line, naming the file, the line and the key) for
// any problem: an unknown top-level entry, an unknown key, an empty list, a bad range, a value the training
// config refuses, zip lists of different lengths, a key given twice.
SweepPlan expand_sweep(const std::filesystem::path& sweep_path);

// The values of a range {from, to, steps, scale}: steps values from `from` to `to` (both included), evenly
// spaced (linear) or evenly spaced in log (log; from and to positive). Exposed for the tests.
std::vector<double> range_values(double from, double to, int64_t steps, bool log_scale);

}  // namespace noiselearn
