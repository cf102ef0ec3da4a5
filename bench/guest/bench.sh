#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of "make bench" (bench/bench runs it as /files/guest/bench.sh).
# Prints human-readable tables and machine-readable lines prefixed
# XBENCH_CSV / UNIXPERF_CSV that the host collects.
#
#   scenario 1: xbench, modes off economy (the default policy, lend)
#               fixed seed renice group slices (group: the server in
#               system.slice, the rest in user.slice/user-1000.slice;
#               slices: that placement, economy on), alternating over ROUNDS rounds of
#               WINDOWS windows; 1b: off economy over pipes, ptys, a
#               futex ring and eventfds; 1c: a chain through a proxy
#   scenario 2: wbench, clients at nice 0/5/10 of a thread-per-connection
#               server, off and economy alternating over ROUNDS rounds
#   scenario 3: unixperf lat, bw, futex, pipe, epoll (and with 10,000 idle
#   sockets) and eventfd round trips, hackbench
#               and 32 senders into one datagram socket (fanin), module
#               absent / loaded-off / on, alternating, RUNS runs each
# With SCENARIO=smp (bench/bench's SMP boots) only scenario 4 runs: the
# X-like server on every vCPU of the guest, server and clients pinned to
# different CPUs, off and economy; then wbench's weighted clients.
set -eu

ROUNDS=${ROUNDS:-3}
WINDOWS=${WINDOWS:-2}
RUNS=${RUNS:-20}
KO=/modules/sched_economy.ko

if [ "${SCENARIO:-}" = smp ]; then
	ncpu=$(grep -c '^processor' /proc/cpuinfo)
	hogs=$((5 * ncpu))
	echo "=== scenario 4: X-like server, $ncpu vCPUs: N=4 H=$hogs S=100us C=150us, server on CPU 0, clients on CPUs 1-$((ncpu - 1))"
	# --mttcg: the economy's keys flip only with CPUs 1.. offline
	# (docs/harness.md), so the benches switch it with --keys-offline
	# and the module unloads with them offline too.
	insmod $KO
	echo "policy: $(cat /proc/sys/kernel/sched_economy_policy)"
	xbench --keys-offline -a -N 4 -H $hogs -S 100 -C 150 -m off,economy \
		-r "$ROUNDS" -w "$WINDOWS" -t 1000 -u 1500 --csv -
	echo "--- weighted clients, $ncpu vCPUs: nice 0/5/10, $((3 * ncpu)) hogs, S=200us C=20us"
	wbench --keys-offline -n 0,5,10 -H $((3 * ncpu)) -S 200 -C 20 -m off,economy \
		-r "$ROUNDS" -w 3 -t 1000 -u 1500 | sed -n '/^summary/,$p'
	echo "books after scenario 4:"
	cat /proc/sched_economy
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do echo 0 > "$c"; done
	rmmod sched_economy
	echo "=== bench done"
	exit 0
fi

echo "=== scenario 1: X-like server, 1 vCPU: N=4 H=5 S=100us C=150us"
insmod $KO
echo "policy: $(cat /proc/sys/kernel/sched_economy_policy)"
xbench -N 4 -H 5 -S 100 -C 150 -m off,economy,fixed,seed,renice,group,slices \
	-r "$ROUNDS" -w "$WINDOWS" -t 1000 -u 1500 --csv -
echo "books after scenario 1:"
cat /proc/sched_economy

# Scenario 1b (issue 13): the same server over pipes and pty pairs, off and
# economy; summaries on the console only (xbench.csv keeps scenario 1).
# Over a futex ring and eventfds no channel names the task a client waits
# for, so nothing is donated there: rows to compare with, economy as off.
if ! grep -q ' /dev/pts devpts ' /proc/mounts; then
	mkdir -p /dev/pts
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts
fi
for x in pipe pty futex eventfd; do
	echo "=== scenario 1b: X-like server over $x, 1 vCPU: N=4 H=5 S=100us C=150us"
	xbench -q -X $x -N 4 -H 5 -S 100 -C 150 -m off,economy \
		-r "$ROUNDS" -w "$WINDOWS" -t 1000 -u 1500
done
echo "=== scenario 1c: a chain, clients -> proxy -> server over AF_UNIX, 1 vCPU"
xbench -q --proxy -N 4 -H 5 -S 100 -C 150 -m off,economy \
	-r "$ROUNDS" -w "$WINDOWS" -t 1000 -u 1500

echo "=== scenario 2: weighted clients, 1 vCPU: nice 0/5/10, 3 hogs, S=200us C=20us"
wbench -n 0,5,10 -H 3 -S 200 -C 20 -m off,economy -r "$ROUNDS" -w 3 \
	-t 1000 -u 1500 --csv
# More rows, in the log only (wbench.csv keeps the row above).
echo "--- synchronous clients: each waits for the reply to its request"
wbench -y -n 0,5,10 -H 3 -S 200 -C 20 -m off,economy -r "$ROUNDS" -w 3 \
	-t 1000 -u 1500 | sed -n '/^summary/,$p'
echo "--- the X shape: one server thread for all, S=100us C=150us"
wbench -1 -n 0,5,10 -H 3 -S 100 -C 150 -m off,economy -r "$ROUNDS" -w 3 \
	-t 1000 -u 1500 | sed -n '/^summary/,$p'
echo "--- synchronous clients in scopes of cpu.weight 100/50/10 (user.slice/user-1000.slice), the server in system.slice"
wbench -y -n 0,0,0 -g 100,50,10 -H 3 -S 200 -C 20 -m off,economy -r "$ROUNDS" -w 3 \
	-t 1000 -u 1500 | sed -n '/^summary/,$p'
echo "--- a nice 19 client beside a nice 0 one"
wbench -n 0,19 -H 3 -S 200 -C 20 -m off,economy -r "$ROUNDS" -w 3 \
	-t 1000 -u 1500 | sed -n '/^summary/,$p'
echo "books after scenario 2:"
cat /proc/sched_economy
rmmod sched_economy

echo "=== scenario 3: overhead, $RUNS alternating runs per state"
# lat, bw, futex, pipe, hack and fanin, the order
# of the three states rotating from run to run
RUNS=$RUNS TESTS="lat bw futex pipe epoll epoll10k eventfd hack rthack rthackp fanin" LEAVE=off \
	sh "$(dirname "$0")/overhead.sh"
echo "books after scenario 3:"
cat /proc/sched_economy
rmmod sched_economy
echo "=== bench done"
