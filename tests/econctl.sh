#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# econctl end to end: every subcommand's output and exit status (0 ok,
# 1 failure, 2 usage), bad arguments included, as root and as nobody.
#
#   econctl --> /proc/sys/kernel/sched_economy*   (status on off set)
#           --> /proc/sched_economy               (status stats)
#           --> /proc/sched_economy_tasks         (tasks top)
#           --> /dev/sched_economy                (yield-to credit)
set -eu

failed=0 checks=0
out=/tmp/econctl.out err=/tmp/econctl.err
knob=/proc/sys/kernel/sched_economy

run() {
	echo "\$ $*"
	set +e
	"$@" > $out 2> $err
	rc=$?
	set -e
	sed 's/^/  > /' $out
	sed 's/^/  2> /' $err
}
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
expect_rc() { checks=$((checks + 1)); [ "$rc" = "$1" ] || fail "exit status $rc, want $1"; }
expect_out() { checks=$((checks + 1)); grep -Eq -- "$1" $out || fail "stdout lacks /$1/"; }
expect_err() { checks=$((checks + 1)); grep -Eq -- "$1" $err || fail "stderr lacks /$1/"; }
expect_no_out() { checks=$((checks + 1)); [ ! -s $out ] || fail "stdout not empty"; }
expect_eq() { checks=$((checks + 1)); [ "$1" = "$2" ] || fail "$3: '$1', want '$2'"; }
# busybox setpriv has no --reuid; su needs no password for root.
as_nobody() { su -s /bin/sh nobody -c "$*"; }

# --- usage
run econctl --help;		expect_rc 0; expect_out '^Usage: econctl'; expect_out 'yield-to PID'
run econctl -h;			expect_rc 0; expect_out '^Usage:'
run econctl help;		expect_rc 0; expect_out '^Usage:'
run econctl;			expect_rc 2; expect_err '^Usage:'; expect_no_out
run econctl -x;			expect_rc 2; expect_err 'Usage:'
run econctl bogus;		expect_rc 2; expect_err "unknown command 'bogus'"

# --- without the module
if grep -q '^sched_economy ' /proc/modules; then rmmod sched_economy; fi
run econctl status;		expect_rc 1; expect_err 'is sched_economy.ko loaded'
run econctl on;			expect_rc 1; expect_err 'is sched_economy.ko loaded'
run econctl credit;		expect_rc 1; expect_err 'sched_economy.ko loaded'
run econctl stats;		expect_rc 1; expect_err 'is sched_economy.ko loaded'
run econctl tasks;		expect_rc 1; expect_err 'is sched_economy.ko loaded'

insmod /modules/sched_economy.ko

# --- status
run econctl status;		expect_rc 0
expect_out '^enabled +0$'; expect_out '^policy +lend$'; expect_out '^price_ns +100000$'
expect_out '^limit_ns +2000000$'; expect_out '^target_qlen +4$'
for k in paid_ns withdrawn_ns expired_ns outstanding_ns residue_ns yield_tos; do
	expect_out "^$k +-?[0-9]+$"
done
expect_out '^residue_ns +0$'
run econctl status extra;	expect_rc 2; expect_err "unexpected argument 'extra'"

# --- on / off
run econctl on;			expect_rc 0; expect_out '^sched_economy on$'
expect_eq "$(cat $knob)" 1 "$knob after on"
run econctl status;		expect_rc 0; expect_out '^enabled +1$'
run econctl off;		expect_rc 0; expect_out '^sched_economy off$'
expect_eq "$(cat $knob)" 0 "$knob after off"
run econctl on now;		expect_rc 2; expect_err "unexpected argument 'now'"
expect_eq "$(cat $knob)" 0 "$knob after a refused on"

# --- set: all or nothing
run econctl set price=50000 limit=1000000 target=8 policy=fixed
expect_rc 0; expect_out '^price 100000 -> 50000$'; expect_out '^policy lend -> fixed$'
expect_eq "$(cat ${knob}_price_ns)" 50000 price
expect_eq "$(cat ${knob}_limit_ns)" 1000000 limit
expect_eq "$(cat ${knob}_target_qlen)" 8 target
expect_eq "$(cat ${knob}_policy)" fixed policy
for bad in 'price=abc' 'price=' 'price=-5' 'price=999' 'price=1000000001' \
	   'limit=1000000001' 'target=0' 'target=1025' 'policy=nope' \
	   'policy=' 'foo=1' 'price' 'price=60000 foo=1' 'price=60000 policy=nope' \
	   'price=60000 price=70000' 'price=60000 target=x' 'price=0x100'; do
	# shellcheck disable=SC2086
	run econctl set $bad;	expect_rc 2; expect_no_out
	expect_eq "$(cat ${knob}_price_ns) $(cat ${knob}_limit_ns) $(cat ${knob}_target_qlen) $(cat ${knob}_policy)" \
		"50000 1000000 8 fixed" "knobs after 'set $bad'"
