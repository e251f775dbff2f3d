#!/usr/bin/env bash
# Utility vs certified delta under composition (Sommer et al., section 4.3, Figs 3 and 9), reduced for 2 cores.
# Usage: ./run.sh            (all: n in 1..128, L1 and L2, 4 methods x 3 weights = 192 trainings; ~50 min on 2 cores)
#        NS="1 128" UTILITIES=l2 ./run.sh   (a subset; finished runs are skipped, so the script can be resumed)
# Writes results/runs/<utility>/n<n>/<run>/ (bulky, git-ignored), results/utility-vs-delta-<utility>.csv,
# results/gaussian-curve-<utility>.csv, results/same-delta-<utility>.csv, results/summary-<utility>.md and results/utility-vs-delta-<utility>.png.
set -euo pipefail
cd "$(dirname "$0")"
BIN=../../build/src/cli/noiselearn
# LibTorch threads. 2 uses both cores; on a machine where another job holds a core, 2 threads run ~10x slower
# than 1 (measured: OpenMP barriers wait for a descheduled thread), so THREADS=1 is the safe choice there.
THREADS=${THREADS:-2}
export NL_THREADS=$THREADS
[ -x "$BIN" ] || { echo "build noiselearn first (see ../../README.md)" >&2; exit 1; }
NS=${NS:-"1 2 4 8 16 32 64 128"}
UTILITIES=${UTILITIES:-"l1 l2"}
# Paper-style runs (sigmoid stack, paper init, utility-weight decay): w_start = c / sqrt(n). The Gaussian
# trade-off slope at a fixed privacy level scales like 1/sqrt(n) (sigma ~ sqrt(n)), so the same c probes a
# similar delta range at every n.
CS=${CS:-"1 0.1 0.01"}
PAPER_LOSSES=${PAPER_LOSSES:-"moments-accountant privacy-buckets-adp soft-pld"}
# Our variant: soft-pld on monotone logits from the truncated Gaussian sigma = sqrt(n) / mu (mu: its GDP
# parameter; untruncated delta(0.3) ~ 6e-2, 7e-3, 5e-5), at the Gaussian's own trade-off slope (tg.py tangent).
MUS=${MUS:-"0.4 0.2 0.1"}
RES=results
mkdir -p "$RES/runs"
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
now() { date +%s.%N; }
start_all=$(now)
{ echo "binary: $(md5sum "$BIN")"; echo "commit: $(git rev-parse HEAD 2>/dev/null)"; echo "threads: $THREADS"; echo "started: $(date -u)"; } >> "$RES/provenance.txt"

train() {  # train NAME CONFIG ROWARGS(loss model n utility weight) -- --set ...
  local dir=$1 config=$2 loss=$3 model=$4 n=$5 u=$6 w=$7; shift 8
  if [ -f "$dir/row.csv" ]; then return; fi
  local t0; t0=$(now)
  local rc=0
  "$BIN" --threads "$THREADS" --quiet train "$config" --out "$dir" --force "$@" > "$dir.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    log "  FAILED (exit $rc): $dir, see $dir.log"; tail -3 "$dir.log" >&2
    [ -f "$dir/noise.json" ] || return 0   # a guard stop still writes the last good table and its certificate
  fi
  local secs; secs=$(echo "$(now) - $t0" | bc)
  python3 row.py "$dir" "$loss" "$model" "$n" "$u" "$w" "$secs" > "$dir/row.csv"
  log "  $(cat "$dir/row.csv")"
}

for u in $UTILITIES; do
  for n in $NS; do
    log "utility $u, n = $n"
    base="$RES/runs/$u/n$n"; mkdir -p "$base"
    for c in $CS; do
      w=$(python3 -c "print('%.6g' % ($c / $n ** 0.5))")
      for loss in $PAPER_LOSSES; do
        train "$base/$loss-sigmoid-c$c" sigmoid-stack.yaml "$loss" sigmoid-stack "$n" "$u" "$w" -- \
          --set loss.kind="$loss" --set loss.compositions="$n" --set utility.kind="$u" \
          --set schedule.utility_weight_start="$w"
      done
    done
    for mu in $MUS; do
      dir="$base/soft-pld-monotone-mu$mu"
      [ -f "$dir/row.csv" ] && continue
      sigma=$(python3 -c "print('%.10g' % ($n ** 0.5 / $mu))")
      read -r gu gd w < <(python3 tg.py tangent "$sigma" "$n" "$u")
      log "  start: truncated Gaussian sigma $sigma ($u $gu, certified delta $gd), tangent weight $w"
      train "$dir" monotone-logits.yaml soft-pld monotone-logits "$n" "$u" "$w" -- \
        --set loss.compositions="$n" --set utility.kind="$u" --set model.init_sigma="$sigma" \
        --set schedule.utility_weight_start="$w"
    done
  done
done

# The truncated-Gaussian curves (the reference lines), sigma = sqrt(n) / mu, sigma <= 250.
for u in $UTILITIES; do
  curve="$RES/gaussian-curve-$u.csv"
  if [ ! -f "$curve" ] || [ "$(wc -l < "$curve")" -lt 2 ]; then
    log "truncated-Gaussian curve, $u"
    echo "n,sigma,utility,delta_upper,delta_lower" > "$curve.tmp"
    for n in 1 2 4 8 16 32 64 128; do
      for mu in 0.8 0.6 0.45 0.35 0.27 0.2 0.15 0.12 0.1 0.08 0.065 0.05; do
        sigma=$(python3 -c "print('%.10g' % ($n ** 0.5 / $mu))")
        if python3 -c "import sys; sys.exit(0 if $sigma <= 250 else 1)"; then
          echo "$n,$sigma,$(python3 tg.py eval "$sigma" "$n" "$u" | tr ' ' ',')" >> "$curve.tmp"
        fi
      done
    done
    mv "$curve.tmp" "$curve"
  fi
done

# One CSV per utility (every finished run, sorted by n, method, utility) and one plot per utility.
for u in $UTILITIES; do
  out="$RES/utility-vs-delta-$u.csv"
  echo "loss,model,n,utility_kind,utility_weight,final_utility_weight,utility,delta_upper,delta_lower,tg_sigma,tg_delta_upper,tg_delta_lower,ratio_to_tg,note,train_seconds" > "$out"
  cat "$RES"/runs/"$u"/n*/*/row.csv 2>/dev/null | sort -t, -k3,3n -k1,1 -k2,2 -k7,7g >> "$out" || true
  gnuplot -e "utility='$u'; results='$RES'" plot.gp
  # The paper's "horizontal line" convention for learned points beyond the Gaussian's least-delta utility.
  python3 samedelta.py "$RES" "$u"
  python3 summary.py "$RES" "$u" > "$RES/summary-$u.md"
  log "wrote $out, $RES/same-delta-$u.csv and $RES/utility-vs-delta-$u.png"
done
echo "finished: $(date -u); binary: $(md5sum "$BIN")" >> "$RES/provenance.txt"
log "done in $(echo "($(now) - $start_all) / 60" | bc -l | xargs printf '%.1f') min"
