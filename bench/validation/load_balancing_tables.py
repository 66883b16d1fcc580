"""Prints the tables of docs/validation/load-balancing.md from the sweeps that
bench/validation/load_balancing.sh leaves in OUTDIR (each statistic: mean over the seeds with
the min-max in brackets). Usage: load_balancing_tables.py OUTDIR"""

import math
import os
import sys

from stats import load_sweep, ratio, select, spread, table

SMALL, LARGE = 100e3, 10e6  # bytes: LetFlow's and BurstBalancer's "small" and "large" flows
FLOWLET_PORT_BITS = 8       # flowlet_config::port_bits (docs/datasheets/flowlet_table.md)


def grid_table(runs, rows, cols, stat, unit="", digits=3, corner="load"):
    """rows: [(label, {param: value})], cols likewise; one cell per (row, col)."""
    body = []
    for rlabel, rp in rows:
        cells = [rlabel]
        for _, cp in cols:
            rs = select(runs, **rp, **cp)
            cells.append(spread([stat(r) for r in rs], digits, unit))
        body.append(cells)
    return table([corner] + [c for c, _ in cols], body)


def mean_fct(r):
    return r.mean_fct_ms()


def p95_fct(r):
    return r.fct_percentile_ms(95)


def p99_fct(r):
    return r.fct_percentile_ms(99)


def p99_slowdown(r):
    return r.get("fct_slowdown.p99")


def small_fct(r):
    return r.mean_fct_ms(0, SMALL)


def medium_fct(r):
    return r.mean_fct_ms(SMALL, LARGE)


def large_fct(r):
    return r.mean_fct_ms(LARGE, math.inf)


def letflow_bits(r):
    """A flowlet entry is valid + age bits + port (docs/datasheets/flowlet_table.md, Memory)."""
    return r.key("lb.flowlet.entries") * (1 + r.key("lb.flowlet.age_bits") + FLOWLET_PORT_BITS)


def table_bits(r):
    """The load balancer's table memory in bits: LetFlow's flowlet table or BalanceSketch's
    buckets as the model reports them (fingerprint + vote + timestamp + next hop per cell)."""
    mode = r.key("lb.mode")
    if mode == "letflow":
        return letflow_bits(r)
    if mode == "balance_sketch":
        return r.get("load_balancer.sketch_memory_bits")
    return None


def present(out, *names):
    return all(os.path.exists(os.path.join(out, n, "sweep.csv")) for n in names)


def letflow_testbed(out):
    runs = load_sweep(os.path.join(out, "letflow"))
    loads = ["0.05", "0.15", "0.25", "0.35", "0.45"]
    rows = [(f"{round(200 * float(l))}%", {"traffic__load": l}) for l in loads]
    modes = [("ECMP", {"lb__mode": "ecmp"}), ("CONGA", {"lb__mode": "conga"}), ("LetFlow", {"lb__mode": "letflow"})]
    print("### LetFlow testbed: mean FCT\n")
    print(grid_table(runs, rows, modes, mean_fct, "ms", corner="paper load"))
    print("\n### LetFlow testbed: p95 FCT\n")
    print(grid_table(runs, rows, modes, p95_fct, "ms", corner="paper load"))
    print("\n### LetFlow testbed: p99 slowdown\n")
    print(grid_table(runs, rows, modes, p99_slowdown, corner="paper load"))
    print(f"\nUnfinished flows: {sum(r.unfinished() for r in runs)} in all {len(runs)} runs")
    print("\n### LetFlow over CONGA (paired by seed), the four statistics of LetFlow's Figs. 10-11\n")
    body = []
    for label, rp in rows:
        lf, cg = select(runs, lb__mode="letflow", **rp), select(runs, lb__mode="conga", **rp)
        ec = select(runs, lb__mode="ecmp", **rp)
        body.append([label] + [spread(ratio(lf, cg, s), 3) for s in (mean_fct, small_fct, large_fct, p95_fct)]
                    + [spread(ratio(ec, cg, s), 3) for s in (mean_fct, p95_fct)])
    print(table(["paper load", "mean FCT", "mean FCT < 100 KB", "mean FCT > 10 MB", "p95 FCT",
                 "ECMP over CONGA: mean FCT", "ECMP: p95 FCT"], body))
    print("\n### LetFlow testbed: flows that changed path (%)\n")
    print(grid_table(runs, rows, modes[1:], lambda r: r.moved_flows_pct(), "%", 2, corner="paper load"))


