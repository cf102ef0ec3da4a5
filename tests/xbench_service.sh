#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# xbench_service.sh PCT N H S C [XBENCH OPTIONS...]: a service and its
# users, placed as systemd places them (xbench modes group and slices):
# the X-like server in system.slice/xbench.service, its N clients and H
# busy loops in user.slice/user-1000.slice, every cpu.weight 100, 1 vCPU.
#
# Fair, derived from the placement: the two slices weigh the same, so the
# server's own right is half the CPU; clients blocked on it give it their
# part of the user slice (the LCA is the root: system.slice's entity
# gains what user.slice's loses), so the coalition of server and clients
# may take 50 + 50 N / (N + H) %, split S : C by the work of a request,
# and each busy loop keeps 50 / (N + H) %. With S > C the server is the
# bottleneck: economy off it gets its 50 % and no more.
#
# Passes when, economy on (slices), the server is within PCT % of its fair
# share and the median busy loop no more than 1 pp below its own.
#
# With --users-max "QUOTA PERIOD" (cpu.max of user-1000.slice) the clients
# are under a bandwidth limit, and a client under one donates nothing
# across groups: the server would run on its behalf, uncharged. Passes
# then when, economy on, the server gets no more than off (+ 1 pp).
# (Shares are of the CPU time the tasks got, not of wall time: the quota
# leaves the CPU idle, so the user slice shows above its 20 %.) Also
# shown: slices-nogroup, donation inside a cfs_rq only (the module before
# this placement counted), where nothing crosses the slices.
set -eu

pct=$1 n=$2 h=$3 s=$4 c=$5
shift 5
. ./econ_module.sh

quota=$(echo "$@" | sed -n 's/.*--users-max \([0-9]*\) \([0-9]*\).*/\1 \2/p' |
	awk '{ if (NF == 2) printf "%.1f", 100 * $1 / $2 }')
out=$(xbench -N "$n" -H "$h" -S "$s" -C "$c" "$@" --csv -)
echo "$out" | grep -v '^XBENCH_CSV '

# XBENCH_CSV sum,MODE,n, then median,min,max of: server, clients, median
# hog, least hog, busiest hog, ...
echo "$out" | awk -F, -v pct="$pct" -v n="$n" -v h="$h" -v s="$s" -v c="$c" -v quota="$quota" '
$1 == "XBENCH_CSV sum" { srv[$2] = $4; cli[$2] = $7; hog[$2] = $10; top[$2] = $16; seen[$2] = 1 }
END {
	if (!seen["slices"]) { print "FAIL: no slices summary from xbench"; exit 1 }
	coal = 50 + 50 * n / (n + h)
	fs = coal * s / (s + c); fc = coal * c / (s + c); fh = 50 / (n + h)
	printf "fair (placement): server %.1f%% clients %.1f%% each loop %.1f%%\n", fs, fc, fh
	for (m in seen)
		printf "%-15s server %.1f%% clients %.1f%% median loop %.1f%% busiest %.1f%%\n",
			m, srv[m], cli[m], hog[m], top[m]
	why = ""
	if (quota != "") {
		if (!seen["group"]) { print "FAIL: no group summary from xbench"; exit 1 }
		us = cli["slices"] + h * hog["slices"]
		printf "cpu.max %.1f%%: economy on: server %.1f%% (off %.1f%%), user slice ~%.1f%% of the busy time\n",
			quota, srv["slices"], srv["group"], us
		if (srv["slices"] > srv["group"] + 1) why = why " server"
		if (why == "") { print "PASS"; exit 0 }
		print "FAIL: outside the tolerance:" why
		exit 1
	}
	if (srv["slices"] < fs * (1 - pct / 100) || srv["slices"] > fs * (1 + pct / 100))
		why = why " server"
	if (hog["slices"] < fh - 1)
		why = why " loops"
	if (why == "") { print "PASS"; exit 0 }
	print "FAIL: outside the tolerance:" why
	exit 1
}'
