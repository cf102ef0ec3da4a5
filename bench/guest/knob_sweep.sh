#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# knob_sweep.sh: the seed's experiment (1 vCPU, N=4, H=5, S=100 us,
# C=150 us) under each setting of the queue policy's knobs, one at a time
# around the defaults, to show why the defaults are what they are.
# Prints one summary line per setting: server / clients / hog shares.
#
#	qemu/boot -- /usr/share/sched-economy/knob_sweep.sh   (or from /files)
set -eu
K=/proc/sys/kernel
grep -q '^sched_economy ' /proc/modules || insmod /modules/sched_economy.ko

run() {		# label
	printf '%-28s ' "$1"
	xbench -N 4 -H 5 -S 100 -C 150 -m economy -P queue -r 1 -w 3 \
		-t 1000 -u 1000 -q | awk '$1 == "economy" && NF > 4 {
		printf "server %s clients %s hog %s\n", $2, $4, $6 }'
}

printf '%-28s ' "economy off"
xbench -N 4 -H 5 -S 100 -C 150 -m off -r 1 -w 3 -t 1000 -u 1000 -q |
	awk '$1 == "off" && NF > 4 { printf "server %s clients %s hog %s\n", $2, $4, $6 }'
for l in 500000 1000000 2000000 4000000 8000000; do
	echo $l > $K/sched_economy_limit_ns
	run "limit_ns=$l"
done
echo 2000000 > $K/sched_economy_limit_ns
for q in 1 2 4 8 32; do
	echo $q > $K/sched_economy_target_qlen
	run "target_qlen=$q"
done
echo 4 > $K/sched_economy_target_qlen
for p in 10000 100000 1000000; do
	echo $p > $K/sched_economy_price_ns
	run "start price_ns=$p"
done
echo 100000 > $K/sched_economy_price_ns
