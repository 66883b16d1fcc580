#!/usr/bin/env bash
# Cosimulation speed: every block's lockstep bench at 10^6 cycles, at its defaults and at its
# second parameter set (rtl/bench_sets.txt), with the core alone and the RTL alone measured in
# the same run as baselines; then each RTL-in-the-loop block's fabric run beside the same run on
# the core (wall time of the whole process and of the simulation, ROUNDS rounds of core then RTL,
# default 3: the ratios are the median round's, with the range, since this kind of machine's speed
# moves by tens of per cent within minutes).
# Usage: bench/cosim.sh [path/to/netasic] [cycles] ; ROUNDS=n
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/netasic}
cycles=${2:-1000000}
out=out/bench-cosim
mkdir -p "$out"

echo "Lockstep benches, $cycles cycles, seed 1 (Mcycles/s):"
printf '  %-18s %-44s %8s %8s %9s\n' block parameters core RTL lockstep
while read -r block rest; do
  sets=("")
  if line=$(grep -E "^$block[[:space:]]" rtl/bench_sets.txt); then
    read -r _ params <<<"$line"
    sets+=("$params")
  fi
  for set in "${sets[@]}"; do
    args=()
    for p in $set; do args+=(-p "$p"); done
    log="$out/$block${set:+_set2}.txt"
    "$exe" cosim "$block" --cycles "$cycles" "${args[@]}" >"$log" 2>&1
    python3 - "$log" "$block" "${set:-defaults}" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rate = lambda what: float(re.search(what + r"\s+([0-9.]+) Mcycles/s", text).group(1))
if "every output equal in every cycle" not in text:
    sys.exit(f"{sys.argv[2]}: the bench did not pass:\n{text}")
print(f"  {sys.argv[2]:18s} {sys.argv[3]:44s} {rate('core alone'):8.2f} {rate('RTL alone'):8.2f} {rate('lockstep'):9.2f}")
PY
  done
done < <(grep -E '^[a-z_]+[[:space:]]+bench' rtl/blocks.txt)

# RTL in the loop: the scenario each block's system test runs (testbenches/system/test_rtl.cpp),
# but for reciprocal_table the whole demo: the small one makes 19 k divisions, too few to time
# beside start-up; the demo makes 1.4 M.
small_leaf_spine=(--set topology.leaves=2 --set topology.spines=4 --set topology.hosts_per_leaf=8 --set sim.duration=200
                  --set 'traffic.flows=[]' --set sim.probe_interval=20)
bb=(scenarios/lb/burstbalancer_leafspine.toml --set topology.leaves=2 --set topology.spines=4 --set topology.hosts_per_leaf=8
    --set sim.duration=300)
declare -A scenario=(
  [flowlet_table]="scenarios/demo.toml ${small_leaf_spine[*]}"
  [crc_hash]="scenarios/demo.toml ${small_leaf_spine[*]}"
  [reciprocal_table]="scenarios/demo.toml"
  [balance_sketch]="${bb[*]}"
  [stateful_alu]="scenarios/telemetry/flowradar.toml --set sim.duration=10000 --set telemetry.flowradar_epoch=2"
  [sundial_unit]="scenarios/sundial/root_failure.toml --set sim.duration=1800 --set 'clock.faults=[\"root @ 1000\"]' --set clock.controller_delay=500"
)
# Blocks that more than one kind of run puts in the loop get a row for each of the others too: the
# stateful ALU answers FlowRadar above (an execution read per packet, the rest posted), and here
# every LossRadar meter (all posted) and BalanceSketch's registers (every execution read, 4 cycles).
declare -A more=(
  [stateful_alu]="on LossRadar|scenarios/telemetry/lossradar.toml
on BalanceSketch|scenarios/lb/burstbalancer_leafspine.toml --set lb.sketch.form=stateful_alu --set sim.duration=1000"
)
wall() {   # seconds of wall time for one run, the simulation's own (summary.json wall_time_s), the RTL's
          # cycles clocked, and those its adapter stepped over as quiet
  local t0 t1
  t0=$(date +%s.%N)
  eval "\"$exe\" run $1 --quiet --out \"$out/loop\"" >/dev/null 2>&1 || { echo "run failed: $1" >&2; exit 1; }
  t1=$(date +%s.%N)
  python3 - "$out/loop/summary.json" "$t1" "$t0" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
blocks = s.get("rtl_in_loop", {}).values()
cycles = sum(b["cycles"] for b in blocks)
quiet = sum(b["quiet_cycles_skipped"] for b in blocks)
print(f"{float(sys.argv[2]) - float(sys.argv[3]):.2f},{s['wall_time_s']:.3f},{cycles},{quiet}")
PY
}
rounds=${ROUNDS:-3}
echo
echo "RTL in the loop, $rounds rounds each of the core's run then the RTL's: wall time of the whole"
echo "process (s) and of the simulation alone (summary.json wall_time_s, without start-up, outputs and"
echo "plots), medians, and the median round's ratio with the range over the rounds; the RTL's clock"
echo "cycles clocked and those stepped over as quiet (summary.json rtl_in_loop), and the simulation time"
echo "the RTL added per cycle clocked (medians):"
printf '  %-18s %6s %6s %17s   %8s %8s %19s %12s %12s %11s\n' block core RTL "ratio (range)" "sim core" "sim RTL" \
  "ratio (range)" "clocked" "stepped over" "added/cycle"
time_block() {   # label, scenario: ROUNDS rounds of the core's run then the RTL's, one row
  local label=$1 s=$2 block=$3 runs=() c r
  for _ in $(seq 1 "$rounds"); do
    c=$(wall "$s")
    r=$(wall "$s --rtl $block")
    runs+=("$c" "$r")
  done
  python3 - "$label" "${runs[@]}" <<'PY'
import statistics, sys
b = sys.argv[1]
v = [tuple(map(float, a.split(","))) for a in sys.argv[2:]]
core, rtl = v[0::2], v[1::2]
med = lambda xs: statistics.median(xs)
whole = [r[0] / c[0] for c, r in zip(core, rtl)]
sim = [r[1] / c[1] for c, r in zip(core, rtl)]
n, quiet = rtl[0][2], rtl[0][3]
# Under 10^6 cycles the RTL adds less than the runs' spread: no figure a cycle.
added = f"{(med([r[1] for r in rtl]) - med([c[1] for c in core])) / n * 1e9:5.0f} ns" if n >= 1e6 else "    -   "
span = lambda xs: f"x{med(xs):.1f} ({min(xs):.1f}-{max(xs):.1f})"
print(f"  {b:18s} {med([c[0] for c in core]):6.2f} {med([r[0] for r in rtl]):6.2f} {span(whole):>17s}"
      f"   {med([c[1] for c in core]):8.3f} {med([r[1] for r in rtl]):8.3f} {span(sim):>19s} {n / 1e6:10.2f} M"
      f" {quiet / 1e6:10.2f} M {added:>11}")
PY
}
while read -r block _; do
  s=${scenario[$block]:-}
  [ -n "$s" ] || { echo "  $block: no scenario in bench/cosim.sh" >&2; exit 1; }
  time_block "$block" "$s" "$block"
  while IFS='|' read -r label extra; do
    if [ -n "$label" ]; then time_block "  $label" "$extra" "$block"; fi
  done <<<"${more[$block]:-}"
done < <(grep -E '^[a-z_]+[[:space:]].*loop' rtl/blocks.txt)
