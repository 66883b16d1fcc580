"""Prints docs/validation/hpcc.md's W_AI table from the sweep bench/validation/hpcc_wai.sh leaves.

The window: from 300 us (the initial burst of 16 x W_init has drained) to the end of the first
flow. In it: the receiver port's queue (sampled every 1 us: p95, p99, mean), its utilisation, the
senders' total rate over 4 us windows (p5-p95) and Jain's index of the senders' mean rates.
Usage: hpcc_wai.py SWEEPDIR"""

import csv
import os
import sys

from stats import load_sweep, nearest_rank, sig, spread, table

QUEUE = "leaf0.port0.qdepth_bytes"
UTIL = "leaf0.port0.utilization_%"
START_US = 300.0
RATE_WINDOW = 4   # samples of 1 us


def figures(run):
    with open(os.path.join(run.path, "flows.csv")) as f:
        first_end = min(float(r["start_us"]) + float(r["fct_us"]) for r in csv.DictReader(f))
    with open(os.path.join(run.path, "probes.csv")) as f:
        rows = [r for r in csv.DictReader(f) if START_US <= float(r["time_us"]) <= first_end]
    senders = [c for c in rows[0] if c.endswith(".tx_rate_Mbps") and c != "host0.tx_rate_Mbps"]
    q = sorted(float(r[QUEUE]) for r in rows)
    total = [sum(float(r[c]) for c in senders) / 1e3 for r in rows]   # Gbps
    windows = sorted(sum(total[i:i + RATE_WINDOW]) / RATE_WINDOW
                     for i in range(0, len(total) - RATE_WINDOW + 1, RATE_WINDOW))
    means = [sum(float(r[c]) for r in rows) / len(rows) for c in senders]
    return {"p95": nearest_rank(q, 95) / 1e3, "p99": nearest_rank(q, 99) / 1e3, "mean": sum(q) / len(q) / 1e3,
            "util": sum(float(r[UTIL]) for r in rows) / len(rows) / 100,
            "rate": (nearest_rank(windows, 5), nearest_rank(windows, 95)),
            "jain": sum(means) ** 2 / (len(means) * sum(m * m for m in means))}


def main():
    runs = load_sweep(sys.argv[1])
    body = []
    for wai in sorted({int(r.params["hpcc.w_ai"]) for r in runs}):
        fs = [figures(r) for r in runs if int(r.params["hpcc.w_ai"]) == wai]
        body.append([f"{wai} B", spread([f["p95"] for f in fs], 3, "KB"), spread([f["p99"] for f in fs], 3, "KB"),
                     spread([f["mean"] for f in fs], 2, "KB"), spread([f["util"] for f in fs], 3),
                     "-".join(f"{sig(min(f['rate'][i] for f in fs), 3)}" for i in (0, 1)) + " Gbps",
                     spread([f["jain"] for f in fs], 2)])
    print(table(["W_AI", "p95 queue", "p99", "mean", "utilisation", "total rate p5-p95", "Jain"], body))


if __name__ == "__main__":
    main()
