#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh: Debian's stress-ng (the x11 bundle: smp "...x") runs as root in
# cgroup soak-a and as uid 1000 in soak-b while a toggler switches the
# economy on and off and cycles every policy, a mover moves tasks between
# the two groups, and every RELOAD seconds the module is unloaded and
# loaded again (and switched on at once).  What it proves: under that
# load, on the kernel it boots (make check: debug, lockdep, KASAN,
# panic_on_warn), nothing splats or oopses (the runner watches the
# console), every unload's books balance ("unloaded: ... residue 0"),
# both stress-ngs are still running at the end, and after the soak,
# with the economy off, the books read residue_ns, weight_residue and
# group_weight_residue 0 and nothing outstanding or held; the module then
# unloads.
#
#	soak.sh [-d SECONDS] [-r RELOAD] [-t TOGGLE] [-k]
#
# -d  soak time in seconds (default 150)
# -r  unload and reload the module every RELOAD seconds (default 15)
# -t  the toggler's pause between writes, in seconds (default 0.1)
# -k  control: no module; the toggler flips the stock sched_schedstats
#     static key instead (echo 0/1 > /proc/sys/kernel/sched_schedstats),
#     under the same load: whether an oops needs anything of ours
#
# Stressors (stress-ng 0.15): pipe, sockpair (AF_UNIX stream pairs), poll,
# pty, epoll (AF_UNIX), futex, fork, clone, affinity, schedpolicy, nice,
# switch; one instance of each per stress-ng.  Not sock: the guest kernel
# has no AF_INET ("socket failed, errno=97"), and 0.15's --sock-domain
# unix opens its sockets with IPPROTO_TCP ("errno=93, Protocol not
# supported"); sockpair stands in for it.
set -u
dur=150 period=15 pause=0.1 control=0
while getopts d:r:t:k o; do
	case $o in
	d) dur=$OPTARG ;;
	r) period=$OPTARG ;;
	t) pause=$OPTARG ;;
	k) control=1 ;;
	*) echo "usage: soak.sh [-d SECONDS] [-r RELOAD] [-t TOGGLE] [-k]"; exit 2 ;;
	esac
done
K=/proc/sys/kernel
CG=/sys/fs/cgroup
MOD=/modules/sched_economy.ko
STOP=/tmp/soak.stop
. "$(dirname "$0")/econ_unload.sh"
fail=0
bad() { echo "not ok: $*"; fail=1; }
# Seconds since boot, without a fork.
now() { read -r up _ < /proc/uptime; up=${up%.*}; }

command -v stress-ng > /dev/null ||
	{ echo "not ok: no stress-ng in the guest (qemu/boot --x11, smp ...x)"; exit 1; }
# pty: devpts.
if ! grep -q ' /dev/pts devpts ' /proc/mounts; then
	mkdir -p /dev/pts && mount -t devpts -o mode=620,ptmxmode=666 devpts /dev/pts
fi

# One line: it goes into "sh -c" strings below.
stressors="--pipe 1 --sockpair 1 --poll 1 --pty 1 --epoll 1"
stressors="$stressors --epoll-domain unix --futex 1 --fork 1 --clone 1"
stressors="$stressors --clone-max 8 --affinity 1 --schedpolicy 1 --nice 1"
stressors="$stressors --switch 1"
pids="" toggler="" mover=""
cleanup() {
	touch $STOP
	# shellcheck disable=SC2086
	[ -z "$toggler$mover" ] || kill $toggler $mover 2> /dev/null
	for g in soak-a soak-b; do
		[ -d $CG/$g ] && echo 1 > $CG/$g/cgroup.kill 2> /dev/null
	done
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -9 $pids 2> /dev/null
	wait 2> /dev/null
	for g in soak-a soak-b; do
		i=0
		while [ -d $CG/$g ] && ! rmdir $CG/$g 2> /dev/null && [ $i -lt 50 ]; do
			i=$((i + 1))
			sleep 0.1
		done
	done
	rm -f $STOP
	if [ $control = 1 ]; then
		echo 0 > $K/sched_schedstats
	else
		if grep -q '^sched_economy ' /proc/modules; then
			echo 0 > $K/sched_economy
			rmmod sched_economy
		fi
	fi
}
trap cleanup EXIT
rm -f $STOP
for g in soak-a soak-b; do
	rmdir $CG/$g 2> /dev/null
	mkdir $CG/$g || { echo "not ok: mkdir $CG/$g"; exit 1; }
done
# Unequal shares, so that a move changes what a group's tasks get.
echo 200 > $CG/soak-a/cpu.weight
echo 50 > $CG/soak-b/cpu.weight

if [ $control = 0 ]; then
	rmmod sched_economy 2> /dev/null
	insmod $MOD || { echo "not ok: insmod"; exit 1; }
	echo 1 > $K/sched_economy
