#!/usr/bin/env bash
# LS128 benchmark: netasic's packet-hops per wall second beside a bare SystemC baseline (one
# timed notification and one method activation per hop, no other work) measured in the same
# run on the same machine. Usage: bench/run.sh [path/to/netasic]
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/netasic}
bare=$(dirname "$exe")/bare_hops
out=out/bench
mkdir -p "$out"

echo "== baseline: bare SystemC, 320 ports (LS128's directed links), 8192 packets in flight, 5 ms"
"$bare" 320 8192 5 | tee "$out/bare.json"
echo "== netasic: LS128"
"$exe" run bench/ls128.toml --quiet --out "$out/ls128"
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
s = json.load(open(f"{d}/ls128/summary.json"))
b = json.load(open(f"{d}/bare.json"))
rss = s["peak_memory_bytes"] / 1024
print(f"LS128: {s['packet_hops']} packet-hops in {s['sim_time_s']*1e3:.3f} ms simulated, "
      f"{s['wall_time_s']:.2f} s wall")
print(f"  netasic  {s['packet_hops_per_s']/1e6:7.2f} M packet-hops/s, peak memory {rss/1024:.1f} MiB")
print(f"  baseline {b['hops_per_s']/1e6:7.2f} M hops/s (bare SystemC, no model work)")
print(f"  ratio    {s['packet_hops_per_s']/b['hops_per_s']:.2f} of the bare-kernel rate")
PY
