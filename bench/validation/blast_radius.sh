#!/usr/bin/env bash
# Regenerates docs/validation/sundial.md's blast-radius figures over 5 failure draws: for each
# seed S, scenarios/sundial/fifty_failures.toml with its 50 failures redrawn from S (seed 2 is the
# shipped list) and sim.seed = S, then the tables (mean with the min-max over the draws).
#   bench/validation/blast_radius.sh [BIN] [OUTDIR]
# BIN defaults to build/netasic, OUTDIR to out/validation/blast_radius. SEEDS overrides the seed
# list (default "1 2 3 4 5"). About 30 s of wall time per seed. A run whose summary.json exists
# is kept (delete its directory to run it again).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/netasic}
out=${2:-out/validation/blast_radius}
mkdir -p "$out"
for s in ${SEEDS:-1 2 3 4 5}; do
  [ -f "$out/seed$s/summary.json" ] && continue
  python3 -B bench/validation/blast_radius.py draw "$s" "$out/seed$s.toml"
  "$bin" run "$out/seed$s.toml" --quiet --out "$out/seed$s"
done
python3 -B bench/validation/blast_radius.py tables "$out"
