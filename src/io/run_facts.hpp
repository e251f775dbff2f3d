#pragma once
// What a run directory says about itself, in the words the plots print (io/plots.hpp): n, sensitivity, the
// certified points and the distinguishing-event mass of noise.json, the utility kind of config.yaml, the
// matched Gaussian's sigma of comparison.csv; and its numeric CSV files as rows. Every fact is optional, so
// that a directory written by hand or by an older noiselearn still plots, with plainer titles.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace noiselearn {

// A CSV with a header row and numeric rows; a field that is not a number is NaN.
struct NumericCsv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
};
NumericCsv read_numeric_csv(const std::filesystem::path& path);

struct CertifiedDelta {
  double epsilon = 0.0, delta_upper = 0.0, delta_lower = 0.0;
};
struct CertifiedEpsilon {
  double delta = 0.0, epsilon_upper = 0.0;  // finite only: an infinite epsilon (null in noise.json) is left out
};

struct RunFacts {
  std::optional<int64_t> compositions;
  std::optional<double> sensitivity;
  std::optional<double> infinity_mass_composed;  // distinguishing events after n compositions
  std::vector<CertifiedDelta> deltas;            // certificate.delta_at_epsilon
  std::vector<CertifiedEpsilon> epsilons;        // certificate.epsilon_at_delta
  std::string model, loss_kind, utility_kind = "utility";
  std::optional<double> loss_epsilon, learned_utility;
  std::optional<double> gaussian_sigma;  // the truncated Gaussian with the learned table's utility
  std::string grid_text;                 // "2001 points, step 0.02, [-20, 20], symmetric"
  std::string source;                    // noise.json's provenance source ("baseline tbl", "train ...")
};

// Never throws for missing or unreadable files: what cannot be read is left out.
RunFacts read_run_facts(const std::filesystem::path& run_directory);

}  // namespace noiselearn
