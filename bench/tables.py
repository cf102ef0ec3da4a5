#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/tables.py RESULTS_DIR: readable tables from the CSV of "make bench".

Reads RESULTS_DIR/xbench.csv (xbench --csv lines, prefix stripped) and
RESULTS_DIR/overhead.csv (unixperf lines) and prints, per column, the median
and [min-max] over all windows or runs.
"""
import csv
import statistics
import sys
from collections import defaultdict


def mmm(v):
    return statistics.median(v), min(v), max(v)


def fmt(v, prec=1):
    m, lo, hi = mmm(v)
    return f"{m:.{prec}f} [{lo:.{prec}f}-{hi:.{prec}f}]"


def xbench(path):
    rows = defaultdict(list)
    fair = None
    with open(path) as f:
        for r in csv.reader(f):
            if r[0] == "win" and r[1] != "mode":
                rows[r[1]].append([float(x) for x in r[5:15]])
            elif r[0] == "fair":
                fair = [float(x) for x in r[1:5]]
    if not rows:
        return
    print("Scenario 1: X-like server, N=4 clients, H=5 hogs, 1 vCPU; "
          "CPU share in %, median [min-max] over windows")
    hdr = ("mode", "windows", "server", "clients", "server+clients",
           "per hog (all hogs)", "req/s")
    print(f"{hdr[0]:<8} {hdr[1]:>7}  {hdr[2]:<18} {hdr[3]:<18} {hdr[4]:<18} {hdr[5]:<18} {hdr[6]}")
    for mode, w in rows.items():
        srv = [x[0] for x in w]
        cli = [x[1] for x in w]
        coal = [x[0] + x[1] for x in w]
        hog = [x[3] for x in w] + [x[5] for x in w] + [x[4] for x in w]
        hmed = [x[4] for x in w]
        # per hog: the median of the per-window medians, min of the
        # per-window minima, max of the per-window maxima
        hs = f"{statistics.median(hmed):.1f} [{min(hog):.1f}-{max(hog):.1f}]"
        print(f"{mode:<8} {len(w):>7}  {fmt(srv):<18} {fmt(cli):<18} {fmt(coal):<18} {hs:<18} {fmt([x[6] for x in w], 0)}")
    if fair:
        print(f"{'fair':<8} {'':>7}  {fair[0]:<18.1f} {fair[1]:<18.1f} {fair[3]:<18.1f} {fair[2]:<18.1f}")
    print()


def overhead(path):
    vals = defaultdict(list)
    with open(path) as f:
        for r in csv.reader(f):
            if len(r) == 3:
                vals[(r[0], r[1])].append(float(r[2]))
    if not vals:
        return
    print("Scenario 3: AF_UNIX stream overhead, 1 vCPU; median [min-max] over runs, "
          "ratio = median / median(absent)")
    print(f"{'test':<22} {'state':<8} {'runs':>4}  {'median [min-max]':<26} ratio")
    for test, unit in (("lat", "ns/round trip"), ("bw", "MB/s")):
        base = vals.get((test, "absent"))
        for state in ("absent", "off", "on"):
            v = vals.get((test, state))
            if not v:
                continue
            ratio = statistics.median(v) / statistics.median(base) if base else float("nan")
            print(f"{test + ' (' + unit + ')':<22} {state:<8} {len(v):>4}  {fmt(v, 0):<26} {ratio:.3f}")
    print()


if __name__ == "__main__":
    d = sys.argv[1]
    xbench(f"{d}/xbench.csv")
    overhead(f"{d}/overhead.csv")
