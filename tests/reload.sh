#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# insmod/rmmod sched_economy N times while flooders of every socket type
# run and the economy is on: no splat (the runner watches the console),
# every load starts from clean books and every unload's books balance.
#
#	reload.sh [cycles]
set -u
N=${1:-50}
K=/proc/sys/kernel
pids=""
for t in stream seqpacket dgram; do
	flood $t pair block & pids="$pids $!"
	flood $t bound nonblock & pids="$pids $!"
done
trap 'kill $pids 2>/dev/null; rmmod sched_economy 2>/dev/null' EXIT
dmesg -c > /dev/null
fail=0 paid_cycles=0
i=0
while [ $i -lt $N ]; do
	i=$((i + 1))
	insmod /modules/sched_economy.ko || { echo "not ok: insmod $i"; fail=1; break; }
	for k in outstanding_ns residue_ns paid_ns; do
		v=$(awk -v k=$k '$1 == k { print $2 }' /proc/sched_economy)
		[ "$v" = 0 ] || { echo "not ok: cycle $i: fresh load has $k $v"; fail=1; }
	done
	echo 1 > $K/sched_economy
	[ $((i % 3)) = 0 ] && echo fixed > $K/sched_economy_policy
	[ $((i % 5)) = 0 ] && echo 50000 > $K/sched_economy_price_ns
	sleep 0.2
	paid=$(awk '$1 == "paid_ns" { print $2 }' /proc/sched_economy)
	[ "$paid" -gt 0 ] && paid_cycles=$((paid_cycles + 1))
	rmmod sched_economy || { echo "not ok: rmmod $i"; fail=1; break; }
done
kill $pids 2>/dev/null
unloads=$(dmesg | grep -c 'sched_economy: unloaded:')
bad=$(dmesg | grep 'sched_economy: unloaded:' | grep -vc 'residue 0$')
echo "# $i cycles, $unloads unloads logged, $bad with a residue, $paid_cycles cycles paid"
dmesg | grep 'sched_economy: unloaded:' | tail -2 | sed 's/^/# /'
[ "$unloads" = "$N" ] || fail=1
[ "$bad" = 0 ] || fail=1
[ "$paid_cycles" -gt $((N / 2)) ] || { echo "not ok: economy hardly paid"; fail=1; }
exit $fail
