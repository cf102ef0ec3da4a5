#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/tables.py RESULTS_DIR: readable tables from the CSV of "make bench".

Reads RESULTS_DIR/xbench.csv (xbench --csv lines, prefix stripped),
wbench.csv (wbench), overhead.csv (unixperf) and xbench-smpN.csv and prints,
per column, the median and [min-max] over all windows or runs.
"""
import csv
import glob
import re
import statistics
import sys
from collections import defaultdict


def mmm(v):
    return statistics.median(v), min(v), max(v)


def fmt(v, prec=1):
    m, lo, hi = mmm(v)
    return f"{m:.{prec}f} [{lo:.{prec}f}-{hi:.{prec}f}]"


def csv_rows(path):
    """A CSV file's rows; none where that part of the bench did not run."""
    try:
        with open(path) as f:
            return list(csv.reader(f))
    except FileNotFoundError:
        return []


def xbench(path, title="Scenario 1: X-like server, N=4 clients, H=5 hogs, 1 vCPU"):
    rows = defaultdict(list)
    fair = None
    for r in csv_rows(path):
        if r[0] == "win" and r[1] != "mode":
            rows[r[1]].append([float(x) for x in r[5:15]])
        elif r[0] == "fair":
            fair = [float(x) for x in r[1:5]]
    if not rows:
        return
    print(f"{title}; CPU share in %, median [min-max] over windows")
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


WEIGHT = {0: 1024, 5: 335, 10: 110}


def wbench(path):
    rows = defaultdict(list)    # mode -> [(nice, rate, ratio, cpu) per client, hogs]
    for r in csv_rows(path):
        if r[0] != "win":
            continue
        n = (len(r) - 6) // 4
        cl = [(int(r[4 + 4 * i]), float(r[5 + 4 * i]), float(r[6 + 4 * i]),
               float(r[7 + 4 * i])) for i in range(n)]
        rows[r[1]].append((cl, float(r[-1])))
    if not rows:
        return
    print("Scenario 2: weighted clients of a thread-per-connection server, 3 hogs, "
          "1 vCPU; median [min-max] over windows")
    print("rate ratio = requests/s over those of the nice-10 client; "
          "weight ratio 1024:335:110 = 9.31:3.05:1")
    print(f"{'mode':<8} {'nice':>4} {'weight':>6} {'w ratio':>7}  {'requests/s':<18} "
          f"{'rate ratio':<20} {'vs weight':>9}  CPU % client+thread")
    for mode, w in rows.items():
        nices = [c[0] for c in w[0][0]]
        wl = WEIGHT.get(nices[-1], 1)
        for i, nice in enumerate(nices):
            wt = WEIGHT.get(nice, 0)
            ratio = [x[0][i][2] for x in w]
            err = statistics.median(ratio) / (wt / wl) - 1
            print(f"{mode if i == 0 else '':<8} {nice:>4} {wt:>6} {wt / wl:>7.2f}  "
                  f"{fmt([x[0][i][1] for x in w], 0):<18} {fmt(ratio, 2):<20} "
                  f"{err * 100:>+8.0f}%  {fmt([x[0][i][3] for x in w])}")
        print(f"{'':<8} {'hogs':>4} {'':>6} {'':>7}  {'':<18} {'':<20} {'':>9}  "
              f"{fmt([x[1] for x in w])}")
    print()


def overhead(path, cpus="1 vCPU"):
    vals = defaultdict(list)
    dropped = []
    for r in csv_rows(path):
        if len(r) != 3:
            continue
        try:
            vals[(r[0], r[1])].append(float(r[2]))
        except ValueError:
            # a console message printed into the line: the value may be
            # cut; None keeps run i of each state beside run i of absent
            vals[(r[0], r[1])].append(None)
            dropped.append(f"{r[0]},{r[1]}")
    if not vals:
        return
    if dropped:
        print(f"({path}: {len(dropped)} value(s) cut by a kernel message, dropped: "
              f"{' '.join(dropped)})")
    print(f"Scenario 3: AF_UNIX overhead, {cpus} (--icount); median [min-max] over runs, "
          "ratio = median / median(absent)")
    print(f"{'test':<22} {'state':<8} {'runs':>4}  {'median [min-max]':<26} ratio  "
          "ratio of run-matched medians [min-max]")
    # futex, pipe, hack and fanin: when a run has them
    for test, unit in (("lat", "ns/round trip"), ("bw", "MB/s"),
                       ("futex", "ns/round trip"), ("pipe", "ns/round trip"),
                       ("epoll", "ns/round trip"), ("epoll10k", "ns/round trip"),
                       ("eventfd", "ns/round trip"),
                       ("hack", "s"), ("rthack", "s"), ("rthackp", "s"),
                       ("fanin", "msgs/s")):
        runs = vals.get((test, "absent"), [])
        base = [b for b in runs if b is not None]
        for state in ("absent", "off", "on"):
            w = vals.get((test, state), [])
            v = [a for a in w if a is not None]
            if not v:
                continue
            ratio = statistics.median(v) / statistics.median(base) if base else float("nan")
            # runs are alternating: run i of each state ran back to back
            pr = [a / b for a, b in zip(w, runs) if a is not None and b is not None]
            prs = fmt(pr, 3) if pr else ""
            print(f"{test + ' (' + unit + ')':<22} {state:<8} {len(v):>4}  {fmt(v, 3 if test in ('hack', 'rthack', 'rthackp') else 0):<26} "
                  f"{ratio:.3f}  {prs}")
    print()


def locks(path, cpus):
    """The rq locks the donations of each test took, economy on (F7)."""
    tot = defaultdict(lambda: [0, 0, 0])
    for r in csv_rows(path):
        if len(r) != 5 or r[0] != "locks":
            continue
        try:
            v = [int(x) for x in r[2:]]
        except ValueError:
            continue
        for i in range(3):
            tot[r[1]][i] += v[i]
    if not tot:
        return
    print(f"Scenario 3b: rq locks taken by donation, {cpus}, economy on, summed over runs")
    print(f"{'test':<10} {'donations':>10} {'rq locks':>10} {'per donation':>13} "
          f"{'remote':>8} {'remote per donation':>20}")
    for test, (d, l, r) in tot.items():
        per = f"{l / d:.2f}" if d else "-"
        rper = f"{r / d:.2f}" if d else "-"
        print(f"{test:<10} {d:>10} {l:>10} {per:>13} {r:>8} {rper:>20}")
    print()


if __name__ == "__main__":
    d = sys.argv[1]
    xbench(f"{d}/xbench.csv")
    wbench(f"{d}/wbench.csv")
    overhead(f"{d}/overhead.csv")
    locks(f"{d}/overhead.csv", "1 vCPU")
    for n in (2, 4):
        overhead(f"{d}/overhead-smp{n}.csv", f"{n} vCPUs")
        locks(f"{d}/overhead-smp{n}.csv", f"{n} vCPUs")
    for p in sorted(glob.glob(f"{d}/xbench-smp*.csv")):
        n = int(re.search(r"smp(\d+)", p).group(1))
        xbench(p, f"Scenario 4: X-like server, N=4 clients, H={5 * n} hogs, {n} vCPUs, "
               f"server on CPU 0, clients on CPUs 1-{n - 1}")
