#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# policy_modules.sh: a policy in a module of its own registers, is listed,
# is switched to, decides what is donated, is pinned while active, and
# leaves cleanly (module/policy.c, policies/example.c).
#
# Checked, as TAP-like lines (each "not ok" fails the test):
#  - the built-in policies are listed in order; loading
#    sched_economy_example.ko adds "example", and unloading it takes it
#    off the list;
#  - switching to it shows in the sysctl and /proc/sched_economy;
#  - while it is active neither it nor the core can be unloaded;
#  - a bad name is refused with EINVAL, a name no module provides with
#    ENOENT, and the active policy stays;
#  - what a sleeper donates is the policy's: a writer waiting for room in a
#    full pipe (ledger.sh's shape) donates 50 % of its 1024 under example
#    (share_pct 50), 30 % with share_pct=30, and 1024 under lend;
#  - a name not loaded is loaded by request_module() when modprobe can
#    find sched_economy_<name>.ko (here a modules directory made by
#    busybox depmod);
#  - the books balance (weight_residue 0) after all of it.
set -u
K=/proc/sys/kernel
fifo=/tmp/policy.fifo
fail=0
pids=''
ok() { echo "ok: $*"; }
bad() { echo "not ok: $*"; fail=1; }
check() { if [ "$2" = "$3" ]; then ok "$1: $2"; else bad "$1: '$2', want '$3'"; fi; }
book() { awk -v k="$1" '$1 == k { print $2 }' /proc/sched_economy; }
stop() {
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -9 $pids 2>/dev/null
	wait 2>/dev/null
	pids=''
	rm -f $fifo
}
# Write $2 to sysctl $1; print the error text of the write, or "ok".
try() { ( echo "$2" > "$K/$1" ) 2>&1 | sed 's/.*write error: //' | grep . || echo ok; }

# The donation of a writer blocked for room in a full pipe whose reader
# spins beside a busy loop: the writer's DONATED column of the ledger.
donation() {
	rm -f $fifo
	mkfifo $fifo
	sh -c 'while :; do :; done' &
	pids="$pids $!"
	sh -c 'exec 3<> "$1"; read -r x <&3; while :; do :; done' sh $fifo &
	pids="$pids $!"
	sleep 1
	yes > $fifo &
	w=$!
	pids="$pids $w"
	i=0 d=
	while [ $i -lt 20 ]; do
		d=$(awk -v w=$w '$1 == w && $4 != 0 { print $5 }' /proc/sched_economy_tasks)
		[ -n "$d" ] && break
		i=$((i + 1))
		sleep 0.5
	done
	stop
	echo "${d:-none}"
}

rmmod sched_economy_example 2>/dev/null
rmmod sched_economy 2>/dev/null
insmod /modules/sched_economy.ko || { echo "not ok: insmod sched_economy"; exit 1; }
check "built-in policies" "$(cat $K/sched_economy_available_policies)" "lend queue fixed seed"
check "policy at load" "$(cat $K/sched_economy_policy)" lend

insmod /modules/sched_economy_example.ko || bad "insmod sched_economy_example"
check "with example loaded" "$(cat $K/sched_economy_available_policies)" "lend queue fixed seed example"
check "switch to example" "$(try sched_economy_policy example)" ok
check "sysctl" "$(cat $K/sched_economy_policy)" example
check "/proc/sched_economy" "$(awk '$1 == "policy" { print $2 }' /proc/sched_economy)" example
rmmod sched_economy_example 2>/dev/null && bad "rmmod of the active policy's module succeeded"
rmmod sched_economy 2>/dev/null && bad "rmmod of the core under a policy module succeeded"
grep -q '^sched_economy_example ' /proc/modules && ok "the active policy's module stays"

check "bad name" "$(try sched_economy_policy 'Bad-Name')" "Invalid argument"
check "too long" "$(try sched_economy_policy abcdefghijklmnopq)" "Invalid argument"
check "unknown name" "$(try sched_economy_policy nosuchpolicy)" "No such file or directory"
check "still active" "$(cat $K/sched_economy_policy)" example

echo 1 > $K/sched_economy
check "example, share_pct 50: donated" "$(donation)" 512
echo 30 > /sys/module/sched_economy_example/parameters/share_pct
check "example, share_pct 30: donated" "$(donation)" 307
echo lend > $K/sched_economy_policy
check "lend: donated" "$(donation)" 1024
check "weight_residue" "$(book weight_residue)" 0
check "donate_declined_policy" "$(book donate_declined_policy)" 0
echo 0 > $K/sched_economy

rmmod sched_economy_example && ok "rmmod of an inactive policy's module" ||
	bad "rmmod sched_economy_example"
check "after rmmod" "$(cat $K/sched_economy_available_policies)" "lend queue fixed seed"

# request_module("sched_economy_example"): modprobe finds it by modules.dep.
d=/lib/modules/$(uname -r)
mkdir -p "$d/extra"
cp /modules/sched_economy_example.ko "$d/extra/"
depmod 2>/dev/null
check "request_module" "$(try sched_economy_policy example)" ok
check "loaded on demand" "$(grep -c '^sched_economy_example ' /proc/modules)" 1
echo lend > $K/sched_economy_policy
rmmod sched_economy_example || bad "rmmod after request_module"
rm -rf "$d/extra"

rmmod sched_economy || bad "rmmod sched_economy"
[ $fail = 0 ] && echo PASS
exit $fail