def bb_testbed(out):
    runs = load_sweep(os.path.join(out, "bb_testbed_flow")) + load_sweep(os.path.join(out, "bb_testbed_sketch"))
    rows = [(f"{round(100 * float(l))}%", {"traffic__load": l}) for l in ["0.3", "0.5", "0.8"]]
    modes = [(n, {"lb__mode": m}) for n, m in
             [("ECMP", "ecmp"), ("WCMP", "wcmp"), ("CONGA", "conga"), ("LetFlow 128", "letflow"),
              ("BalanceSketch 128", "balance_sketch")]]
    same = all(a.flows == b.flows for a, b in zip(select(runs, lb__mode="ecmp"), select(runs, lb__mode="wcmp")))
    if same:
        # WCMP weighs a leaf's own uplinks only, and every uplink a leaf has up is 40G: its groups
        # are ECMP's, and so is every run.
        print("WCMP's flows are identical to ECMP's in every run (its local weights are all equal).\n")
        modes = [("ECMP = WCMP", modes[0][1])] + modes[2:]
    print("### BurstBalancer testbed: mean FCT\n")
    print(grid_table(runs, rows, modes, mean_fct, "ms"))
    print("\n### BurstBalancer testbed: p99 FCT\n")
    print(grid_table(runs, rows, modes, p99_fct, "ms"))
    print("\n### BurstBalancer testbed: p99 slowdown\n")
    print(grid_table(runs, rows, modes, p99_slowdown))
    print("\n### BalanceSketch over the others (paired by seed): mean FCT / p99 FCT\n")
    body = []
    for label, rp in rows:
        bs = select(runs, lb__mode="balance_sketch", **rp)
        cells = [label]
        for other in ("ecmp", "conga", "letflow"):
            o = select(runs, lb__mode=other, **rp)
            cells.append(f"{spread(ratio(bs, o, mean_fct))} / {spread(ratio(bs, o, p99_fct))}")
        body.append(cells)
    print(table(["load", "over ECMP (= WCMP)" if same else "over ECMP", "over CONGA", "over LetFlow 128"], body))
    hi = {"traffic__load": "0.8"}
    print("\n### BurstBalancer testbed at 80%: by flow size, path changes, order, memory\n")
    stats = [("mean FCT < 100 KB", small_fct, "ms", 3), ("0.1-10 MB", medium_fct, "ms", 3),
             ("> 10 MB", large_fct, "ms", 3), ("flows that changed path", lambda r: r.moved_flows_pct(), "%", 2),
             ("packets out of order", lambda r: r.get("flows.out_of_order_packets"), "", 3),
             ("retransmitted", lambda r: r.get("flows.retransmitted_packets"), "", 3),
             ("table memory", table_bits, "bits", 4)]
    body = []
    for name, mp in modes:
        rs = select(runs, **hi, **mp)
        body.append([name] + [spread([f(r) for r in rs], d, u) for _, f, u, d in stats])
    print(table([""] + [s[0] for s in stats], body))
    print("\n### Leaf0's uplink bytes through spine1, the spine with one link left down to leaf1, at 80%\n")
    body = [[name, spread([spine1_share(r) for r in select(runs, **hi, **mp)], 3, "%")] for name, mp in modes]
    print(table(["", "share through spine1 (optimum 33%, even 50%)"], body))