done
run econctl set policy=nope;	expect_err "policy 'nope' unknown"
run econctl set price=999;	expect_err 'price=.999. is not an integer in 1000\.\.1000000000'
run econctl set foo=1;		expect_err "'foo=1' is not one of"
run econctl set price=1000 price=2000; expect_err 'price given twice'
run econctl set;		expect_rc 2; expect_err 'KEY=VALUE expected'
run econctl set price=100000 limit=2000000 target=4 policy=queue; expect_rc 0
expect_eq "$(cat ${knob}_policy)" queue policy
# price <= limit (issue 11): a price above the limit is refused, undone;
# raised together, the limit goes first; lowered together, the price does.
run econctl set price=3000000 target=5;	expect_rc 1; expect_err 'Invalid argument'
expect_eq "$(cat ${knob}_price_ns) $(cat ${knob}_target_qlen)" "100000 4" "price, target after a price above the limit"
run econctl set price=3000000 limit=5000000; expect_rc 0
expect_eq "$(cat ${knob}_price_ns) $(cat ${knob}_limit_ns)" "3000000 5000000" "price, limit raised together"
run econctl set limit=2000000 price=100000; expect_rc 0
expect_eq "$(cat ${knob}_price_ns) $(cat ${knob}_limit_ns)" "100000 2000000" "price, limit lowered together"

# --- stats
run econctl stats;		expect_rc 0
expect_out '^paid_ns withdrawn_ns expired_ns outstanding_ns residue_ns payments withdrawals refused yield_tos yield_moved_ns$'
expect_out '^ *-?[0-9]+( +-?[0-9]+){9}$'
expect_eq "$(wc -l < $out)" 2 "stats lines"
run econctl stats -n 3 -i 0.2;	expect_rc 0
expect_eq "$(grep -cE '^ *-?[0-9]+( +-?[0-9]+){9}$' $out)" 3 "stats -n 3 lines"
expect_out '^# per interval'
run econctl stats --count=2 --interval=0.1; expect_rc 0
expect_eq "$(grep -cE '^ *-?[0-9]+( +-?[0-9]+){9}$' $out)" 2 "stats --count=2 lines"
for bad in '-i 0' '-i x' '-i -1' '-n 0' '-n x' '--bogus' 'extra'; do
	# shellcheck disable=SC2086
	run econctl stats $bad;	expect_rc 2; expect_err 'Try'
done
echo "\$ econctl stats --watch & ...; kill -INT"
econctl stats --watch > $out 2> $err &
watcher=$!
sleep 3
kill -INT $watcher
set +e; wait $watcher; rc=$?; set -e
sed 's/^/  > /' $out
expect_rc 0
lines=$(grep -cE '^ *-?[0-9]+( +-?[0-9]+){9}$' $out || true)
checks=$((checks + 1))
if [ "$lines" -lt 1 ] || [ "$lines" -gt 4 ]; then fail "stats --watch: $lines lines in 3 s"; fi

# --- credit and yield-to
run econctl credit;		expect_rc 0; expect_out '^credit_ns -?[0-9]+$'
run econctl credit x;		expect_rc 2
sh -c 'while :; do :; done' &
spin=$!
run econctl yield-to $spin;	expect_rc 1; expect_err 'Operation not supported'
econctl on > /dev/null
tos=$(awk '$1 == "yield_tos" { print $2 }' /proc/sched_economy)
run econctl yield-to $spin;	expect_rc 0; expect_out "^yield-to $spin: moved [0-9]+ ns$"
expect_eq "$(awk '$1 == "yield_tos" { print $2 }' /proc/sched_economy)" $((tos + 1)) yield_tos
run econctl yield-to 999999;	expect_rc 1; expect_err 'No such process'
run econctl yield-to abc;	expect_rc 2; expect_err "bad PID 'abc'"
run econctl yield-to 0;		expect_rc 2
run econctl yield-to -3;	expect_rc 2
run econctl yield-to;		expect_rc 2; expect_err 'exactly one PID'
run econctl yield-to 1 2;	expect_rc 2

# --- tasks and top: the format (the numbers: tests/ledger.sh)
run econctl tasks;		expect_rc 0
expect_out '^ +PID COMM +OWN DONATES_TO +DONATED +HELD( +ADJUST)?$'
expect_out '^sum: donated -?[0-9]+ held -?[0-9]+ \(books held_weight -?[0-9]+\)$'
run econctl tasks extra;	expect_rc 2; expect_err "unexpected argument 'extra'"
run econctl top -i 0.1 -n 2;	expect_rc 0
expect_eq "$(grep -cE '^econctl top: [0-9]+ tasks donate, [0-9]+ hold$' $out)" 2 "top -n 2 snapshots"
expect_eq "$(grep -cE '^ +PID COMM +OWN DONATES_TO +DONATED +HELD( +ADJUST)?$' $out)" 2 "top -n 2 headers"
for bad in '-i 0' '-n 0' '-n x' '--bogus' 'extra'; do
	# shellcheck disable=SC2086
	run econctl top $bad;	expect_rc 2; expect_err 'Try'
done

# --- as nobody
run as_nobody econctl status;	expect_rc 0; expect_out '^enabled +1$'
run as_nobody econctl off;	expect_rc 1; expect_err 'Permission denied'
expect_eq "$(cat $knob)" 1 "$knob after nobody's off"
run as_nobody econctl set price=5000; expect_rc 1; expect_err 'Permission denied'
expect_eq "$(cat ${knob}_price_ns)" 100000 "price after nobody's set"
run as_nobody econctl yield-to $spin; expect_rc 1; expect_err 'Operation not permitted'
run as_nobody econctl credit;	expect_rc 0; expect_out '^credit_ns '
run as_nobody econctl tasks;	expect_rc 1; expect_err 'Permission denied \(root only\)'
kill $spin
econctl off > /dev/null

echo "econctl: $((checks - failed)) of $checks checks passed"
[ $failed = 0 ]
