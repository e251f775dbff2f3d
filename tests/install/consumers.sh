#!/usr/bin/env bash
# Installs the build tree into a fresh prefix and builds two consumer projects against it, as a user of the installed
# package would: the sampler alone (CMake, COMPONENTS sampler; and by pkg-config, no CMake) and the accountant
# (CMake, with LibTorch). Each program checks its own results (exit 0). Usage: consumers.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for project in sampler_consumer accountant_consumer; do
  cmake -S "$here/$project" -B "$work/$project" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > "$work/$project.configure.log"
  cmake --build "$work/$project" -j 2 > "$work/$project.build.log"
done
"$work/sampler_consumer/sampler_consumer" "$work/table.csv"
"$work/accountant_consumer/accountant_consumer"
# The sampler by pkg-config alone.
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
g++ -std=c++17 -O1 "$here/sampler_consumer/main.cpp" -o "$work/sampler_by_pkg_config" $(pkg-config --cflags --libs noiselearn-sampler)
if ldd "$work/sampler_by_pkg_config" | grep -q torch; then echo "the sampler linked LibTorch" >&2; exit 1; fi
"$work/sampler_by_pkg_config" "$work/table2.csv"
echo "consumer projects: ok"
