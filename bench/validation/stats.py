"""Shared reading and formatting for the validation scripts (bench/validation/*.sh).

A sweep run with `netasic sweep --seeds N` leaves point-NNN/seed-S/ run directories and a
runs.csv naming each run's grid values and seed. This module reads them per run (summary.json,
flows.csv, links.csv), groups the runs of one grid point over its seeds, and formats a statistic
as its mean with the min-max over the seeds, which is how the validation pages quote them.
"""

import csv
import json
import math
import os
import tomllib
from functools import cached_property


class Run:
    """One seed of one grid point."""

    def __init__(self, path, params, seed):
        self.path, self.params, self.seed = path, params, seed

    @cached_property
    def summary(self):
        with open(os.path.join(self.path, "summary.json")) as f:
            return json.load(f)

    def get(self, dotted, default=None):
        v = self.summary
        for part in dotted.split("."):
            if not isinstance(v, dict) or part not in v:
                return default
            v = v[part]
        return v

    @cached_property
    def config(self):
        with open(os.path.join(self.path, "config.toml"), "rb") as f:
            return tomllib.load(f)

    def key(self, dotted):
        """A configuration key as the run resolved it (config.toml)."""
        v = self.config
        for part in dotted.split("."):
            v = v[part]
        return v

    @cached_property
    def flows(self):
        """(size_bytes, fct_us or None, slowdown or None, path_changes) per flow."""
        out = []
        with open(os.path.join(self.path, "flows.csv")) as f:
            for r in csv.DictReader(f):
                done = r["fct_us"] not in ("", "nan")
                out.append((float(r["size_bytes"]), float(r["fct_us"]) if done else None,
                            float(r["slowdown"]) if done else None, int(r["path_changes"] or 0)))
        return out

    @cached_property
    def links(self):
        with open(os.path.join(self.path, "links.csv")) as f:
            return list(csv.DictReader(f))

    # Flow statistics (FCT in ms).
    def mean_fct_ms(self, lo=0.0, hi=math.inf):
        v = [fct for size, fct, _, _ in self.flows if fct is not None and lo <= size < hi]
        return sum(v) / len(v) / 1e3 if v else None

    def fct_percentile_ms(self, p):
        return nearest_rank([fct for _, fct, _, _ in self.flows if fct is not None], p) / 1e3

    def slowdown_percentile(self, p):
        return nearest_rank([s for _, _, s, _ in self.flows if s is not None], p)

    def unfinished(self):
        return sum(1 for _, fct, _, _ in self.flows if fct is None)

    def moved_flows_pct(self):
        """Percentage of flows that changed path at least once."""
        return 100.0 * sum(1 for f in self.flows if f[3] > 0) / len(self.flows)

    def link_bytes(self, src_prefix, dst_prefix):
        return [float(r["bytes"]) for r in self.links
                if r["from"].startswith(src_prefix) and r["to"].startswith(dst_prefix)]


def nearest_rank(values, p):
    """The p-th percentile by nearest rank, as netasic's own summaries take it."""
    if not values:
        return None
    v = sorted(values)
    return v[max(0, math.ceil(p / 100.0 * len(v)) - 1)]


def load_sweep(sweep_dir):
    """Every run of a sweep directory: a list of Run with the grid values as strings."""
    points = {}
    for name in os.listdir(sweep_dir):
        if name.startswith("point-"):
            points[int(name[len("point-"):])] = os.path.join(sweep_dir, name)
    runs = []
    with open(os.path.join(sweep_dir, "runs.csv")) as f:
        reader = csv.DictReader(f)
        grid = reader.fieldnames[1:reader.fieldnames.index("seed")]
        for r in reader:
            if r["status"] != "ok":
                raise SystemExit(f"{sweep_dir}: point {r['point']} seed {r['seed']} failed ({r['status']})")
            path = os.path.join(points[int(r["point"])], f"seed-{r['seed']}")
            runs.append(Run(path, {k: r[k] for k in grid}, int(r["seed"])))
    return runs


def select(runs, **params):
    """The runs (one per seed) whose grid values match, sorted by seed."""
    want = {k.replace("__", "."): str(v) for k, v in params.items()}
    out = [r for r in runs if all(r.params.get(k) == v for k, v in want.items())]
    if not out:
        raise SystemExit(f"no runs with {want}")
    return sorted(out, key=lambda r: r.seed)


def sig(x, digits=3):
    """x to `digits` significant figures, without an exponent for the sizes on these pages."""
    if x is None:
        return "–"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    dec = max(0, digits - 1 - mag)
    s = f"{x:,.{dec}f}".replace(",", " ")
    return s


def spread(values, digits=3, unit=""):
    """'mean (min–max) unit' over the seeds; a missing value (no such flows) is left out."""
    v = [x for x in values if x is not None]
    if not v:
        return "–"
    u = f" {unit}" if unit else ""
    m = sum(v) / len(v)
    if min(v) == max(v):
        return f"{sig(m, digits)}{u}"
    return f"{sig(m, digits)} ({sig(min(v), digits)}–{sig(max(v), digits)}){u}"


def ratio(num_runs, den_runs, stat):
    """Per seed ratio stat(num)/stat(den) over runs paired by seed."""
    out = []
    for a, b in zip(num_runs, den_runs):
        assert a.seed == b.seed
        x, y = stat(a), stat(b)
        out.append(x / y if x is not None and y else None)
    return out


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)
