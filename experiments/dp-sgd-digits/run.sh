#!/usr/bin/env bash
# DP-SGD on digits, noise calibrated by noiselearn (certified) and by the classic RDP accountant: README.md.
#   experiments/dp-sgd-digits/run.sh            # the full run (results/)
#   experiments/dp-sgd-digits/run.sh --quick    # one epoch, one seed, one target
# BUILD=<build dir> (default build/) holds python/noiselearn/ (the package); THREADS=1 by default.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export PYTHONPATH="${BUILD:-$root/build}/python${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 "$here/dp_sgd_digits.py" "$@"
