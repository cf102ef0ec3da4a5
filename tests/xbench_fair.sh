#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# xbench_fair.sh TOLERANCE [XBENCH OPTIONS...]: the X-like server gets its
# coalition's fair share with the economy on (default policy).
#
# xbench (bench/) runs an X-like server (S us of CPU per request), N
# clients (C us per request, no reply awaited) and H busy loops, economy
# off and on alternating in one boot, and prints the medians over windows
# and the fair shares: the coalition of server and clients is N + 1 of
# N + 1 + H tasks, split between them by S : C.  TOLERANCE says how close:
#   pp:N   server and clients within N percentage points of fair, each
#          busy loop (the median one) too (1 vCPU: the seed's shape);
#   pct:N  server and clients at least N % of fair, each busy loop (the
#          busiest) at most 200 - N % of its fair share (SMP);
#   coalition:N  the coalition (server, clients, proxy) within N pp of its
#          fair share, the median and the busiest busy loop within N pp
#          of theirs, and the server at least its fair share less N pp.
#          How the coalition splits its share between server and clients
#          is the work it does (a request's cost on each side, polls and
#          wakeups included): an idle server donates nothing to its
#          clients (it waits for nobody in particular), so the split is
#          not S : C, while what the coalition takes from the loops is.
# With --proxy (client -> proxy -> server) the coalition is N + 2 tasks,
# split S : P : C; the proxy is judged like the server when its fair share
# is above 0 (--proxy-us), and the coalition's total is printed.
# Passes when the economy-on medians meet the tolerance.
set -eu

tol=$1
shift
. ./econ_module.sh
# xbench -X pty needs ptys: devtmpfs has /dev/ptmx, which needs devpts.
if ! grep -q ' /dev/pts devpts ' /proc/mounts; then
	mkdir -p /dev/pts
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts
fi

out=$(xbench "$@" --csv -)
echo "$out" | grep -v '^XBENCH_CSV '
echo "$out" | grep '^XBENCH_CSV books' | sed 's/^/# /' || true

# XBENCH_CSV sum,MODE,n, then median,min,max of: server, clients, median
# hog, least hog, busiest hog, req/s, price, proxy (0 without --proxy).
# XBENCH_CSV fair,server,clients,hog,coalition,proxy.
on=$(echo "$out" | awk -F, '$1 == "XBENCH_CSV sum" && $2 == "economy" { print $4, $7, $10, $16, $25 + 0 }')
fair=$(echo "$out" | awk -F, '$1 == "XBENCH_CSV fair" { print $2, $3, $4, $6 + 0 }')
proxy=$(echo "$out" | grep -c '^xbench: .*; proxy P=' || true)
[ -n "$on" ] && [ -n "$fair" ] || { echo "FAIL: no summary from xbench"; exit 1; }
echo "$on $fair" | awk -v tol="$tol" -v proxy="$proxy" '{
	split(tol, t, ":")
	s = $1; c = $2; h = $3; hmax = $4; p = $5; fs = $6; fc = $7; fh = $8; fp = $9
	printf "economy on: server %.1f%% clients %.1f%% hog %.1f%% (busiest %.1f%%); fair %.1f / %.1f / %.1f; tolerance %s\n",
		s, c, h, hmax, fs, fc, fh, tol
	if (proxy)
		printf "proxy %.1f%% (fair %.1f%%); coalition server+proxy+clients %.1f%% (fair %.1f%%)\n",
			p, fp, s + p + c, fs + fp + fc
	why = ""
	if (t[1] == "pp") {
		if (s < fs - t[2] || s > fs + t[2]) why = why " server"
		if (c < fc - t[2] || c > fc + t[2]) why = why " clients"
		if (h < fh - t[2] || h > fh + t[2]) why = why " median-hog"
		if (fp > 0 && (p < fp - t[2] || p > fp + t[2])) why = why " proxy"
	} else if (t[1] == "coalition") {
		if (s + c + p < fs + fc + fp - t[2] || s + c + p > fs + fc + fp + t[2])
			why = why " coalition"
		if (s < fs - t[2]) why = why " server"
		if (h < fh - t[2] || h > fh + t[2]) why = why " median-hog"
		if (hmax > fh + t[2]) why = why " busiest-hog"
	} else {
		if (s < fs * t[2] / 100) why = why " server"
		if (c < fc * t[2] / 100) why = why " clients"
		if (hmax > fh * (200 - t[2]) / 100) why = why " busiest-hog"
		if (fp > 0 && p < fp * t[2] / 100) why = why " proxy"
	}
	if (why == "") { print "PASS"; exit 0 }
	print "FAIL: outside the tolerance:" why
	exit 1
}'
