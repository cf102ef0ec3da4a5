#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make bench" (bench/bench runs it as /files/guest/bench.sh).
# Prints human-readable tables and machine-readable lines prefixed
# XBENCH_CSV / UNIXPERF_CSV that the host collects.
#
#   scenario 1: xbench, modes off economy fixed seed renice group,
#               alternating over ROUNDS rounds of WINDOWS windows
#   scenario 3: unixperf lat and bw, module absent / loaded-off / on,
#               alternating, RUNS runs each
set -eu

ROUNDS=${ROUNDS:-3}
WINDOWS=${WINDOWS:-2}
RUNS=${RUNS:-20}
KO=/modules/sched_economy.ko

echo "=== scenario 1: X-like server, 1 vCPU: N=4 H=5 S=100us C=150us"
insmod $KO
xbench -N 4 -H 5 -S 100 -C 150 -m off,economy,fixed,seed,renice,group \
	-r "$ROUNDS" -w "$WINDOWS" -t 1000 -u 700 --csv -
echo "books after scenario 1:"
cat /proc/sched_economy
rmmod sched_economy

echo "=== scenario 3: overhead, $RUNS alternating runs per state"
loaded() { grep -q '^sched_economy ' /proc/modules; }
state() {	# absent | off | on
	case $1 in
	absent)	if loaded; then rmmod sched_economy; fi ;;
	off)	loaded || insmod $KO; echo 0 > /proc/sys/kernel/sched_economy ;;
	on)	loaded || insmod $KO; echo 1 > /proc/sys/kernel/sched_economy ;;
	esac
}
# the order of the three states rotates from run to run
i=0
while [ $i -lt "$RUNS" ]; do
	case $((i % 3)) in
	0) order="absent off on" ;;
	1) order="off on absent" ;;
	2) order="on absent off" ;;
	esac
	for s in $order; do
		state $s
		unixperf -n 3000 -l $s lat
		unixperf -s 16 -l $s bw
	done
	i=$((i + 1))
done
state off
echo "books after scenario 3:"
cat /proc/sched_economy
rmmod sched_economy
echo "=== bench done"
