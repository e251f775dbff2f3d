#!/usr/bin/env bash
# DP-SGD (Sommer et al., section 4.4, Figs 4 and 11), reduced for 2 shared cores: the subsampled mixture pair
# (q = 0.1, C = 1), epsilon = 0.3, L1, n = 8 .. 128. For each n and each start (the truncated Gaussian whose certified
# delta is START_DELTAS), soft PLD on monotone logits from that Gaussian at its tangent weight (dp-sgd.yaml); then the
# learned table against the truncated Gaussian with the same L1 (delta compared) and with the same certified delta
# (L1 compared), both from train's comparison.csv; and the truncated-Gaussian curve for the plot.
# Usage: ./run.sh                      (all; 2.9 min on one core, 2026-11-27; 8 min on 2026-11-26, ~25 min at load 5-7)
#        NS="8 128" START_DELTAS=1e-3 ./run.sh   (a subset; finished runs are skipped)
# Env: NL_BIN (default ../../build/src/cli/noiselearn), THREADS (default 1).
set -euo pipefail
cd "$(dirname "$0")"
export NL_BIN=${NL_BIN:-$(pwd)/../../build/src/cli/noiselearn}
THREADS=${THREADS:-1}
export NL_THREADS=$THREADS
[ -x "$NL_BIN" ] || { echo "build noiselearn first (see ../../README.md) or set NL_BIN" >&2; exit 1; }
NS=${NS:-"8 16 32 64 128"}
START_DELTAS=${START_DELTAS:-"1e-3 1e-6"}
RES=results
mkdir -p "$RES/runs"
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
now() { date +%s.%N; }
start_all=$(now)
{ echo "binary: $(md5sum "$NL_BIN")"; echo "commit: $(git rev-parse HEAD 2>/dev/null)"; echo "threads: $THREADS"; echo "started: $(date -u)"; } >> "$RES/provenance.txt"

for n in $NS; do
  for sd in $START_DELTAS; do
    dir="$RES/runs/n$n-start$sd"
    [ -f "$dir/row.csv" ] && continue
    t0=$(now)
    read -r sigma gl1 gup glow < <(python3 tg.py for-delta "$sd" "$n")
    read -r tl1 tup w < <(python3 tg.py tangent "$sigma" "$n")
    log "n = $n: start truncated Gaussian sigma $sigma (L1 $gl1, certified delta <= $gup), tangent weight $w ($(printf '%.0f' "$(echo "$(now) - $t0" | bc)") s)"
    t1=$(now)
    rc=0
    "$NL_BIN" --threads "$THREADS" --quiet train dp-sgd.yaml --out "$dir" --force \
      --set loss.compositions="$n" --set model.init_sigma="$sigma" --set schedule.utility_weight_start="$w" \
      > "$dir.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { log "  train exit $rc, see $dir.log"; tail -3 "$dir.log" >&2; [ -f "$dir/noise.json" ] || continue; }
    secs=$(echo "$(now) - $t1" | bc)
    python3 row.py "$dir" "$n" "$sd" "$sigma" "$gl1" "$gup" "$w" "$secs" > "$dir/row.csv"
    log "  $(cat "$dir/row.csv")"
  done
done

# The truncated-Gaussian curves (lines of the plot): L1 against certified delta, sigma from 2 to 20.
curve="$RES/tg-curve.csv"
[ -s "$curve" ] || echo "n,sigma,l1,delta_upper,delta_lower" > "$curve"
for n in $NS; do
  grep -q "^$n," "$curve" && continue   # this n's curve is there already
  log "truncated-Gaussian curve, n = $n"
  for sigma in 2 3 4 5 6 8 11 15 20; do
    read -r l1 up low _ < <(python3 tg.py eval "$sigma" "$n")
    echo "$n,$sigma,$l1,$up,$low" >> "$curve"
  done
done

out="$RES/dp-sgd.csv"
python3 row.py --header > "$out"
cat "$RES"/runs/*/row.csv | sort -t, -k1,1n -k2,2gr >> "$out"
python3 every_shift.py "$RES"
gnuplot -e "results='$RES'" plot.gp
python3 summary.py "$RES" > "$RES/summary.md"
echo "finished: $(date -u)" >> "$RES/provenance.txt"
log "wrote $out and $RES/dp-sgd.png in $(echo "($(now) - $start_all) / 60" | bc -l | xargs printf '%.1f') min"
