# SPDX-License-Identifier: GPL-2.0
# Sourced by the shell tests that need the module: load it unless loaded,
# and on exit switch the economy off and unload what was loaded here; a
# module that will not unload fails the test.  Under keys_offline.sh
# (ECON_KEYS_OFFLINE set) the economy stays on: that script switches it
# off with the other CPUs offline.
loaded=0
if ! grep -q '^sched_economy ' /proc/modules; then
	insmod /modules/sched_economy.ko
	loaded=1
fi
. "$(dirname "$0")/econ_unload.sh"
# A failing unload fails the test (the exit in an EXIT trap sets the status).
cleanup() {
	[ -n "${ECON_KEYS_OFFLINE:-}" ] ||
		echo 0 > /proc/sys/kernel/sched_economy 2>/dev/null || true
	if [ $loaded = 1 ]; then econ_unload || exit 1; fi
}
trap cleanup EXIT
# One figure of the books (/proc/sched_economy, root's view): book KEY.
book() { awk -v k="$1" '$1 == k { print $2 }' /proc/sched_economy; }
