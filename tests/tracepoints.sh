#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The sched_economy tracepoints: present under tracefs, and during traffic
# one economy_pay per payment, one economy_withdraw per withdrawal, one
# economy_refuse per refusal and one economy_yield_to per yield-to counted
# in /proc/sched_economy; each of the four happened (> 0).
set -u
T=/sys/kernel/tracing
K=/proc/sys/kernel
. ./econ_unload.sh
insmod /modules/sched_economy.ko || exit 1
pids=""
cleanup() {
	kill $pids 2>/dev/null
	echo 0 > $T/events/sched_economy/enable 2>/dev/null
	echo 0 > $K/sched_economy
	wait
	econ_unload || exit 1
}
trap cleanup EXIT
fail=0
for e in economy_pay economy_withdraw economy_refuse economy_yield_to; do
	[ -d $T/events/sched_economy/$e ] || { echo "not ok: no event $e"; fail=1; }
done

book() { awk -v k=$1 '$1 == k { print $2 }' /proc/sched_economy; }
refusals() {
	n=0
	for k in pay_refused_no_credit pay_refused_over_limit pay_refused_alone \
		pay_refused_ineligible withdraw_refused_alone \
		withdraw_refused_ineligible; do
		n=$((n + $(book $k)))
	done
	echo $n
}

echo 16384 > $T/buffer_size_kb
echo > $T/trace
echo 1 > $T/events/sched_economy/enable
p0=$(book payments) w0=$(book withdrawals) r0=$(refusals) y0=$(book yield_tos)
echo fixed > $K/sched_economy_policy
echo 1 > $K/sched_economy
# Company on the runqueue, so that there is credit to trade.
sh -c 'while :; do :; done' & pids="$!"
for t in stream dgram; do
	./flood $t pair & pids="$pids $!"
done
sleep 1
# Yield-to from the shell to the busy loop (pids starts with it).
for i in 1 2 3 4 5; do
	econctl yield-to ${pids%% *} > /dev/null || { echo "not ok: econctl yield-to"; fail=1; }
done
echo 0 > $K/sched_economy
kill $pids 2>/dev/null
wait 2>/dev/null
pids=""
echo 0 > $T/events/sched_economy/enable
p=$(($(book payments) - p0)) w=$(($(book withdrawals) - w0)) r=$(($(refusals) - r0))
y=$(($(book yield_tos) - y0))
tp=$(grep -c ' economy_pay:' $T/trace)
tw=$(grep -c ' economy_withdraw:' $T/trace)
tr=$(grep -c ' economy_refuse:' $T/trace)
ty=$(grep -c ' economy_yield_to:' $T/trace)
overrun=$(awk '/^overrun/ { s += $2 } END { print s + 0 }' $T/per_cpu/cpu*/stats)
grep -m1 ' economy_pay:' $T/trace
grep -m1 ' economy_refuse:' $T/trace
grep -m1 ' economy_yield_to:' $T/trace
echo "# payments $p events $tp; withdrawals $w events $tw; refusals $r events $tr; yield-tos $y events $ty; overrun $overrun"
[ "$overrun" = 0 ] || { echo "not ok: trace buffer overran"; fail=1; }
[ "$p" -gt 0 ] || { echo "not ok: nothing was paid"; fail=1; }
[ "$w" -gt 0 ] || { echo "not ok: nothing was withdrawn"; fail=1; }
[ "$r" -gt 0 ] || { echo "not ok: nothing was refused"; fail=1; }
[ "$y" = 5 ] || { echo "not ok: $y yield-tos counted, 5 made"; fail=1; }
[ "$p" = "$tp" ] && [ "$w" = "$tw" ] && [ "$r" = "$tr" ] && [ "$y" = "$ty" ] ||
	{ echo "not ok: events do not match the counters"; fail=1; }
grep -m1 ' economy_pay:' $T/trace | grep -q 'ino=[1-9]' ||
	{ echo "not ok: no socket inode in the event"; fail=1; }
exit $fail
