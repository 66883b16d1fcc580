#!/usr/bin/env bash
# Instructions per packet-hop in LS128, counted (Valgrind's callgrind), not timed: the same count
# on every run of one build, so a change to the per-hop path shows as a number that does not
# move with the machine's load. LS128 runs twice, over SHORT and LONG microseconds of arrivals
# (default 300 and 600); the difference between the two runs, over the difference in hops, is
# the cost of a hop without the run's fixed set-up and output. The same for the bare SystemC
# baseline (bench/bare_hops.cpp), and the functions that take the most instructions per hop.
# A count is not a time: see docs/performance.md, part 11. Takes about a minute.
# Usage: bench/instructions.sh [path/to/netasic] ; SHORT=us LONG=us TOP=n
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-build/netasic}
bare=$(dirname "$exe")/bare_hops
short=${SHORT:-300}
long=${LONG:-600}
top=${TOP:-15}
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
  echo "bench/instructions.sh: needs Valgrind (Debian package valgrind: sudo apt-get install valgrind)" >&2
  exit 1
fi
if ! [[ $short =~ ^[0-9]+$ && $long =~ ^[0-9]+$ ]] || (( short < 1 || long <= short )); then
  echo "bench/instructions.sh: SHORT and LONG are microseconds with 0 < SHORT < LONG (got SHORT=$short LONG=$long)" >&2
  exit 1
fi
if ! [[ $top =~ ^[0-9]+$ ]] || (( top < 1 )); then
  echo "bench/instructions.sh: TOP is how many functions to list, at least 1 (got TOP=$top)" >&2
  exit 1
fi
for x in "$exe" "$bare"; do
  [[ -x $x ]] || { echo "bench/instructions.sh: $x is not built (make build, or name the netasic binary beside bare_hops)" >&2; exit 1; }
done
out=out/bench_instructions
rm -rf "$out"
mkdir -p "$out"

count() {   # count NAME COMMAND...: runs under callgrind, prints the instructions executed
  local name=$1; shift
  if ! valgrind --tool=callgrind --callgrind-out-file="$out/$name.callgrind" "$@" > "$out/$name.stdout" 2> "$out/$name.log"; then
    echo "bench/instructions.sh: $* failed under callgrind; its output is in $out/$name.log" >&2
    exit 1
  fi
  sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$out/$name.log"
}

for us in "$short" "$long"; do
  sed "s/^duration = [0-9]*/duration = $us/" bench/ls128.toml > "$out/ls128_$us.toml"
  echo "netasic LS128, $us us of arrivals, under callgrind ..." >&2
  count "netasic_$us" "$exe" run "$out/ls128_$us.toml" --quiet --out "$out/run_$us" > "$out/netasic_$us.ir"
  echo "bare SystemC, $us us, under callgrind ..." >&2
  count "bare_$us" "$bare" 320 8192 "$(python3 -c "print($us / 1000)")" > "$out/bare_$us.ir"
done

python3 - "$out" "$short" "$long" "$top" <<'PY'
import json, re, subprocess, sys
d, short, long_, top = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ir = lambda name: int(open(f"{d}/{name}.ir").read().split()[0])
hops = {us: json.load(open(f"{d}/run_{us}/summary.json"))["packet_hops"] for us in (short, long_)}
bare_hops = {us: json.load(open(f"{d}/bare_{us}.stdout"))["hops"] for us in (short, long_)}
dh, dbh = hops[long_] - hops[short], bare_hops[long_] - bare_hops[short]
per_hop = (ir(f"netasic_{long_}") - ir(f"netasic_{short}")) / dh
bare_per_hop = (ir(f"bare_{long_}") - ir(f"bare_{short}")) / dbh
print(f"LS128, {short} and {long_} us of arrivals: {hops[short]} and {hops[long_]} packet-hops")
print(f"  netasic  {per_hop:7.0f} instructions a packet-hop (the two runs' difference)")
print(f"  baseline {bare_per_hop:7.0f} instructions a hop (bare SystemC, {bare_hops[short]} and {bare_hops[long_]} hops)")
print(f"  ratio    {per_hop / bare_per_hop:.3f} (netasic's count over the baseline's)")

def functions(name):
    text = subprocess.run(["callgrind_annotate", f"{d}/{name}.callgrind"], capture_output=True, text=True, check=True).stdout
    f = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(\S.*?)(?: \[.*\])?$", line)
        if m and "PROGRAM TOTALS" not in m.group(2):
            f[m.group(2)] = f.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return f
a, b = functions(f"netasic_{short}"), functions(f"netasic_{long_}")
rows = sorted(((b.get(k, 0) - a.get(k, 0)) / dh, k) for k in set(a) | set(b))[::-1][:top]
print(f"  the {top} functions with the most instructions a packet-hop (their own and what is inlined into them, not their calls'):")
for n, k in rows:
    k = re.sub(r"^\?\?\?:", "", k)
    print(f"  {n:7.1f}  {k[:110]}")
PY
