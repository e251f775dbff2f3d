#pragma once
// Pieces shared by the noiselearn subcommands: option groups that mirror the library's option structs
// (names as in the config keys), and how a table argument is loaded and reported.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accounting/accountant_options.hpp"
#include "accounting/certificate.hpp"
#include "core/dominating_pair.hpp"
#include "io/recorded_certification.hpp"
#include "io/release_settings.hpp"
#include "io/table_files.hpp"

namespace noiselearn::cli {

// --pair, --sensitivity, --sampling-rate, --shifts, --neighbours; the defaults are PairSpecification's
struct PairOptions {
  std::string kind = to_string(PairSpecification{}.kind);
  double sensitivity = PairSpecification{}.sensitivity;
  double sampling_rate = PairSpecification{}.sampling_rate;
  std::string shifts = to_string(PairSpecification{}.shifts);
  std::string neighbours = to_string(PairSpecification{}.neighbours);
  CLI::Option* sensitivity_option = nullptr;
  CLI::Option* kind_option = nullptr;
  CLI::Option* sampling_rate_option = nullptr;
  CLI::Option* shifts_option = nullptr;
  CLI::Option* neighbours_option = nullptr;

  void add_to(CLI::App& app, bool sensitivity_required);
  PairSettings given() const;               // the options given on the command line (io/release_settings.hpp)
  PairSpecification specification() const;  // validates, throws InputError
  // The same, with what a table records (noise.json) in place of the options not given on the command line; an
  // InputError naming --sensitivity when neither gives one.
  PairSpecification specification(const RecordedCertification& recorded, const std::string& table) const;
};

// --loss-step, --tail-mass, --max-points, --upper-method, --lower-method, ...; the defaults are AccountantOptions'
struct AccountantCliOptions {
  AccountantOptions values;
  std::string upper_method = to_string(AccountantOptions{}.upper_method);
  std::string lower_method = to_string(AccountantOptions{}.lower_method);
  std::string several_pairs = to_string(AccountantOptions{}.several_pairs);

  std::vector<std::pair<CLI::Option*, std::string>>
      given;  // each option and its field name, to tell given from default

  void add_to(CLI::App& app);
  AccountantOptions options() const;  // validates, throws InputError
  // The recorded options (a table's noise.json) with those given on the command line put over them.
  AccountantOptions options(const std::optional<AccountantOptions>& recorded) const;
};

// --compositions, --epsilon, --delta, --curve-points, --curve-epsilon-max
struct CertificateCliOptions {
  CertificateRequest request;
  std::vector<double> default_deltas = kDefaultCertificateDeltas;

  CLI::Option* compositions_option = nullptr;
  CLI::Option* epsilon_option = nullptr;
  CLI::Option* delta_option = nullptr;

  // with_epsilon_queries: baseline uses --epsilon for the staircase parameter, so it has --delta only.
  void add_to(CLI::App& app, bool with_epsilon_queries = true);
  CertificateRequest resolved() const;  // default deltas if no query was given; validates
  // The compositions and queries a table records (noise.json) where none are given on the command line.
  CertificateRequest resolved(const RecordedCertification& recorded) const;
};

// How every command reads tables: the global options --renormalise and --sum-tolerance (set by main).
TableReadOptions& table_read_options();

// Reads a table (ours or a bare CSV) with table_read_options() and logs what was inferred or renormalised.
LoadedTable load_table(const std::filesystem::path& path);

// A refusal of a table's sum ("probabilities sum to 0.95 ...") with the options that would read it: --renormalise,
// and the --sum-tolerance its deviation needs; any other message unchanged.
std::string with_sum_hint(const std::string& message);
// The least of 1, 2, 5 x 10^k at least |off|: the --sum-tolerance a hint suggests.
double suggested_sum_tolerance(double off);

// "out.csv" stays; anything else is a directory that receives noise.csv (and noise.json beside it).
std::filesystem::path table_output_path(const std::filesystem::path& out);

// The running executable (/proc/self/exe), or "noiselearn" (looked up on PATH) when that cannot be read: what a
// sweep's jobs run by default, and where noiselearn-train is found (training_executable.hpp).
std::filesystem::path this_executable();

// A finite, positive number; throws InputError naming the option.
void require_positive(double value, const std::string& option);

}  // namespace noiselearn::cli
