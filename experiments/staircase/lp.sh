#!/usr/bin/env bash
# The LP optimum (noiselearn lp-optimum) at the L1 of every table of results/summary.csv: the least certified delta at
# eps = 0.3 on the same grid ([-5, 5], step 0.01, s = 1), among symmetric monotone tables (the family the sigmoid stack
# can represent) and among all tables. Writes results/lp_optimum.csv. Run after run.sh (about 2 min: the LP without
# shapes generates about 20 shifts and takes 10-20 s per point; the shaped one 0.2 s).
set -euo pipefail
cd "$(dirname "$0")"
BIN=${NL_BIN:-../../build/src/cli/noiselearn}
[ -x "$BIN" ] || { echo "build noiselearn first (see ../../README.md)" >&2; exit 1; }
RES=results
echo "table,l1,delta_upper,lp_shaped_delta,lp_free_delta,rel_above_shaped,rel_above_free" > "$RES/lp_optimum.csv.tmp"
lp() {  # L1, extra options -> the written table's certified upper delta
  "$BIN" --quiet lp-optimum --grid-step 0.01 --range 5 --epsilon 0.3 --cost-budget "$1" "${@:2}" --out "$RES/lp-table.csv" --force \
    > /dev/null
  python3 -c "import json; print(repr(json.load(open('$RES/lp-table.json'))['certificate']['delta_at_epsilon'][0]['delta_upper']))"
}
tail -n +2 "$RES/summary.csv" | while IFS=, read -r table l1 delta_upper rest; do
  shaped=$(lp "$l1" --shape symmetric --shape monotone)
  free=$(lp "$l1")
  python3 -c "d, s, f = $delta_upper, $shaped, $free; print('$table,$l1,%r,%r,%r,%.3e,%.3e' % (d, s, f, d / s - 1, d / f - 1))" \
    >> "$RES/lp_optimum.csv.tmp"
done
rm -f "$RES/lp-table.csv" "$RES/lp-table.json"
mv "$RES/lp_optimum.csv.tmp" "$RES/lp_optimum.csv"
column -s, -t < "$RES/lp_optimum.csv"
