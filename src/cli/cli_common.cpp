#include "cli/cli_common.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>

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
  app.add_option("--pair", kind, "Dominating pair: additive (p vs p shifted by s) or subsampled (DP-SGD mixture, eq. 5)")
      ->capture_default_str();
  app.add_option("--sampling-rate", sampling_rate, "Sampling rate q of the subsampled mixture pair, in (0, 1]")
      ->capture_default_str();
  app.add_option("--shifts", shifts,
                 "Query differences checked: auto (one shift if the table is symmetric and monotone, else every "
                 "shift), single, all")
      ->capture_default_str();
  app.add_option("--neighbours", neighbours,
                 "Neighbour sequences the certificate covers: any (every release its own query difference in "
                 "[-s, s]) or same-direction (all releases move the same way)")
      ->capture_default_str();
}

PairSpecification PairOptions::specification() const {
  PairSpecification s;
  s.kind = parse_pair_kind(kind);
  require_positive(sensitivity, "--sensitivity");
  s.sensitivity = sensitivity;
  if (!(sampling_rate > 0.0 && sampling_rate <= 1.0))
    throw InputError(fmt::format("--sampling-rate must be in (0, 1] (got {})", sampling_rate));
  s.sampling_rate = sampling_rate;
  s.shifts = parse_shift_policy(shifts);
  s.neighbours = parse_neighbour_relation(neighbours);
  return s;
}

void AccountantCliOptions::add_to(CLI::App& app) {
  app.add_option("--loss-step", values.loss_step, "Privacy-loss grid step of one release (nats)")->capture_default_str();
  app.add_option("--tail-mass", values.tail_mass,
                 "Probability mass each tail may lose per truncation (paid for in the upper bound)")
      ->capture_default_str();
  app.add_option("--max-points", values.max_points, "Largest loss grid kept during composition (then coarsened by 2)")
      ->capture_default_str();
  app.add_option("--upper-method", upper_method, "Upper-bound discretisation: connect-the-dots or round-up")
      ->capture_default_str();
  app.add_option("--lower-method", lower_method, "Lower-bound discretisation: merge-to-grid or round-down")
      ->capture_default_str();
  app.add_option("--several-pairs", several_pairs,
                 "Releases with several candidate pairs (asymmetric tables under --neighbours any): auto (exact adaptive "
                 "programme where the envelope's bracket is wider than 1e-4 and the cost fits --adaptive-budget), "
                 "adaptive (always) or envelope (never)")
      ->capture_default_str();
  app.add_option("--adaptive-budget", values.adaptive_budget,
                 "Largest estimated cost of the whole adaptive programme under --several-pairs auto (multiply-adds, about "
                 "1e10 per second with AVX2); over it, the programme runs in blocks within --adaptive-block-budget")
      ->capture_default_str();
  app.add_option("--adaptive-block-budget", values.adaptive_block_budget,
                 "Largest estimated cost of the adaptive programme in blocks (multiply-adds), when the whole programme is "
                 "over --adaptive-budget: blocks of as many releases as this allows (longer blocks, tighter upper bound)")
      ->capture_default_str();
}

AccountantOptions AccountantCliOptions::options() const {
  AccountantOptions o = values;
  o.upper_method = parse_pessimistic_method(upper_method);
  o.lower_method = parse_optimistic_method(lower_method);
  o.several_pairs = parse_several_pairs_method(several_pairs);
  o.validate();
  return o;
}

void CertificateCliOptions::add_to(CLI::App& app, bool with_epsilon_queries) {
  app.add_option("--compositions,-n", request.compositions, "Number of compositions n (releases)")->capture_default_str();
  if (with_epsilon_queries) app.add_option("--epsilon", request.epsilons, "Report delta at this epsilon (repeatable)");
  app.add_option("--delta", request.deltas, "Report epsilon at this delta (repeatable; default 1e-3, 1e-6, 1e-9)");
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

TableReadOptions& table_read_options() {
  static TableReadOptions options;
  return options;
}

LoadedTable load_table(const std::filesystem::path& path) {
  const TableReadOptions& options = table_read_options();
  try {
    LoadedTable loaded = read_noise_table(path, options);
    for (const auto& note : loaded.notes) spdlog::info("{}: {}", path.string(), note);
    return loaded;
  } catch (const InputError& e) {
    // A sum slightly off 1 is what tables written by other tools look like: say how to read them.
    const std::string message = e.what();
    if (!options.renormalise && message.find("probabilities sum to") != std::string::npos)
      throw InputError(fmt::format("{}; --renormalise divides by the sum when it is within --sum-tolerance "
                                   "(default {:g}) of 1",
                                   message, options.sum_tolerance));
    throw;
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
