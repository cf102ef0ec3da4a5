#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# insmod/rmmod sched_economy N times while 8 flooders of every socket type
# run (socketpairs and bound pairs, blocking and non-blocking) and the
# economy is on: no splat (the runner watches the console), every load
# starts from clean books and every unload's books balance.
#
#	reload.sh [-t] [cycles]
#
# -t: another task toggles /proc/sys/kernel/sched_economy and rewrites the
#     knobs (valid values, every policy) all the time, also while the module
#     comes and goes.  It pauses, acknowledged, around each insmod and the
#     fresh-books check, which needs the economy off.
set -u
toggle=0
if [ "${1:-}" = -t ]; then
	toggle=1
	shift
fi
N=${1:-50}
K=/proc/sys/kernel
Q=/tmp/reload.quiet
pids=""
for t in stream seqpacket dgram; do
	flood $t pair block & pids="$pids $!"
	flood $t bound nonblock & pids="$pids $!"
done
flood stream pair nonblock & pids="$pids $!"
flood seqpacket bound block & pids="$pids $!"

toggler() {
	n=0
	while :; do
		if [ -e $Q ]; then
			touch $Q.ack
			sleep 0.01
			continue
		fi
		n=$((n + 1))
		{
			echo 0 > $K/sched_economy
			# Every policy offered in turn, lend every other time.
			if [ $((n % 2)) = 0 ]; then echo lend; else
				awk -v n=$((n / 2)) '{ print $(n % NF + 1) }' \
					$K/sched_economy_available_policies
			fi > $K/sched_economy_policy
			echo $((1000 + n * 7919 % 400000)) > $K/sched_economy_price_ns
			echo $((1000 + n * 104729 % 4000000)) > $K/sched_economy_limit_ns
			echo $((1 + n % 1024)) > $K/sched_economy_target_qlen
			echo 1 > $K/sched_economy
		} 2> /dev/null
		sleep 0.05
	done
}
rm -f $Q $Q.ack
if [ $toggle = 1 ]; then
	toggler & pids="$pids $!"
fi
trap 'kill $pids 2>/dev/null; rm -f $Q $Q.ack; rmmod sched_economy 2>/dev/null' EXIT
dmesg -c > /dev/null
fail=0 paid_cycles=0 unloads=0 bad=0 last=
nl='
'
start=$(date +%s)
i=0
while [ $i -lt $N ]; do
	i=$((i + 1))
	if [ $toggle = 1 ]; then
		rm -f $Q.ack
		touch $Q
		while [ ! -e $Q.ack ]; do sleep 0.01; done
	fi
	insmod /modules/sched_economy.ko || { echo "not ok: insmod $i"; fail=1; break; }
	# Shell builtins only: a fork costs dearly on this guest.
	while read -r k v; do
		case $k in
		outstanding_ns|residue_ns|paid_ns)
			[ "$v" = 0 ] || { echo "not ok: cycle $i: fresh load has $k $v"; fail=1; } ;;
		esac
	done < /proc/sched_economy
	echo 1 > $K/sched_economy
	[ $((i % 3)) = 0 ] && echo fixed > $K/sched_economy_policy
	[ $((i % 5)) = 0 ] && echo 50000 > $K/sched_economy_price_ns
	rm -f $Q
	sleep 0.2
	# The economy was at work: lag paid (lag policies), or a wait seen at
	# a blocking point (lend: donated, or judged to have nobody to give to).
	worked=0
	while read -r k v; do
		case $k in
		paid_ns|donations|donate_*) [ "$v" -gt 0 ] && worked=1 ;;
		esac
	done < /proc/sched_economy
	paid_cycles=$((paid_cycles + worked))
	rmmod sched_economy || { echo "not ok: rmmod $i"; fail=1; break; }
	# Per cycle: 1,000 cycles of log would overflow the ring buffer.
	log=$(dmesg -c)
	case $log in
	*'sched_economy: unloaded:'*)
		line=${log##*sched_economy: unloaded:}
		line=${line%%"$nl"*}
		unloads=$((unloads + 1))
		last=$line
		case $line in
		*' residue 0') ;;
		*) bad=$((bad + 1)); echo "not ok: cycle $i: $line" ;;
		esac ;;
	esac
	[ $((i % 100)) = 0 ] && echo "# cycle $i after $(($(date +%s) - start)) s"
done
kill $pids 2>/dev/null
echo "# $i cycles in $(($(date +%s) - start)) s (toggler $toggle), $unloads unloads logged, $bad with a residue, $paid_cycles cycles at work"
echo "# last: $last"
[ "$unloads" = "$N" ] || fail=1
[ "$bad" = 0 ] || fail=1
[ "$paid_cycles" -gt $((N / 2)) ] || { echo "not ok: economy hardly at work"; fail=1; }
exit $fail
