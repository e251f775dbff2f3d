#!/usr/bin/env bash
# Installs the build tree into a fresh prefix and builds two consumer projects against it, as a user of the installed
# package would: the sampler alone (CMake, COMPONENTS sampler; and by pkg-config, no CMake) and the accountant
# (CMake, without LibTorch), a training through the run layer (CMake), and the Python module from the prefix when it was
# built, and the installed `noiselearn train` (through noiselearn-train). Each program checks its own results
# (exit 0). Usage: consumers.sh BUILD_DIR WORK_DIR [PYTHON]
set -euo pipefail
build=$1
work=$2
python=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for project in sampler_consumer accountant_consumer run_consumer; do
  cmake -S "$here/$project" -B "$work/$project" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > "$work/$project.configure.log"
  cmake --build "$work/$project" -j 2 > "$work/$project.build.log"
done
"$work/sampler_consumer/sampler_consumer" "$work/table.csv"
"$work/accountant_consumer/accountant_consumer"
if ldd "$work/accountant_consumer/accountant_consumer" | grep -q torch; then echo "the accountant linked LibTorch" >&2; exit 1; fi
# The run layer alone (the convex program) links no LibTorch: only noiselearn::learners brings it.
if ldd "$work/run_consumer/run_consumer" | grep -q torch; then echo "noiselearn::run linked LibTorch" >&2; exit 1; fi
"$work/run_consumer/run_consumer" "$work" > "$work/run_consumer.log" 2>&1 || { cat "$work/run_consumer.log" >&2; exit 1; }
tail -1 "$work/run_consumer.log"
# The installed command line: noiselearn links no LibTorch, and its train runs noiselearn-train installed beside it.
if ldd "$work/prefix/bin/noiselearn" | grep -q torch; then echo "bin/noiselearn linked LibTorch" >&2; exit 1; fi
printf 'grid: {range: 2, step: 1}\nmodel: {sigmoids: 2}\noptimiser: {epochs: 1}\noutput: {plots: false}\n' > "$work/tiny.yaml"
"$work/prefix/bin/noiselearn" train "$work/tiny.yaml" --out "$work/tiny-run" > "$work/tiny.log" 2>&1 || { cat "$work/tiny.log" >&2; exit 1; }
test -f "$work/tiny-run/summary.txt" || { echo "bin/noiselearn train wrote no summary.txt" >&2; exit 1; }
# The sampler by pkg-config alone.
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
g++ -std=c++17 -O1 "$here/sampler_consumer/main.cpp" -o "$work/sampler_by_pkg_config" $(pkg-config --cflags --libs noiselearn-sampler)
if ldd "$work/sampler_by_pkg_config" | grep -q torch; then echo "the sampler linked LibTorch" >&2; exit 1; fi
"$work/sampler_by_pkg_config" "$work/table2.csv"
# The Python package as installed (lib/python3.X/dist-packages/noiselearn under the prefix), when the build made one.
if [ -n "$python" ] && ls "$work"/prefix/lib/python3*/dist-packages/noiselearn/_noiselearn*.so > /dev/null 2>&1; then
  if ldd "$work"/prefix/lib/python3*/dist-packages/noiselearn/_noiselearn*.so | grep -q torch; then echo "the Python module linked LibTorch" >&2; exit 1; fi
  PYTHONPATH=$(ls -d "$work"/prefix/lib/python3*/dist-packages) "$python" - <<'PY'
import math
import noiselearn as nl
t = nl.baselines.discrete_laplace(nl.Grid.symmetric(40, 1), 5.0)
lower, upper = nl.account(t, 1).delta(0.1)
exact = sum(max(0.0, a - math.exp(0.1) * b) for a, b in zip(list(t.p) + [0.0], [0.0] + list(t.p)))
assert lower <= exact * (1 + 1e-12) and exact <= upper * (1 + 1e-12), (lower, exact, upper)
print(f"python module from the prefix: delta(0.1) {exact:.12g} in [{lower:.12g}, {upper:.12g}] ok")
PY
fi
echo "consumer projects: ok"
