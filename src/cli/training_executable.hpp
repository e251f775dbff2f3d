#pragma once
// `noiselearn` and `noiselearn-train` are built from the same sources. `noiselearn` links no LibTorch, so every
// command but `train` starts without loading LibTorch's libraries (src/README.md, "Building fast"); its `train`
// replaces itself (execv: same process id, same exit code, same output streams) by `noiselearn-train`, found next to
// it, with the same arguments. `noiselearn-train` links the learners and runs every command itself.
namespace noiselearn::cli {

// main() hands over its arguments and the parsed --threads before running a command.
void remember_arguments(char** argv, int threads);

// Runs noiselearn-train with the remembered arguments, OMP_WAIT_POLICY=passive added when --threads is above 1 and
// the variable is not set (README, "`--threads` and speed"). Returns only by throwing (std::runtime_error: the file
// is missing or cannot be run).
[[noreturn]] void execute_training_executable();

}  // namespace noiselearn::cli
