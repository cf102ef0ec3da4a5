# SPDX-License-Identifier: GPL-2.0
# Sourced: econ_unload unloads sched_economy, retrying for up to 5 s while
# a process of the test that held /dev/sched_economy is still exiting;
# returns 1, with the module's reference count, if it stays loaded.
econ_unload() {
	i=0
	while ! rmmod sched_economy 2>/dev/null; do
		grep -q '^sched_economy ' /proc/modules || return 0
		i=$((i + 1))
		if [ $i -ge 10 ]; then
			rmmod sched_economy
			echo "not ok: rmmod sched_economy failed, refcnt $(cat /sys/module/sched_economy/refcnt 2>/dev/null)"
			return 1
		fi
		sleep 0.5
	done
	return 0
}
