// noiselearn boost: the privacy-boosting mechanism of Jiang et al. (paper 004), certified exactly, beside the Gaussian
// mechanism meeting the same constraint and the paper's heuristic (run/privacy_boosting_run.hpp does the work).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "core/directed_format.hpp"
#include "core/errors.hpp"
#include "io/atomic_file.hpp"
#include "run/privacy_boosting_run.hpp"

namespace noiselearn::cli {

Command make_boost_command(CLI::App& parent) {
  auto options = std::make_shared<PrivacyBoostingRunOptions>();
  auto json = std::make_shared<bool>(false);
  auto out = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  CLI::App* app = parent.add_subcommand(
      "boost",
      "Privacy boosting (Jiang et al.) under a utility constraint Pr[answer in S(Q)] >= rho, certified exactly");
  app->add_option("--kernel", options->kernel, "Kernel noise: gaussian or laplace")->capture_default_str();
  app->add_option("--scale", options->scale,
                  "Kernel scale (Gaussian sigma, Laplace b), x units; 0 = calibrate to the least certified epsilon")
      ->capture_default_str();
  app->add_option("--region", options->region,
                  "Preferred region: interval [Q-tau, Q+tau], fixed [lower, upper] (Q clamped into it), relative [Q -+ "
                  "(theta|Q| + tau)]")
      ->capture_default_str();
  app->add_option("--tau", options->tau, "interval / relative: half-width (offset), x units")->capture_default_str();
  app->add_option("--theta", options->theta, "relative: relative error ratio, in (0, 1]")->capture_default_str();
  app->add_option("--lower", options->lower, "fixed: lower end of the region, x units")->capture_default_str();
  app->add_option("--upper", options->upper, "fixed: upper end of the region, x units")->capture_default_str();
  app->add_option("--rho", options->rho, "Confidence: Pr[answer in S(Q)] >= rho for every Q, in (0, 1]")
      ->capture_default_str();
  app->add_option("--sensitivity", options->sensitivity, "Delta: largest difference of neighbouring answers, x units")
      ->capture_default_str();
  app->add_option("--query-step", options->query_step,
                  "h: answers lie on h Z (1 for counts); Delta must be a whole number of steps")
      ->capture_default_str();
  app->add_option("--compositions,-n", options->compositions, "n, number of releases composed")->capture_default_str();
  app->add_option("--delta", options->deltas,
                  fmt::format("Report the certified epsilon at this delta (repeatable; default {}; the first is "
                              "calibrated for)",
                              format_setting(BoostingCalibrationOptions{}.delta)));
  app->add_option("--epsilon", options->epsilons, "Report the certified delta at this epsilon (repeatable)");
  app->add_option("--loss-step", options->loss_step, "Accountant: single-release loss grid step, nats")
      ->capture_default_str();
  app->add_option("--max-scale-factor", options->max_scale_factor,
                  "Calibration: largest scale tried, in units of the kernel-only scale")
      ->capture_default_str();
  app->add_flag("--json", *json, "Print the report as JSON as well");
  app->add_option("--out", *out, "Write the JSON report to this file (atomically)");
  app->add_flag("--force", *force, "Overwrite an existing --out file");
  return {app, [options, json, out, force] {
            if (!out->empty() && !*force && std::filesystem::exists(*out))
              throw InputError(fmt::format("refusing to overwrite existing file {} (use --force)", *out));
            const PrivacyBoostingRun run = run_privacy_boosting(*options);
            std::cout << run.text;
            if (*json) std::cout << run.report.dump(2) << "\n";
            if (!out->empty()) write_file_atomically(*out, run.report.dump(2) + "\n", *force);
          }};
}

}  // namespace noiselearn::cli
