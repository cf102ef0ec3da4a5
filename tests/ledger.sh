#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ledger.sh: /proc/sched_economy_tasks (econctl tasks) sums exactly to the
# books. xbench (economy on, policy lend) runs in the background; then its
# tasks are stopped, so that no loan is made or returned while the ledger
# and the books are read (a stopped task is nobody's runnable peer: within
# two sweeps every loan is home), with a lease long enough to keep the
# parties. Checked: live parties with loans are listed; the columns lent
# and held sum to held_weight (0 by then), lent_total and held_total each
# to lent_weight; and after the economy is switched off, the departed line
# alone carries lent_weight. econctl top runs twice without error.
set -eu
. ./econ_module.sh

echo 10000 > /proc/sys/kernel/sched_economy_lease_ms
echo lend > /proc/sys/kernel/sched_economy_policy
echo 1 > /proc/sys/kernel/sched_economy
xbench -N 4 -H 2 -S 100 -C 150 -m economy -r 1 -w 30 -t 1000 -u 500 > /dev/null &
xb=$!
sleep 3
pids=$(for p in /proc/[0-9]*; do
	if [ "$(cat "$p/comm" 2>/dev/null)" = xbench ] && [ "${p#/proc/}" != "$xb" ]; then
		echo "${p#/proc/}"
	fi
done)
kill -STOP $pids
sleep 1
econctl top -i 0.2 -n 2 | tail -5
out=$(econctl tasks)
echo "$out"
kill -CONT $pids
kill $xb 2>/dev/null || true
wait $xb 2>/dev/null || true

sum=$(echo "$out" | tail -1)
live=$(echo "$out" | awk '$1 ~ /^[0-9]+$/ && $7 + $8 > 0' | wc -l)
echo "$sum" | awk -v live="$live" '{
	# sum: lent L held H (books held_weight BH), lent_total LT held_total HT (books lent_weight BL)
	l = $3; h = $5; bh = $8; sub(/\),?/, "", bh); lt = $10; ht = $12; bl = $15; sub(/\)/, "", bl)
	printf "live parties with loans %d; lent %d held %d held_weight %d; lent_total %d held_total %d lent_weight %d\n", live, l, h, bh, lt, ht, bl
	if (live < 2 || bl <= 0 || l != bh || h != bh || lt != bl || ht != bl) { print "FAIL"; exit 1 }
}'
echo 0 > /proc/sys/kernel/sched_economy
after=$(econctl tasks)
echo "$after" | tail -2
echo "$after" | awk '
	$1 == "-" { dl = $7; dh = $8 }
	$1 == "sum:" { bl = $15; sub(/\)/, "", bl); n = bl }
	$1 ~ /^[0-9]+$/ { rows++ }
	END {
		printf "economy off: %d live parties, departed %d / %d, lent_weight %d\n", rows, dl, dh, n
		if (rows || dl != n || dh != n) { print "FAIL"; exit 1 }
		print "PASS"
	}'