def spine1_share(r):
    """Percentage of leaf0's uplink bytes on its two links to spine1. BurstBalancer's Fig. 20
    splits these ports 1:1:2:2 at best (33%); its ECMP had 46%, BurstBalancer 41%."""
    s1, s0 = sum(r.link_bytes("leaf0.", "spine1")), sum(r.link_bytes("leaf0.", "spine0"))
    return 100.0 * s1 / (s1 + s0) if s1 + s0 else None


def bb_leafspine(out):
    runs = load_sweep(os.path.join(out, "bb_leafspine_flow")) + load_sweep(os.path.join(out, "bb_leafspine_sketch"))
    modes = [("ECMP", "ecmp"), ("LetFlow 250", "letflow"), ("BalanceSketch 250", "balance_sketch")]
    stats = [("mean FCT", mean_fct, "ms", 3), ("< 100 KB", small_fct, "ms", 3), ("0.1-10 MB", medium_fct, "ms", 3),
             ("> 10 MB", large_fct, "ms", 3), ("p99 FCT", p99_fct, "ms", 3), ("p99 slowdown", p99_slowdown, "", 3),
             ("flows that changed path", lambda r: r.moved_flows_pct(), "%", 2),
             ("out of order", lambda r: r.get("flows.out_of_order_packets"), "pkts", 3)]
    body = []
    for name, m in modes:
        rs = select(runs, lb__mode=m)
        body.append([name] + [spread([f(r) for r in rs], d, u) for _, f, u, d in stats])
    print("### BurstBalancer leaf-spine, 50% load\n")
    print(table([""] + [s[0] for s in stats], body))
    ecmp, lf, bs = (select(runs, lb__mode=m) for _, m in modes)
    print("\nBalanceSketch's mean FCT over ECMP's:", spread(ratio(bs, ecmp, mean_fct)),
          "over LetFlow's:", spread(ratio(bs, lf, mean_fct)))


def flowcut(out):
    forms = [("ECMP", "off"), ("Flowcut, NIC only", "nic"), ("Flowcut, ingress only", "ingress"),
             ("Flowcut, full switch", "switch")]
    stats = [("mean FCT", mean_fct, "ms", 3), ("p99 FCT", p99_fct, "ms", 3), ("p99 slowdown", p99_slowdown, "", 3),
             ("flows that changed path", lambda r: r.moved_flows_pct(), "%", 2),
             ("drains", lambda r: r.get("flowcut.drains"), "", 3),
             ("held packets", lambda r: r.get("flowcut.packets_held"), "", 3),
             ("peak held in one switch", lambda r: kib(r.get("flowcut.held_peak_bytes")), "KiB", 3),
             ("hold full", lambda r: r.get("flowcut.hold_full_events"), "", 3),
             ("dropped", lambda r: r.get("packets.dropped"), "pkts", 3),
             ("out of order", lambda r: r.get("flows.out_of_order_packets"), "pkts", 3)]
    for name, label in [("flowcut_healthy", "healthy"), ("flowcut_failed", "agg0-core0 and edge5-agg5 failed"),
                        ("flowcut_degraded", "agg0-core0 and edge5-agg5 at 10G")]:
        if not present(out, name):
            continue
        runs = load_sweep(os.path.join(out, name))
        body = []
        for fname, form in forms:
            body.append([fname] + [spread([f(r) for r in select(runs, flowcut__form=form)], d, u) for _, f, u, d in stats])
        print(f"### Flowcut fat tree, {label}\n")
        print(table([""] + [s[0] for s in stats], body))
        off = select(runs, flowcut__form="off")
        sw = select(runs, flowcut__form="switch")
        body = []
        for fname, form in forms[1:]:
            rs = select(runs, flowcut__form=form)
            body.append([fname] + [spread(ratio(rs, off, f)) for f in (mean_fct, p99_fct, p99_slowdown)]
                        + [spread(ratio(rs, sw, f)) for f in (mean_fct, p99_fct)])
        print("\nPer seed, over ECMP and over the full-switch form:\n")
        print(table(["", "mean FCT over ECMP", "p99 FCT over ECMP", "p99 slowdown over ECMP",
                     "mean FCT over full switch", "p99 FCT over full switch"], body))
        print()


