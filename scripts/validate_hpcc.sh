#!/usr/bin/env bash
# Runs the HPCC validation of docs/validation/hpcc.md: every HPCC scenario under HPCC, DCQCN,
# TIMELY, DCQCN+win, TIMELY+win and DCTCP, into out/validation/hpcc/<scenario>/<variant>/ (one
# sweep directory per variant, each with sweep.csv and sweep.html).
#   scripts/validate_hpcc.sh            the testbed scenarios (about 10 minutes on 2 cores)
#   scripts/validate_hpcc.sh --fattree  also the 320-host runs (about 20 minutes more)
set -euo pipefail
cd "$(dirname "$0")/.."
netasic=${NETASIC:-build/netasic}
[ -x "$netasic" ] || { echo "error: $netasic not found; run 'make' first" >&2; exit 1; }
out=out/validation/hpcc
scenarios=(incast long_short mice fairness nic_scheduler testbed_websearch testbed_fb_hadoop)
[ "${1:-}" = "--fattree" ] && scenarios+=(fattree320_websearch fattree320_fb_hadoop)
metrics=(--metric fct_slowdown.p99 --metric queue.peak_bytes --metric queue.p99_bytes --metric pfc.host_pause_time_s)

# DCTCP marks with a step at K = 30 KB x Bw/10G (HPCC's evaluation), not DCQCN's RED.
dctcp_ecn() {
  local rate k
  rate=$(sed -n 's/^host_rate = \([0-9.]*\).*/\1/p' "$1")
  k=$(awk -v r="$rate" 'BEGIN { printf "%g", 30 * r / 10 }')
  echo "--set ecn.kmin=[$k,$k,$k,$k,$k,$k,$k,$k] --set ecn.kmax=[$k,$k,$k,$k,$k,$k,$k,$k]"
}

for s in "${scenarios[@]}"; do
  file=scenarios/hpcc/$s.toml
  loads=(default)
  case $s in testbed_*|fattree320_*) loads=(0.3 0.5) ;; esac
  for load in "${loads[@]}"; do
    dir=$out/$s
    load_set=()
    if [ "$load" != default ]; then dir=$out/$s-load$load; load_set=(--set traffic.load=$load); fi
    echo "== $s ${load_set[*]}"
    "$netasic" sweep "$file" "${load_set[@]}" --grid cc.algorithm=hpcc,dcqcn,timely "${metrics[@]}" --out "$dir/base" --quiet
    "$netasic" sweep "$file" "${load_set[@]}" --grid cc.algorithm=dcqcn,timely --set cc.window=true "${metrics[@]}" --out "$dir/win" --quiet
    # shellcheck disable=SC2046
    "$netasic" sweep "$file" "${load_set[@]}" --grid cc.algorithm=dctcp $(dctcp_ecn "$file") "${metrics[@]}" --out "$dir/dctcp" --quiet
  done
done
echo "results: $out/*/{base,win,dctcp}/sweep.csv"
