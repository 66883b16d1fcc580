#!/usr/bin/env bash
# Regenerates the comparisons of docs/validation/hpcc.md's sections on the testbed (incast,
# long/short, mice, fairness, WebSearch and FB_Hadoop) over 5 seeds (sim.seed 1..5), then prints
# their tables (mean with the min-max over the seeds).
#   bench/validation/hpcc.sh [BIN] [OUTDIR] [SWEEP...]
# BIN defaults to build/netasic, OUTDIR to out/validation/hpcc. With SWEEP names, only those
# sweeps run; a sweep whose sweep.csv exists is kept (delete its directory to run it again).
# SEEDS and JOBS override 5 seeds and -j2; SCALE multiplies the testbed runs' span of arrivals.
# FATTREE=1 adds the 320-host runs (Sec. 2.6.3: 24 runs a seed, about 15 minutes a seed on 2
# cores); naming one of their sweeps (fattree320_websearch_base, ...) runs it too.
#
# Variants: HPCC, DCQCN and TIMELY as configured (base), DCQCN and TIMELY with a window of one
# BDP (win), DCTCP with step marking at K = 30 KB x Bw/10G (HPCC's evaluation). The testbed
# runs take 25 ms of arrivals, half the shipped scenarios' 50 ms. The W_AI incast has its own
# section and command on the page.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validation/hpcc
. bench/validation/sweep_common.sh

# DCTCP marks with a step at K = 30 KB x Bw/10G (HPCC's evaluation), not DCQCN's RED.
dctcp_ecn() {
  local k
  k=$(awk -v r="$(sed -n 's/^host_rate = \([0-9.]*\).*/\1/p' "$1")" 'BEGIN { printf "%g", 30 * r / 10 }')
  echo "--set ecn.kmin=[$k,$k,$k,$k,$k,$k,$k,$k] --set ecn.kmax=[$k,$k,$k,$k,$k,$k,$k,$k]"
}

# All six variants of one scenario: NAME_base, NAME_win, NAME_dctcp.
variants() {
  local name=$1 file=$2
  shift 2
  sweep "${name}_base" "$file" "$@" --grid cc.algorithm=hpcc,dcqcn,timely
  sweep "${name}_win" "$file" "$@" --set cc.window=true --grid cc.algorithm=dcqcn,timely
  # shellcheck disable=SC2046
  sweep "${name}_dctcp" "$file" "$@" $(dctcp_ecn "$file") --grid cc.algorithm=dctcp
}

s=scenarios/hpcc
variants incast $s/incast.toml
sweep long_short_base $s/long_short.toml --grid cc.algorithm=hpcc,dcqcn,timely
variants mice $s/mice.toml
sweep fairness_base $s/fairness.toml --grid cc.algorithm=hpcc,dcqcn,timely
span=$(awk -v s="$scale" 'BEGIN { printf "sim.duration=%d", 25000 * s }')
for w in websearch fb_hadoop; do
  sweep "testbed_${w}_base" $s/testbed_$w.toml --set "$span" --grid cc.algorithm=hpcc,dcqcn,timely \
    --grid traffic.load=0.3,0.5
  # shellcheck disable=SC2046
  sweep "testbed_${w}_dctcp" $s/testbed_$w.toml --set "$span" $(dctcp_ecn $s/testbed_$w.toml) \
    --grid cc.algorithm=dctcp --grid traffic.load=0.3,0.5
done

if [ "${FATTREE:-0}" = 1 ] || [[ $only == *" fattree320_"* ]]; then
  for w in websearch fb_hadoop; do
    variants "fattree320_$w" $s/fattree320_$w.toml --grid traffic.load=0.3,0.5
  done
fi

python3 -B bench/validation/hpcc_tables.py "$out"
