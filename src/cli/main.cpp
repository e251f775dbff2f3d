// noiselearn: learn differential-privacy noise distributions and certify them.
// Exit codes: 0 success, 1 runtime failure, 2 bad input (one-line message naming the culprit).
#if defined(NOISELEARN_WITH_LEARNERS)
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#endif
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "accounting/accountant_threads.hpp"
#include "cli/cli_common.hpp"
#include "cli/command.hpp"
#include "cli/passive_openmp_waiting.hpp"
#include "cli/training_executable.hpp"
#include "cli/unknown_word.hpp"
#include "core/errors.hpp"
#include "core/heap_reuse.hpp"
#include "io/table_files.hpp"
#if defined(NOISELEARN_WITH_LEARNERS)
#include "run/link_learners.hpp"
#endif

namespace {

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

#if defined(NOISELEARN_WITH_LEARNERS)
// The first line of a message (LibTorch appends a stack trace of many lines to what()).
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }
#endif

constexpr const char* kOutOfMemoryAdvice = "use a coarser grid, a smaller model or fewer points";

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) must end a write with an ordinary error (exit 1, one line, temporary file
  // removed), not with the kernel's SIGXFSZ killing the process mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  noiselearn::keep_freed_heap_memory_for_reuse();  // core/heap_reuse.hpp: training epochs reuse their pages
  CLI::App app{"noiselearn: learn differential-privacy noise distributions and certify them"};
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  // One thread by default: no OpenMP thread ever waits for a core another process holds (README, "`--threads`
  // and speed").
  int threads = 1;
  bool quiet = false, verbose = false;
  app.add_option("--threads", threads,
                 fmt::format("Threads for training (LibTorch) and for the exact adaptive accountant (this machine has "
                             "{} cores); more than 1 waits passively for OpenMP threads",
                             std::max(1u, std::thread::hardware_concurrency())))
      ->capture_default_str();
  app.set_version_flag("--version",
                       fmt::format("noiselearn {} (noise table format {})", noiselearn::noiselearn_version(),
                                   noiselearn::kNoiseTableFormatVersion),
                       "Print the version and exit");
  app.add_flag("--quiet,-q", quiet, "Only warnings and errors on stderr");
  app.add_flag("--verbose,-v", verbose, "Debug messages on stderr");
  noiselearn::TableReadOptions& table_reading = noiselearn::cli::table_read_options();
  app.add_flag("--renormalise", table_reading.renormalise,
               "Divide a table whose probabilities sum to 1 within --sum-tolerance (but not within 1e-12) by its sum, "
               "and say so (tables written by other tools)");
  app.add_option("--sum-tolerance", table_reading.sum_tolerance, "Largest |sum - 1| that --renormalise accepts")
      ->capture_default_str();
  std::vector<noiselearn::cli::Command> commands{
      noiselearn::cli::make_train_command(app),      noiselearn::cli::make_baseline_command(app),
      noiselearn::cli::make_evaluate_command(app),   noiselearn::cli::make_account_command(app),
      noiselearn::cli::make_compare_command(app),    noiselearn::cli::make_plot_command(app),
      noiselearn::cli::make_maxl_command(app),       noiselearn::cli::make_pac_command(app),
      noiselearn::cli::make_sample_command(app),     noiselearn::cli::make_boost_command(app),
      noiselearn::cli::make_sweep_command(app),      noiselearn::cli::make_collect_command(app),
      noiselearn::cli::make_lp_optimum_command(app), noiselearn::cli::make_config_keys_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    const auto unknown = noiselearn::cli::explain_unknown_word(app, std::vector<std::string>(argv + 1, argv + argc));
    std::fprintf(stderr, "noiselearn: error: %s\n",
                 unknown ? unknown->c_str() : (one_line(e.what()) + " (see --help)").c_str());
    return 2;
  }
#if defined(NOISELEARN_WITH_LEARNERS)
  // Only the training executable loads OpenMP (with LibTorch); noiselearn hands it the variable
  // (training_executable.hpp).
  if (threads > 1) noiselearn::cli::reexecute_with_passive_openmp_waiting(argv);
#endif

  auto logger = spdlog::stderr_color_mt("noiselearn");
  logger->set_pattern("[%H:%M:%S] %^%l%$ %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(quiet ? spdlog::level::warn : verbose ? spdlog::level::debug : spdlog::level::info);
  std::string running_command = "noiselearn";
  try {
    if (threads < 1) throw noiselearn::InputError(fmt::format("--threads {} must be at least 1", threads));
    if (!(table_reading.sum_tolerance > 0.0 && table_reading.sum_tolerance < 1.0))
      throw noiselearn::InputError(fmt::format("--sum-tolerance {} must be in (0, 1)", table_reading.sum_tolerance));
#if defined(NOISELEARN_WITH_LEARNERS)
    at::set_num_threads(threads);  // the learners
    noiselearn::link_learners();
#endif
    noiselearn::set_accountant_threads(threads);
    noiselearn::cli::remember_arguments(argv, threads);
    for (const auto& command : commands)
      if (command.app->parsed()) {
        running_command = command.app->get_name();
        command.run();
      }
  } catch (const noiselearn::InputError& e) {
    std::fprintf(stderr, "noiselearn: error: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const std::bad_alloc& e) {
    std::fprintf(stderr, "noiselearn: failure: out of memory: %s needed more memory than is available (%s); %s\n",
                 running_command.c_str(), e.what(), kOutOfMemoryAdvice);
    return 1;
#if defined(NOISELEARN_WITH_LEARNERS)
  } catch (const c10::Error& e) {
    // LibTorch's what() carries a stack trace; its first line says what failed.
    const std::string message = first_line(e.what_without_backtrace());
    if (message.find("can't allocate memory") != std::string::npos)
      std::fprintf(stderr, "noiselearn: failure: out of memory: %s needed more memory than is available (%s); %s\n",
                   running_command.c_str(), one_line(message).c_str(), kOutOfMemoryAdvice);
    else
      std::fprintf(stderr, "noiselearn: failure: %s\n", one_line(message).c_str());
    return 1;
#endif
  } catch (const std::exception& e) {
    std::fprintf(stderr, "noiselearn: failure: %s\n", one_line(e.what()).c_str());
    return 1;
  }
  return 0;
}
