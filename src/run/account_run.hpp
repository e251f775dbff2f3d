#pragma once
// `noiselearn account` as a library call: the certified bounds of a composition of mechanisms without a grid
// (accounting/release_events.hpp), or, given a target epsilon, the least value of its one event's noise parameter that
// certifies it (accounting/dp_sgd.hpp). One report holds what the command prints, and gives it as text and as JSON.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accounting/accountant_options.hpp"
#include "accounting/certificate.hpp"
#include "accounting/dp_sgd.hpp"
#include "accounting/release_events.hpp"

namespace noiselearn {

// The fields are the `account` options of the same name (src/cli/README.md).
struct AccountRunOptions {
  ReleaseDescription description;
  std::vector<double> epsilons;  // report delta at each
  std::vector<double> deltas;    // report epsilon at each; with no query at all, at kDefaultCertificateDeltas
  // A target epsilon: calibrate instead of certifying (one event, exactly one delta and no epsilon). The least value of
  // the event's parameter `calibrate_key` (empty: the mechanism's noise parameter) whose certified upper epsilon at the
  // delta is at most the target.
  std::optional<double> calibrate;
  std::string calibrate_key;
  AccountantOptions accountant;
  CalibrationOptions calibration;
};

// A calibration and what it was for.
struct AccountCalibration {
  std::string key;    // the parameter searched
  std::string event;  // the event (ReleaseEvent::describe)
  double target_epsilon = 0.0;
  double delta = 0.0;
  NoiseCalibration result;
  // DP-SGD's event (a Gaussian's noise multiplier under Poisson sampling and add_remove, on one coordinate) is searched
  // by calibrate_noise_multiplier, which starts at 1 rather than at the event's value, and reported in DP-SGD's words:
  // the noise multiplier, the sampling rate and the steps.
  bool dp_sgd = false;
  double sampling_rate = 0.0;
  int64_t steps = 0;
};

// What `noiselearn account` prints: a certificate of the events, or a calibration.
struct AccountReport {
  std::vector<std::string> events;  // each event described, in order
  std::optional<Certificate> certificate;
  std::string loss_step_note;  // the finer loss step the default chose for the queries (halved_loss_step_line), or ""
  std::optional<AccountCalibration> calibration;

  std::string report() const;  // the text
  nlohmann::json json()
      const;  // the JSON object (--json): the certificate's as noise.json holds it, or the calibration
};

// InputError naming the option for bad input.
AccountReport run_account(const AccountRunOptions& options);

}  // namespace noiselearn
