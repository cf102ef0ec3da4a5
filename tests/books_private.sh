#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /proc/sched_economy is no keystroke side channel (issue 11): its counters
# move with every message on every socket, so only root sees them; uid
# 65534 sees the switch, the policy and whether the hooks are in, nothing
# that moves with traffic.
set -u
. ./econ_module.sh

fail=0
books=/proc/sched_economy
echo 1 > /proc/sys/kernel/sched_economy
# some traffic, so that the counters are not all 0
i=0; while [ $i -lt 50 ]; do echo x | cat > /dev/null; i=$((i + 1)); done

root=$(cat $books)
nobody=$(su -s /bin/sh nobody -c "cat $books") || { echo "not ok: nobody cannot read $books"; fail=1; }
echo "# as uid 65534:"; echo "$nobody" | sed 's/^/#   /'
for k in paid_ns payments withdrawals residue_ns donations donated_weight held_weight generation; do
	echo "$root" | grep -q "^$k " || { echo "not ok: root does not see $k"; fail=1; }
	echo "$nobody" | grep -q "^$k " && { echo "not ok: uid 65534 sees $k"; fail=1; }
done
for k in enabled policy hooks; do
	echo "$nobody" | grep -q "^$k " || { echo "not ok: uid 65534 does not see $k"; fail=1; }
done
# Nothing nobody sees may be a number that traffic moves.
echo "$nobody" | grep -vqE '^(enabled [01]|hooks [01]|policy [a-z]+)$' &&
	{ echo "not ok: uid 65534 sees other lines"; fail=1; }
echo 0 > /proc/sys/kernel/sched_economy
[ $fail = 0 ] && echo "ok: books private"
exit $fail
