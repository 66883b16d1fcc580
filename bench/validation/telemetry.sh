#!/usr/bin/env bash
# Regenerates docs/validation/telemetry.md's fault figures over 5 seeds (sim.seed 1-5); the
# decode-against-cells table comes from bench/validation/flowradar.sh.
#   lossradar:  scenarios/telemetry/lossradar.toml as shipped (1% drop on core0 -> agg0, a black
#               hole edge1=host3 from 1.5 ms, congestion), with FlowRadar on beside LossRadar
#               (1 ms epochs as LossRadar's batches, 256 cells, an 8 Kib filter): both scored
#               against the same drop log
#   flowradar:  scenarios/telemetry/flowradar.toml (10 ms epochs, the thesis's slot) with 1% drops
#               on agg0 -> core0 and edge2 -> agg2 and a black hole agg1=host15 from the start
#   *_hosts:    the same two with FlowRadar at the host NICs too (telemetry.flowradar_hosts)
#   loop:       scenarios/telemetry/flowradar_loop.toml (the thesis's §4.6.1 test: a transient loop
#               from 10 ms, a black hole from 20 ms), hosts counting, LossRadar beside FlowRadar
# Printed: mean with min-max over the seeds, and the per-seed values.
#   bench/validation/telemetry.sh [BIN] [OUTDIR]
# BIN defaults to build/netasic, OUTDIR to out/validation/telemetry; SEEDS overrides 5. A run
# whose summary.json exists is kept (delete its directory to run it again).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validation/telemetry
source bench/validation/sweep_common.sh


for s in $(seq 1 "$seeds"); do
  once "$out/lossradar/seed$s" scenarios/telemetry/lossradar.toml --set sim.seed="$s" \
    --set telemetry.flowradar=true --set telemetry.flowradar_epoch=1 --set telemetry.flowradar_cells=256 \
    --set telemetry.flowradar_filter_bits=8192
  once "$out/flowradar/seed$s" scenarios/telemetry/flowradar.toml --set sim.seed="$s" \
    --set 'faults.link_drop=["agg0-core0=0.01", "edge2-agg2=0.01"]' --set 'faults.black_hole=["agg1=host15"]'
  once "$out/lossradar_hosts/seed$s" scenarios/telemetry/lossradar.toml --set sim.seed="$s" \
    --set telemetry.flowradar=true --set telemetry.flowradar_epoch=1 --set telemetry.flowradar_cells=256 \
    --set telemetry.flowradar_filter_bits=8192 --set telemetry.flowradar_hosts=true
  once "$out/flowradar_hosts/seed$s" scenarios/telemetry/flowradar.toml --set sim.seed="$s" \
    --set 'faults.link_drop=["agg0-core0=0.01", "edge2-agg2=0.01"]' --set 'faults.black_hole=["agg1=host15"]' \
    --set telemetry.flowradar_hosts=true
  once "$out/loop/seed$s" scenarios/telemetry/flowradar_loop.toml --set sim.seed="$s" \
    --set telemetry.flowradar_hosts=true --set telemetry.lossradar=true
done

python3 - "$out" "$seeds" <<'PY'
import json, statistics, sys
out, seeds = sys.argv[1], int(sys.argv[2])

def runs(name):
    return [json.load(open(f"{out}/{name}/seed{s}/summary.json")) for s in range(1, seeds + 1)]

def get(s, dotted):
    for p in dotted.split("."):
        s = s[int(p)] if isinstance(s, list) else s.get(p) if s is not None else None
    return s

def row(label, rs, dotted, fmt="{:.1f}"):
    v = [get(r, dotted) for r in rs]
    have = [x for x in v if x is not None]
    per = ", ".join("-" if x is None else fmt.format(x) for x in v)
    if not have:
        print(f"| {label} | - | {per} |")
        return
    m = statistics.mean(have)
    print(f"| {label} | {fmt.format(m)} ({fmt.format(min(have))}-{fmt.format(max(have))}) | {per} |")

for name, title in (("lossradar", "lossradar.toml, LossRadar and FlowRadar side by side"),
                    ("flowradar", "flowradar.toml with two lossy links and a black hole"),
                    ("lossradar_hosts", "lossradar.toml as above, FlowRadar at the hosts too"),
                    ("flowradar_hosts", "flowradar.toml as above, FlowRadar at the hosts too"),
                    ("loop", "flowradar_loop.toml: a transient loop and a black hole (§4.6.1), hosts counting")):
    rs = runs(name)
    print(f"\n## {title}\n\n| figure | mean (min-max) | seeds 1-{seeds} |\n|---|---|---|")
    if name in ("lossradar", "lossradar_hosts", "loop"):
        row("drops in the drop log (packets)", rs, "lossradar.dropped_packets", "{:.0f}")
        row("LossRadar: listed and matched (%)", rs, "lossradar.detected_pct")
        row("LossRadar: failed digests", rs, "lossradar.failed_digests", "{:.0f}")
        for c in ("congestion", "random", "black_hole", "loop"):
            row(f"LossRadar {c}: true packets", rs, f"lossradar.classes.{c}.true_packets", "{:.0f}")
            row(f"LossRadar {c}: precision (%)", rs, f"lossradar.classes.{c}.precision_pct")
            row(f"LossRadar {c}: recall (%)", rs, f"lossradar.classes.{c}.recall_pct")
        for i, f in enumerate(rs[0]["lossradar"]["faults"]):
            row(f"LossRadar fault '{f['fault']}': recall (%)", rs, f"lossradar.faults.{i}.recall_pct")
    fr = [("flows per switch-epoch decoded (%)", None),
          ("loss map: observable data drops (packets)", "loss_map_dropped_packets"),
          ("loss map: unobservable data drops (packets)", "loss_map_unobservable_drops"),
          ("loss map: segments with drops", "loss_map_true_segments"),
          ("loss map: precision (%)", "loss_map_precision_pct"),
          ("loss map: recall (%)", "loss_map_recall_pct"),
          ("loss map: exact count, of segments with drops (%)", None),
          ("loss map: segments with drops in open flowlets or undecoded", "loss_map_undecoded_true_segments"),
          ("loss map: segments with drops reported lossless", "loss_map_missed_segments"),
          ("loss map: drops reported within 20 ms (%)", "loss_map_within_20ms_pct"),
          ("loss map: drops reported within 50 ms (%)", "loss_map_within_50ms_pct"),
          ("black holes: (flow, switch) pairs with black-hole drops", "black_hole_true_pairs"),
          ("black holes: precision (%)", "black_hole_precision_pct"),
          ("black holes: recall (%)", "black_hole_recall_pct"),
          ("black holes: found within 20 ms of the first drop (%)", "black_hole_within_20ms_pct"),
          ("loops: flows that looped", "loop_true_flows"),
          ("loops: flows reported", "loop_found_flows"),
          ("loops: precision (%)", "loop_precision_pct"),
          ("loops: recall (%)", "loop_recall_pct"),
          ("loops: found within 10 ms of the first return (%)", "loop_within_10ms_pct"),
          ("loss map: looped flowlets set apart", "loss_map_looped_flowlets")]
    for r in rs:
        f = r["flowradar"]
        f["decoded_pct"] = 100.0 * f["decoded_flows"] / max(1, f["flows"])
        f["exact_pct"] = 100.0 * f["loss_map_exact_segments"] / max(1, f["loss_map_true_segments"])
    for label, key in fr:
        key = key or ("decoded_pct" if "decoded" in label else "exact_pct")
        fmt = "{:.1f}" if key.endswith("pct") else "{:.0f}"
        row("FlowRadar " + label, rs, "flowradar." + key, fmt)
PY
