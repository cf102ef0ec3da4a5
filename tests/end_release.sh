#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A channel's end does not hold back a dead task's release (review round
# 4, F9). A child reads a pipe once with the economy on, so that the pipe
# names it as its reader, and exits; the parent keeps the pipe open. The
# kernel's own sched_process_free event (delayed_put_task_struct(), which
# the last rcu_users reference schedules) must come for the child while
# the pipe is still open, and not only once it is closed. The same for a
# socket pair's reader. The control: after the channel is closed the
# event is there in any case, so a trace that shows nothing is a failure
# of the test, not a pass.
set -u
T=/sys/kernel/tracing
K=/proc/sys/kernel
. ./econ_unload.sh
insmod /modules/sched_economy.ko || exit 1
echo 1 > $K/sched_economy || exit 1
fail=0
cleanup() {
	echo 0 > $T/events/sched/sched_process_free/enable
	echo 0 > $K/sched_economy
	econ_unload || fail=1
}
echo > $T/trace
echo 1 > $T/events/sched/sched_process_free/enable || exit 1

freed() { grep -q "sched_process_free: .* pid=$1 " $T/trace; }
# Up to 5 s for a grace period or two.
wait_freed() {
	i=0
	while ! freed "$1"; do
		i=$((i + 1))
		[ $i -ge 50 ] && return 1
		sleep 0.1
	done
	return 0
}

# The pipe: fd 3 open both ways keeps it alive; the child's read names it.
rm -f /tmp/end_release.fifo
mkfifo /tmp/end_release.fifo
exec 3<> /tmp/end_release.fifo
sh -c 'read -r x' <&3 &
child=$!
echo hi >&3
wait $child
if wait_freed $child; then
	echo "ok: pipe reader $child released while its pipe is open"
else
	echo "not ok: pipe reader $child not released while its pipe is open"
	fail=1
fi
exec 3>&-
if ! wait_freed $child; then
	echo "not ok: no sched_process_free for $child even after close: the test sees nothing"
	fail=1
fi
rm -f /tmp/end_release.fifo

# A socket pair (econctl-free: the test helper end_release_unix).
./end_release_unix > /tmp/end_release.out 2>&1 &
helper=$!
i=0
while [ ! -s /tmp/end_release.out ] && [ $i -lt 50 ]; do
	i=$((i + 1))
	sleep 0.1
done
read -r child < /tmp/end_release.out
if [ -n "$child" ] && wait_freed "$child"; then
	echo "ok: socket reader $child released while its socket is open"
else
	echo "not ok: socket reader ${child:-?} not released while its socket is open"
	fail=1
fi
kill $helper 2>/dev/null
wait $helper 2>/dev/null
if [ -n "$child" ] && ! wait_freed "$child"; then
	echo "not ok: no sched_process_free for $child even after close: the test sees nothing"
	fail=1
fi
cleanup
exit $fail
