#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slow_reader.sh: a writer blocked on a full pipe lends to its reader even
# when the reader drains it more slowly than a lease (module/loan.c,
# economy_waits_on()). The real-X chain has this shape: a bash echo loop
# blocked on its pty while its xterm, starved behind busy loops, reads a
# few KB once a second or two.
#
#   writer  "yes | tr -d '\n'" into a fifo: tr blocks once the pipe is full
#   reader  a shell that reads 4 KB (its own read builtin: the reader must
#           be the spinning task), then spins for a while of CPU, and
#           again: one read every few seconds, longer than lease_ms (1 s)
#   2 busy loops of uid 65534 beside them on the one CPU
#
# With the writer's weight lent while it waits, the reader runs at about
# twice its own weight: half of the CPU against the two loops (a third
# without). Before this round's fix the channel and the link expired a
# lease after the last write and the reader got 33 %.
# Asserts the reader's share >= 44 % and each loop's >= 24 % (what moving
# the writer's task beside them, as a busy loop, would leave them: 25 %).
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
reads=$(awk '$1 == "loans" { print $2 }' /proc/sched_economy)
cat /proc/sched_economy_tasks
kill -9 $reader $writer 2>/dev/null || true
kill -9 $l1 $l2 2>/dev/null || true; pkill -9 -u nobody 2>/dev/null || true
wait 2>/dev/null || true
rm -f $fifo
echo 0 > $K/sched_economy
held=$(awk '$1 == "held_weight" { print $2 }' /proc/sched_economy)
awk -v r=$((r1 - r0)) -v a=$((a1 - a0)) -v b=$((b1 - b0)) -v loans="$reads" -v held="$held" 'BEGIN {
	t = r + a + b
	printf "reader %.1f %%, loops %.1f / %.1f %% (want >= 44, >= 24 each); loans %d; held_weight after off %d (want 0)\n",
		100 * r / t, 100 * a / t, 100 * b / t, loans, held
	if (100 * r / t >= 44 && 100 * a / t >= 24 && 100 * b / t >= 24 && held == 0) { print "PASS"; exit 0 }
	print "FAIL"; exit 1
}'
