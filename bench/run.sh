#!/usr/bin/env bash
# LS128 benchmark: netasic's packet-hops per wall second beside a bare SystemC baseline (one
# timed notification and one method activation per hop, no other work) measured in the same
# run on the same machine, in ROUNDS rounds (default 3) of the baseline then netasic, so both
# see the same load. Prints each round and the median ratio with its range.
# Usage: bench/run.sh [path/to/netasic] ; ROUNDS=n
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/netasic}
bare=$(dirname "$exe")/bare_hops
rounds=${ROUNDS:-3}
out=out/bench
rm -rf "$out"
mkdir -p "$out"

echo "== $rounds rounds: bare SystemC (320 ports, LS128's directed links; 8192 packets in flight; 5 ms), then netasic LS128"
for r in $(seq 1 "$rounds"); do
  "$bare" 320 8192 5 > "$out/bare_$r.json"
  "$exe" run bench/ls128.toml --quiet --out "$out/ls128_$r"
  python3 - "$out" "$r" <<'PY'
import json, sys
d, r = sys.argv[1:]
s = json.load(open(f"{d}/ls128_{r}/summary.json"))
b = json.load(open(f"{d}/bare_{r}.json"))
print(f"round {r}: bare {b['hops_per_s']/1e6:6.2f} M hops/s, netasic {s['packet_hops_per_s']/1e6:6.2f} M packet-hops/s, "
      f"ratio {s['packet_hops_per_s']/b['hops_per_s']:.3f}", flush=True)
PY
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
runs = [(json.load(open(f"{d}/ls128_{r}/summary.json")), json.load(open(f"{d}/bare_{r}.json"))) for r in range(1, n + 1)]
s = runs[0][0]
hps = [x["packet_hops_per_s"] / 1e6 for x, _ in runs]
bare = [b["hops_per_s"] / 1e6 for _, b in runs]
ratio = [x["packet_hops_per_s"] / b["hops_per_s"] for x, b in runs]
peak = max(x["peak_memory_bytes"] for x, _ in runs) / 2**20
span = lambda v, f: f"{statistics.median(v):{f}} (range {min(v):{f}} to {max(v):{f}})"
print(f"LS128: {s['packet_hops']} packet-hops in {s['sim_time_s']*1e3:.3f} ms simulated, {n} rounds, medians")
print(f"  netasic  {span(hps, '.2f')} M packet-hops/s, peak memory {peak:.1f} MiB")
print(f"  baseline {span(bare, '.2f')} M hops/s (bare SystemC, no model work)")
print(f"  ratio    {span(ratio, '.3f')} of the bare-kernel rate, round by round")
PY
