// noiselearn: learn differential-privacy noise distributions and certify them.
// Exit codes: 0 success, 1 runtime failure, 2 bad input (one-line message naming the culprit).
#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <thread>
#include <vector>

#include "cli/command.hpp"
#include "core/errors.hpp"

namespace {

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"noiselearn: learn differential-privacy noise distributions and certify them"};
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool quiet = false, verbose = false;
  app.add_option("--threads", threads, "LibTorch threads (default: all cores)")->capture_default_str();
  app.add_flag("--quiet,-q", quiet, "Only warnings and errors on stderr");
  app.add_flag("--verbose,-v", verbose, "Debug messages on stderr");
  std::vector<noiselearn::cli::Command> commands{noiselearn::cli::make_train_command(app),
                                                 noiselearn::cli::make_baseline_command(app),
                                                 noiselearn::cli::make_evaluate_command(app),
                                                 noiselearn::cli::make_compare_command(app),
                                                 noiselearn::cli::make_plot_command(app),
                                                 noiselearn::cli::make_config_keys_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "noiselearn: error: %s (see --help)\n", one_line(e.what()).c_str());
    return 2;
  }

  auto logger = spdlog::stderr_color_mt("noiselearn");
  logger->set_pattern("[%H:%M:%S] %^%l%$ %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(quiet ? spdlog::level::warn : verbose ? spdlog::level::debug : spdlog::level::info);
  try {
    if (threads < 1) throw noiselearn::InputError(fmt::format("--threads {} must be at least 1", threads));
    at::set_num_threads(threads);
    for (const auto& command : commands)
      if (command.app->parsed()) command.run();
  } catch (const noiselearn::InputError& e) {
    std::fprintf(stderr, "noiselearn: error: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "noiselearn: failure: %s\n", one_line(e.what()).c_str());
    return 1;
  }
  return 0;
}
