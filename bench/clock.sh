#!/usr/bin/env bash
# Clock-layer benchmark: LS128 (5 ms of WebSearch at 50 %) with the clock layer off (the
# baseline, measured in the same run), with Sundial, and with Sundial beside PTP+DTP+eps, whose
# 5 us interval puts 7 M sync frames per second on the fabric. Prints each run's wall time and
# its ratio to the baseline. Usage: bench/clock.sh [path/to/netasic]
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/netasic}
out=out/bench-clock
mkdir -p "$out"
run() {   # NAME, then --set arguments
  local name=$1
  shift
  "$exe" run bench/ls128.toml --quiet --out "$out/$name" "$@"
}
run off
run sundial --set clock.algorithm=sundial --set clock.root=spine0
run sundial_ptp_fast --set clock.algorithm=sundial --set clock.root=spine0 --set 'clock.baselines=["ptp_fast"]'
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
base = json.load(open(f"{d}/off/summary.json"))
print(f"LS128, {base['sim_time_s']*1e3:.1f} ms simulated, {base['packet_hops']} packet-hops")
for name in ("off", "sundial", "sundial_ptp_fast"):
    s = json.load(open(f"{d}/{name}/summary.json"))
    msgs = sum(s["clock"][a]["messages"] for a in s["clock"]["algorithms"]) if "clock" in s else 0
    print(f"  {name:17s} {s['wall_time_s']:6.2f} s wall  x{s['wall_time_s']/base['wall_time_s']:.2f}  "
          f"{msgs} sync-messages, {s['packet_hops']} packet-hops")
PY
