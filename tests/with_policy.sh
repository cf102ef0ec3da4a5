#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# with_policy.sh NAME [PARAM=VALUE...] -- CMD [ARG...]: run CMD with
# sched_economy and the policy module sched_economy_NAME.ko loaded (with
# its module parameters) and NAME active; afterwards switch back to lend
# and unload both.  CMD's exit status, except that a policy that cannot be
# loaded or switched to, or a module that cannot be unloaded, fails.
set -u
name=$1; shift
params=
while [ $# -gt 0 ] && [ "$1" != -- ]; do params="$params $1"; shift; done
[ "${1:-}" = -- ] && shift
K=/proc/sys/kernel
rmmod "sched_economy_$name" 2>/dev/null
rmmod sched_economy 2>/dev/null
insmod /modules/sched_economy.ko || { echo "not ok: insmod sched_economy"; exit 1; }
# shellcheck disable=SC2086
insmod "/modules/sched_economy_$name.ko" $params ||
	{ echo "not ok: insmod sched_economy_$name$params"; rmmod sched_economy; exit 1; }
echo "$name" > $K/sched_economy_policy ||
	{ echo "not ok: policy $name not taken"; exit 1; }
echo "# policy $name$params; available: $(cat $K/sched_economy_available_policies)"
"$@"
r=$?
echo 0 > $K/sched_economy
echo lend > $K/sched_economy_policy
rmmod "sched_economy_$name" || { echo "not ok: rmmod sched_economy_$name"; r=1; }
. "$(dirname "$0")/econ_unload.sh"
econ_unload || r=1
exit $r
