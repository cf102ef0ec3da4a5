#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kbuild_checks.sh (host, from the repository root): module/Kbuild stops a
# build against a kernel that lacks an option the module needs with one
# line naming it, before any compiler or modpost runs. Kbuild is read as
# make reads it inside a kernel build, with the kernel's config given as
# variables.
set -u
fail=0
kb() { make -s --no-print-directory -f module/Kbuild objtree=/k src=module "$@" 2>&1; }
expect() {	# name pattern output
	if printf '%s\n' "$3" | grep -q -- "$2"; then echo "ok: $1"
	else echo "not ok: $1: '$3' lacks '$2'"; fail=1; fi
}
out=$(kb CONFIG_MODULES=y)
expect "no economy options" "lacks CONFIG_UNIX_SCHED_ECONOMY" "$out"
out=$(kb CONFIG_MODULES=y CONFIG_SCHED_ECONOMY=y CONFIG_UNIX_SCHED_ECONOMY=y)
expect "no tracepoints" "lacks it" "$out"
expect "no tracepoints, named" "CONFIG_TRACEPOINTS=y" "$out"
out=$(kb CONFIG_MODULES=y CONFIG_SCHED_ECONOMY=y CONFIG_UNIX_SCHED_ECONOMY=y CONFIG_TRACEPOINTS=y)
if printf '%s\n' "$out" | grep -q 'needs a kernel'; then
	echo "not ok: a complete config refused: $out"; fail=1
else
	echo "ok: a complete config passes the checks"
fi
# make M=... clean reads no config: no check may stop it.
out=$(kb)
if printf '%s\n' "$out" | grep -q 'needs a kernel'; then
	echo "not ok: refused without a config (clean): $out"; fail=1
else
	echo "ok: no config read, no check"
fi
exit $fail
