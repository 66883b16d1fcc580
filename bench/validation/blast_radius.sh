#!/usr/bin/env bash
# Regenerates docs/validation/sundial.md's blast-radius figures over 5 failure draws: for each
# seed S, the scenario with its 50 failures redrawn from S and sim.seed = S, then the tables (mean
# with the min-max over the draws). SHAPE=fat_tree (the default): scenarios/sundial/
# fifty_failures.toml (seed 2 is its list), about 30 s of wall time per seed. SHAPE=testbed:
# testbed_failures.toml (seed 1 is its list), the paper's testbed size and failure mix, about
# 90 s per seed.
#   [SHAPE=testbed] bench/validation/blast_radius.sh [BIN] [OUTDIR]
# BIN defaults to build/netasic, OUTDIR to out/validation/blast_radius (blast_radius_testbed).
# SEEDS overrides the seed list (default "1 2 3 4 5"). A run whose summary.json exists is kept
# (delete its directory to run it again).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/netasic}
shape=${SHAPE:-fat_tree}
case $shape in
  fat_tree) out=${2:-out/validation/blast_radius} ;;
  testbed) out=${2:-out/validation/blast_radius_testbed} ;;
  *) echo "error: SHAPE=$shape: use fat_tree or testbed" >&2; exit 2 ;;
esac
mkdir -p "$out"
for s in ${SEEDS:-1 2 3 4 5}; do
  [ -f "$out/seed$s/summary.json" ] && continue
  python3 -B bench/validation/blast_radius.py draw "$s" "$out/seed$s.toml" "$shape"
  "$bin" run "$out/seed$s.toml" --quiet --out "$out/seed$s"
done
python3 -B bench/validation/blast_radius.py tables "$out"
