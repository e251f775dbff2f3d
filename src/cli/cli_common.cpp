#include "cli/cli_common.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/directed_format.hpp"
#include "core/errors.hpp"

namespace noiselearn::cli {

void require_positive(double value, const std::string& option) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw InputError(fmt::format("{} must be a positive, finite number (got {})", option, value));
}

void PairOptions::add_to(CLI::App& app, bool sensitivity_required) {
  sensitivity_option = app.add_option("--sensitivity", sensitivity,
                                      "Sensitivity s of the query, in units of x; a whole number of grid steps");
  if (sensitivity_required) sensitivity_option->required();
  kind_option = app.add_option("--pair", kind,
                               "Dominating pair: additive (p vs p shifted by s) or subsampled (DP-SGD mixture, eq. 5)")
                    ->capture_default_str();
  sampling_rate_option =
      app.add_option("--sampling-rate", sampling_rate, "Sampling rate q of the subsampled mixture pair, in (0, 1]")
          ->capture_default_str();
  shifts_option =
      app.add_option("--shifts", shifts,
                     "Query differences checked: auto (one shift if the table is symmetric and monotone, else every "
                     "shift), single, all")
          ->capture_default_str();
  neighbours_option =
      app.add_option("--neighbours", neighbours,
                     "Neighbour sequences the certificate covers: any (every release its own query difference in "
                     "[-s, s]) or same-direction (all releases move the same way)")
          ->capture_default_str();
}

// The words given on the command line; an option left at its default is not "given" (a recorded setting wins).
PairSettings PairOptions::given() const {
  const auto was_given = [](const CLI::Option* option) { return option != nullptr && option->count() > 0; };
  PairSettings g;
  if (was_given(kind_option)) g.kind = kind;
  if (was_given(sensitivity_option)) g.sensitivity = sensitivity;
  if (was_given(sampling_rate_option)) g.sampling_rate = sampling_rate;
  if (was_given(shifts_option)) g.shifts = shifts;
  if (was_given(neighbours_option)) g.neighbours = neighbours;
  return g;
}

PairSpecification PairOptions::specification() const {
  // Every option as set (its default when not given), the sensitivity included.
  return resolve_pair(PairSettings{kind, sensitivity, sampling_rate, shifts, neighbours}, RecordedCertification{},
                      SettingNames::kCommandLine, true);
}

PairSpecification PairOptions::specification(const RecordedCertification& recorded, const std::string& table) const {
  return resolve_pair(given(), recorded, SettingNames::kCommandLine, true, table);
}

void AccountantCliOptions::add_to(CLI::App& app) {
  const auto track = [this](const char* field, CLI::Option* option) { given.emplace_back(option, field); };
  track("loss_step", app.add_option("--loss-step", values.loss_step, "Privacy-loss grid step of one release (nats)")
                         ->capture_default_str());
  track("tail_mass", app.add_option("--tail-mass", values.tail_mass,
                                    "Probability mass each tail may lose per truncation (paid for in the upper bound)")
                         ->capture_default_str());
  track("max_points", app.add_option("--max-points", values.max_points,
                                     "Largest loss grid kept during composition (then coarsened by 2)")
                          ->capture_default_str());
  track("upper_method",
        app.add_option("--upper-method", upper_method, "Upper-bound discretisation: connect-the-dots or round-up")
            ->capture_default_str());
  track("lower_method",
        app.add_option("--lower-method", lower_method, "Lower-bound discretisation: merge-to-grid or round-down")
            ->capture_default_str());
  track("several_pairs",
        app.add_option(
               "--several-pairs", several_pairs,
               "Releases with several candidate pairs (asymmetric tables under --neighbours any): auto (decides per "
               "query: the exact adaptive programme where the envelope's bracket at a requested query is wider than "
               "1e-4, whole within --adaptive-budget, else in blocks; a table symmetric up to rounding through its "
               "symmetric copy where the difference is negligible), adaptive (always) or envelope (never)")
            ->capture_default_str());
  track(
      "adaptive_budget",
      app.add_option(
             "--adaptive-budget", values.adaptive_budget,
             "Largest estimated cost of the whole adaptive programme under --several-pairs auto (multiply-adds, about "
             "1e10 per second with AVX2); over it, the programme runs in blocks within --adaptive-block-budget")
          ->capture_default_str());
  track(
      "adaptive_block_budget",
      app.add_option(
             "--adaptive-block-budget", values.adaptive_block_budget,
             "Largest estimated cost of the adaptive programme in blocks (multiply-adds), when the whole programme is "
             "over --adaptive-budget: blocks of as many releases as this allows (longer blocks, tighter upper bound)")
          ->capture_default_str());
}

AccountantOptions AccountantCliOptions::options(const std::optional<AccountantOptions>& recorded) const {
  AccountantSettings g;
  for (const auto& [option, field] : given) {
    if (option == nullptr || option->count() == 0) continue;
    if (field == "loss_step")
      g.loss_step = values.loss_step;
    else if (field == "tail_mass")
      g.tail_mass = values.tail_mass;
    else if (field == "max_points")
      g.max_points = values.max_points;
    else if (field == "upper_method")
      g.upper_method = upper_method;
    else if (field == "lower_method")
      g.lower_method = lower_method;
    else if (field == "several_pairs")
      g.several_pairs = several_pairs;
    else if (field == "adaptive_budget")
      g.adaptive_budget = values.adaptive_budget;
    else if (field == "adaptive_block_budget")
      g.adaptive_block_budget = values.adaptive_block_budget;
  }
  return resolve_accountant(g, recorded);
}

