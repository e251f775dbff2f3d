// noiselearn account [EVENTS.yaml] [--event K=V,...]: certified bounds of a composition of mechanisms without a grid
// (Gaussian, Laplace, discrete Gaussian, discrete Laplace), sampled (Poisson, without replacement) or not, under add
// or remove one or replace one (accounting/release_events.hpp); with --calibrate, the least noise multiplier of a
// DP-SGD event that certifies a target epsilon (accounting/dp_sgd.hpp).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accounting/certificate.hpp"
#include "accounting/dp_sgd.hpp"
#include "accounting/release_events.hpp"
#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "io/certificate_files.hpp"
#include "io/events_file.hpp"
#include "io/table_files.hpp"

namespace noiselearn::cli {

namespace {

struct AccountCommandOptions {
  std::string events_file;
  std::vector<std::string> events;  // --event K=V,...
  std::string relation;
  std::vector<double> epsilons, deltas;
  std::optional<double> calibrate;
  std::string calibrate_key;  // the parameter --calibrate searches (empty: the noise parameter)
  AccountantCliOptions accountant;
  bool json = false;
  bool list_mechanisms = false;
};

std::string account_mechanisms_text() {
  std::string out = "mechanisms (the 'mechanism' key of an event) and their parameters:\n";
  for (const auto& kind : mechanism_kinds()) {
    out += fmt::format("  {}: {}\n", kind.name, kind.summary);
    for (const auto& p : kind.parameters)
      out += fmt::format("      {} ({}{}{}): {}\n", p.key,
                         p.default_value ? fmt::format("default {:g}", *p.default_value) : "required",
                         p.unit.empty() ? "" : ", in ", p.unit, p.meaning);
  }
  out += "keys of every event:\n";
  for (const auto& p : event_keys())
    out += fmt::format("      {} ({}): {}\n", p.key,
                       p.default_value ? fmt::format("default {:g}", *p.default_value) : "see meaning", p.meaning);
  return out;
}

ReleaseDescription account_description(const AccountCommandOptions& o) {
  if (o.events_file.empty() && o.events.empty())
    throw InputError(
        "no events: give an events file (noiselearn account events.yaml) or --event mechanism=...,count=N");
  ReleaseDescription description;
  if (!o.events_file.empty()) description = read_events_file(o.events_file);
  for (size_t i = 0; i < o.events.size(); ++i) {
    const std::string where = fmt::format("--event {}", o.events[i]);
    description.events.push_back(
        parse_release_event(parse_event_assignments(o.events[i], where), where, table_file_reader()));
  }
  if (!o.relation.empty()) description.relation = parse_record_relation(o.relation);
  description.validate();
  return description;
}

void run_account(const AccountCommandOptions& o) {
  if (o.list_mechanisms) {
    std::cout << account_mechanisms_text();
    return;
  }
  const ReleaseDescription description = account_description(o);
  const AccountantOptions accountant = o.accountant.options();
  if (o.calibrate) {
    const ReleaseEvent& event = description.events.front();
    if (description.events.size() != 1)
      throw InputError("--calibrate takes one event (its noise parameter is searched; the value given is ignored)");
    if (o.deltas.size() != 1 || !o.epsilons.empty())
      throw InputError("--calibrate needs exactly one --delta (and no --epsilon): the delta the target epsilon is for");
    // The noise parameter: the one asked for, else the mechanism's first number that is not a sensitivity.
    std::string key = o.calibrate_key;
    if (key.empty())
      for (const auto& p : mechanism_kind(event.mechanism).parameters)
        if (key.empty() && !p.integer && !p.table && p.key != "sensitivity") key = p.key;
    if (!(event.mechanism == "gaussian" && event.sampling.kind == SamplingKind::kPoisson &&
          description.relation == RecordRelation::kAddOrRemove && event.coordinates == 1 &&
          key == "noise_multiplier")) {
      const NoiseCalibration c = calibrate_event(description, key, *o.calibrate, o.deltas.front(), accountant);
      if (o.json) {
        nlohmann::json out{{"key", key},
                           {"value", c.noise_multiplier},
                           {"epsilon_lower", c.epsilon.lower},
                           {"epsilon_upper", c.epsilon.upper},
                           {"delta", o.deltas.front()},
                           {"target_epsilon", *o.calibrate},
                           {"event", event.describe()},
                           {"value_below", c.below},
                           {"evaluations", c.evaluations}};
        std::cout << out.dump(2) << "\n";
        return;
      }
      std::cout << fmt::format(
          "least {}: {} ({})\ncertified epsilon at delta {:g}: [{}, {}] <= target {:g}\n"
          "{} {} does not certify it ({} accountant runs)\n",
          key, format_general(c.noise_multiplier, 7, Rounding::kUp), event.describe(), o.deltas.front(),
          format_fixed(c.epsilon.lower, 6, Rounding::kDown), format_fixed(c.epsilon.upper, 6, Rounding::kUp),
          *o.calibrate, key, format_general(c.below, 7, Rounding::kDown), c.evaluations);
      return;
    }
    const NoiseCalibration c =
        calibrate_noise_multiplier(*o.calibrate, o.deltas.front(), event.sampling.rate, event.count, accountant);
    if (o.json) {
      nlohmann::json out{{"noise_multiplier", c.noise_multiplier},
                         {"epsilon_lower", c.epsilon.lower},
                         {"epsilon_upper", c.epsilon.upper},
                         {"delta", o.deltas.front()},
                         {"target_epsilon", *o.calibrate},
                         {"sampling_rate", event.sampling.rate},
                         {"steps", event.count},
                         {"noise_multiplier_below", c.below},
                         {"evaluations", c.evaluations}};
      std::cout << out.dump(2) << "\n";
      return;
    }
    // The multiplier rounded up (a larger one certifies too), the bracket outwards, the one below it down.
    std::cout << fmt::format(
        "least noise multiplier: {} (Gaussian, Poisson sampling at rate {:g}, {} steps, add or remove one)\n"
        "certified epsilon at delta {:g}: [{}, {}] <= target {:g}\n"
        "noise multiplier {} does not certify it ({} accountant runs)\n",
        format_general(c.noise_multiplier, 7, Rounding::kUp), event.sampling.rate, event.count, o.deltas.front(),
        format_fixed(c.epsilon.lower, 6, Rounding::kDown), format_fixed(c.epsilon.upper, 6, Rounding::kUp),
        *o.calibrate, format_general(c.below, 7, Rounding::kDown), c.evaluations);
    return;
  }
  CertificateRequest request;
  request.epsilons = o.epsilons;
  request.deltas = o.deltas;
  if (request.epsilons.empty() && request.deltas.empty()) request.deltas = {1e-3, 1e-6, 1e-9};
  int64_t total = 0;
  for (const auto& e : description.events) total += e.count;
  request.compositions = total;
  request.validate();
  for (size_t i = 0; i < description.events.size(); ++i)
    spdlog::info("event {}: {}", i + 1, description.events[i].describe());
  const PairBounds bounds = account_events(description, accountant, queries_of(request));
  const Certificate certificate = make_certificate(bounds, request, bounds.context.options);
  if (o.json) {
    std::cout << certificate_json(certificate).dump(2) << "\n";
    return;
  }
  for (size_t i = 0; i < description.events.size(); ++i)
    std::cout << fmt::format("event {}: {}\n", i + 1, description.events[i].describe());
  std::cout << halved_loss_step_line(bounds.context.options, accountant) << certificate.report();
}

}  // namespace

Command make_account_command(CLI::App& parent) {
  auto o = std::make_shared<AccountCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "account",
      "Certify a composition of mechanisms without a grid (Gaussian, Laplace, discrete Gaussian, discrete Laplace, any "
      "noise table; on d coordinates), sampled or not: rigorous upper and lower bounds on delta(epsilon); --calibrate: "
      "the least noise (DP-SGD's noise multiplier)");
  app->add_option("events", o->events_file, "Events file (YAML: relation, events; see README 'noiselearn account')");
  app->add_option("--event", o->events,
                  "An event as KEY=VALUE,... (e.g. mechanism=gaussian,noise_multiplier=1.1,sampling_rate=0.00427,"
                  "count=14063); repeatable, after the file's events");
  app->add_option("--relation", o->relation,
                  "add_remove (default; Poisson sampling) or replace_one (sampling without "
                  "replacement); replaces the file's");
  app->add_option("--epsilon", o->epsilons, "Report delta at these epsilons");
  app->add_option("--delta", o->deltas,
                  "Report epsilon at these deltas (default 1e-3 1e-6 1e-9 when neither is given)");
  app->add_option("--calibrate", o->calibrate,
                  "Target epsilon: print the least value of the (one) event's noise parameter (DP-SGD: the Gaussian's "
                  "noise multiplier) whose certified epsilon at --delta is at most it");
  app->add_option(
      "--calibrate-key", o->calibrate_key,
      "The parameter --calibrate searches (default: the mechanism's noise parameter: noise_multiplier, sigma "
      "or scale)");
  app->add_flag("--json", o->json, "Print the certificate (or the calibration) as one JSON object");
  app->add_flag("--mechanisms", o->list_mechanisms,
                "List the mechanisms, their parameters and the event keys, and exit");
  o->accountant.add_to(*app);
  return Command{app, [o] { run_account(*o); }};
}

}  // namespace noiselearn::cli