def kib(b):
    return None if b is None else b / 1024


def sizing(out):
    runs = load_sweep(os.path.join(out, "sizing_letflow")) + load_sweep(os.path.join(out, "sizing_sketch"))
    sizes = ["16", "64", "256", "1024", "4096", "65536"]
    body = []
    for n in sizes:
        lf = select(runs, lb__mode="letflow", lb__flowlet__entries=n)
        bs = select(runs, lb__mode="balance_sketch", lb__sketch__buckets=n)
        body.append([n] + [spread([f(r) for r in lf], d, u) for f, u, d in SIZING_STATS]
                    + [sig_bits(table_bits(lf[0]))]
                    + [spread([f(r) for r in bs], d, u) for f, u, d in SIZING_STATS]
                    + [sig_bits(table_bits(bs[0]))])
    head = ["entries"] + [f"LetFlow {h}" for h in SIZING_HEAD] + ["LetFlow memory"] \
        + [f"BalanceSketch {h}" for h in SIZING_HEAD] + ["BalanceSketch memory"]
    print("### Table size at 80% load, BurstBalancer testbed\n")
    print(table(head, body))
    pause = max(r.get("pfc.host_pause_time_s", 0) for r in runs)
    print(f"\nLongest PFC pause of a host in any of these runs: {pause * 1e6:.1f} µs")
    # LetFlow with 4x the entries holds 0.75x BalanceSketch's bits (10 against 53 bits an entry).
    print("\n### LetFlow over BalanceSketch at about equal memory (paired by seed)\n")
    body = []
    for n_lf, n_bs in [("64", "16"), ("256", "64"), ("1024", "256"), ("4096", "1024")]:
        lf = select(runs, lb__mode="letflow", lb__flowlet__entries=n_lf)
        bs = select(runs, lb__mode="balance_sketch", lb__sketch__buckets=n_bs)
        body.append([f"{n_lf} entries ({sig_bits(table_bits(lf[0]))})", f"{n_bs} buckets ({sig_bits(table_bits(bs[0]))})",
                     spread(ratio(lf, bs, mean_fct)), spread(ratio(lf, bs, p99_slowdown))])
    print(table(["LetFlow", "BalanceSketch", "mean FCT", "p99 slowdown"], body))


def sig_bits(b):
    return "–" if b is None else f"{int(b):,} bits".replace(",", " ")


SIZING_STATS = [(mean_fct, "ms", 3), (p99_slowdown, "", 3), (lambda r: r.moved_flows_pct(), "%", 2)]
SIZING_HEAD = ["mean FCT", "p99 slowdown", "flows moved"]


def timeouts(out):
    lf = load_sweep(os.path.join(out, "timeout_letflow"))
    bs = load_sweep(os.path.join(out, "timeout_sketch"))
    stats = [(mean_fct, "ms", 3), (p99_slowdown, "", 3), (lambda r: r.moved_flows_pct(), "%", 2),
             (lambda r: r.get("flows.retransmitted_packets"), "pkts", 3)]
    body = []
    # The longest timeout moves no flow mid-flight; each timeout is paired with it by seed.
    lf_ecmp, bs_ecmp = select(lf, lb__flowlet__timeout="500"), select(bs, lb__sketch__flowlet_timeout="200")
    for a, b in zip(["5", "15", "50", "150", "500"], ["2", "5", "15", "50", "200"]):
        x = select(lf, lb__flowlet__timeout=a)
        y = select(bs, lb__sketch__flowlet_timeout=b)
        body.append([f"{a} µs"] + [spread([f(r) for r in x], d, u) for f, u, d in stats]
                    + [spread(ratio(x, lf_ecmp, mean_fct))]
                    + [f"{b} µs"] + [spread([f(r) for r in y], d, u) for f, u, d in stats]
                    + [spread(ratio(y, bs_ecmp, mean_fct))])
    head = ["LetFlow Δ", "mean FCT", "p99 slowdown", "flows moved", "retransmitted", "mean over Δ = 500 µs",
            "BalanceSketch δ", "mean FCT", "p99 slowdown", "flows moved", "retransmitted", "mean over δ = 200 µs"]
    print("### Flowlet timeout at 80% load, BurstBalancer testbed\n")
    print(table(head, body))


