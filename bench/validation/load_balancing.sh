#!/usr/bin/env bash
# Regenerates every comparison of docs/validation/load-balancing.md: each point over 5 seeds
# (sim.seed 1..5), then prints the page's tables (mean with the min-max over the seeds).
#   bench/validation/load_balancing.sh [BIN] [OUTDIR] [SWEEP...]
# BIN defaults to build/netasic, OUTDIR to out/validation/lb. With SWEEP names, only those
# sweeps run (the tables are printed for every sweep present). A sweep whose sweep.csv exists is
# kept; delete its directory to run it again. SEEDS and JOBS override 5 seeds and -j2; SCALE
# multiplies every span of arrivals (SCALE=0.1 for a quick check of the script).
#
# The spans of flow arrivals are half the shipped scenarios' (LetFlow testbed 50 ms,
# BurstBalancer testbed 10 ms, BurstBalancer leaf-spine 5 ms, Flowcut fat tree 1 ms), so the
# whole page runs in about half an hour of one core; every run still drains until its last flow ends.
# The *_tcp sweeps rerun two comparisons with the papers' transport (the page's "With TCP").
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validation/lb
. bench/validation/sweep_common.sh
span() { awk -v us="$1" -v s="$scale" 'BEGIN { printf "sim.duration=%d", us * s }'; }

lf=scenarios/lb/letflow_testbed.toml
bbt=scenarios/lb/burstbalancer_testbed.toml
bbl=scenarios/lb/burstbalancer_leafspine.toml
fc=scenarios/lb/flowcut_fattree.toml
sizes=16,64,256,1024,4096,65536

sweep letflow "$lf" --set "$(span 50000)" \
  --grid lb.mode=ecmp,conga,letflow --grid traffic.load=0.05,0.15,0.25,0.35,0.45
sweep bb_testbed_flow "$bbt" --set "$(span 10000)" \
  --grid lb.mode=ecmp,conga,letflow --grid traffic.load=0.3,0.5,0.8
sweep bb_testbed_sketch "$bbt" --set "$(span 10000)" \
  --grid lb.mode=wcmp,balance_sketch --grid traffic.load=0.3,0.5,0.8
sweep bb_leafspine_flow "$bbl" --set "$(span 5000)" --grid lb.mode=ecmp,letflow
sweep bb_leafspine_sketch "$bbl" --set "$(span 5000)" --grid lb.mode=balance_sketch
sweep flowcut_healthy "$fc" --set "$(span 1000)" --grid flowcut.form=off,nic,ingress,switch
sweep flowcut_failed "$fc" --set "$(span 1000)" --set 'topology.failed_links=["agg0-core0", "edge5-agg5"]' \
  --grid flowcut.form=off,nic,ingress,switch
sweep flowcut_degraded "$fc" --set "$(span 1000)" --set 'topology.degraded_links=["agg0-core0=10", "edge5-agg5=10"]' \
  --grid flowcut.form=off,nic,ingress,switch
sweep sizing_letflow "$bbt" --set "$(span 10000)" --set traffic.load=0.8 \
  --grid lb.mode=letflow --grid lb.flowlet.entries=$sizes
sweep sizing_sketch "$bbt" --set "$(span 10000)" --set traffic.load=0.8 \
  --grid lb.mode=balance_sketch --grid lb.sketch.buckets=$sizes
sweep timeout_letflow "$bbt" --set "$(span 10000)" --set traffic.load=0.8 \
  --grid lb.mode=letflow --grid lb.flowlet.timeout=5,15,50,150,500
sweep timeout_sketch "$bbt" --set "$(span 10000)" --set traffic.load=0.8 \
  --set lb.sketch.flow_timeout=3000 --set lb.sketch.timestamp_bits=16 \
  --grid lb.mode=balance_sketch --grid lb.sketch.flowlet_timeout=2,5,15,50,200

# With TCP, as both papers' testbeds: TCP NewReno hosts (no DCQCN) on a lossy fabric (no PFC;
# NewReno's frames are not ECT, so the ECN marking touches none), LetFlow's TCP flowlet timeout
# of 500 us (NSDI'17, chosen with Fig. 8) and BurstBalancer's simulation's delta = 200 us, Delta =
# 50 ms (its Figs. 14-15). LetFlow at two paper loads (30%, 60%) only. A drain of up to 2 s lets flows
# that lost packets end after their RTOs back off (200 ms minimum; one flow needs 1 s); probes
# every 100 us keep the longer runs' probe memory in bounds.
tcp=(--set nic.transport=tcp --set tcp.cc=newreno --set cc.algorithm=none
  --set 'pfc.priorities=[]' --set sim.drain=2000000 --set sim.probe_interval=100)
sweep letflow_tcp "$lf" --set "$(span 50000)" "${tcp[@]}" --set lb.flowlet.timeout=500 \
  --grid lb.mode=ecmp,conga,letflow --grid traffic.load=0.15,0.3
sweep bb_leafspine_tcp "$bbl" --set "$(span 5000)" "${tcp[@]}" --set lb.sketch.flowlet_timeout=200 \
  --set lb.sketch.flow_timeout=50000 --set lb.sketch.timestamp_bits=16 --grid lb.mode=ecmp,balance_sketch

python3 -B bench/validation/load_balancing_tables.py "$out"
