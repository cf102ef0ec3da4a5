#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# xbench_economy.sh [POLICY]: the seed's experiment as a regression test.
#
# 1 vCPU; an X-like server burning 100 us per request, 4 clients burning
# 150 us and sending a request, 5 busy loops (bench/src/xbench.c).  Economy
# off and on (sched_economy_policy POLICY) alternate over 3 rounds in one
# boot, 2 windows of 1 s each.  POLICY defaults to "fixed" at the seed's
# price of 100 us: that tests the mechanism (payments move CPU share) and is
# stable; "queue" currently is not (see the note at MARGIN).  Passes when the
# server's median share with the economy on is at least MARGIN percentage
# points above its median share with it off, and the worst "on" window beats
# the best "off" window.
#
# Exits 1 when the economy does nothing: checked with POLICY=seed (every task
# here is root, so no sender pays: "nothing moves") and with the module not
# loaded (xbench then refuses to run "economy").
set -eu

policy=${1:-fixed}
# Measured noise (QEMU TCG on a busy 2-core host, 1 window = 1 s):
#  - off: 8 runs over 2 boots, run medians 13.3-13.9 %, single windows
#    12.3-15.1 %.
#  - fixed 100 us: 3 runs, run medians 19.3-19.7 %, windows 18.5-21.0 %;
#    gain over off 5.5 / 6.0 / 6.2 pp (run-to-run spread 0.7 pp).
#  - nothing moves (POLICY=seed while every task is root): gain -0.4 pp,
#    fails as it should; module not loaded: xbench exits 1, fails.
#  - queue (round 1's default policy; lend is now): before the price fix of 6b61731 the gain
#    was 5.7, 1.1, 0.6, 0.1 pp (the price ran away to limit/2); after it,
#    5.4, 5.9, 5.9 pp with economy medians 19.2-19.4 % (windows 19.0-19.7).
# MARGIN = 3 pp: half the measured gain, 4x its run-to-run spread; with
# "worst on window > best off window" (measured 18.5 vs 15.1).
MARGIN=3

. ./econ_module.sh

out=$(xbench -N 4 -H 5 -S 100 -C 150 -m off,economy -P "$policy" -p 100000 \
	-r 3 -w 2 -t 1000 -u 700 --csv -)
echo "$out" | grep -v '^XBENCH_CSV '

# XBENCH_CSV sum,MODE,n,server_med,server_min,server_max,...
off=$(echo "$out" | awk -F, '$1 == "XBENCH_CSV sum" && $2 == "off" { print $4, $5, $6 }')
on=$(echo "$out" | awk -F, '$1 == "XBENCH_CSV sum" && $2 == "economy" { print $4, $5, $6 }')
[ -n "$off" ] && [ -n "$on" ] || { echo "FAIL: no summary from xbench"; exit 1; }
echo "$off $on" | awk -v margin=$MARGIN '{
	gain = $4 - $1
	printf "server share: off %.1f%% [%.1f-%.1f], economy %.1f%% [%.1f-%.1f]; gain %.1f pp (need >= %d), worst on %.1f vs best off %.1f\n",
		$1, $2, $3, $4, $5, $6, gain, margin, $5, $3
	if (gain >= margin && $5 > $3) { print "PASS"; exit 0 }
	print "FAIL: the economy did not raise the server share clearly above off"
	exit 1
}'
