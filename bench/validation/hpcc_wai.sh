#!/usr/bin/env bash
# Regenerates docs/validation/hpcc.md's W_AI tables (thesis Sec. 2.6.4, Fig. 2.14b): the 16-to-1
# incast of scenarios/hpcc/wai_incast.toml at W_AI = 25, 50, 100, 150, 200 and 300 B, with eta =
# 0.95 (wai) and with eta = 0.95 x 1104/1124, the paper's headroom once Ethernet's preamble and
# inter-frame gap are paid (wai_same_headroom), then the queue, utilisation, rate and fairness
# figures of each. The run draws no random numbers, so one seed is every seed (SEEDS overrides 1).
# About 20 s of wall time.
#   bench/validation/hpcc_wai.sh [BIN] [OUTDIR]
# BIN defaults to build/netasic, OUTDIR to out/validation/hpcc_wai.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validation/hpcc_wai
SEEDS=${SEEDS:-1}
. bench/validation/sweep_common.sh
sweep wai scenarios/hpcc/wai_incast.toml --grid hpcc.w_ai=25,50,100,150,200,300
sweep wai_same_headroom scenarios/hpcc/wai_incast.toml --set hpcc.eta=0.9331 --grid hpcc.w_ai=25,50,100,150,200,300
for s in wai wai_same_headroom; do
  echo "### $s"
  python3 -B bench/validation/hpcc_wai.py "$out/$s"
done
