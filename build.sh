#!/usr/bin/env bash
# noiselearn's one command: installs what is missing (Debian packages), builds (Release, -j2), then
#   ./build.sh run     runs the main job on its default config
#   ./build.sh test    runs the whole test suite (what CI runs, via .ci/run)
#   ./build.sh bench   runs the benchmark executables
#   ./build.sh build   only builds
#   ./build.sh sanitize  builds the suites that do not load LibTorch (core, sampler, accounting, io, solvers) with
#                        clang's AddressSanitizer and UndefinedBehaviorSanitizer in build-sanitize, and runs them
#   ./build.sh fuzz      builds the libFuzzer harnesses of tests/fuzz (clang, ASan, UBSan) in build-fuzz and runs each
#                        for NOISELEARN_FUZZ_SECONDS (default 30) from its seed corpus in tests/fuzz/corpus
# sanitize and fuzz also install clang and its runtime libraries (libclang-rt-dev); any report fails them.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(g++ cmake make libtorch-dev libsleef-dev libfmt-dev libspdlog-dev catch2 libyaml-cpp-dev libcli11-dev
          nlohmann-json3-dev gnuplot-nox parallel pkg-config libglpk-dev pybind11-dev python3-dev python3-numpy python3-pytest
          python3-setuptools python3-wheel python3-venv python3-pip)
# The last four: `pip install --no-build-isolation .` offline (README, "Python"; setup.py) and its test, which makes a
# fresh venv (tests/install/pip_install.py).
# The DP-SGD experiment (experiments/dp-sgd-digits) and its test: PyTorch, scikit-learn's bundled digits, matplotlib.
EXPERIMENT_PACKAGES=(python3-torch python3-sklearn python3-matplotlib)
# The style test (tests/style/check_format.sh): the formatter the sources are checked against.
STYLE_PACKAGES=(clang-format)
# The sanitizer and fuzzer builds: clang (libFuzzer, and UBSan's float-cast-overflow, which GCC's 'undefined' lacks).
SANITIZER_PACKAGES=(clang libclang-rt-dev)
BUILD_DIR=${NOISELEARN_BUILD_DIR:-build}
JOBS=${NOISELEARN_JOBS:-2}
# The suites whose executables load no LibTorch: an uninstrumented LibTorch would drown ASan's reports in its own.
SANITIZED_SUITES=(core sampler accounting io solvers)
FUZZ_SECONDS=${NOISELEARN_FUZZ_SECONDS:-30}

install_missing() {
  local missing=()
  for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing missing packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

sanitize() {
  local dir="$BUILD_DIR-sanitize"
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DNOISELEARN_SANITIZE=ON \
        -DNOISELEARN_BUILD_BENCHMARKS=OFF -DNOISELEARN_PYTHON=OFF
  cmake --build "$dir" -j "$JOBS" --target "${SANITIZED_SUITES[@]/#/test_}"
  local suites
  suites=$(IFS='|'; echo "${SANITIZED_SUITES[*]}")
  (cd "$dir" && ctest --output-on-failure --no-tests=error -j "$JOBS" -R "^($suites):")
}

# Each harness tests/fuzz/fuzz_NAME.cpp runs from its committed seeds (tests/fuzz/corpus/fuzz_NAME, read only) and the
# corpus it grew in earlier runs (build-fuzz/fuzz/corpus/fuzz_NAME); a crash, leak, timeout or UBSan report is written
# to build-fuzz/fuzz/artifacts/fuzz_NAME/ and fails the command after every harness has run.
fuzz() {
  local dir="$BUILD_DIR-fuzz"
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DNOISELEARN_FUZZ=ON \
        -DNOISELEARN_BUILD_TESTS=OFF -DNOISELEARN_BUILD_BENCHMARKS=OFF -DNOISELEARN_PYTHON=OFF
  cmake --build "$dir" -j "$JOBS" --target noiselearn_fuzz_harnesses
  local failed=() source harness seeds log
  for source in tests/fuzz/fuzz_*.cpp; do
    harness=$(basename "$source" .cpp)
    seeds=tests/fuzz/corpus/$harness
    log=$dir/fuzz/$harness.log
    [ -d "$seeds" ] || { echo "$harness: no seed corpus $seeds" >&2; failed+=("$harness"); continue; }
    mkdir -p "$dir/fuzz/corpus/$harness" "$dir/fuzz/artifacts/$harness"
    echo "fuzzing $harness for $FUZZ_SECONDS s (log: $log)"
    if "$dir/tests/fuzz/$harness" -max_total_time="$FUZZ_SECONDS" -timeout=10 -print_final_stats=1 \
         -artifact_prefix="$dir/fuzz/artifacts/$harness/" "$dir/fuzz/corpus/$harness" "$seeds" >"$log" 2>&1; then
      grep -E '^(Done |stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added)' "$log" || true
    else
      tail -n 60 "$log"
      failed+=("$harness")
    fi
  done
  if [ ${#failed[@]} -ne 0 ]; then
    echo "fuzzing found problems in: ${failed[*]} (the inputs: $dir/fuzz/artifacts/; rerun one:" \
         "$dir/tests/fuzz/HARNESS FILE)" >&2
    return 1
  fi
}

main_job() {
  # The main job: learn, certify, compare and plot the quickstart configuration into runs/quickstart
  # (replaced on every run; it holds only what this command wrote).
  "$BUILD_DIR"/src/cli/noiselearn train configs/quickstart.yaml --out runs/quickstart --force
}

command=${1:-run}
case "$command" in
  run) install_missing; build; main_job ;;
  test) PACKAGES+=("${EXPERIMENT_PACKAGES[@]}" "${STYLE_PACKAGES[@]}"); install_missing; build; (cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS") ;;
  bench) install_missing; build; for b in "$BUILD_DIR"/tests/benchmarks/bench_*; do "$b"; done ;;
  build) install_missing; build ;;
  sanitize) PACKAGES+=("${SANITIZER_PACKAGES[@]}"); install_missing; sanitize ;;
  fuzz) PACKAGES+=("${SANITIZER_PACKAGES[@]}"); install_missing; fuzz ;;
  *) echo "usage: $0 [run|test|bench|build|sanitize|fuzz]" >&2; exit 2 ;;
esac
