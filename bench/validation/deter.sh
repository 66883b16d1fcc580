#!/usr/bin/env bash
# Regenerates docs/validation/deter.md's figures over 5 seeds: each scenario of scenarios/deter/
# is recorded (sim.seed = seed, th = 5 us) and replayed into the same fabric (deter.clock_seed =
# seed), then the tables are printed (mean with the min-max over the seeds).
#   bench/validation/deter.sh [BIN] [OUTDIR]
# BIN defaults to build/netasic, OUTDIR to out/validation/deter. SEEDS overrides 5 seeds. A run
# whose summary.json exists is kept (delete its directory to run it again).
#   testbed:  replay with a 0.5 us clock error (PTP, "100s of nanoseconds"), drop rule on
#   fat tree: replay with a 5 us clock error (the chapter's [0, 5] us), with and without the rule
#   testbed_tcp: the testbed with TCP DCTCP hosts (1500-byte IP packets), replayed as the testbed
#   fattree_tcp, fattree_newreno: the fat tree with TCP hosts under DCTCP and under NewReno
#   testbed_clock: the testbed under Sundial, recorded with true time or the hosts' clocks
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/netasic}
out=${2:-out/validation/deter}
seeds=${SEEDS:-5}

once() {   # once DIR ARGS...: one run unless its summary is there
  local dir=$1
  shift
  [ -f "$dir/summary.json" ] || "$bin" run "$@" --quiet --out "$dir"
}

for s in $(seq 1 "$seeds"); do
  for name in testbed fattree_websearch; do
    f=scenarios/deter/$name.toml
    rec=$out/$name/seed$s/record
    once "$rec" "$f" --set sim.seed="$s"
    err=5
    [ "$name" = testbed ] && err=0.5
    for rule in true false; do
      [ "$name" = testbed ] && [ "$rule" = false ] && continue
      once "$out/$name/seed$s/replay_rule_$rule" "$f" --set sim.seed="$s" --set deter.mode=replay \
        --set deter.record="$rec/deter.rec" --set deter.clock_error=$err --set deter.clock_seed="$s" \
        --set deter.drop_rule=$rule
    done
  done
done

# The testbed with the paper's transport: TCP hosts under DCTCP (MSS 1460: 1500-byte IP packets).
tcp=(--set nic.transport=tcp --set tcp.cc=dctcp --set cc.algorithm=none --set nic.mtu=1460)
f=scenarios/deter/testbed.toml
for s in $(seq 1 "$seeds"); do
  rec=$out/testbed_tcp/seed$s/record
  once "$rec" "$f" "${tcp[@]}" --set sim.seed="$s"
  once "$out/testbed_tcp/seed$s/replay_rule_true" "$f" "${tcp[@]}" --set sim.seed="$s" \
    --set deter.mode=replay --set deter.record="$rec/deter.rec" --set deter.clock_error=0.5 \
    --set deter.clock_seed="$s" --set deter.drop_rule=true
done

# The fat tree with TCP hosts, replayed as the fat tree, with and without the drop rule: DCTCP as
# on the testbed (fattree_tcp), and NewReno, which ignores ECN (fattree_newreno).
f=scenarios/deter/fattree_websearch.toml
for cc in dctcp newreno; do
  name=fattree_tcp
  [ $cc = newreno ] && name=fattree_newreno
  for s in $(seq 1 "$seeds"); do
    rec=$out/$name/seed$s/record
    once "$rec" "$f" "${tcp[@]}" --set tcp.cc=$cc --set sim.seed="$s"
    for rule in true false; do
      once "$out/$name/seed$s/replay_rule_$rule" "$f" "${tcp[@]}" --set tcp.cc=$cc --set sim.seed="$s" \
        --set deter.mode=replay --set deter.record="$rec/deter.rec" --set deter.clock_error=5 \
        --set deter.clock_seed="$s" --set deter.drop_rule=$rule
    done
  done
done

# The testbed with the clock layer running Sundial: the record stamped with true time (exact) or
# with each host's Sundial clock (deter.clock = clock_layer), each replayed with no added error.
f=scenarios/deter/testbed.toml
clk=(--set clock.algorithm=sundial)
for s in $(seq 1 "$seeds"); do
  for stamp in exact clock_layer; do
    rec=$out/testbed_clock/seed$s/record_$stamp
    once "$rec" "$f" "${clk[@]}" --set sim.seed="$s" --set deter.clock=$stamp
    once "$out/testbed_clock/seed$s/replay_$stamp" "$f" "${clk[@]}" --set sim.seed="$s" --set deter.mode=replay \
      --set deter.record="$rec/deter.rec" --set deter.clock_error=0 --set deter.drop_rule=true
  done
done

python3 -B bench/validation/deter_tables.py "$out"
