#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The overhead of the hooks: hackbench-like load (unixperf hack: 4 groups
# of 5 senders and 5 receivers, 200 messages of 100 bytes) and the AF_UNIX
# round trip (unixperf lat), with the module absent, loaded with the economy
# off, and on, the order rotating from run to run; in each, also the round
# trip through two pipes (unixperf pipe: perf bench sched pipe; a reader
# waiting for data donates to the pipe's writer, of its own user) and
# through a futex (unixperf futex: no channel names whom a futex waiter
# waits for, so nothing is donated there).
# Also 32 senders into one datagram socket (unixperf fanin: many writers,
# one account, as X or journald see them), and bw (bandwidth, 32 KB
# messages) when asked.
# RUNS runs (default 5); STATES ("absent off on"); TESTS ("hack rthack
# rthackp fanin lat futex pipe"); N round trips per lat, futex or pipe run (5000); LEAVE the
# state to end in (absent); UNIXPERF_CSV lines for the host. make bench's
# scenario 3 (bench.sh) is this script.  With the economy on, each test
# also prints "UNIXPERF_CSV locks,TEST,DONATIONS,RQ_LOCKS,REMOTE": the
# donations it made and the rq locks they took, on other CPUs too
# (review F7; /proc/sched_economy's rq_locks and rq_locks_remote).
#   qemu/boot --icount --files bench/guest -- sh /files/guest/overhead.sh
#   qemu/boot --icount --files bench/guest -- sh -c 'RUNS=1 sh /files/guest/overhead.sh'
set -eu

RUNS=${RUNS:-5}
STATES=${STATES:-absent off on}
TESTS=${TESTS:-hack rthack rthackp fanin lat futex pipe}
KO=/modules/sched_economy.ko

loaded() { grep -q '^sched_economy ' /proc/modules; }
book() { awk -v k="$1" '$1 == k { print $2 }' /proc/sched_economy; }
books() { echo "$(book donations) $(book rq_locks) $(book rq_locks_remote)"; }
state() {	# absent | off | on
	case $1 in
	absent)	if loaded; then echo 0 > /proc/sys/kernel/sched_economy; rmmod sched_economy; fi ;;
	off)	loaded || insmod $KO; echo 0 > /proc/sys/kernel/sched_economy ;;
	on)	loaded || insmod $KO; echo 1 > /proc/sys/kernel/sched_economy ;;
	esac
}
# rt-tests' hackbench, as the issue measured it (qemu/boot --x11 brings it):
# 4 groups of 5 senders and 5 receivers, 200 loops of 100-byte messages
# over AF_UNIX sockets; its "Time:" in seconds.
# rthackp: the same over pipes (hackbench -p).  rthack LABEL NAME [OPTION]
rthack() {
	command -v hackbench > /dev/null || return 0
	secs=$(hackbench ${3:-} -s 100 -g 4 -f 5 -l 200 | sed -n 's/^Time: *//p')
	echo "UNIXPERF_CSV $2,$1,$secs"
}
i=0
while [ $i -lt "$RUNS" ]; do
	set -- $STATES
	# rotate by i
	j=0
	while [ $j -lt $((i % $#)) ]; do
		first=$1; shift; set -- "$@" "$first"; j=$((j + 1))
	done
	for s in "$@"; do
		state $s
		for t in $TESTS; do
			[ $s = on ] && before=$(books)
			case $t in
			hack)	unixperf -l "$s" hack ;;
			fanin)	unixperf -f 32 -L 100 -l "$s" fanin ;;
			rthack)	rthack "$s" rthack ;;
			rthackp) rthack "$s" rthackp -p ;;
			bw)	unixperf -s 32 -l "$s" bw ;;
			*)	unixperf -n "${N:-5000}" -l "$s" "$t" ;;
			esac
			[ $s = on ] && echo "$before $(books)" | awk -v t=$t \
				'{ printf "UNIXPERF_CSV locks,%s,%d,%d,%d\n", t, $4 - $1, $5 - $2, $6 - $3 }'
		done
	done
	i=$((i + 1))
done
state "${LEAVE:-absent}"
echo "=== overhead done"
