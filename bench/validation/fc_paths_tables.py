#!/usr/bin/env python3
"""Path statistics over N from bench/validation/fc_paths.sh's result files, beside the Flattened
Clos paper's Table 2: up-down (FC) and EDST paths per ToR pair, mean path length and mean
shortest path, each as mean (min-max) over the wiring seeds. The model counts links; the paper's
lengths match it counted in switches (links + 1, docs/validation/flattened-clos.md), so lengths
are shown in switches. Prints the tables and draws OUTDIR/fc_paths.svg with gnuplot."""
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

# Table 2 (32-port ToRs): N -> (paths per pair, mean length, mean shortest), lengths in switches.
PAPER_FC = {50: (8.02, 3.86, 2.68), 100: (6.43, 4.22, 3.04), 200: (4.99, 4.56, 3.44), 300: (4.24, 4.75, 3.70), 500: (4.55, 5.22, 4.00)}
PAPER_EDST = {50: (9.00, 7.69, 3.12), 100: (9.00, 10.01, 4.04), 200: (9.00, 14.01, 5.50), 300: (9.00, 16.70, 6.52), 500: (9.00, 21.96, 8.14)}
# Tables 1 and 7 (64-port ToRs, s = 40): (N, k) -> (paths per pair, mean length, fewest paths), and
# Table 7's EDST mean length and mean shortest path (k = 4 only).
PAPER_64 = {(500, 3): (10.05, 4.29, 4), (500, 4): (16.08, 4.57, 12), (1000, 3): (7.10, 4.43, 1), (1000, 4): (14.01, 4.86, 9),
            (2000, 4): (11.85, 5.13, 7), (2000, 5): (15.77, 5.36, 11), (3000, 4): (10.63, 5.30, 6),
            (3000, 5): (14.66, 5.54, 10), (5000, 4): (9.17, 5.52, 3), (5000, 5): (13.28, 5.75, 9)}
PAPER_64_EDST = {(500, 4): (18.34, 5.26), (1000, 4): (26.52, 6.99), (2000, 4): (33.49, 9.12), (3000, 4): (39.82, 10.45)}
STATS = re.compile(r"^(up-down paths|EDST paths \((\d+) edge-disjoint spanning trees\)|shortest paths): \d+ ToR pairs, "
                   r"([0-9.]+) paths per pair \(fewest (\d+)\), mean length ([0-9.]+) hops \(longest (\d+)\), mean shortest ([0-9.]+) hops, "
                   r"(\d+) pairs without a path")
SAMPLED = re.compile(r"^up-down paths, sampled: (\d+) of (\d+) ordered ToR pairs .*?: ([0-9.]+) ± ([0-9.]+) paths per pair "
                     r"\(fewest in the sample (\d+)\), mean length ([0-9.]+) ± ([0-9.]+) hops \(longest in the sample (\d+)\), "
                     r"mean shortest ([0-9.]+) ± ([0-9.]+) hops, (\d+) sampled pairs without a path")
LAYERS = re.compile(r"(\d+) virtual layers \[([0-9,]+)\] ports")
WALL = re.compile(r"^wall time: ([0-9.]+) s")


def spread(v, f="{:.2f}"):   # mean (min–max), or the one value when all are equal
    if not v:
        return "-"
    lo, hi = f.format(min(v)), f.format(max(v))
    return f"{f.format(sum(v) / len(v))} ({lo}–{hi})" if lo != hi else lo


