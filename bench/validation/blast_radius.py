"""Sundial's blast radius (thesis Fig. 3.20) over several failure draws: the draw and the tables.

  blast_radius.py draw SEED OUT.toml [SHAPE]   writes SHAPE's scenario with its faults redrawn
                                               from SEED and sim.seed = SEED
  blast_radius.py tables OUTDIR                prints the tables of docs/validation/sundial.md
                                               from OUTDIR/seedS/summary.json

SHAPE fat_tree (scenarios/sundial/fifty_failures.toml, seed 2 gives its list exactly): a k = 8
fat tree; 44 link and 5 switch failures. SHAPE testbed (testbed_failures.toml, seed 1 gives its
list): the paper's testbed size, 23 pods of 8 ToRs and 4 aggregation switches (12 switches and 24
servers, one failure domain) under 8 spines, and the paper's mix: 24 link, 23 device and 2 domain
failures. Both: the kinds shuffled by random.Random(SEED), the root as the 40th, one every 110 ms
from 10 ms; each target drawn among the switch-to-switch links, the switches and the pods still up
(never the root as a device, nor its pod). Nothing is repaired.
"""

import json
import os
import random
import re
import sys

K = 8                      # the fat-tree scenario's k
PODS, TORS, AGGS, SPINES = 23, 8, 4, 8   # the testbed scenario's Clos
AFTER = [10, 20, 30, 39, 40, 41, 50]


def fat_tree_links(k):
    """Switch-to-switch links of a k-ary fat tree, named as netasic names them."""
    half = k // 2
    links = []
    for pod in range(k):
        for a in range(half):
            agg = pod * half + a
            links += [f"agg{agg}-edge{pod * half + e}" for e in range(half)]
            links += [f"agg{agg}-core{a * half + c}" for c in range(half)]
    return links


def clos_links():
    """Switch-to-switch links of the testbed-sized Clos, named as netasic names them, and the pods'
    switches."""
    plane = SPINES // AGGS
    links, pods = [], {}
    for pod in range(PODS):
        tors = [f"tor{pod * TORS + i}" for i in range(TORS)]
        aggs = [f"agg{pod * AGGS + j}" for j in range(AGGS)]
        pods[f"pod{pod}"] = set(tors + aggs)
        links += [f"{t}-{a}" for t in tors for a in aggs]
        links += [f"agg{pod * AGGS + j}-spine{j * plane + c}" for j in range(AGGS) for c in range(plane)]
    return links, pods


SHAPES = {   # scenario, fault mix (kind: count), root
    "fat_tree": ("fifty_failures.toml", {"link": 44, "device": 5}, "core0"),
    "testbed": ("testbed_failures.toml", {"link": 24, "device": 23, "domain": 2}, "agg0"),
}


def draw(seed, shape="fat_tree"):
    """The recipe that wrote the shipped lists: targets drawn from the sorted names, drawn again
    while the one drawn is down (or ends on a switch that is down, or is the root or its pod)."""
    _, mix, root = SHAPES[shape]
    rng = random.Random(seed)
    kinds = [k for k, n in mix.items() for _ in range(n)]
    rng.shuffle(kinds)
    kinds.insert(39, "root")
    links, pods = (sorted(fat_tree_links(K)), {}) if shape == "fat_tree" else clos_links()
    links = sorted(links)
    switches = sorted({end for link in links for end in link.split("-")})
    down, faults = set(), []
    for i, kind in enumerate(kinds):
        at = 10000 + 110000 * i          # us
        if kind == "root":
            faults.append(f"root @ {at}")
            down.add(root)
            continue
        names = {"link": links, "device": switches, "domain": sorted(pods)}[kind]
        while True:
            target = rng.choice(names)
            ends = pods[target] if kind == "domain" else set(target.split("-"))
            if target not in down and not ends & down and target != root and (kind != "domain" or root not in ends):
                break
        down |= {target} | (ends if kind == "domain" else set())
        faults.append(f"{kind} {target} @ {at}")
    return faults


def write_scenario(seed, path, shape="fat_tree"):
    src = os.path.join(os.path.dirname(__file__), "../../scenarios/sundial", SHAPES[shape][0])
    text = open(src).read()
    body = "faults = [\n" + "".join(f'  "{f}",\n' for f in draw(seed, shape)) + "]\n"
    text = re.sub(r"faults = \[\n(.*?\n)*?\]\n", body, text)
    text = re.sub(r"(?m)^seed = \d+", f"seed = {seed}", text)
    with open(path, "w") as f:
        f.write(text)


def cumulative_ms(summary, alg, key="impacted_device_time_us"):
    """Impacted device time (or its switches' part) summed over the failures up to each one, in ms."""
    total, out = 0.0, []
    for f in summary["clock"][alg]["failures"]:
        total += f[key] / 1e3
        out.append(total)
    return out


def spread(values, unit):
    lo, hi = min(values), max(values)
    mean = sum(values) / len(values)
    return f"{mean:.1f} ({lo:.1f}–{hi:.1f}) {unit}"


def tables(outdir):
    runs = sorted(d for d in os.listdir(outdir) if d.startswith("seed") and not d.endswith(".toml"))
    sums = [json.load(open(os.path.join(outdir, d, "summary.json"))) for d in runs]
    print(f"Impacted device time after failure N, mean (min–max) over {len(sums)} draws ({', '.join(runs)})\n")
    print("| after failure | " + " | ".join(str(n) for n in AFTER) + " |")
    print("|---|" + "---|" * len(AFTER))
    for alg, unit, scale in (("sundial", "ms", 1.0), ("ptp", "s", 1e-3)):
        cums = [cumulative_ms(s, alg) for s in sums]
        row = [spread([c[n - 1] * scale for c in cums], unit) for n in AFTER]
        print(f"| {alg} | " + " | ".join(row) + " |")
        cums = [cumulative_ms(s, alg, "impacted_switch_time_us") for s in sums]
        row = [spread([c[n - 1] * scale for c in cums], unit) for n in AFTER]
        print(f"| {alg}, switches only | " + " | ".join(row) + " |")
    print()
    root_jump = [cumulative_ms(s, "sundial")[39] - cumulative_ms(s, "sundial")[38] for s in sums]
    print(f"Sundial, the root failure's own share: {spread(root_jump, 'ms')}")
    for key, unit in (("impacted_devices", "devices"), ("bound_violations", "violations"),
                      ("epsilon_max_ns", "ns")):
        for alg in ("sundial", "ptp"):
            print(f"{alg} {key}: {spread([float(s['clock'][alg][key]) for s in sums], unit)}")
    plans = [sum(1 for p in s["clock"]["sundial"]["replan_statuses"] if p != "ok") for s in sums]
    print(f"sundial replans without a complete backup plan: {spread(plans, 'failures')}")
    first = [next((i + 1 for i, p in enumerate(s["clock"]["sundial"]["replan_statuses"]) if p != "ok"), 0)
             for s in sums]
    print(f"first failure after which no complete plan exists, per draw: {first}")
    for d, s, j in zip(runs, sums, root_jump):
        c = cumulative_ms(s, "sundial")
        print(f"{d}: sundial {c[38]:.1f} ms before the root failure, its share {j:.1f} ms, "
              f"{c[-1]:.1f} ms after 50; ptp {cumulative_ms(s, 'ptp')[-1] / 1e3:.1f} s after 50")


if __name__ == "__main__":
    if sys.argv[1] == "draw":
        write_scenario(int(sys.argv[2]), sys.argv[3], *sys.argv[4:5])
    else:
        tables(sys.argv[2])
