#!/usr/bin/env bash
# The single-release LP optimum (noiselearn lp-optimum) beside Tables 1-2: the least E[e^2] of one-sided noise on the
# integers 0 .. 400 (sensitivity 1) whose certified delta(epsilon) is at most delta, for delta = 1e-4 and 1e-6 and
# epsilon 0.5 .. 8. Writes results/lp_optimum.csv (a few seconds).
set -euo pipefail
cd "$(dirname "$0")"
BIN=${NL_BIN:-../../build/src/cli/noiselearn}
[ -x "$BIN" ] || { echo "build noiselearn first (see ../../README.md)" >&2; exit 1; }
RES=results
echo "delta,epsilon,lp_second_moment,exact_delta,certified_delta_upper,margin" > "$RES/lp_optimum.csv.tmp"
for delta in 1e-4 1e-6; do
  for epsilon in 0.5 1 2 4 8; do
    "$BIN" --quiet lp-optimum --grid-step 1 --range 400 --one-sided --epsilon "$epsilon" --delta "$delta" --minimise cost \
      --cost second-moment --out "$RES/lp-table.csv" --force > /dev/null
    python3 - "$RES/lp-table.json" "$delta" "$epsilon" >> "$RES/lp_optimum.csv.tmp" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
lp = j["lp_optimum"]
print("%s,%s,%r,%r,%r,%g" % (sys.argv[2], sys.argv[3], lp["cost"]["value"], lp["exact_delta"],
                             j["certificate"]["delta_at_epsilon"][0]["delta_upper"], lp["margin"]))
PY
  done
done
rm -f "$RES/lp-table.csv" "$RES/lp-table.json"
mv "$RES/lp_optimum.csv.tmp" "$RES/lp_optimum.csv"
column -s, -t < "$RES/lp_optimum.csv"