def read(out):
    """(ports, N, k) -> path set -> field -> values over the seeds; (ports, N, k) -> layer vector."""
    res = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    layers = {}
    for f in sorted(Path(out).glob("p*_n*_k*_seed*.txt")):
        key = tuple(int(x) for x in re.match(r"p(\d+)_n(\d+)_k(\d+)_seed", f.name).groups())
        if f.name.endswith("_updown.txt") and f.with_name(f.name.replace("_updown", "")).exists():
            continue   # the full report of the same wiring has the same up-down line: count the seed once
        for line in f.read_text().splitlines():
            m = LAYERS.search(line)
            if m:
                layers[key] = f"[{m.group(2)}]"
            m = WALL.search(line)
            if m:
                kind = "edst_seconds" if f.name.endswith("_edst.txt") else "sample_seconds" if f.name.endswith("_sample.txt") else "seconds"
                res[key]["run"][kind].append(float(m.group(1)))
            m = SAMPLED.search(line)
            if m:
                r = res[key]["up-down sampled"]
                g = m.groups()
                r["pairs"].append(int(g[0]))
                r["population"].append(int(g[1]))
                r["paths"].append(float(g[2]))
                r["paths_half"].append(float(g[3]))
                r["fewest"].append(int(g[4]))
                r["length"].append(float(g[5]) + 1)   # switches
                r["length_half"].append(float(g[6]))
                r["longest"].append(int(g[7]) + 1)
                r["shortest"].append(float(g[8]) + 1)
                r["shortest_half"].append(float(g[9]))
                continue
            m = STATS.search(line)
            if not m:
                continue
            name = "EDST" if m.group(1).startswith("EDST") else m.group(1)
            r = res[key][name]
            if m.group(2):
                r["trees"].append(int(m.group(2)))
            r["paths"].append(float(m.group(3)))
            r["fewest"].append(int(m.group(4)))
            r["length"].append(float(m.group(5)) + 1)     # switches
            r["longest"].append(int(m.group(6)) + 1)
            r["shortest"].append(float(m.group(7)) + 1)
            r["unrouted"].append(int(m.group(8)))
    return res, layers


def head(title, columns):   # a table's title, its header row ("| a | b |") and the rule under it
    print(title)
    print(columns)
    print("|" + "---|" * (columns.count("|") - 1))


def cell(x, f="{:.2f}"):
    return f.format(x) if x is not None else "—"


def tables(res, layers):
    t32 = sorted(k for k in res if k[0] == 32)
    t64 = sorted(k for k in res if k[0] == 64)
    if t32:
        head("Up-down (FC) paths, 32-port ToRs (Table 2); lengths in switches (links + 1); mean (min–max) over the seeds:\n",
             "| N | k, layers | seeds | paths per pair, paper | model | fewest | mean length, paper | model | longest | "
             "mean shortest, paper | model | pairs without a path | time per run (s) |")
        for key in t32:
            n, k = key[1], key[2]
            u, p = res[key]["up-down paths"], PAPER_FC.get(n, (None,) * 3)
            print(f"| {n} | {k}, {layers.get(key, '-')} | {len(u['paths'])} | {cell(p[0])} | {spread(u['paths'])} | "
                  f"{spread(u['fewest'], '{:.0f}')} | {cell(p[1])} | {spread(u['length'])} | {spread(u['longest'], '{:.0f}')} | "
                  f"{cell(p[2])} | {spread(u['shortest'])} | {spread(u['unrouted'], '{:.0f}')} | {spread(res[key]['run']['seconds'], '{:.1f}')} |")
        head("\nEDST paths, 32-port ToRs (and shortest paths, what ECMP spreads over); lengths in switches:\n",
             "| N | trees | EDST mean length, paper | model | longest | EDST mean shortest, paper | model | "
             "shortest paths per pair | shortest path length |")
        for key in t32:
            e, sp, p = res[key]["EDST"], res[key]["shortest paths"], PAPER_EDST.get(key[1], (None,) * 3)
            print(f"| {key[1]} | {spread(e['trees'], '{:.0f}')} | {cell(p[1])} | {spread(e['length'])} | {spread(e['longest'], '{:.0f}')} | "
                  f"{cell(p[2])} | {spread(e['shortest'])} | {spread(sp['paths'])} | {spread(sp['length'])} |")
    if t64:
        head("\nUp-down (FC) paths, 64-port ToRs (Table 1, h = 24, s = 40); lengths in switches:\n",
             "| N | k, layers | seeds | paths per pair, paper | model | fewest, paper | model | mean length, paper | model | "
             "longest | mean shortest | time per run (s) |")
        for key in t64:
            n, k = key[1], key[2]
            u, p = res[key]["up-down paths"], PAPER_64.get((n, k), (None,) * 3)
            if u["paths"]:
                print(f"| {n} | {k}, {layers.get(key, '-')} | {len(u['paths'])} | {cell(p[0])} | {spread(u['paths'])} | {cell(p[2], '{}')} | "
                      f"{spread(u['fewest'], '{:.0f}')} | {cell(p[1])} | {spread(u['length'])} | {spread(u['longest'], '{:.0f}')} | "
                      f"{spread(u['shortest'])} | {spread(res[key]['run']['seconds'], '{:.1f}')} |")
        sampled = [key for key in t64 if res[key]["up-down sampled"]["paths"]]
        if sampled:
            head("\nUp-down (FC) paths, 64-port ToRs (Table 1), estimated from a uniform sample of ToR pairs (*_sample.txt); "
                 "mean (min–max) over the seeds, ± the widest 95% confidence half-width of a seed's sample; the sample's "
                 "fewest paths only bound the fabric's from above:\n",
                 "| N | k, layers | seeds | pairs sampled, of | paths per pair, paper | model | fewest, paper | fewest in the sample | "
                 "mean length, paper | model | mean shortest | time per run (s) |")
            for key in sampled:
                n, k = key[1], key[2]
                u, p = res[key]["up-down sampled"], PAPER_64.get((n, k), (None,) * 3)
                print(f"| {n} | {k}, {layers.get(key, '-')} | {len(u['paths'])} | {spread(u['pairs'], '{:,.0f}')} of "
                      f"{spread(u['population'], '{:,.0f}')} | {cell(p[0])} | {spread(u['paths'], '{:.3f}')} ± {max(u['paths_half']):.3f} | "
                      f"{cell(p[2], '{}')} | {spread(u['fewest'], '{:.0f}')} | {cell(p[1])} | "
                      f"{spread(u['length'], '{:.3f}')} ± {max(u['length_half']):.3f} | {spread(u['shortest'], '{:.3f}')} ± {max(u['shortest_half']):.3f} | "
                      f"{spread(res[key]['run']['sample_seconds'], '{:.1f}')} |")
        head("\nEDST paths, 64-port ToRs (Table 7); lengths in switches; time of the EDST-only runs (*_edst.txt):\n",
             "| N | k, layers | seeds | trees | mean length, paper | model | longest | mean shortest, paper | model | "
             "time per EDST-only run (s) |")
        for key in t64:
            n, k = key[1], key[2]
            e, p = res[key]["EDST"], PAPER_64_EDST.get((n, k), (None, None))
            if e["length"]:
                print(f"| {n} | {k}, {layers.get(key, '-')} | {len(e['length'])} | {spread(e['trees'], '{:.0f}')} | "
                      f"{cell(p[0])} | {spread(e['length'])} | {spread(e['longest'], '{:.0f}')} | {cell(p[1])} | "
                      f"{spread(e['shortest'])} | {spread(res[key]['run']['edst_seconds'], '{:.1f}')} |")


