#!/usr/bin/env bash
# LossRadar's blackbox (incremental) deployment, §5.4.2 and §5.7's memory per switch, over 5
# seeds: scenarios/telemetry/lossradar.toml on the thesis's k = 8 fat tree (3 ms of arrivals),
# with 7.6 KB digests (363 cells of 168 bits) as the thesis sizes them, in the full deployment and
# with the edge (ToR), aggregation or core switches as the blackbox. Printed per deployment: the
# meters' memory of the busiest switch with meters and the mean over those switches (2 batches of
# every digest its ports keep), mean with min-max over the seeds, and the losses listed.
#   bench/validation/lossradar_blackbox.sh [BIN] [OUTDIR]
# BIN defaults to build/netasic, OUTDIR to out/validation/lossradar_blackbox; SEEDS overrides 5.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validation/lossradar_blackbox
source bench/validation/sweep_common.sh

for s in $(seq 1 "$seeds"); do
  for bb in full edge agg core; do
    dir="$out/$bb/seed$s"
    [ -f "$dir/summary.json" ] && continue
    set_bb=()
    [ "$bb" = full ] || set_bb=(--set "telemetry.lossradar_blackbox=[\"$bb*\"]")
    "$bin" run scenarios/telemetry/lossradar.toml --set sim.seed="$s" --set topology.k=8 --set sim.duration=3000 \
      --set telemetry.lossradar_cells=363 "${set_bb[@]}" --quiet --out "$dir"
  done
done

python3 - "$out" "$seeds" <<'PY'
import json, statistics, sys
out, seeds = sys.argv[1], int(sys.argv[2])
def spread(v, unit, f="{:.1f}"):
    return f"{f.format(statistics.mean(v))} ({f.format(min(v))}-{f.format(max(v))}) {unit}".rstrip()
paper = {"full": "243.2 KB", "edge": "425.6 KB (each aggregation switch)", "agg": "608 KB (each core and ToR)",
         "core": "608 KB (each aggregation switch)"}
print(f"| deployment | busiest switch, model | mean over switches with meters | digests at the busiest | losses listed | thesis |")
print("|---|---|---|---|---|---|")
for bb in ("full", "edge", "agg", "core"):
    r = [json.load(open(f"{out}/{bb}/seed{s}/summary.json"))["lossradar"] for s in range(1, seeds + 1)]
    most = [x["switch_meter_bytes_max"] / 1000 for x in r]
    mean = [x["switch_meter_bytes_mean"] / 1000 for x in r]
    digests = [x["switch_meter_bytes_max"] / (2 * x["digest_bytes"]) for x in r]
    listed = [x["detected_pct"] for x in r]
    print(f"| {bb} | {spread(most, 'KB')} | {spread(mean, 'KB')} | {spread(digests, '', '{:.0f}')} | "
          f"{spread(listed, '%')} | {paper[bb]} |")
PY