fi
dmesg -c > /dev/null

# Each stress-ng enters its group first, then (soak-b) drops to uid 1000.
mkdir -p /tmp/soak-a /tmp/soak-b
chmod 777 /tmp/soak-b
sn="stress-ng $stressors --timeout $((dur + 120))s --metrics-brief"
# shellcheck disable=SC2086
sh -c 'cd /tmp/soak-a && echo $$ > '$CG'/soak-a/cgroup.procs && exec '"$sn"' --temp-path /tmp/soak-a' \
	> /tmp/soak-a.log 2>&1 &
pids="$pids $!" a=$!
# shellcheck disable=SC2086
sh -c 'cd /tmp/soak-b && echo $$ > '$CG'/soak-b/cgroup.procs && exec asuid 1000 '"$sn"' --temp-path /tmp/soak-b' \
	> /tmp/soak-b.log 2>&1 &
pids="$pids $!" b=$!

# The toggler: the economy off and on, a policy a round (every one the
# module offers, in turn); with -k the schedstats key instead.  Writes
# fail while the module is out: that is part of the soak.
(
	n=0
	while [ ! -e $STOP ]; do
		n=$((n + 1))
		if [ $control = 1 ]; then
			echo $((n % 2)) > $K/sched_schedstats
		else
			{
				read -r names < $K/sched_economy_available_policies
				# shellcheck disable=SC2086
				set -- $names
				[ $# -gt 0 ] && eval "p=\${$((n / 2 % $# + 1))}" &&
					echo "$p" > $K/sched_economy_policy
				echo $((n % 2)) > $K/sched_economy
			} 2> /dev/null
		fi
		sleep "$pause"
	done
	echo "# toggler: $n rounds"
) &
toggler=$!
# The mover: one task from each group to the other, every 0.3 s.
(
	n=0
	while [ ! -e $STOP ]; do
		for from in a b; do
			to=b
			[ $from = b ] && to=a
			read -r p < $CG/soak-$from/cgroup.procs 2> /dev/null &&
				echo "$p" > $CG/soak-$to/cgroup.procs 2> /dev/null &&
				n=$((n + 1))
		done
		sleep 0.3
	done
	echo "# mover: $n moves"
) &
mover=$!

nl='
'
now
start=$up next=$((up + period)) reloads=0
echo "# soak: ${dur} s, reload every ${period} s, toggle every ${pause} s, control $control"
while :; do
	now
	[ $((up - start)) -ge "$dur" ] && break
	if [ $control = 0 ] && [ "$up" -ge $next ]; then
		# With the economy as the toggler left it: on or off.
		if econ_unload; then
			log=$(dmesg -c)
			case $log in
			*'sched_economy: unloaded:'*)
				line=${log##*sched_economy: unloaded:}
				line=${line%%"$nl"*}
				case $line in
				*' residue 0') ;;
				*) bad "reload $reloads: unloaded:$line" ;;
				esac ;;
			*) bad "reload $reloads: no 'unloaded:' line" ;;
			esac
		else
			bad "reload $reloads: rmmod"
		fi
		insmod $MOD || { bad "reload $reloads: insmod"; break; }
		echo 1 > $K/sched_economy
		reloads=$((reloads + 1))
		t0=$up
		now
		# Under this load a reload takes tens of seconds on the debug
		# guest (rmmod waits for an RCU grace period).
		echo "# reload $reloads at $((t0 - start)) s, took $((up - t0)) s"
		next=$((up + period))
	fi
	sleep 1
done

touch $STOP
wait $toggler $mover
toggler="" mover=""
for p in $a $b; do
	kill -0 $p 2> /dev/null || bad "stress-ng $p exited early"
done
kill $a $b 2> /dev/null
i=0
while { kill -0 $a || kill -0 $b; } 2> /dev/null && [ $i -lt 300 ]; do
	i=$((i + 1))
	sleep 0.1
done
for g in a b; do
	echo "# stress-ng in soak-$g:"
	sed 's/^/#   /' /tmp/soak-$g.log
done

if [ $control = 0 ]; then
	echo 0 > $K/sched_economy
	for k in residue_ns weight_residue group_weight_residue outstanding_ns held_weight group_held_weight; do
		v=$(awk -v k=$k '$1 == k { print $2 }' /proc/sched_economy)
		echo "# $k $v"
		[ "$v" = 0 ] || bad "books: $k '$v' after the soak, economy off"
	done
	econ_unload || bad "final rmmod"
	case $(dmesg -c) in
	*'sched_economy: unloaded:'*' residue 0'*) ;;
	*) bad "final unload: no 'unloaded: ... residue 0' line" ;;
	esac
	[ $reloads -gt 0 ] || bad "no reload in $dur s"
fi
now
echo "# soak done after $((up - start)) s: $reloads reloads, fail $fail"
exit $fail
