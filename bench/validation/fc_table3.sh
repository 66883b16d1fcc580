#!/usr/bin/env bash
# The Flattened Clos paper's packet simulation (§5, Table 3): FC (up-down), FC+EDST and the Clos
# baseline, each under the three traffic matrices (all-to-all, uniform random over 12.5% of the
# ToRs, near-worst permutation), over SEEDS seeds (default 5: sim.seed, and the FC wiring's
# topology.seed). Runs scenarios/flattened_clos/table3_fc.toml and table3_clos.toml; prints per
# cell the FCT (p50 and p99, us) and the FCT slowdown (p50, p99), mean with min-max over the
# seeds, and the PFC pause frames; then FC and the Clos under the near-worst permutation at load
# 0.7 (the paper's Fig. 14d); then FC and FC+EDST under the near-worst permutation with 6 ms of
# arrivals instead of 2 (an overloaded fabric's FCTs grow with the window); then FC and FC+EDST
# at k = 4 (fc_k4, fc_edst_k4).
#   bench/validation/fc_table3.sh [BIN] [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validation/fc_table3
source bench/validation/sweep_common.sh
for s in $(seq 1 "$seeds"); do
  for m in all_to_all uniform:0.125 permutation; do
    once "$out/fc/$m/seed$s" scenarios/flattened_clos/table3_fc.toml --set sim.seed="$s" --set topology.seed="$s" --set traffic.matrix="$m"
    once "$out/fc_edst/$m/seed$s" scenarios/flattened_clos/table3_fc.toml --set sim.seed="$s" --set topology.seed="$s" \
      --set traffic.matrix="$m" --set topology.routing=edst
    once "$out/clos/$m/seed$s" scenarios/flattened_clos/table3_clos.toml --set sim.seed="$s" --set traffic.matrix="$m"
  done
  # Fig. 14d: the near-worst permutation at load 0.7, FC against the Clos.
  once "$out/fc/permutation_load0.7/seed$s" scenarios/flattened_clos/table3_fc.toml --set sim.seed="$s" \
    --set topology.seed="$s" --set traffic.matrix=permutation --set traffic.load=0.7
  once "$out/clos/permutation_load0.7/seed$s" scenarios/flattened_clos/table3_clos.toml --set sim.seed="$s" \
    --set traffic.matrix=permutation --set traffic.load=0.7
  # Is FC+EDST's near-worst overloaded? Then its FCTs grow with the arrival window: 6 ms, not 2.
  once "$out/fc/permutation_6ms/seed$s" scenarios/flattened_clos/table3_fc.toml --set sim.seed="$s" \
    --set topology.seed="$s" --set traffic.matrix=permutation --set sim.duration=6000
  once "$out/fc_edst/permutation_6ms/seed$s" scenarios/flattened_clos/table3_fc.toml --set sim.seed="$s" \
    --set topology.seed="$s" --set traffic.matrix=permutation --set sim.duration=6000 --set topology.routing=edst
  # k = 4 ([4,8,8,4]), which the Tput column points to as the paper's (Eq. 4 gives the scenario's 3).
  for m in all_to_all uniform:0.125 permutation; do
    once "$out/fc_k4/$m/seed$s" scenarios/flattened_clos/table3_fc.toml --set sim.seed="$s" --set topology.seed="$s" \
      --set traffic.matrix="$m" --set 'topology.layer_ports=[4,8,8,4]'
    once "$out/fc_edst_k4/$m/seed$s" scenarios/flattened_clos/table3_fc.toml --set sim.seed="$s" --set topology.seed="$s" \
      --set traffic.matrix="$m" --set 'topology.layer_ports=[4,8,8,4]' --set topology.routing=edst
  done
done
python3 - "$out" "$seeds" <<'PY'
import csv, json, statistics, sys
out, seeds = sys.argv[1], int(sys.argv[2])
def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]
def cell(vals, fmt="{:.0f}"):
    return f"{fmt.format(statistics.mean(vals))} ({fmt.format(min(vals))}-{fmt.format(max(vals))})"
print("| setup | traffic | flows completed | FCT p50 (us) | FCT p99 (us) | slowdown p50 | slowdown p99 | PFC pauses sent | runs deadlocked |")
print("|---|---|---|---|---|---|---|---|---|")
cells = [(setup, m) for setup in ("fc", "fc_edst", "clos") for m in ("all_to_all", "uniform:0.125", "permutation")]
cells += [("fc", "permutation_load0.7"), ("clos", "permutation_load0.7"), ("fc", "permutation_6ms"), ("fc_edst", "permutation_6ms")]
cells += [(setup, m) for setup in ("fc_k4", "fc_edst_k4") for m in ("all_to_all", "uniform:0.125", "permutation")]
for setup, m in cells:
    done, p50, p99, s50, s99, pauses, locked = [], [], [], [], [], [], 0
    for s in range(1, seeds + 1):
        d = f"{out}/{setup}/{m}/seed{s}"
        j = json.load(open(f"{d}/summary.json"))
        fct = [float(r["fct_us"]) for r in csv.DictReader(open(f"{d}/flows.csv")) if r["fct_us"]]
        done.append(100.0 * j["flows"]["completed"] / max(1, j["flows"]["total"]))
        p50.append(pct(fct, 0.5)); p99.append(pct(fct, 0.99))
        s50.append(j["fct_slowdown"]["p50"]); s99.append(j["fct_slowdown"]["p99"])
        pauses.append(j["pfc"]["pause_frames_sent"])
        locked += j["pfc"]["deadlock"]["detected"]
    print(f"| {setup} | {m} | {cell(done, '{:.1f}')}% | {cell(p50)} | {cell(p99)} | {cell(s50, '{:.2f}')} | "
          f"{cell(s99, '{:.2f}')} | {cell(pauses)} | {locked} of {seeds} |")
PY
