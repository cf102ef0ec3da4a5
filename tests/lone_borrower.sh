#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lone_borrower.sh: weight lent to a task alone on its runqueue buys
# nothing, so a sweep does not lend it (module/loan.c,
# economy_all_alone()). An AF_UNIX ping-pong (unixperf lat) on one CPU:
# whenever one side sleeps the other runs alone, and no loan is made
# (loans +0). With a busy loop beside the pair the sleeper's peer has
# company, and the sweeps lend (loans > 0): the negative control.
set -eu
. ./econ_module.sh

K=/proc/sys/kernel
echo lend > $K/sched_economy_policy
echo 1 > $K/sched_economy
stat() { awk -v k="$1" '$1 == k { print $2 }' /proc/sched_economy; }

fail=0
for company in none loop; do
	loop=
	if [ $company = loop ]; then
		sh -c 'while :; do :; done' &
		loop=$!
	fi
	loans0=$(stat loans)
	unixperf -n 20000 -l "$company" lat
	loans=$(($(stat loans) - loans0))
	[ -n "$loop" ] && kill "$loop" && wait "$loop" 2>/dev/null || true
	if [ $company = none ]; then ok=$((loans == 0)); else ok=$((loans > 0)); fi
	echo "company $company: loans +$loans"
	[ $ok = 1 ] || { echo "FAIL: company $company"; fail=1; }
done
[ $fail = 0 ] && echo PASS
exit $fail
