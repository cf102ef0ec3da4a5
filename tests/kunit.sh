#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The KUnit suites of the account arithmetic and the policy registry
# (module/kunit.c): they run when the module is loaded and report in KTAP
# on the kernel log. The registry's suite uses the core's exports.
set -u
# kunit.ko is built disabled by default (KUNIT_DEFAULT_ENABLED=n).
insmod /modules/kunit.ko enable=1 2>/dev/null
rmmod sched_economy 2>/dev/null
insmod /modules/sched_economy.ko || exit 1
dmesg -c > /dev/null
insmod /modules/sched_economy_kunit.ko || exit 1
rmmod sched_economy_kunit || { echo "not ok: rmmod sched_economy_kunit failed"; exit 1; }
rmmod sched_economy || { echo "not ok: rmmod sched_economy failed"; exit 1; }
dmesg | grep -E 'sched_economy_(arith|policy)|^\[[ 0-9.]*\] +(not )?ok'
dmesg | grep -q 'pass:10 fail:0 skip:0 total:10' &&
	dmesg | grep -q 'pass:2 fail:0 skip:0 total:2' &&
	dmesg | grep -qE '\] ok [0-9]+ sched_economy_arith' &&
	dmesg | grep -qE '\] ok [0-9]+ sched_economy_policy'
