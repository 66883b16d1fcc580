#!/usr/bin/env python3
"""Tables of docs/validation/deter.md from bench/validation/deter.sh's run directories:
mean (min-max) over the seeds of the replay's queue difference and drop error, and of the
record's size against a full capture."""
import json
import sys
from pathlib import Path


def spread(values, fmt="{:.2f}"):
    if not values:
        return "-"
    m = sum(values) / len(values)
    return f"{fmt.format(m)} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def load(p):
    return json.loads(p.read_text())["deter"] if p.exists() else None


def main(out):
    out = Path(out)
    for name in ("testbed", "testbed_tcp", "fattree_websearch", "fattree_tcp", "fattree_newreno"):
        seeds = sorted((out / name).glob("seed*"))
        if not seeds:
            continue
        rec = [load(s / "record" / "summary.json") for s in seeds]
        rec = [r for r in rec if r]
        print(f"## {name} ({len(seeds)} seeds)\n")
        print("| replay | qdiff avg (MTU) | qdiff p99 (MTU) | drop error (%) | false accepts (% of run drops) | false drops (%) | wrong location (%) |")
        print("|---|---|---|---|---|---|---|")
        for rule in ("true", "false"):
            reps = [load(s / f"replay_rule_{rule}" / "summary.json") for s in seeds]
            reps = [r for r in reps if r]
            if not reps:
                continue
            print(f"| drop rule {'on' if rule == 'true' else 'off'}, clock error {reps[0]['clock_error_us']:g} us | "
                  f"{spread([r['qdiff_avg_mtu'] for r in reps])} | {spread([r['qdiff_p99_mtu'] for r in reps])} | "
                  f"{spread([100 * r['drop_error'] for r in reps])} | "
                  f"{spread([100 * r['false_accepts_of_run_drops'] for r in reps])} | "
                  f"{spread([100 * r['false_drops_of_run_drops'] for r in reps])} | "
                  f"{spread([100 * r['wrong_location_of_run_drops'] for r in reps])} |")
        print()
        print("| record | bytes/host/s | full capture bytes/host/s | record / capture (%) | samples / packets (%) | run drops | drops found by IP_ID gaps |")
        print("|---|---|---|---|---|---|---|")
        drops = [json.loads((s / "record" / "summary.json").read_text())["packets"]["dropped"] for s in seeds]
        print(f"| th = {rec[0]['th_us']:g} us | {spread([r['record_bytes_per_host_per_s'] for r in rec], '{:.0f}')} | "
              f"{spread([r['pcap_bytes_per_host_per_s'] for r in rec], '{:.3g}')} | "
              f"{spread([r['record_over_pcap_percent'] for r in rec], '{:.3f}')} | "
              f"{spread([100 * r['samples'] / r['packets'] for r in rec], '{:.2f}')} | "
              f"{spread(drops, '{:.0f}')} | {spread([r['drops_detected'] for r in rec], '{:.0f}')} |\n")
    clock_table(out)


def clock_table(out):
    seeds = sorted((out / "testbed_clock").glob("seed*"))
    if not seeds:
        return
    print(f"## testbed under Sundial ({len(seeds)} seeds)\n")
    print("| record stamped with | host clock error, max (ns) | qdiff avg (MTU) | qdiff p99 (MTU) | qdiff max (MTU) |")
    print("|---|---|---|---|---|")
    for stamp in ("exact", "clock_layer"):
        rec = [load(s / f"record_{stamp}" / "summary.json") for s in seeds]
        rep = [load(s / f"replay_{stamp}" / "summary.json") for s in seeds]
        print(f"| {stamp} | {spread([r['clock_error_max_ns'] for r in rec], '{:.0f}')} | "
              f"{spread([r['qdiff_avg_mtu'] for r in rep])} | {spread([r['qdiff_p99_mtu'] for r in rep], '{:.1f}')} | "
              f"{spread([r['qdiff_max_mtu'] for r in rep], '{:.0f}')} |")
    print()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/validation/deter")
