#!/usr/bin/env bash
# Regenerates docs/validation/flattened-clos.md's path statistics over N (the Flattened Clos
# paper's Table 2, 32-port ToRs: h = 14, s = 18): for each N and wiring seed 1..SEEDS,
# `netasic paths` with topology.routing = edst, which prints the up-down, shortest-path and EDST
# path statistics of one wiring; then fc_paths_tables.py prints the tables (mean and min-max over
# the seeds, beside the paper) and draws the plot (OUTDIR/fc_paths.svg, gnuplot).
#   bench/validation/fc_paths.sh [BIN] [OUTDIR]
# BIN defaults to build/netasic, OUTDIR to out/validation/fc_paths. TORS overrides the sizes
# (default 50 100 200 300 500), SEEDS the 5 seeds. Layers as Table 2: k = 4, [3,6,6,3] up to 300
# ToRs, k = 5, [2,4,4,5,3] at 500. PORTS=64 runs the 64-port setting of Tables 1 and 7 instead
# (h = 24, s = 40; default N = 500 with k = 3 [10,20,10] and k = 4 [7,13,13,7]; K overrides the
# k's; ROUTING=shortest_path leaves EDST out and holds no paths: the up-down statistics are
# summed pair by pair, on every core, so N = 3000 takes about 7 minutes on two). EDST_ONLY=1 runs EDST
# alone (`--routed-only`, Table 7; files *_edst.txt): the up-down statistics, a min-cost flow per
# pair, are most of a run's time, and EDST alone takes 80 s and 0.4 GB at N = 2000. SAMPLE=P
# estimates the up-down statistics from P ToR pairs drawn at random (`--sample-pairs`, each mean
# with its 95% confidence interval; files *_sample.txt), for N and k whose every pair takes hours,
# and leaves the installed routes out (`--updown-only`: 6.5 s instead of 135 s at N = 3000).
# UPDOWN_ONLY=1 computes the up-down statistics of every pair and nothing else (`--updown-only`;
# files *_updown.txt): N = 5000 at k = 4 takes about 16 minutes on two cores.
# WIRING=per_layer draws the wirings as the builder first did (topology.wiring: two ToRs may be
# cabled again in another layer pair; the default, simple, cables no two ToRs twice); OUTDIR then
# defaults to out/validation/fc_paths_per_layer, so the two wirings' results stay apart.
# A result file that exists is kept (delete it to run it again).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/netasic}
wiring=${WIRING:-simple}
case $wiring in
  simple) out=${2:-out/validation/fc_paths} ;;
  per_layer) out=${2:-out/validation/fc_paths_per_layer} ;;
  *) echo "error: WIRING is simple or per_layer, not $wiring" >&2; exit 1 ;;
esac
seeds=${SEEDS:-5}
ports=${PORTS:-32}
routing=${ROUTING:-edst}
only=() suffix=
if [ "${EDST_ONLY:-0}" = 1 ]; then routing=edst only=(--routed-only) suffix=_edst; fi
if [ "${UPDOWN_ONLY:-0}" = 1 ]; then
  [ "${EDST_ONLY:-0}" = 1 ] && { echo "error: EDST_ONLY=1 and UPDOWN_ONLY=1 ask for opposite halves of the report" >&2; exit 1; }
  routing=shortest_path only=(--updown-only) suffix=_updown
fi
if [ -n "${SAMPLE:-}" ]; then
  [ "${EDST_ONLY:-0}" = 1 ] && { echo "error: EDST_ONLY=1 and SAMPLE=$SAMPLE: EDST-only runs have no up-down statistics to sample" >&2; exit 1; }
  routing=shortest_path only=(--updown-only --sample-pairs "$SAMPLE") suffix=_sample
fi
[ -x "$bin" ] || { echo "error: $bin not found; build the netasic target first" >&2; exit 1; }
case $ports in
  32) tors=${TORS:-50 100 200 300 500} fabric=18 hosts=14 ;;
  64) tors=${TORS:-500} fabric=40 hosts=24 ;;
  *) echo "error: PORTS is 32 or 64, not $ports" >&2; exit 1 ;;
esac
mkdir -p "$out"

layers_of() {   # layers_of K: the paper's port vector (the builder's even spread of Eq. 4)
  case $ports/$1 in
    32/4) echo "[3,6,6,3]" ;;  32/5) echo "[2,4,4,5,3]" ;;
    64/3) echo "[10,20,10]" ;; 64/4) echo "[7,13,13,7]" ;; 64/5) echo "[5,10,10,10,5]" ;;
    *) echo "error: no layer vector for $ports ports and k = $1" >&2; exit 1 ;;
  esac
}

for n in $tors; do
  if [ "$ports" = 32 ]; then ks=$([ "$n" -ge 500 ] && echo 5 || echo 4); else ks=${K:-3 4}; fi
  for k in $ks; do
    layers=$(layers_of "$k")
    for s in $(seq 1 "$seeds"); do
      file="$out/p${ports}_n${n}_k${k}_seed${s}${suffix}.txt"
      [ -s "$file" ] && continue
      echo "== $ports ports, N = $n, k = $k, seed $s" >&2
      start=$EPOCHREALTIME
      "$bin" paths scenarios/clos/fc_table2.toml "${only[@]}" --set topology.tors="$n" --set topology.seed="$s" \
        --set topology.fabric_ports="$fabric" --set topology.hosts_per_tor="$hosts" \
        --set topology.layer_ports="$layers" --set topology.routing="$routing" --set topology.wiring="$wiring" > "$file.tmp"
      awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "wall time: %.1f s\n", b - a }' >> "$file.tmp"
      mv "$file.tmp" "$file"
    done
  done
done
python3 bench/validation/fc_paths_tables.py "$out"
