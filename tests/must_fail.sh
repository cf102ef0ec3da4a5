#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# must_fail.sh PATTERN CMD [ARG...]: a negative control.  CMD is a test run
# against a setup it must reject; it must fail (an exit status other than 0
# and 4) for the reason it exists: a line of its output matches the
# extended regex PATTERN.  Exits 0 then; 1 when CMD passed (the test cannot
# tell) or failed for another reason; 4 when CMD skipped.
set -u
[ $# -ge 2 ] || { echo "usage: must_fail.sh PATTERN CMD [ARG...]" >&2; exit 2; }
pat=$1
shift
out=$(mktemp /tmp/must_fail.XXXXXX)
"$@" > "$out" 2>&1
r=$?
cat "$out"
why=$(grep -m1 -E -- "$pat" "$out")
rm -f "$out"
case $r in
0)	echo "not ok: negative control passed: the test cannot tell"; exit 1 ;;
4)	echo "# the negative control skipped"; exit 4 ;;
esac
if [ -n "$why" ]; then
	echo "ok: failed as it must (exit $r): $why"
	exit 0
fi
echo "not ok: failed (exit $r), but no line matches '$pat'"
exit 1
