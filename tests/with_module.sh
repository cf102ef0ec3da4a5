#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# with_module.sh CMD [ARG...]: run CMD with a freshly loaded sched_economy
# and unload it afterwards.  The exit status is CMD's, except that a module
# that cannot be loaded, or cannot be unloaded after CMD (a leaked
# reference: an account, a file, a loan the module never gave back) fails
# the test even when CMD passed.
set -u
rmmod sched_economy 2>/dev/null
insmod /modules/sched_economy.ko || { echo "not ok: insmod sched_economy"; exit 1; }
"$@"
r=$?
. "$(dirname "$0")/econ_unload.sh"
econ_unload || r=1
exit $r