def plot(res, out):
    """Two panels over N (32-port ToRs): FC paths per pair; mean path length of FC and EDST (switches), the
    model's mean with its min-max over the seeds as error bars, the paper's points beside."""
    rows = []
    for key in sorted(k for k in res if k[0] == 32):
        n, u, e = key[1], res[key]["up-down paths"], res[key]["EDST"]
        pf, pe = PAPER_FC.get(n, ("NaN",) * 3), PAPER_EDST.get(n, ("NaN",) * 3)
        vals = []
        for v in (u["paths"], u["length"], e["length"]):
            vals += [sum(v) / len(v), min(v), max(v)] if v else ["NaN"] * 3
        rows.append(" ".join(str(x) for x in [n, *vals, pf[0], pf[1], pe[1]]))
    if not rows:
        return
    data = "\n".join(rows)
    script = f"""set terminal svg size 900,380 dynamic font "sans,12"
set output "{out}/fc_paths.svg"
$d << EOD
{data}
EOD
set multiplot layout 1,2
set key top right
set grid
set xlabel "ToRs (N; k = 4 up to 300, k = 5 at 500)"
set xrange [0:*]
set yrange [0:*]
set title "Up-down paths per ToR pair"
set ylabel "paths per pair"
plot $d using 1:2:3:4 with yerrorlines lw 2 title "model (5 seeds, min-max)", \\
     $d using 1:11 with points pt 7 ps 1 title "paper, Table 2"
set title "Mean path length (switches on the path)"
set ylabel "switches"
set key top left
plot $d using 1:5:6:7 with yerrorlines lw 2 title "FC up-down, model", \\
     $d using 1:12 with points pt 7 ps 1 title "FC up-down, paper", \\
     $d using 1:8:9:10 with yerrorlines lw 2 title "EDST, model", \\
     $d using 1:13 with points pt 5 ps 1 title "EDST, paper"
unset multiplot
"""
    (Path(out) / "fc_paths.gp").write_text(script)
    subprocess.run(["gnuplot", str(Path(out) / "fc_paths.gp")], check=True)
    print(f"\nplot: {out}/fc_paths.svg")


def main(out):
    res, layers = read(out)
    tables(res, layers)
    plot(res, out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/validation/fc_paths")
