#!/usr/bin/env bash
# noiselearn's one command: installs what is missing (Debian packages), builds (Release, -j2), then
#   ./build.sh run     runs the main job on its default config
#   ./build.sh test    runs the whole test suite (what CI runs, via .ci/run)
#   ./build.sh bench   runs the benchmark executables
#   ./build.sh build   only builds
#   ./build.sh sanitize  builds the suites that do not load LibTorch (core, sampler, accounting, io, solvers) with
#                        clang's AddressSanitizer and UndefinedBehaviorSanitizer in build-sanitize, and runs them
# sanitize also installs clang and its runtime libraries (libclang-rt-dev); any report fails it.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(g++ cmake make libtorch-dev libsleef-dev libfmt-dev libspdlog-dev catch2 libyaml-cpp-dev libcli11-dev
          nlohmann-json3-dev gnuplot-nox parallel pkg-config libglpk-dev pybind11-dev python3-dev python3-numpy python3-pytest)
# The DP-SGD experiment (experiments/dp-sgd-digits) and its test: PyTorch, scikit-learn's bundled digits, matplotlib.
EXPERIMENT_PACKAGES=(python3-torch python3-sklearn python3-matplotlib)
# The style test (tests/style/check_format.sh): the formatter the sources are checked against.
STYLE_PACKAGES=(clang-format)
# The sanitizer build: clang (its UBSan's 'undefined' has float-cast-overflow, GCC's lacks it).
SANITIZER_PACKAGES=(clang libclang-rt-dev)
BUILD_DIR=${NOISELEARN_BUILD_DIR:-build}
JOBS=${NOISELEARN_JOBS:-2}
# The suites whose executables load no LibTorch: an uninstrumented LibTorch would drown ASan's reports in its own.
SANITIZED_SUITES=(core sampler accounting io solvers)

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
  *) echo "usage: $0 [run|test|bench|build|sanitize]" >&2; exit 2 ;;
esac
