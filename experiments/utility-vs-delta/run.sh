#!/usr/bin/env bash
# Utility vs certified delta under composition (Sommer et al., section 4.3, Figs 3 and 9), reduced for 2 cores, on
# `noiselearn sweep` + GNU parallel + `noiselearn collect`.
# Usage: ./run.sh                          everything: 144 paper-style + 48 monotone-logits trainings (13 min on 2 cores, 2026-11-27; 36 min on 2026-11-26)
#        LINES=1,2 RES=/tmp/uvd ./run.sh   a subset: only those lines of each sweep's jobs.txt (sed addresses: 1,2 or 5p;9)
#        NS="1 128" UTILITIES=l2 ./run.sh  the monotone-logits sweep for these n and utilities only
# The full paper size is sweep-full.yaml, one command on a cluster (README.md):
#        noiselearn sweep sweep-full.yaml --out X && sbatch X/slurm-array.sbatch
# Finished points are skipped (train --skip-if-complete), so the script can be interrupted and resumed.
# Writes RES/sweep/ and RES/sweep-monotone/ (sweep directories; their points/ are bulky and git-ignored), with
# collected.csv and frontier.png each; RES/utility-vs-delta-<utility>.csv, RES/gaussian-curve-<utility>.csv,
# RES/same-delta-<utility>.csv, RES/summary-<utility>.md and RES/utility-vs-delta-<utility>.png.
set -euo pipefail
cd "$(dirname "$0")"
BIN=$(realpath "${NL_BIN:-../../build/src/cli/noiselearn}")  # NL_BIN: another binary
[ -x "$BIN" ] || { echo "build noiselearn first (see ../../README.md)" >&2; exit 1; }
command -v parallel > /dev/null || { echo "GNU parallel is needed (apt-get install parallel)" >&2; exit 1; }
# LibTorch threads per training, and trainings at a time. On a machine where another job holds a core, 2 threads
# run ~10x slower than 1 (OpenMP barriers wait for a descheduled thread): prefer JOBS=2 THREADS=1 over 1 x 2.
THREADS=${THREADS:-1}
JOBS=${JOBS:-2}
export NL_THREADS=$THREADS
NS=${NS:-"1 2 4 8 16 32 64 128"}
UTILITIES=${UTILITIES:-"l1 l2"}
# Our variant: soft-pld on monotone logits from the truncated Gaussian sigma = sqrt(n) / mu (mu: its GDP
# parameter; untruncated delta(0.3) ~ 6e-2, 7e-3, 5e-5), at the Gaussian's own trade-off slope (tg.py tangent).
MUS=${MUS:-"0.4 0.2 0.1"}
RES=${RES:-results}
mkdir -p "$RES"
RES=$(realpath "$RES")
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
start_all=$(date +%s)
{ echo "binary: $(md5sum "$BIN")"; echo "commit: $(git rev-parse HEAD 2>/dev/null)"; echo "threads: $THREADS, jobs: $JOBS"; echo "started: $(date -u)"; } >> "$RES/provenance.txt"

# 1. The paper's methods (sigmoid stack, paper init, utility-weight decay), sweep-reduced.yaml: 144 points.
"$BIN" --quiet sweep sweep-reduced.yaml --out "$RES/sweep" --job-threads "$THREADS" --jobs "$JOBS"
# 2. Our variant: its weights are certified tangents, so its sweep file is computed (once).
if [ ! -f "$RES/sweep-monotone.yaml" ]; then
  log "computing the monotone-logits sweep (truncated-Gaussian tangents)"
  SWEEP_DIR="$RES" python3 monotone_sweep.py "$NS" "$UTILITIES" "$MUS" > "$RES/sweep-monotone.yaml.tmp"
  mv "$RES/sweep-monotone.yaml.tmp" "$RES/sweep-monotone.yaml"
fi
"$BIN" --quiet sweep "$RES/sweep-monotone.yaml" --out "$RES/sweep-monotone" --job-threads "$THREADS" --jobs "$JOBS"

# 3. Run both with GNU parallel (every line skips a finished point), then collect (exit 1 when points are missing:
#    the summary then covers the done ones, and says so in collected.csv).
for sweep in sweep sweep-monotone; do
  log "running $RES/$sweep"
  if [ -n "${LINES:-}" ]; then
    sed -n "${LINES}p" "$RES/$sweep/jobs.txt" | parallel -j "$JOBS" || log "some points of $sweep failed"
  else
    NOISELEARN_JOBS=$JOBS "$RES/$sweep/run-parallel.sh" || log "some points of $sweep failed (noiselearn collect lists them)"
  fi
  "$BIN" collect "$RES/$sweep" || log "$sweep is not complete (see above)"
done

# 4. The truncated-Gaussian curves (the reference lines), sigma = sqrt(n) / mu, sigma <= 250.
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

# 5. One CSV per utility from the collected rows (with the truncated Gaussian of the same utility), the plot, the
#    same-delta check and the summary.
for u in $UTILITIES; do
  out="$RES/utility-vs-delta-$u.csv"
  python3 rows.py "$RES" "$u" > "$out.tmp" && mv "$out.tmp" "$out"
  gnuplot -e "utility='$u'; results='$RES'" plot.gp
  # The paper's "horizontal line" convention for learned points beyond the Gaussian's least-delta utility.
  python3 samedelta.py "$RES" "$u"
  python3 summary.py "$RES" "$u" > "$RES/summary-$u.md"
  log "wrote $out, $RES/same-delta-$u.csv and $RES/utility-vs-delta-$u.png"
done
echo "finished: $(date -u); binary: $(md5sum "$BIN")" >> "$RES/provenance.txt"
log "done in $(( ($(date +%s) - start_all) / 60 )) min"
