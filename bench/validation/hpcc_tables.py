"""Prints the tables of docs/validation/hpcc.md's testbed sections from the sweeps that
bench/validation/hpcc.sh leaves in OUTDIR (each statistic: mean over the seeds with the min-max
in brackets). Usage: hpcc_tables.py OUTDIR"""

import csv
import os
import sys

from stats import load_sweep, nearest_rank, select, spread, table

LINE_RATE_MBPS = 25000  # the testbed's host links
KB = 1000.0

VARIANTS = [("HPCC", "base", "hpcc"), ("DCQCN", "base", "dcqcn"), ("TIMELY", "base", "timely"),
            ("DCQCN+win", "win", "dcqcn"), ("TIMELY+win", "win", "timely"), ("DCTCP", "dctcp", "dctcp")]


def probes(run, *columns):
    """time_us and the named probe columns of a run, as lists of floats."""
    with open(os.path.join(run.path, "probes.csv")) as f:
        rows = list(csv.DictReader(f))
    return [float(r["time_us"]) for r in rows], [[float(r[c]) for r in rows] for c in columns]


def flow_rows(run):
    with open(os.path.join(run.path, "flows.csv")) as f:
        return list(csv.DictReader(f))


def runs_of(out, name, variants=VARIANTS):
    """[(label, runs over the seeds)] for the variants whose sweep exists."""
    found = []
    for label, kind, algo in variants:
        d = os.path.join(out, f"{name}_{kind}")
        if os.path.exists(os.path.join(d, "sweep.csv")):
            found.append((label, select(load_sweep(d), cc__algorithm=algo)))
    return found


def incast_stats(run, start_us=10.0):
    """The receiver's ToR port (leaf0.port0 feeds host0): peak, when, when below 10% of the
    peak again, and the time above 20 KB, all from the queue-depth probe."""
    t, (q,) = probes(run, "leaf0.port0.qdepth_bytes")
    dt = t[1] - t[0]
    i = max(range(len(q)), key=q.__getitem__)
    below = next((t[j] for j in range(i, len(q)) if q[j] < 0.1 * q[i]), None)
    return {"peak": q[i] / KB, "peak_at": t[i] - start_us, "below": None if below is None else below - start_us,
            "above": sum(dt for x in q if x > 20 * KB)}


def incast(out):
    body = []
    for label, rs in runs_of(out, "incast"):
        st = [incast_stats(r) for r in rs]
        body.append([label] + [spread([s[k] for s in st], 3, u) for k, u in
                               [("peak", "KB"), ("peak_at", "µs"), ("below", "µs"), ("above", "µs")]])
    if not body:
        return
    print("### Incast: the receiver's ToR port (queue probe every 1 µs; times from the flows' start)\n")
    print(table(["", "peak", "peak at", "below 10% of peak at", "time above 20 KB"], body))


def long_short_stats(run):
    f = {r["src"]: r for r in flow_rows(run)}
    s_start = float(f["17"]["start_us"])
    s_end = s_start + float(f["17"]["fct_us"])
    l_end = float(f["9"]["start_us"]) + float(f["9"]["fct_us"])
    t, (rate,) = probes(run, "host9.tx_rate_Mbps")
    sharing = [x for ti, x in zip(t, rate) if s_start < ti <= s_end]
    # Back: the first 10 us window (5 samples) after the short flow's end whose mean rate is >= 95%.
    back = next((t[i] for i in range(len(t) - 4) if s_end < t[i] and t[i + 4] <= l_end
                 and sum(rate[i:i + 5]) / 5 >= 0.95 * LINE_RATE_MBPS), None)
    return sum(sharing) / len(sharing) / 1e3, None if back is None else back - s_end, l_end - s_end


def long_short(out):
    body = []
    for label, rs in runs_of(out, "long_short", VARIANTS[:3]):
        st = [long_short_stats(r) for r in rs]
        never = sum(1 for s in st if s[1] is None)
        back = spread([s[1] for s in st], 3, "µs")
        if never:
            back = f"{back}; in {never} of {len(st)} seeds not before the long flow ends " \
                   f"({spread([s[2] for s in st if s[1] is None], 3, 'µs')} later)"
        body.append([label, spread([s[0] for s in st], 3, "Gb/s"), back])
    if not body:
        return
    print("### Long and short flow (host9.tx_rate, 2 µs samples)\n")
    print(table(["", "long flow's rate while sharing", "back to 95% of line rate (10 µs mean) after the short flow ends"], body))


