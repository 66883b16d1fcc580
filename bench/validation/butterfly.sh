#!/usr/bin/env bash
# Regenerates docs/validation/deter.md's "Butterfly effect" table (DETER thesis ch. 6 section 6.2):
# scenarios/deter/butterfly.toml with a host processing delay of 10 us + N(0, sigma) per data
# segment, sigma = 0, 1, 10, 100, 1000 ns, each over N jitter seeds (tcp.jitter_seed 1..N; the
# traffic is the same, only the jitter draws change). Prints per sigma the short flow's FCT (mean,
# min, max) and the fraction of runs whose FCT equals the sigma = 0 run's to the picosecond; then,
# from each run's DETER queue log (deter.mode = record), when the queue each packet met first
# differs from the sigma = 0 run's, and whether the queues agree again afterwards (Fig. 6.4).
#   bench/validation/butterfly.sh [BIN] [OUTDIR]
# BIN defaults to build/netasic, OUTDIR to out/validation/butterfly. REPLAYS overrides N = 20
# (the paper's 100), JOBS -j2. A sweep.csv already in OUTDIR is kept (delete it to run again).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/netasic}
out=${2:-out/validation/butterfly}
replays=${REPLAYS:-20}
jobs=${JOBS:-2}
[ -x "$bin" ] || { echo "error: $bin not found; build the netasic target first" >&2; exit 1; }
if [ ! -f "$out/sweep.csv" ]; then
  rm -rf "${out:?}"
  "$bin" sweep scenarios/deter/butterfly.toml --set deter.mode=record --grid tcp.host_jitter=0,1,10,100,1000 \
    --grid tcp.jitter_seed="$(seq -s, 1 "$replays")" -j "$jobs" --quiet --out "$out" >&2
fi
python3 -B bench/validation/butterfly_tables.py "$out"
