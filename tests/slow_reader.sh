#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slow_reader.sh: a writer blocked on a full pipe donates to its reader
# however slowly the reader drains it (module/donate.c: a room wait). The
# real-X chain has this shape: a bash echo loop blocked on its pty while
# its xterm, starved behind busy loops, reads a few KB once a second or
# two.
#
#   writer  "yes | tr -d '\n'" into a fifo: tr blocks once the pipe is full
#   reader  a shell that reads 4 KB (its own read builtin: the reader must
#           be the spinning task), then spins for a while of CPU, and
#           again: one read every few seconds
#   2 busy loops of uid 65534 beside them on the one CPU
#
# The writer is a chain: yes, blocked on its full pipe, donates to tr; tr,
# blocked on the full fifo, donates its own weight and yes's to the reader
# (module/donate.c: a donor passes on what it holds). The reader then runs
# at three times its own weight: 60 % against the two loops, 20 % each,
# which is what moving yes and tr beside them, as busy loops, would leave
# them (a third each without the economy). Asserts the reader's share
# >= 44 % and each loop's >= 19 %.
set -eu
. ./econ_module.sh

K=/proc/sys/kernel
echo lend > $K/sched_economy_policy
echo 1 > $K/sched_economy
run_ns() { awk '{ print $1 }' /proc/$1/schedstat; }

fifo=/tmp/slow_reader.fifo
rm -f $fifo
mkfifo -m 666 $fifo
# The spin: ~0.5 s of CPU at icount speed, 1.5-2 s of wall time here.
sh -c "exec 3< $fifo
	while :; do
		read -r -n 4096 x <&3
		i=0; while [ \$i -lt 60000 ]; do i=\$((i + 1)); done
	done" &
reader=$!
yes | tr -d '\n' > $fifo &
writer=$!
su -s /bin/sh nobody -c 'while :; do :; done' &
l1=$!
su -s /bin/sh nobody -c 'while :; do :; done' &
l2=$!
sleep 4
r0=$(run_ns $reader) a0=$(run_ns $l1) b0=$(run_ns $l2)
sleep 8
r1=$(run_ns $reader) a1=$(run_ns $l1) b1=$(run_ns $l2)
reads=$(awk '$1 == "donations" { print $2 }' /proc/sched_economy)
cat /proc/sched_economy_tasks
kill -9 $reader $writer 2>/dev/null || true
kill -9 $l1 $l2 2>/dev/null || true; pkill -9 -u nobody 2>/dev/null || true
wait 2>/dev/null || true
rm -f $fifo
echo 0 > $K/sched_economy
held=$(awk '$1 == "held_weight" { print $2 }' /proc/sched_economy)
awk -v r=$((r1 - r0)) -v a=$((a1 - a0)) -v b=$((b1 - b0)) -v loans="$reads" -v held="$held" 'BEGIN {
	t = r + a + b
	printf "reader %.1f %%, loops %.1f / %.1f %% (want >= 44, >= 19 each); donations %d; held_weight after off %d (want 0)\n",
		100 * r / t, 100 * a / t, 100 * b / t, loans, held
	if (100 * r / t >= 44 && 100 * a / t >= 19 && 100 * b / t >= 19 && held == 0) { print "PASS"; exit 0 }
	print "FAIL"; exit 1
}'
