"""Sundial's blast radius (thesis Fig. 3.20) over several failure draws: the draw and the tables.

  blast_radius.py draw SEED OUT.toml   writes scenarios/sundial/fifty_failures.toml with its
                                       faults redrawn from SEED and sim.seed = SEED
  blast_radius.py tables OUTDIR        prints the tables of docs/validation/sundial.md from
                                       OUTDIR/seedS/summary.json

The draw is the shipped scenario's recipe (seed 2 gives its list exactly): 44 link and 5 switch
failures in an order shuffled by random.Random(SEED), the root as the 40th, one every 110 ms from
10 ms; each target is drawn among the switch-to-switch links and the switches still up (the root
is never drawn as a device: its failure is the 40th). Nothing is repaired.
"""

import json
import os
import random
import re
import sys

K = 8                      # the shipped scenario's fat tree
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


def draw(seed):
    """The recipe that wrote the shipped list (seed 2 gives it exactly): targets drawn from the
    sorted names, drawn again while the one drawn is down (or ends on a switch that is down)."""
    rng = random.Random(seed)
    kinds = ["link"] * 44 + ["device"] * 5
    rng.shuffle(kinds)
    kinds.insert(39, "root")
    links = sorted(fat_tree_links(K))
    switches = sorted({end for link in links for end in link.split("-")})
    down, faults, root = set(), [], "core0"
    for i, kind in enumerate(kinds):
        at = 10000 + 110000 * i          # us
        if kind == "root":
            faults.append(f"root @ {at}")
            down.add(root)
            continue
        names = links if kind == "link" else switches
        while True:
            target = rng.choice(names)
            ends = set(target.split("-"))
            if target not in down and not ends & down and target != root:
                break
        down.add(target)
        faults.append(f"{kind} {target} @ {at}")
    return faults


def write_scenario(seed, path):
    src = os.path.join(os.path.dirname(__file__), "../../scenarios/sundial/fifty_failures.toml")
    text = open(src).read()
    body = "faults = [\n" + "".join(f'  "{f}",\n' for f in draw(seed)) + "]\n"
    text = re.sub(r"faults = \[\n(.*?\n)*?\]\n", body, text)
    text = re.sub(r"(?m)^seed = \d+", f"seed = {seed}", text)
    with open(path, "w") as f:
        f.write(text)


def cumulative_ms(summary, alg):
    """Impacted device time summed over the failures up to each one, in ms."""
    total, out = 0.0, []
    for f in summary["clock"][alg]["failures"]:
        total += f["impacted_device_time_us"] / 1e3
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
        write_scenario(int(sys.argv[2]), sys.argv[3])
    else:
        tables(sys.argv[2])
