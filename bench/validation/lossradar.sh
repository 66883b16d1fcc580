#!/usr/bin/env bash
# LossRadar's decoding against digest size (thesis ch. 5, §5.3.1: n_cell = c * n_loss, c = 1.3
# at k = 3 for 99% success) on scenarios/telemetry/lossradar.toml, over SEEDS seeds (default 5):
# telemetry.lossradar_cells swept with k = 3 and 4. The meters are passive, so every point of a
# seed has the same drops; the busiest digest (segment, 1 ms batch) holds about 300 losses.
# Printed per point: cells per loss at the busiest digest, the losses listed (%), the failed
# digests, the digest's bytes and the busiest switch's meter memory, mean with min-max over the
# seeds. `netasic sweep` also draws the listed share against cells (OUTDIR/NAME/sweep.html).
#   bench/validation/lossradar.sh [BIN] [OUTDIR] [SWEEP...]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validation/lossradar
source bench/validation/sweep_common.sh
f=scenarios/telemetry/lossradar.toml
for k in 3 4; do
  sweep "cells_k$k" "$f" --set telemetry.lossradar_hashes=$k --grid telemetry.lossradar_cells=96,144,192,240,288,384 \
    --metric lossradar.detected_pct --metric lossradar.failed_digests
done
# The busiest digest's losses, per seed, from the drop log of one run (the same at every point).
for s in $(seq 1 "$seeds"); do
  once "$out/drops/seed$s" "$f" --set sim.seed="$s" 2>/dev/null
done
python3 - "$out" "$seeds" <<'PY'
import csv, statistics, sys
from collections import Counter, defaultdict
out, seeds = sys.argv[1], int(sys.argv[2])
busiest = {}
for s in range(1, seeds + 1):
    n = Counter((r["segment"], int(float(r["t_us"]) // 1000)) for r in csv.DictReader(open(f"{out}/drops/seed{s}/lossradar_drops.csv"))
                if r["segment"] != "-")
    busiest[s] = max(n.values())
print("losses in the busiest digest (segment, 1 ms batch), seeds 1-%d: %s" % (seeds, ", ".join(str(busiest[s]) for s in sorted(busiest))))
def span(v, fmt):
    return f"{fmt.format(statistics.mean(v))} ({fmt.format(min(v))}-{fmt.format(max(v))})"
for k in (3, 4):
    try:
        rows = list(csv.DictReader(open(f"{out}/cells_k{k}/runs.csv")))
    except FileNotFoundError:
        continue
    by = defaultdict(list)
    for r in rows:
        if r.get("status", "ok") == "ok":
            by[int(r["telemetry.lossradar_cells"])].append(r)
    print(f"\nk = {k}\n| cells | cells per loss, busiest digest | listed (%) | failed digests | digest (bytes) | busiest switch's meters (KB) |\n|---|---|---|---|---|---|")
    for c in sorted(by):
        v = by[c]
        cpl = [c / busiest[int(r["seed"])] for r in v]
        print(f"| {c} | {span(cpl, '{:.2f}')} | {span([float(r['lossradar.detected_pct']) for r in v], '{:.2f}')} | "
              f"{span([float(r['lossradar.failed_digests']) for r in v], '{:.1f}')} | {v[0]['lossradar.digest_bytes']} | "
              f"{float(v[0]['lossradar.switch_meter_bytes_max']) / 1000:.1f} |")
PY