def tcp_runs(out):
    """The *_tcp sweeps: TCP NewReno hosts on a lossy fabric (the page's "With TCP")."""
    tcp_stats = [("mean FCT", mean_fct, "ms", 3), ("< 100 KB", small_fct, "ms", 3), ("0.1-10 MB", medium_fct, "ms", 3),
                 ("> 10 MB", large_fct, "ms", 3), ("p95 FCT", p95_fct, "ms", 3), ("p99 slowdown", p99_slowdown, "", 3),
                 ("flows that changed path", lambda r: r.moved_flows_pct(), "%", 2),
                 ("retransmitted", lambda r: r.get("flows.retransmitted_packets"), "pkts", 3),
                 ("timeouts", lambda r: r.get("flows.timeouts"), "", 3)]
    sweeps = [("letflow_tcp", "LetFlow testbed", ["0.15", "0.3"], ["ecmp", "conga", "letflow"]),
              ("bb_leafspine_tcp", "BurstBalancer leaf-spine", [None], ["ecmp", "balance_sketch"])]
    for name, title, loads, modes in sweeps:
        if not present(out, name):
            continue
        runs = load_sweep(os.path.join(out, name))
        for load in loads:
            lp = {"traffic__load": load} if load else {}
            label = f"paper load {round(200 * float(load))}%" if load else "50% load"
            body = [[m] + [spread([f(r) for r in select(runs, lb__mode=m, **lp)], d, u) for _, f, u, d in tcp_stats]
                    for m in modes]
            print(f"### {title} with TCP, {label}\n")
            print(table([""] + [s[0] for s in tcp_stats], body))
            base = select(runs, lb__mode=modes[0], **lp)
            for m in modes[1:]:
                rs = select(runs, lb__mode=m, **lp)
                print(f"\n{m} over {modes[0]} (paired by seed): mean FCT {spread(ratio(rs, base, mean_fct), 3)}, "
                      f"p95 FCT {spread(ratio(rs, base, p95_fct), 3)}, p99 slowdown {spread(ratio(rs, base, p99_slowdown), 3)}")
            if "conga" in modes:
                lf, cg = select(runs, lb__mode="letflow", **lp), select(runs, lb__mode="conga", **lp)
                print("letflow over conga: " + ", ".join(f"{n} {spread(ratio(lf, cg, f), 3)}" for n, f in
                      [("mean", mean_fct), ("< 100 KB", small_fct), ("> 10 MB", large_fct), ("p95", p95_fct)]))
            print(f"Unfinished flows: {sum(r.unfinished() for r in runs)} in all {len(runs)} runs\n")


def main():
    out = sys.argv[1]
    sections = [(("letflow",), letflow_testbed), (("bb_testbed_flow", "bb_testbed_sketch"), bb_testbed),
                (("bb_leafspine_flow", "bb_leafspine_sketch"), bb_leafspine), ((), flowcut),
                (("sizing_letflow", "sizing_sketch"), sizing), (("timeout_letflow", "timeout_sketch"), timeouts), ((), tcp_runs)]
    for names, fn in sections:   # flowcut prints each of its sweeps that is there
        if present(out, *names):
            fn(out)
            print()


if __name__ == "__main__":
    main()
