#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bill_bound.sh: a bill cannot be used to slow a reader down (issue 12's
# billing, module/loan.c). A nice 19 task writes lines into a fifo; the
# reader, for whom it is its only peer and who read first, reads one and
# turns into a busy loop. The writer keeps writing (unread), which renews
# their link, so only the bill's own bounds can end it:
#   other uid  the writer runs as uid 65534: no bill at all (bills +0)
#   same uid   billed at weight 15 from the read, for 10 ms of the
#              reader's CPU (bills +2: made and ended)
# Either way the reader then runs as much as a second busy loop beside it
# (45..55 % of the two), and billed_weight is back to 0.
set -eu
. ./econ_module.sh

K=/proc/sys/kernel
echo lend > $K/sched_economy_policy
echo 1 > $K/sched_economy_bill
echo 1 > $K/sched_economy
stat() { awk -v k="$1" '$1 == k { print $2 }' /proc/sched_economy; }
run_ns() { awk '{ print $1 }' /proc/$1/schedstat; }

fail=0
for who in other same; do
	bills0=$(stat bills)
	rm -f /tmp/bill.fifo
	mkfifo -m 666 /tmp/bill.fifo
	sh -c 'exec 3< /tmp/bill.fifo; read x <&3; while :; do :; done' &
	victim=$!
	sh -c 'while :; do :; done' &
	ref=$!
	writer='renice -n 19 -p $$ > /dev/null
		while :; do echo request; sleep 0.5; done > /tmp/bill.fifo'
	if [ $who = other ]; then
		su -s /bin/sh nobody -c "$writer" &
		want=0
	else
		sh -c "$writer" &
		want=2
	fi
	w=$!
	sleep 1
	v0=$(run_ns $victim); r0=$(run_ns $ref)
	sleep 2
	v1=$(run_ns $victim); r1=$(run_ns $ref)
	bills=$(( $(stat bills) - bills0 ))
	billed=$(stat billed_weight)
	kill $victim $ref $w
	pkill -u nobody 2>/dev/null || true
	wait 2>/dev/null || true
	share=$(awk -v v=$((v1 - v0)) -v r=$((r1 - r0)) \
		'BEGIN { printf "%.1f", 100 * v / (v + r) }')
	echo "$who uid: reader $share % of the two loops (want 45..55); bills $bills" \
		"(want $want), billed_weight now $billed (want 0)"
	awk -v s="$share" -v b="$bills" -v w="$billed" -v want=$want \
		'BEGIN { exit !(s >= 45 && s <= 55 && b == want && w == 0) }' || fail=1
done
rm -f /tmp/bill.fifo
[ $fail = 0 ] && echo PASS && exit 0
echo FAIL
exit 1