def mice(out):
    body = []
    for label, rs in runs_of(out, "mice"):
        fcts = [[float(r["fct_us"]) for r in flow_rows(run) if r["size_bytes"] == "1000"] for run in rs]
        body.append([label] + [spread([nearest_rank(v, p) for v in fcts], 3, "µs") for p in (50, 95, 99)])
    if not body:
        return
    print("### Mice: FCT of the 80 1 KB mice\n")
    print(table(["1 KB mice, 80 of them", "p50", "p95", "p99"], body))


def jain(x):
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def fairness_stats(run):
    """Jain's index over the mean rates of the active flows in each interval with 2, 3 and 4
    flows, skipping each interval's first 100 µs."""
    flows = sorted(flow_rows(run), key=lambda r: float(r["start_us"]))
    starts = [float(r["start_us"]) for r in flows]
    first_end = min(float(r["start_us"]) + float(r["fct_us"]) for r in flows)
    t, rates = probes(run, *[f"host{r['src']}.tx_rate_Mbps" for r in flows])
    out = []
    for n in (2, 3, 4):
        lo, hi = starts[n - 1] + 100, (starts[n] if n < 4 else first_end)
        means = [sum(x for ti, x in zip(t, rates[k]) if lo <= ti < hi) for k in range(n)]
        out.append(jain(means))
    return out


def fairness(out):
    body = []
    for label, rs in runs_of(out, "fairness", VARIANTS[:3]):
        st = [fairness_stats(r) for r in rs]
        body.append([label] + [spread([s[i] for s in st], 3) for i in range(3)])
    if not body:
        return
    print("### Fairness: Jain's index\n")
    print(table(["Jain's index", "2 flows", "3 flows", "4 flows"], body))


def testbed(out):
    body = []
    for w, wname in [("websearch", "WebSearch"), ("fb_hadoop", "FB_Hadoop")]:
        for load in ("0.3", "0.5"):
            for label, kind, algo in [v for v in VARIANTS if v[1] in ("base", "dctcp")]:
                d = os.path.join(out, f"testbed_{w}_{kind}")
                if not os.path.exists(os.path.join(d, "sweep.csv")):
                    continue
                rs = select(load_sweep(d), cc__algorithm=algo, traffic__load=load)
                body.append([f"{wname} {round(100 * float(load))}%", label,
                             spread([r.summary["fct_slowdown_by_size"][0]["p99"] for r in rs], 3),
                             spread([r.get("fct_slowdown.p99") for r in rs], 3),
                             spread([r.get("queue.p95_bytes") / KB for r in rs], 3, "KB"),
                             spread([r.get("queue.p99_bytes") / KB for r in rs], 3, "KB")])
    if not body:
        return
    print("### Testbed WebSearch and FB_Hadoop\n")
    print(table(["workload, load", "scheme", "p99 slowdown < 3 KB", "p99 slowdown, all", "queue p95", "queue p99"],
                body))


def fattree(out):
    """The 320-host fabric: short-flow tail, queues, and the long flows' median (what Sec. 2.6.3
    claims: short flows near the base RTT, more than 2x below DCTCP; long flows ~1.24x slower)."""
    body = []
    for w, wname in [("fb_hadoop", "FB_Hadoop"), ("websearch", "WebSearch")]:
        for load in ("0.3", "0.5"):
            for label, rs in runs_of(out, f"fattree320_{w}"):
                rs = [r for r in rs if r.params.get("traffic.load") == load]
                if not rs:
                    continue
                short = [r.summary["fct_slowdown_by_size"][0] for r in rs]  # < 3 KB
                long_ = [r.summary["fct_slowdown_by_size"][-1] for r in rs]  # >= 3 MB
                short_us = [nearest_rank([fct for size, fct, _, _ in r.flows if fct is not None and size < 3000], 95)
                            for r in rs]  # the paper's "95th-percentile latency" of short flows
                body.append([f"{wname} {round(100 * float(load))}%", label, spread(short_us, 3, "us"),
                             spread([b["p95"] for b in short], 3), spread([b["p99"] for b in short], 3),
                             spread([b["p50"] for b in long_], 3),
                             spread([r.get("queue.p95_bytes") / KB for r in rs], 3, "KB"),
                             spread([r.get("queue.p99_bytes") / KB for r in rs], 3, "KB")])
    if not body:
        return
    print("### The 320-host fabric\n")
    print(table(["workload, load", "scheme", "FCT < 3 KB p95", "slowdown < 3 KB p95", "p99",
                 "slowdown >= 3 MB p50", "queue p95", "queue p99"], body))


def main():
    out = sys.argv[1]
    for fn in (incast, long_short, mice, fairness, testbed, fattree):
        try:
            fn(out)
        except FileNotFoundError:
            continue
        print()


if __name__ == "__main__":
    main()
