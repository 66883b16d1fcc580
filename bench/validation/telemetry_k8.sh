#!/usr/bin/env bash
# Regenerates docs/validation/telemetry.md's section "Paper scale: k = 8" over 5 seeds (sim.seed 1-5):
#   flowradar_k8:  scenarios/telemetry/flowradar_k8.toml, the loss map's setup of §4.6.2 (k = 8 fat
#                  tree, web search + 1,000 incast queries/s of degree 20, 150 KB queues, 10 ms
#                  epochs) with 1% drops on two links and a black hole
#   lossradar_k8:  scenarios/telemetry/lossradar_k8.toml, §5.7's setup (7.6 KB digests, 10 ms
#                  batches, 5 us per switch, 1% drops on 3 links, black holes on 3 switches)
# Printed: mean with min-max over the seeds, and the per-seed values. Each run takes under a
# minute of one core (100 ms of arrivals).
#   bench/validation/telemetry_k8.sh [BIN] [OUTDIR]
# BIN defaults to build/netasic, OUTDIR to out/validation/telemetry_k8; SEEDS overrides 5. A run
# whose summary.json exists is kept (delete its directory to run it again).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validation/telemetry_k8
source bench/validation/sweep_common.sh

for s in $(seq 1 "$seeds"); do
  for name in flowradar_k8 lossradar_k8; do
    once "$out/$name/seed$s" "scenarios/telemetry/$name.toml" --set sim.seed="$s"
  done
done

python3 - "$out" "$seeds" <<'PY'
import csv, json, statistics, sys
out, seeds = sys.argv[1], int(sys.argv[2])

def get(s, dotted):
    for p in dotted.split("."):
        s = s[int(p)] if isinstance(s, list) else s.get(p) if s is not None else None
    return s

def row(label, rs, dotted, fmt="{:.1f}", paper=""):
    v = [get(r, dotted) for r in rs]
    have = [x for x in v if x is not None]
    per = ", ".join("-" if x is None else fmt.format(x) for x in v)
    m = f"{fmt.format(statistics.mean(have))} ({fmt.format(min(have))}-{fmt.format(max(have))})" if have else "-"
    print(f"| {label} | {m} | {per} | {paper} |")

def head(title):
    print(f"\n## {title}\n\n| figure | mean (min-max) | seeds 1-{seeds} | thesis |\n|---|---|---|---|")

rs = []
for s in range(1, seeds + 1):
    d = f"{out}/flowradar_k8/seed{s}"
    r = json.load(open(f"{d}/summary.json"))
    f = r["flowradar"]
    rows = list(csv.DictReader(open(f"{d}/flowradar.csv")))
    f["busiest"] = max(int(x["flows"]) for x in rows)
    f["per_switch_epoch"] = statistics.mean(int(x["flows"]) for x in rows)
    f["single_pct"] = 100.0 * f["single_decoded_flows"] / max(1, f["flows"])
    f["decoded_pct"] = 100.0 * f["decoded_flows"] / max(1, f["flows"])
    r["loss_pct"] = 100.0 * r["packets"]["dropped"] / r["packets"]["sent"]
    rs.append(r)
head("flowradar_k8.toml")
row("packets dropped, of those sent (%)", rs, "loss_pct", "{:.2f}", "0.1 % (ch. 5's same setup)")
row("flows per (epoch, switch)", rs, "flowradar.per_switch_epoch", "{:.1f}", "1K-1,000K")
row("flows at the busiest (epoch, switch)", rs, "flowradar.busiest", "{:.0f}")
row("SingleDecode: flows decoded (%)", rs, "flowradar.single_pct")
row("NetDecode: flows decoded (%)", rs, "flowradar.decoded_pct")
row("loss map: observable data drops (packets)", rs, "flowradar.loss_map_dropped_packets", "{:.0f}")
row("loss map: unobservable data drops (packets)", rs, "flowradar.loss_map_unobservable_drops", "{:.0f}")
row("loss map: precision (%)", rs, "flowradar.loss_map_precision_pct")
row("loss map: recall (%)", rs, "flowradar.loss_map_recall_pct")
row("loss map: drops reported within 20 ms (%)", rs, "flowradar.loss_map_within_20ms_pct", "{:.1f}", "> 57 %")
row("loss map: drops reported within 50 ms (%)", rs, "flowradar.loss_map_within_50ms_pct", "{:.1f}", "> 99 %")
row("black holes: (flow, switch) pairs with black-hole drops", rs, "flowradar.black_hole_true_pairs", "{:.0f}")
row("black holes: pairs reported", rs, "flowradar.black_hole_found_pairs", "{:.0f}")
row("black holes: precision (%)", rs, "flowradar.black_hole_precision_pct")
row("black holes: recall (%)", rs, "flowradar.black_hole_recall_pct")
row("black holes: found within 20 ms of the first drop (%)", rs, "flowradar.black_hole_within_20ms_pct", "{:.1f}", "within 20 ms")

rs = []
for s in range(1, seeds + 1):
    r = json.load(open(f"{out}/lossradar_k8/seed{s}/summary.json"))
    r["loss_pct"] = 100.0 * r["packets"]["dropped"] / r["packets"]["sent"]
    r["lossradar"]["switch_meter_kb"] = r["lossradar"]["switch_meter_bytes_max"] / 1000
    rs.append(r)
head("lossradar_k8.toml")
row("packets dropped, of those sent (%)", rs, "loss_pct", "{:.2f}", "0.1 %")
row("drops in the drop log (packets)", rs, "lossradar.dropped_packets", "{:.0f}")
row("listed and matched (%)", rs, "lossradar.detected_pct", "{:.2f}", "> 99.99 % (7.6 KB)")
row("failed digests, of those exported", rs, "lossradar.failed_digests", "{:.0f}")
row("exported digests", rs, "lossradar.exported_digests", "{:.0f}")
row("meter memory per switch (KB)", rs, "lossradar.switch_meter_kb", "{:.1f}", "243.2 KB")
paper = {"congestion": ("", ""), "random": ("> 97.6 %", "90.3 %"), "black_hole": ("100 %", "73.1 %")}
for c in ("congestion", "random", "black_hole"):
    row(f"{c}: true packets", rs, f"lossradar.classes.{c}.true_packets", "{:.0f}")
    row(f"{c}: precision (%)", rs, f"lossradar.classes.{c}.precision_pct", "{:.1f}", paper[c][0])
    row(f"{c}: recall (%)", rs, f"lossradar.classes.{c}.recall_pct", "{:.1f}", paper[c][1])
for i, f in enumerate(rs[0]["lossradar"]["faults"]):
    row(f"fault '{f['fault']}': dropped (packets)", rs, f"lossradar.faults.{i}.dropped_packets", "{:.0f}")
    row(f"fault '{f['fault']}': precision (%)", rs, f"lossradar.faults.{i}.precision_pct")
    row(f"fault '{f['fault']}': recall (%)", rs, f"lossradar.faults.{i}.recall_pct")
PY
