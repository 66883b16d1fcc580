#!/usr/bin/env bash
# FlowRadar's decoding against table size (thesis ch. 4, §4.4.3 and Fig. 4.3's question: how
# many cells per flow does decoding need?) on scenarios/telemetry/flowradar.toml, over SEEDS
# seeds (default 5): telemetry.flowradar_cells swept with k_c = 3 and 4. The scenario's busiest
# switch sees about 20 flows per 10 ms epoch, so 4-64 cells span 0.2-3 cells per flow there.
# Printed per point: the fraction of (epoch, switch) flows SingleDecode and NetDecode found and
# the fraction counted, mean with min-max over the seeds.
#   bench/validation/flowradar.sh [BIN] [OUTDIR] [SWEEP...]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validation/flowradar
source bench/validation/sweep_common.sh
f=scenarios/telemetry/flowradar.toml
for k in 3 4; do
  sweep "cells_k$k" "$f" --set sim.duration=15000 --set telemetry.flowradar_cell_hashes=$k \
    --grid telemetry.flowradar_cells=8,12,16,24,32,48,64
done
for k in 3 4; do
  csv=$out/cells_k$k/runs.csv   # one row per point and seed
  [ -f "$csv" ] || continue
  echo "k_c = $k"
  python3 - "$csv" <<'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
by = defaultdict(list)
for r in rows:
    if r.get("status", "ok") != "ok" or not r.get("flowradar.flows"): continue
    n = float(r["flowradar.flows"])
    by[int(r["telemetry.flowradar_cells"])].append(
        (float(r["flowradar.single_decoded_flows"]) / n, float(r["flowradar.decoded_flows"]) / n,
         float(r["flowradar.counted_flows"]) / n, float(r["flowradar.wrong_flows"]) + float(r["flowradar.wrong_counter_flows"])))
print("cells  single decoded (min-max)   net decoded (min-max)    counted (min-max)      wrong")
for c in sorted(by):
    v = by[c]
    col = lambda i: f"{sum(x[i] for x in v) / len(v):.3f} ({min(x[i] for x in v):.3f}-{max(x[i] for x in v):.3f})"
    print(f"{c:5d}  {col(0):24s} {col(1):24s} {col(2):22s} {int(sum(x[3] for x in v))}")
PY
done
