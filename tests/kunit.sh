#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The KUnit suite of the account arithmetic (module/kunit.c): it runs when
# the module is loaded and reports in KTAP on the kernel log.
set -u
# kunit.ko is built disabled by default (KUNIT_DEFAULT_ENABLED=n).
insmod /modules/kunit.ko enable=1 2>/dev/null
dmesg -c > /dev/null
insmod /modules/sched_economy_kunit.ko || exit 1
rmmod sched_economy_kunit || { echo "not ok: rmmod sched_economy_kunit failed"; exit 1; }
dmesg | grep -E 'sched_economy_arith|^\[[ 0-9.]*\] +(not )?ok'
dmesg | grep -q 'pass:10 fail:0 skip:0 total:10' &&
	dmesg | grep -qE '\] ok [0-9]+ sched_economy_arith'
