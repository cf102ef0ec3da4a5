#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lone_borrower.sh: weight lent to a task alone on its runqueue buys
# nothing, so a sweep does not lend it (module/loan.c,
# economy_all_alone()). An AF_UNIX ping-pong (unixperf lat) on one CPU:
# whenever one side sleeps the other runs alone, and no loan is made
# but when a kernel thread or the runner happens to be runnable at a
# sweep (+0 to +4). With a busy loop beside the pair the sleeper's peer
# has company, and the sweeps lend (+951 to +1113; +310, +736 and +1079 since
# the kernel reweights in place). Passes when the pair
# alone makes under a tenth of the loans it makes beside the loop (the
# module before the rule: +206 to +227 alone, +420 to +1105 beside it).
set -eu
. ./econ_module.sh

K=/proc/sys/kernel
echo lend > $K/sched_economy_policy
echo 1 > $K/sched_economy
stat() { awk -v k="$1" '$1 == k { print $2 }' /proc/sched_economy; }

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
	echo "company $company: loans +$loans"
	eval "loans_$company=$loans"
done
if [ $((loans_none * 10)) -lt "$loans_loop" ]; then
	echo PASS
	exit 0
fi
echo "FAIL: alone +$loans_none loans, beside a loop +$loans_loop (want under a tenth)"
exit 1
