#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# keys_offline.sh POLICY CMD [ARG...]: with_module.sh for the 2t boots
# (qemu/boot --mttcg), where the economy's static keys may change state
# only while every CPU but CPU 0 is offline.
#
# QEMU 7.2's multi-threaded TCG runs stale code at a jump site that
# text_poke_bp() rewrites: a vCPU on its own host thread traps on the int3
# that is no longer there (Oops: int3 in try_to_wake_up or dequeue_entity,
# on the other vCPU).  Toggling the economy 1000 times on 2t oopsed within
# a second with CPU 1 online, and was clean with CPU 1 offlined around each
# toggle (results/mttcg-keys-offline-2026-12-07.txt).  So here the module
# is loaded and the economy switched on under POLICY with the other CPUs
# offline, they come back for CMD, and go offline again before the module
# unloads.  CMD must leave the economy on under POLICY (it may write the
# same values again: a key already in that state is not rewritten;
# tests/econ_module.sh leaves it on when ECON_KEYS_OFFLINE is set); the
# test fails if it did not.
set -u
policy=$1
shift
cpus() {
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -e "$c" ] && echo "$1" > "$c"
	done
}
sysctl=/proc/sys/kernel/sched_economy
rmmod sched_economy 2>/dev/null
cpus 0
insmod /modules/sched_economy.ko || { cpus 1; echo "not ok: insmod sched_economy"; exit 1; }
echo "$policy" > ${sysctl}_policy && echo 1 > $sysctl ||
	{ cpus 1; echo "not ok: economy on under $policy"; exit 1; }
cpus 1
ECON_KEYS_OFFLINE=1 "$@"
r=$?
if [ "$(cat $sysctl)" != 1 ] || [ "$(cat ${sysctl}_policy)" != "$policy" ]; then
	echo "not ok: the test left the economy at $(cat $sysctl), policy $(cat ${sysctl}_policy): its keys may have flipped with the CPUs online"
	r=1
fi
cpus 0
. "$(dirname "$0")/econ_unload.sh"
econ_unload || r=1
cpus 1
exit $r
