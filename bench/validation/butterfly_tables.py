"""Prints bench/validation/butterfly.sh's tables from a sweep directory: per tcp.host_jitter (sigma),
the short flow's FCT over the jitter seeds and how many runs reproduce the sigma = 0 FCT exactly;
then the queue each packet met, against the sigma = 0 run (thesis Fig. 6.4): when the first
difference appears, and whether the queues agree again afterwards."""
import csv
import struct
import sys
from collections import defaultdict
from pathlib import Path

SHORT = 30000   # bytes: the short flow of scenarios/deter/butterfly.toml
MTU = 1522      # bytes on the wire of a 1500-byte IP packet, as DETER's summary counts an MTU
MAGIC = b"NETASIC-DETERQ2\n"
HOP = struct.Struct("<QHHHBBII")   # docs/outputs.md, deter_queues.bin


def short_fct(point):
    """The short flow's FCT in ps (flows.csv gives us with 6 decimals: exact picoseconds)."""
    with open(point / "flows.csv") as f:
        for row in csv.DictReader(f):
            if int(row["size_bytes"]) == SHORT:
                whole, _, frac = row["fct_us"].partition(".")
                return int(whole) * 10**6 + int((frac + "000000")[:6])
    raise SystemExit(f"{point}: no {SHORT}-byte flow")


def queue_log(point):
    """[(key, queue bytes, time us)] in the order the switch saw the packets; key = (connection,
    IP_ID, switch, port): the same packet of the same connection in another run."""
    data = (point / "deter_queues.bin").read_bytes()
    if not data.startswith(MAGIC):
        raise SystemExit(f"{point}/deter_queues.bin: not a {MAGIC.decode().strip()} queue log")
    (n,) = struct.unpack_from("<Q", data, len(MAGIC))
    body = data[len(MAGIC) + 8:len(MAGIC) + 8 + n * HOP.size]
    return [((c, i, sw, p), q, t) for c, i, sw, p, _prio, _drop, q, t in HOP.iter_unpack(body)]


def divergence(ref, run):
    """First time (us) a packet met another queue than in the reference (or has no counterpart),
    the share of packets from then on that did, and whether some whole millisecond after the one
    it started in had packets and every one of them met the same queue as in the reference."""
    want = {k: q for k, q, _ in ref}
    first, differ, after = None, 0, 0
    ms_differ = {}   # ms -> any packet in it met another queue
    for k, q, t in run:
        d = want.get(k) != q
        if first is None and not d:
            continue
        if first is None:
            first = t
        after += 1
        differ += d
        ms_differ[t // 1000] = ms_differ.get(t // 1000, False) or d
    if first is None:
        return None, 0.0, False
    agree_again = any(not d for ms, d in ms_differ.items() if ms > first // 1000)
    return first, differ / after, agree_again


def main(out):
    out = Path(out)
    fcts = defaultdict(list)
    points = defaultdict(list)
    with open(out / "sweep.csv") as f:
        for row in csv.DictReader(f):
            if row["status"] != "ok":
                raise SystemExit(f"point {row['point']}: {row['status']}")
            point = out / f"point-{int(row['point']):03d}"
            fcts[float(row["tcp.host_jitter"])].append(short_fct(point))
            points[float(row["tcp.host_jitter"])].append(point)
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
    if not (points[0.0][0] / "deter_queues.bin").exists():
        return
    ref = queue_log(points[0.0][0])
    print("\n| sigma (ns) | runs whose queues differ from sigma = 0 | first difference, median (min-max) | "
          "packets after it meeting another queue, mean (min-max) | runs whose queues agree again for a whole ms |")
    print("|---|---|---|---|---|")
    for sigma in sorted(points):
        res = [divergence(ref, queue_log(p)) for p in points[sigma]]
        starts = sorted(r[0] for r in res if r[0] is not None)
        shares = [100 * r[1] for r in res if r[0] is not None]
        if not starts:
            print(f"| {sigma:g} | 0/{len(res)} | - | - | - |")
            continue
        print(f"| {sigma:g} | {len(starts)}/{len(res)} | {starts[len(starts) // 2] / 1e3:.2f} ms "
              f"({starts[0] / 1e3:.2f}-{starts[-1] / 1e3:.2f}) | {sum(shares) / len(shares):.0f} % "
              f"({min(shares):.0f}-{max(shares):.0f} %) | {sum(r[2] for r in res)}/{len(starts)} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/validation/butterfly")