AccountantOptions AccountantCliOptions::options() const {
  // Every option as set, its default when not given.
  return resolve_accountant(
      AccountantSettings{values.loss_step, values.tail_mass, values.max_points, upper_method, lower_method,
                         several_pairs, values.adaptive_budget, values.adaptive_block_budget},
      std::nullopt);
}

void CertificateCliOptions::add_to(CLI::App& app, bool with_epsilon_queries) {
  compositions_option = app.add_option("--compositions,-n", request.compositions, "Number of compositions n (releases)")
                            ->capture_default_str();
  if (with_epsilon_queries)
    epsilon_option = app.add_option("--epsilon", request.epsilons, "Report delta at this epsilon (repeatable)");
  delta_option = app.add_option(
      "--delta", request.deltas,
      fmt::format("Report epsilon at this delta (repeatable; default {})", format_settings(default_deltas, ", ")));
  app.add_option("--curve-points", request.curve_points, "Points of the delta(epsilon) curve")->capture_default_str();
  app.add_option("--curve-epsilon-max", request.curve_epsilon_max,
                 "Right end of the curve (0: where the upper bound reaches delta = 1e-12)")
      ->capture_default_str();
}

CertificateRequest CertificateCliOptions::resolved() const {
  CertificateRequest r = request;
  if (r.epsilons.empty() && r.deltas.empty()) r.deltas = default_deltas;
  r.validate();
  return r;
}

CertificateRequest CertificateCliOptions::resolved(const RecordedCertification& recorded) const {
  CertificateRequest r = request;
  const auto given = [](const CLI::Option* option) { return option != nullptr && option->count() > 0; };
  if (!given(compositions_option) && recorded.compositions) r.compositions = *recorded.compositions;
  // Each list the options do not give is the recorded certificate's (as `sample --quantised-out` does).
  if (!given(epsilon_option)) r.epsilons = recorded.epsilons;
  if (!given(delta_option)) r.deltas = recorded.deltas;
  if (r.epsilons.empty() && r.deltas.empty()) r.deltas = default_deltas;
  r.validate();
  return r;
}

TableReadOptions& table_read_options() {
  static TableReadOptions options;
  return options;
}

namespace {

// The sum a refusal names ("probabilities sum to 0.95..."), or nullopt when the message is about something else.
std::optional<double> refused_sum(const std::string& message) {
  const std::string marker = "probabilities sum to ";
  const auto at = message.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const char* begin = message.c_str() + at + marker.size();
  char* end = nullptr;
  const double sum = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(sum)) return std::nullopt;
  return sum;
}

}  // namespace

double suggested_sum_tolerance(double off) {
  // The least of 1, 2, 5 x 10^k that is at least |off| (with a margin for the printed digits of the sum).
  const double needed = std::abs(off) * (1.0 + 1e-9);
  for (double scale = 1e-12; scale < 1.0; scale *= 10.0)
    for (double m : {1.0, 2.0, 5.0})
      if (m * scale >= needed) return m * scale;
  return 1.0;
}

std::string with_sum_hint(const std::string& message) {
  const std::optional<double> sum = refused_sum(message);
  if (!sum) return message;
  const TableReadOptions& options = table_read_options();
  const double off = *sum - 1.0;
  if (!(std::abs(off) < 1.0))
    return fmt::format(
        "{}; the table is not a probability vector (--renormalise accepts sums within --sum-tolerance < 1 of 1)",
        message);
  const double tolerance = suggested_sum_tolerance(off);
  if (options.renormalise)  // the tolerance was too small: say which one accepts it
    return fmt::format("{}; --sum-tolerance {:g} (now {:g}) accepts this sum, if dividing by it is what you mean",
                       message, tolerance, options.sum_tolerance);
  if (std::abs(off) <= options.sum_tolerance)
    return fmt::format("{}; --renormalise divides by the sum when it is within --sum-tolerance (default {:g}) of 1",
                       message, options.sum_tolerance);
  return fmt::format(
      "{}; --renormalise --sum-tolerance {:g} divides by the sum (off by {:.3g}, more than the default "
      "--sum-tolerance {:g}), if that is what you mean",
      message, tolerance, off, options.sum_tolerance);
}

LoadedTable load_table(const std::filesystem::path& path) {
  const TableReadOptions& options = table_read_options();
  try {
    LoadedTable loaded = read_noise_table(path, options);
    for (const auto& note : loaded.notes) spdlog::info("{}: {}", path.string(), note);
    return loaded;
  } catch (const InputError& e) {
    // A sum off 1 is what tables written by other tools look like: say how to read them.
    throw InputError(with_sum_hint(e.what()));
  }
}

std::filesystem::path this_executable() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("noiselearn") : self;
}

std::filesystem::path table_output_path(const std::filesystem::path& out) {
  if (out.extension() == ".csv") return out;
  return out / "noise.csv";
}

}  // namespace noiselearn::cli
