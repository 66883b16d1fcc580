#!/usr/bin/env bash
# The Tput column of the Flattened Clos paper's Table 3 (§5): the max-concurrent-flow throughput
# per host, in host line rates, of the packet simulation's topologies, without the packet runs
# (those are fc_table3.sh). For wiring seeds 1..SEEDS (default 5) of
# scenarios/flattened_clos/table3_fc.toml (144 ToRs x (8 hosts + 24 fabric ports)) under up-down
# (FC, the scenario's k = 3 from Eq. 4, layers [6,12,6], and FC at k = 4, layers [4,8,8,4]: the
# paper does not say which k it used) and EDST (FC+EDST) paths, and for table3_clos.toml (no
# random wiring; only its uniform traffic varies), `netasic paths --throughput-gap GAP` brackets the throughput of all-to-all,
# uniform random over 12.5% of the ToRs (traffic seed = wiring seed) and the near-worst
# permutation between a feasible flow and a dual bound (Garg-Könemann; GAP defaults to 0.01).
# Prints a table of the feasible flow's throughput, mean (min-max) over the seeds, with the
# largest dual bound beside it.
#   bench/validation/fc_table3_tput.sh [BIN] [OUTDIR]
# A result file that exists is kept (delete it to solve again).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/netasic}
out=${2:-out/validation/fc_table3_tput}
seeds=${SEEDS:-5}
gap=${GAP:-0.01}
mkdir -p "$out"
[ -x "$bin" ] || { echo "error: $bin not found; build the netasic target first" >&2; exit 1; }

once() {   # once FILE SCENARIO SEED ARGS...: one `netasic paths` unless FILE is there
  local file=$1 scenario=$2 seed=$3
  shift 3
  [ -s "$file" ] && return
  "$bin" paths "$scenario" --throughput all_to_all --throughput "uniform:0.125:$seed" --throughput permutation \
    --throughput-gap "$gap" "$@" > "$file.tmp"
  mv "$file.tmp" "$file"
}

for s in $(seq 1 "$seeds"); do
  once "$out/fc_seed$s.txt" scenarios/flattened_clos/table3_fc.toml "$s" --set topology.seed="$s"
  once "$out/fc_k4_seed$s.txt" scenarios/flattened_clos/table3_fc.toml "$s" --set topology.seed="$s" --set "topology.layer_ports=[4,8,8,4]"
  once "$out/fc_edst_seed$s.txt" scenarios/flattened_clos/table3_fc.toml "$s" --set topology.seed="$s" --set topology.routing=edst
  once "$out/clos_seed$s.txt" scenarios/flattened_clos/table3_clos.toml "$s"
done
python3 - "$out" "$seeds" <<'PY'
import re, statistics, sys
out, seeds = sys.argv[1], int(sys.argv[2])
line = re.compile(r"throughput \(([^ ,]+)[^,]*, topology.routing = \S+\): ([0-9.]+) to ([0-9.]+) of host line rate per host.*? (\d+) phases, ([0-9.]+) s")
paper = {"fc": (1.49, 1.25, 0.55), "fc_k4": (1.49, 1.25, 0.55), "fc_edst": (0.48, 0.39, 0.16), "clos": (0.78, 0.78, 0.78)}
names = {"fc": "FC, k = 3", "fc_k4": "FC, k = 4", "fc_edst": "FC+EDST", "clos": "Clos"}
traffics = ("all_to_all", "uniform:0.125", "permutation")
print("| setup | traffic | paper | model: feasible flow, mean (min-max) | dual bound, largest | model / paper | solve time (s), mean |")
print("|---|---|---|---|---|---|---|")
for setup in ("fc", "fc_k4", "fc_edst", "clos"):
    got = {m: [] for m in traffics}
    for s in range(1, seeds + 1):
        for m in line.finditer(open(f"{out}/{setup}_seed{s}.txt").read()):
            got[m.group(1)].append((float(m.group(2)), float(m.group(3)), float(m.group(5))))
    for i, t in enumerate(traffics):
        lo = [g[0] for g in got[t]]
        mean = statistics.mean(lo)
        print(f"| {names[setup]} | {t} | {paper[setup][i]:.2f} | {mean:.3f} ({min(lo):.3f}-{max(lo):.3f}) | "
              f"{max(g[1] for g in got[t]):.3f} | {mean / paper[setup][i]:.2f} | {statistics.mean(g[2] for g in got[t]):.1f} |")
PY
