#include "run/account_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>
#include <utility>

#include "accounting/loss_step_choice.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "io/certificate_files.hpp"

namespace noiselearn {

namespace {

// The noise parameter --calibrate searches by default: the mechanism's first number that is not a sensitivity.
std::string noise_parameter(const ReleaseEvent& event) {
  for (const auto& p : mechanism_kind(event.mechanism).parameters)
    if (!p.integer && !p.table && p.key != "sensitivity") return p.key;
  return "";
}

bool is_dp_sgd(const ReleaseEvent& event, RecordRelation relation, const std::string& key) {
  return event.mechanism == "gaussian" && event.sampling.kind == SamplingKind::kPoisson &&
         relation == RecordRelation::kAddOrRemove && event.coordinates == 1 && key == "noise_multiplier";
}

AccountCalibration calibrated(const AccountRunOptions& o) {
  const ReleaseDescription& description = o.description;
  const ReleaseEvent& event = description.events.front();
  if (description.events.size() != 1)
    throw InputError("--calibrate takes one event (its noise parameter is searched; the value given is ignored)");
  if (o.deltas.size() != 1 || !o.epsilons.empty())
    throw InputError("--calibrate needs exactly one --delta (and no --epsilon): the delta the target epsilon is for");
  AccountCalibration c;
  c.key = o.calibrate_key.empty() ? noise_parameter(event) : o.calibrate_key;
  c.event = event.describe();
  c.target_epsilon = *o.calibrate;
  c.delta = o.deltas.front();
  c.dp_sgd = is_dp_sgd(event, description.relation, c.key);
  if (c.dp_sgd) {
    c.sampling_rate = event.sampling.rate;
    c.steps = event.count;
    c.result =
        calibrate_noise_multiplier(c.target_epsilon, c.delta, c.sampling_rate, c.steps, o.accountant, o.calibration);
  } else {
    c.result = calibrate_event(description, c.key, c.target_epsilon, c.delta, o.accountant, o.calibration);
  }
  return c;
}

// The value rounded up (a larger one certifies too), the bracket outwards, the value below rounded down.
std::string calibration_text(const AccountCalibration& c) {
  const std::string name = c.dp_sgd ? "noise multiplier" : c.key;
  const std::string subject = c.dp_sgd
                                  ? fmt::format("Gaussian, Poisson sampling at rate {:g}, {} steps, add or remove one",
                                                c.sampling_rate, c.steps)
                                  : c.event;
  const NoiseCalibration& r = c.result;
  return fmt::format(
      "least {}: {} ({})\ncertified epsilon at delta {:g}: [{}, {}] <= target {:g}\n"
      "{} {} does not certify it ({} accountant runs)\n",
      name, format_general(r.noise_multiplier, 7, Rounding::kUp), subject, c.delta,
      format_fixed(r.epsilon.lower, 6, Rounding::kDown), format_fixed(r.epsilon.upper, 6, Rounding::kUp),
      c.target_epsilon, name, format_general(r.below, 7, Rounding::kDown), r.evaluations);
}

nlohmann::json calibration_json(const AccountCalibration& c) {
  const std::string value = c.dp_sgd ? "noise_multiplier" : "value";
  const NoiseCalibration& r = c.result;
  nlohmann::json out{{value, r.noise_multiplier},          {"epsilon_lower", r.epsilon.lower},
                     {"epsilon_upper", r.epsilon.upper},   {"delta", c.delta},
                     {"target_epsilon", c.target_epsilon}, {value + "_below", r.below},
                     {"evaluations", r.evaluations}};
  if (c.dp_sgd) {
    out["sampling_rate"] = c.sampling_rate;
    out["steps"] = c.steps;
  } else {
    out["key"] = c.key;
    out["event"] = c.event;
  }
  return out;
}

}  // namespace

std::string AccountReport::report() const {
  if (calibration) return calibration_text(*calibration);
  if (!certificate) throw std::logic_error("an account report holds a certificate or a calibration");
  std::string text;
  for (size_t i = 0; i < events.size(); ++i) text += fmt::format("event {}: {}\n", i + 1, events[i]);
  return text + loss_step_note + certificate->report();
}

nlohmann::json AccountReport::json() const {
  if (calibration) return calibration_json(*calibration);
  if (!certificate) throw std::logic_error("an account report holds a certificate or a calibration");
  return certificate_json(*certificate);
}

AccountReport run_account(const AccountRunOptions& o) {
  AccountReport report;
  for (const auto& event : o.description.events) report.events.push_back(event.describe());
  if (o.calibrate) {
    report.calibration = calibrated(o);
    return report;
  }
  CertificateRequest request;
  request.epsilons = o.epsilons;
  request.deltas = o.deltas;
  if (request.epsilons.empty() && request.deltas.empty()) request.deltas = kDefaultCertificateDeltas;
  int64_t total = 0;
  for (const auto& e : o.description.events) total += e.count;
  request.compositions = total;
  request.validate();
  for (size_t i = 0; i < report.events.size(); ++i) spdlog::info("event {}: {}", i + 1, report.events[i]);
  const PairBounds bounds = account_events(o.description, o.accountant, queries_of(request));
  // The options the accountant used: the default may have chosen a finer loss step for the queries.
  report.certificate = make_certificate(bounds, request, bounds.context.options);
  report.loss_step_note = halved_loss_step_line(bounds.context.options, o.accountant);
  return report;
}

}  // namespace noiselearn
