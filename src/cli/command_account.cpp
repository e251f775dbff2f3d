// noiselearn account [EVENTS.yaml] [--event K=V,...]: certified bounds of a composition of mechanisms without a grid
// (Gaussian, Laplace, discrete Gaussian, discrete Laplace, a table), sampled (Poisson, without replacement) or not,
// under add or remove one or replace one (accounting/release_events.hpp); with --calibrate, the least noise of one
// event that certifies a target epsilon (accounting/dp_sgd.hpp). The report is the run layer's (run/account_run.hpp).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "accounting/certificate.hpp"
#include "accounting/release_events.hpp"
#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "io/events_file.hpp"
#include "io/table_files.hpp"
#include "run/account_run.hpp"

namespace noiselearn::cli {

namespace {

struct AccountCommandOptions {
  std::string events_file;
  std::vector<std::string> events;  // --event K=V,...
  std::string relation;
  AccountRunOptions run;  // the queries and the calibration; the description and the accountant are set from the above
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
  AccountRunOptions options = o.run;
  options.description = account_description(o);
  options.accountant = o.accountant.options();
  const AccountReport report = noiselearn::run_account(options);
  std::cout << (o.json ? report.json().dump(2) + "\n" : report.report());
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
  app->add_option("--epsilon", o->run.epsilons, "Report delta at these epsilons");
  app->add_option("--delta", o->run.deltas,
                  fmt::format("Report epsilon at these deltas (default {} when neither is given)",
                              format_settings(kDefaultCertificateDeltas, " ")));
  app->add_option("--calibrate", o->run.calibrate,
                  "Target epsilon: print the least value of the (one) event's noise parameter (DP-SGD: the Gaussian's "
                  "noise multiplier) whose certified epsilon at --delta is at most it");
  app->add_option(
      "--calibrate-key", o->run.calibrate_key,
      "The parameter --calibrate searches (default: the mechanism's noise parameter: noise_multiplier, sigma "
      "or scale)");
  app->add_flag("--json", o->json, "Print the certificate (or the calibration) as one JSON object");
  app->add_flag("--mechanisms", o->list_mechanisms,
                "List the mechanisms, their parameters and the event keys, and exit");
  o->accountant.add_to(*app);
  return Command{app, [o] { run_account(*o); }};
}

}  // namespace noiselearn::cli
