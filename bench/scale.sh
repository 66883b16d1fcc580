#!/usr/bin/env bash
# Scale benchmark: fat trees k = 8, 16, 24, 32 and 48 (each at 100G, WebSearch at 30 % load, the
# same simulated span) beside the bare SystemC baseline (bench/bare_hops.cpp: one timed
# notification and one method activation per hop, no other work) at the same directed-port count,
# measured in the same run, one process at a time. Per size: packet-hops per wall second in
# sc_start, peak resident memory (/usr/bin/time -v), set-up time (from the process's start to
# its first output file, config.toml, less the time in sc_start: parsing, route planning,
# building the fabric, gathering the records) and the time writing the outputs (config.toml to
# summary.json, which is written last).
# Writes out/bench-scale/scale.csv and scale.svg (gnuplot) and prints the table.
# Usage: bench/scale.sh [path/to/netasic] ; SPAN=us of flow arrivals (default 100), KS="8 16 ..."
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/netasic}
bare=$(dirname "$exe")/bare_hops
span=${SPAN:-100}
ks=${KS:-"8 16 24 32 48"}
out=out/bench-scale
mkdir -p "$out"
csv=$out/scale.csv
echo "k,hosts,switches,directed_ports,sim_span_us,packet_hops,sim_wall_s,packet_hops_per_s,peak_memory_mib,setup_s,outputs_s,bare_tokens,bare_hops_per_s,bare_peak_memory_mib,ratio_to_bare,status" > "$csv"

# Wall seconds and peak resident KiB of a command, from /usr/bin/time -v, as "ELAPSED KIB RC".
timed() {
  local log=$1
  shift
  local rc=0
  /usr/bin/time -v -o "$log.time" "$@" > "$log" 2>&1 || rc=$?
  python3 - "$log.time" "$rc" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
e = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", t)
secs = (int(e.group(1) or 0) * 3600 + int(e.group(2)) * 60 + float(e.group(3))) if e else float("nan")
m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", t)
print(f"{secs:.3f} {m.group(1) if m else 0} {sys.argv[2]}")
PY
}

for k in $ks; do
  hosts=$((k * k * k / 4))
  switches=$((5 * k * k / 4))
  ports=$((3 * k * k * k / 2))     # host-edge, edge-agg, agg-core: k^3/4 links each, two directions
  tokens=$((16 * hosts))           # the baseline's packets in flight: 16 per host
  dir=$out/k$k
  rm -rf "$dir"
  echo "== k=$k: $hosts hosts, $switches switches, $ports directed ports, $span us"
  t0=$(date +%s.%N)
  read -r _ kib rc < <(timed "$dir.log" "$exe" run scenarios/fat_tree_k8.toml --quiet --out "$dir" \
    --set topology.k="$k" --set 'topology.failed_links=[]' --set sim.duration="$span" --set sim.drain=0)
  bkib=0 brc=skipped   # no baseline beside a fabric the model refused
  : > "$out/bare_k$k.log"
  [ "$rc" != 0 ] ||
    read -r _ bkib brc < <(timed "$out/bare_k$k.log" "$bare" "$ports" "$tokens" "$(python3 -c "print($span / 1000)")")
  python3 - "$csv" "$k" "$hosts" "$switches" "$ports" "$span" "$dir" "$t0" "$kib" "$rc" "$tokens" \
    "$out/bare_k$k.log" "$bkib" "$brc" "$dir.log" <<'PY'
import json, os, sys
csv, k, hosts, switches, ports, span, d, t0, kib, rc, tokens, blog, bkib, brc, log = sys.argv[1:]
bare = json.loads(open(blog).read().strip().splitlines()[-1]) if brc == "0" else {}
bhps = bare.get("hops_per_s", float("nan"))
if rc == "0":
    s = json.load(open(f"{d}/summary.json"))
    hops, wall, hps = s["packet_hops"], s["wall_time_s"], s["packet_hops_per_s"]
    first, last = (os.stat(f"{d}/{f}").st_mtime for f in ("config.toml", "summary.json"))
    row = [k, hosts, switches, ports, span, hops, f"{wall:.3f}", f"{hps:.0f}", f"{int(kib) / 1024:.1f}",
           f"{first - float(t0) - wall:.3f}", f"{last - first:.3f}", tokens, f"{bhps:.0f}", f"{int(bkib) / 1024:.1f}", f"{hps / bhps:.3f}", "ok"]
else:   # refused or failed: the first line of its error as the status
    why = next((l for l in open(log).read().splitlines() if "rror" in l or "refused" in l), f"exit {rc}")
    row = [k, hosts, switches, ports, span, "", "", "", f"{int(kib) / 1024:.1f}", "", "", tokens, f"{bhps:.0f}",
           f"{int(bkib) / 1024:.1f}", "", '"' + why.replace('"', "'")[:200] + '"']
open(csv, "a").write(",".join(map(str, row)) + "\n")
PY
done

column -s, -t < "$csv" | cut -c1-220
if command -v gnuplot >/dev/null; then
  gnuplot <<EOF
set terminal svg size 1500,450 noenhanced
set output "$out/scale.svg"
set datafile separator ","
set key autotitle columnhead
set multiplot layout 1,3 title "fat trees, WebSearch 30 %, $span us of arrivals"
set logscale x 2
set xlabel "hosts"
set ylabel "M packet-hops per wall second"
plot "$csv" using 2:(\$8/1e6) with linespoints title "netasic", "" using 2:(\$13/1e6) with linespoints title "bare SystemC, same ports"
set ylabel "peak memory (MiB)"
plot "$csv" using 2:9 with linespoints title "netasic", "" using 2:14 with linespoints title "bare SystemC"
set ylabel "wall time (s)"
plot "$csv" using 2:10 with linespoints title "set-up (before the first packet)", "" using 2:11 with linespoints title "writing the outputs"
unset multiplot
EOF
  echo "wrote $csv and $out/scale.svg"
fi
