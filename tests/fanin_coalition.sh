#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fanin_coalition.sh: 32 senders into one datagram socket, alone on one
# CPU, are one coalition: weight given to their reader would only reorder
# them, so almost nothing moves.
#
#   unixperf -f 32 -L 100 fanin: 32 processes each send 100 datagrams to
#   one socket that the parent reads; a sender whose socket is full sleeps
#   waiting for room, once per message or so (3,200 messages a run)
#
# The kernel counts, per CPU, the tasks woken from a wait (or new) that
# are still at their I/O: until they wait or sleep again or a tick finds
# them running (sched_economy_contenders()); a sender that sleeps while
# every other runnable task is such a task gives nothing. Without the
# count (the module's links removed, the kernel's count not there) the
# senders gave at 1,725-1,777 of their sleeps per run; with the links,
# 49-52; with a count that let a task go as it ran (a sender preempted in
# the middle of a send() was a contender, and so was the last child
# forked until it first ran), 45-473; with the count as it is, 6-384 in 20
# runs; with a module whose economy_contended() ignores the count, 3,095.
# Passes when each of RUNS runs (default 3) made fewer than
# 800 donations, and the books balance after (weight_residue 0, held_weight
# 0 with the economy off).
set -eu
. ./econ_module.sh

RUNS=${RUNS:-3}
BAR=800

if [ "$(grep -c '^processor' /proc/cpuinfo)" != 1 ]; then
	echo "# SKIP: one CPU only"
	exit 4
fi
echo 1 > /proc/sys/kernel/sched_economy
i=0
while [ $i -lt "$RUNS" ]; do
	d0=$(book donations)
	unixperf -f 32 -L 100 fanin
	d=$(( $(book donations) - d0 ))
	echo "# run $i: $d donations in 3,200 messages (bar < $BAR)"
	if [ "$d" -ge $BAR ]; then
		echo "FAIL: the senders gave at $d of their sleeps"
		exit 1
	fi
	i=$((i + 1))
done
echo 0 > /proc/sys/kernel/sched_economy
if [ "$(book weight_residue)" != 0 ] || [ "$(book held_weight)" != 0 ]; then
	echo "FAIL: books: weight_residue $(book weight_residue), held_weight $(book held_weight)"
	exit 1
fi
echo PASS
