#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ledger.sh: /proc/sched_economy_tasks (econctl tasks) shows one donation
# exactly, and it sums to the books (module/donate.c, policy lend).
#
#   reader  a shell that opens a fifo, reads one line from it (its own
#           read builtin: the pipe names it as its reader), then spins in
#           the same process, never reading again
#   writer  busybox yes into the fifo: it fills the pipe and sleeps
#           waiting for room, a room wait, so it donates its weight to
#           the reader for as long as it sleeps
#   company a busy loop beside the reader: weight given to a task alone
#           on its CPU is not given (donate_skipped_uncontended)
#
# Checked, with the writer blocked: the writer's row donates to the
# reader, 1024 (nice 0); the reader's row holds 1024; the sums of the
# DONATED and HELD columns equal the books' held_weight, and the books'
# held_weight is 1024 plus what other tasks donate now (under make check,
# the runner's sed, which reads this test's output, donates to the test's
# last writer: 0 or 1024 more); weight_residue 0; econctl top runs twice
# without error. Then, the economy off: every donation is taken back, no
# rows, held_weight 0, weight_residue 0.
set -eu
. ./econ_module.sh

K=/proc/sys/kernel
fifo=/tmp/ledger.fifo
out=/tmp/ledger.out
reader='' writer='' company=''
stop() {
	# shellcheck disable=SC2086
	[ -z "$reader$writer$company" ] || kill -9 $reader $writer $company 2>/dev/null || true
	wait 2>/dev/null || true
	rm -f $fifo
	reader='' writer='' company=''
}
trap 'stop; cleanup' EXIT
fail() { echo "FAIL: $*"; exit 1; }

echo lend > $K/sched_economy_policy
echo 1 > $K/sched_economy
rm -f $fifo
mkfifo $fifo
sh -c 'while :; do :; done' &
company=$!
# Open read-write, so that the open does not wait for the writer; the
# read then waits for data with the reader named.
sh -c 'exec 3<> "$1"; read -r x <&3; while :; do :; done' sh $fifo &
reader=$!
sleep 1
yes > $fifo &
writer=$!
# The writer fills 16 pages of pipe in a moment; then it waits for room.
i=0
while ! awk -v w=$writer '$1 == w && $4 != 0 { f = 1 } END { exit !f }' \
		/proc/sched_economy_tasks; do
	i=$((i + 1))
	[ $i -lt 20 ] || break
	sleep 0.5
done
sleep 1

# To files: a write to this test's output would wake the runner's sed,
# whose donation would move while the ledger is read.
econctl top -i 0.2 -n 2 > $out || fail "econctl top: exit status $?"
cat $out
grep -Eq '^econctl top: [0-9]+ tasks donate, [0-9]+ hold$' $out ||
	fail "econctl top: no header line"
econctl tasks > $out || fail "econctl tasks: exit status $?"
residue=$(book weight_residue)
cat $out
echo "reader $reader, writer $writer; weight_residue $residue"
awk -v r=$reader -v w=$writer -v residue="$residue" '
	$1 == w { wto = $4; wdon = $5; wrow = 1 }
	$1 == r { rheld = $6; rrow = 1 }
	$1 ~ /^[0-9]+$/ && $1 != w && $4 != "-" { others += $5 }
	$1 == "sum:" { d = $3; h = $5; b = $8; sub(/\)/, "", b) }
	END {
		printf "writer donates_to %s donated %s; reader held %s; sum donated %s held %s, books held_weight %s (others donate %d)\n",
			wto, wdon, rheld, d, h, b, others
		bad = 0
		if (!wrow) { print "no row for the writer"; bad = 1 }
		else if (wto != r || wdon != 1024) { print "the writer does not donate 1024 to the reader"; bad = 1 }
		if (!rrow) { print "no row for the reader"; bad = 1 }
		else if (rheld != 1024) { print "the reader does not hold 1024"; bad = 1 }
		if (d != b || h != b) { print "the columns do not sum to held_weight"; bad = 1 }
		if (b != 1024 + others) { print "held_weight is not 1024 + what the others donate"; bad = 1 }
		if (residue != 0) { print "weight_residue not 0"; bad = 1 }
		exit bad
	}' $out || fail "the ledger, economy on"

echo 0 > $K/sched_economy
econctl tasks > $out || fail "econctl tasks: exit status $?"
cat $out
held=$(book held_weight) residue=$(book weight_residue)
rows=$(awk '$1 ~ /^[0-9]+$/' $out | wc -l)
echo "economy off: $rows rows, held_weight $held, weight_residue $residue"
if [ "$rows" != 0 ] || [ "$held" != 0 ] || [ "$residue" != 0 ]; then
	fail "the ledger, economy off"
fi
stop
echo PASS
