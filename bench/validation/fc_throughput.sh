#!/usr/bin/env bash
# Regenerates docs/validation/flattened-clos.md's throughput and EDST tables: the Flattened Clos
# paper's §4.2 comparison (Fig. 7, Table 2) at N = 50 ToRs (32-port ToRs, layers [3,6,6,3]) over
# 5 wiring seeds. For each seed and routing (updown = FC, edst, ksp = 32 shortest paths,
# shortest_path = ECMP's paths), `netasic paths --throughput` solves the max-concurrent-flow LP
# for the near-worst permutation, uniform random with 10% of ToRs (traffic seed = wiring seed)
# and all-to-all; then the tables are printed (mean with the min-max over the seeds). The Clos
# baseline (scenarios/clos/clos_fc50.toml: the same hosts on a Clos sized by Appendix A.3) has no
# random wiring; its uniform traffic takes each seed as the FC's does.
#   bench/validation/fc_throughput.sh [BIN] [OUTDIR]
# BIN defaults to build/netasic, OUTDIR to out/validation/fc_throughput (fc_throughput_nN for
# TORS=N other than 50). SEEDS overrides 5 seeds, TORS the 50 ToRs (layers [3,6,6,3] up to 300,
# [2,4,4,5,3] from 500, as Table 2); the Clos baseline is sized for 50 ToRs and runs only there.
# GAP=G brackets each throughput within G by Garg-Könemann (`--throughput-gap`) instead of
# GLPK's exact LP: seconds instead of minutes. A result file that exists is kept (delete it to
# solve again).
# All-to-all LPs are large (up to 78k columns for KSP): GLPK takes minutes each, so they run last;
# ALL_TO_ALL=0 leaves them out. WIRING=per_layer draws the FC wirings as the builder first did
# (topology.wiring; two ToRs may be cabled twice), with OUTDIR out/validation/fc_throughput_per_layer.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/netasic}
seeds=${SEEDS:-5}
tors=${TORS:-50}
wiring=${WIRING:-simple}
case $wiring in
  simple) default_out=out/validation/fc_throughput ;;
  per_layer) default_out=out/validation/fc_throughput_per_layer ;;
  *) echo "error: WIRING is simple or per_layer, not $wiring" >&2; exit 1 ;;
esac
[ "$tors" = 50 ] || default_out=${default_out}_n$tors
out=${2:-$default_out}
layers=$([ "$tors" -ge 500 ] && echo "[2,4,4,5,3]" || echo "[3,6,6,3]")
gap=()
[ -n "${GAP:-}" ] && gap=(--throughput-gap "$GAP")
routings="updown edst ksp shortest_path"
[ "$tors" = 50 ] && routings="$routings clos"
mkdir -p "$out"

once() {   # once FILE ROUTING SEED TRAFFIC...: one `netasic paths` unless FILE is there (routing clos: the Clos)
  local file=$1 routing=$2 seed=$3
  shift 3
  local args=()
  for t in "$@"; do args+=(--throughput "$t"); done
  args+=("${gap[@]}")
  [ -s "$file" ] && return
  if [ "$routing" = clos ]; then "$bin" paths scenarios/clos/clos_fc50.toml "${args[@]}" > "$file.tmp"
  else "$bin" paths scenarios/clos/fc_table2.toml --set topology.tors="$tors" --set topology.seed="$seed" \
    --set topology.layer_ports="$layers" --set topology.routing="$routing" --set topology.wiring="$wiring" "${args[@]}" > "$file.tmp"; fi
  mv "$file.tmp" "$file"
}

passes="fast all_to_all"
[ "${ALL_TO_ALL:-1}" = 0 ] && passes=fast
for pass in $passes; do
  for s in $(seq 1 "$seeds"); do
    for r in $routings; do
      if [ $pass = fast ]; then once "$out/${r}_seed${s}_fast.txt" "$r" "$s" permutation "uniform:0.1:$s"
      else once "$out/${r}_seed${s}_a2a.txt" "$r" "$s" all_to_all; fi
    done
  done
done
python3 bench/validation/fc_throughput_tables.py "$out"
