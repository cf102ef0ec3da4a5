#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sched_debug_race.sh: reads of /sys/kernel/debug/sched/debug, pinned to
# every CPU, while tasks in many cgroups run, sleep and fork: the reads
# the economy's tests make to see group entities' weights, at a rate
# that finds a race in seconds.  No module is loaded: this is the
# kernel's own.  Debian's 6.12.118 calls avg_vruntime(), which rewrites
# a cfs_rq's sums since the zero_vruntime fix, after print_cfs_rq() has
# dropped the rq lock; a store that lands after a concurrent update loses
# it, pick_eevdf() then finds nobody eligible and pick_task_fair()
# dereferences NULL (BUG: KASAN: null-ptr-deref in pick_task_fair+0x85,
# found by group_weights_debug in CI, 2026-12-07; this script crashed the
# unpatched debug kernel on 2 vCPUs after 55 s).  kernel-hooks.patch
# mail 17 takes the value under the lock.
#
#	sched_debug_race.sh [SECONDS [GROUPS]]
#
# Passes when every busy loop still ran in the last part of the run and
# nothing splatted (the runner watches the console).
set -u
dur=${1:-90} groups=${2:-8}
cg=/sys/fs/cgroup
pids= loops=
i=0
while [ $i -lt "$groups" ]; do
	mkdir -p $cg/sdr$i || exit 1
	sh -c "echo \$\$ > $cg/sdr$i/cgroup.procs; exec sh -c 'while :; do :; done'" &
	loops="$loops $!"
	sh -c "echo \$\$ > $cg/sdr$i/cgroup.procs; exec sh -c 'while :; do usleep 3000; done'" &
	pids="$pids $!"
	i=$((i + 1))
done
ncpu=$(grep -c ^processor /proc/cpuinfo)
c=0
while [ $c -lt "$ncpu" ]; do
	taskset -c $c sh -c 'while :; do cat /sys/kernel/debug/sched/debug > /dev/null; done' &
	pids="$pids $!"
	c=$((c + 1))
done
ran() { cut -d' ' -f1 /proc/$1/schedstat 2>/dev/null || echo 0; }
sleep $((dur - 10))
before=
for p in $loops; do before="$before $(ran $p)"; done
sleep 10
rc=0 n=0
for p in $loops; do
	n=$((n + 1))
	b=$(echo $before | cut -d' ' -f$n)
	a=$(ran $p)
	if [ "$a" -le "$b" ]; then
		echo "not ok: busy loop $p did not run in the last 10 s ($b -> $a ns)"
		rc=1
	fi
done
[ $rc = 0 ] && echo "ok: $groups groups, $ncpu readers, ${dur} s; every busy loop ran to the end"
kill $loops $pids 2>/dev/null
wait 2>/dev/null
i=0
while [ $i -lt "$groups" ]; do
	rmdir $cg/sdr$i 2>/dev/null
	i=$((i + 1))
done
exit $rc
