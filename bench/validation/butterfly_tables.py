"""Prints bench/validation/butterfly.sh's table from a sweep directory: per tcp.host_jitter (sigma),
the short flow's FCT over the jitter seeds and how many runs reproduce the sigma = 0 FCT exactly."""
import csv
import sys
from collections import defaultdict
from pathlib import Path

SHORT = 30000   # bytes: the short flow of scenarios/deter/butterfly.toml


def short_fct(point):
    """The short flow's FCT in ps (flows.csv gives us with 6 decimals: exact picoseconds)."""
    with open(point / "flows.csv") as f:
        for row in csv.DictReader(f):
            if int(row["size_bytes"]) == SHORT:
                whole, _, frac = row["fct_us"].partition(".")
                return int(whole) * 10**6 + int((frac + "000000")[:6])
    raise SystemExit(f"{point}: no {SHORT}-byte flow")


def main(out):
    out = Path(out)
    fcts = defaultdict(list)
    with open(out / "sweep.csv") as f:
        for row in csv.DictReader(f):
            if row["status"] != "ok":
                raise SystemExit(f"point {row['point']}: {row['status']}")
            point = out / f"point-{int(row['point']):03d}"
            fcts[float(row["tcp.host_jitter"])].append(short_fct(point))
    ref = set(fcts[0.0])
    if len(ref) != 1:
        raise SystemExit(f"sigma = 0 is not deterministic: {sorted(ref)} ps")
    ref = ref.pop()
    print("| sigma (ns) | runs | short-flow FCT mean (ms) | min (ms) | max (ms) | FCT = sigma-0 FCT exactly |")
    print("|---|---|---|---|---|---|")
    for sigma in sorted(fcts):
        v = fcts[sigma]
        same = sum(x == ref for x in v)
        print(f"| {sigma:g} | {len(v)} | {sum(v) / len(v) / 1e9:.3f} | {min(v) / 1e9:.3f} | {max(v) / 1e9:.3f} "
              f"| {same}/{len(v)} ({100 * same / len(v):.0f} %) |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/validation/butterfly")
