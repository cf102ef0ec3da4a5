#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# realx.sh: Ingo Molnar's 2007 X experiment with the real software, in the
# guest (needs qemu/boot --x11: Xvfb, xterm, bash from qemu/x11-bundle).
#
#   Xvfb :0, N xterms on it, each running
#       bash -c 'while true; do echo $RANDOM; done'
#   then H busy loops  bash -c 'while :; do :; done'
#
# Each task's CPU share is read from /proc/PID/schedstat (field 1: ns on
# CPU) over W windows of T seconds after a warm-up of U seconds, per mode:
#
#   alone    the X side alone, no busy loops
#   absent   with the busy loops, module not loaded
#   off      with the busy loops, module loaded, sched_economy 0
#   economy  with the busy loops, sched_economy 1, the policy as loaded (lend,
#            the module's default)
#   POLICY   (queue, fixed, seed) sched_economy 1, sched_economy_policy POLICY
#
# The busy loops start after the last "alone" mode and run until the end.
# Prints one table (median [min-max] over windows, in % of one CPU), one
# "REALX_CSV" line per window, and /proc/sched_economy after each economy
# mode.  Exits 0 when X came up, every mode was measured and the -a
# assertions (if any) hold; 1 otherwise.
#
# usage: realx.sh [-x XTERMS] [-l LOOPS] [-m MODES] [-w WINDOWS] [-t SECONDS]
#                 [-u WARMUP] [-r ROUNDS] [-p root|systemd|autogroup|scopes|sessions]
#                 [-a MODE:XVFB_MIN:LOOP_MAX[:SIDE_MIN:SIDE_MAX[:user]]]
#   defaults: -x 4 -l 5 -m alone,absent,off,economy,fixed -w 4 -t 2 -u 2 -r 1
#   -r repeats the modes after "alone" ROUNDS times, alternating.
#   -a asserts, for MODE, Xvfb's median share >= XVFB_MIN % and every busy
#      loop's median share <= LOOP_MAX %; with SIDE_MIN and SIDE_MAX, also
#      the X side's (Xvfb, xterms and their writers) median share within
#      [SIDE_MIN, SIDE_MAX] %; with "user", the X side's part of what the
#      X side and the loops got (the CPU the kernel's own work leaves).
#   -p places the tasks: root (default: every task in the root cgroup, no
#      autogroup); systemd (cgroup v2, cpu controller on, every cpu.weight
#      100: Xvfb in user.slice/user-1000.slice/session-1.scope, each xterm
#      with its shell in user@1000.service/app.slice/app-xtermN.scope, each
#      busy loop in app.slice/app-loopN.scope beside them); autogroup (the
#      cpu controller off, /proc/sys/kernel/sched_autogroup_enabled 1: each
#      xterm's shell, which xterm starts with setsid(), is a session and an
#      autogroup of its own; Xvfb, the xterms and the loops are this
#      script's session's); scopes (cgroup v2, every program a group of
#      its own, siblings of cpu.weight 100 in realx.slice: Xvfb, each
#      xterm with its shell, each loop: 10 groups, fair X side 5 of 10);
#      sessions (autogroup, every program its own session: Xvfb, each
#      xterm and each loop started with setsid, each xterm's shell a
#      session by xterm: 14 autogroups, fair X side 9 of 14)
# POSIX sh (busybox ash); bash only as the workload and for $EPOCHREALTIME.
set -eu

xterms=4 loops=5 modes=alone,absent,off,economy,fixed windows=4 wlen=2 warm=2 rounds=1 assert=
place=root
usage() { sed -n '/^# usage:/,/^# POSIX/s/^# \{0,1\}//p' "$0"; exit 2; }
while getopts x:l:m:w:t:u:r:a:p:h o; do
	case $o in
	x) xterms=$OPTARG ;;
	l) loops=$OPTARG ;;
	m) modes=$OPTARG ;;
	w) windows=$OPTARG ;;
	t) wlen=$OPTARG ;;
	u) warm=$OPTARG ;;
	r) rounds=$OPTARG ;;
	a) assert=$OPTARG ;;
	p) place=$OPTARG ;;
	*) usage ;;
	esac
done

case $place in root|systemd|autogroup|scopes|sessions) ;; *) usage ;; esac
# A program in a session (and with autogroup, an autogroup) of its own.
own_session=
[ $place = sessions ] && own_session=setsid
KO=/modules/sched_economy.ko
CG=/sys/fs/cgroup
USER_SLICE=user.slice/user-1000.slice
APPS=$USER_SLICE/user@1000.service/app.slice
BASH=/bin/bash
for f in /usr/bin/Xvfb /usr/bin/xterm /usr/bin/xkbcomp $BASH; do
	[ -x $f ] || { echo "realx: $f missing: boot with qemu/boot --x11"; exit 4; }
done

export HOME=${HOME:-/root} TERM=${TERM:-vt100} DISPLAY=:0 USER=root LANG=C
work=$(mktemp -d /tmp/realx.XXXXXX)
xvfb= xpids= wpids= lpids= loaded=0

cleanup() {
	set +e
	echo 0 > /proc/sys/kernel/sched_economy 2>/dev/null
	[ -n "$lpids" ] && kill -KILL $lpids 2>/dev/null
	[ -n "$xpids" ] && kill -TERM $xpids 2>/dev/null
	[ -n "$wpids" ] && kill -KILL $wpids 2>/dev/null
	[ -n "$xvfb" ] && kill -TERM "$xvfb" 2>/dev/null
	sleep 1
	[ -n "$xpids$xvfb" ] && kill -KILL $xpids $xvfb 2>/dev/null
	wait 2>/dev/null
	[ $loaded = 1 ] && grep -q '^sched_economy ' /proc/modules && rmmod sched_economy
	rm -rf "$work" /tmp/.X0-lock /tmp/.X11-unix/X0
	if [ $place = systemd ]; then
		for d in $CG/$APPS/*.scope $CG/$APPS $CG/$USER_SLICE/user@1000.service \
			 $CG/$USER_SLICE/session-1.scope $CG/$USER_SLICE $CG/user.slice; do
			[ -d "$d" ] && rmdir "$d"
		done
	fi
	if [ $place = scopes ]; then
		for d in $CG/realx.slice/*.scope $CG/realx.slice; do
			[ -d "$d" ] && rmdir "$d"
		done
	fi
	case $place in autogroup|sessions) echo 0 > /proc/sys/kernel/sched_autogroup_enabled ;; esac
	return 0
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# xterm needs ptys: devtmpfs has /dev/ptmx, which needs devpts at /dev/pts.
if ! grep -q ' /dev/pts devpts ' /proc/mounts; then
	mkdir -p /dev/pts
	mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts
fi
mkdir -p /tmp /var/lib/xkb

# ---------------------------------------------------------------- placement
# cg_put GROUP PID...: GROUP (below $CG) made with the cpu controller on
# along its path, the PIDs moved into it.
cg_put() {
	g=$1 p=$CG
	shift
	for part in $(echo "$g" | tr / ' '); do
		echo +cpu > "$p/cgroup.subtree_control"
		p=$p/$part
		[ -d "$p" ] || mkdir "$p"
	done
	for pid; do echo "$pid" > "$p/cgroup.procs"; done
}
place_x() {
	case $place in
	systemd) cg_put $USER_SLICE/session-1.scope "$@" ;;
	scopes) cg_put realx.slice/xvfb.scope "$@" ;;
	esac
	return 0
}
place_app() {
	case $place in
	systemd) cg_put "$APPS/$@" ;;
	scopes) cg_put "realx.slice/$@" ;;
	esac
	return 0
}
# Tasks forked from now on go to their session's autogroup.
case $place in autogroup|sessions) echo 1 > /proc/sys/kernel/sched_autogroup_enabled ;; esac
echo "realx: placement $place"

# ---------------------------------------------------------------- X side
rm -f /tmp/.X0-lock /tmp/.X11-unix/X0
$own_session Xvfb :0 -screen 0 1024x768x24 -nolisten tcp -ac -extension GLX > "$work/xvfb.log" 2>&1 &
xvfb=$!
i=0
until [ -S /tmp/.X11-unix/X0 ]; do
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 $xvfb 2>/dev/null; then
		echo "realx: FAIL: Xvfb did not come up"; cat "$work/xvfb.log"; exit 1
	fi
	sleep 0.1
done
echo "realx: Xvfb up (pid $xvfb) after ~$((i / 10)).$((i % 10)) s"
place_x $xvfb

children() {	# children PID: the pids whose parent is PID
	want=$1
	for s in /proc/[0-9]*/stat; do
		{ read -r line < "$s"; } 2>/dev/null || continue
		# "pid (comm) state ppid ...": fields after the comm
		set -- ${line##*") "}
		[ "${2:-}" = "$want" ] && { p=${s#/proc/}; echo "${p%/stat}"; }
	done
	return 0
}

n=0
while [ $n -lt "$xterms" ]; do
	x=$(( (n % 2) * 510 )) y=$(( (n / 2 % 2) * 380 + (n / 4) * 20 ))
	$own_session xterm -geometry 80x24+$x+$y -title "realx$n" \
		-e $BASH -c 'while true; do echo $RANDOM; done' > "$work/xterm$n.log" 2>&1 &
	xpids="$xpids $!"
	n=$((n + 1))
done
# Up means: the xterm is alive and its writer (a bash child) runs.
i=0
while :; do
	wpids=
	for x in $xpids; do
		kill -0 "$x" 2>/dev/null || { echo "realx: FAIL: xterm $x died"; cat "$work"/xterm*.log; exit 1; }
		w=$(children "$x")
		[ -n "$w" ] && wpids="$wpids $w"
	done
	[ "$(echo $wpids | wc -w)" -eq "$xterms" ] && break
	i=$((i + 1))
	[ $i -gt 300 ] && { echo "realx: FAIL: not every xterm started its shell"; cat "$work"/xterm*.log; exit 1; }
	sleep 0.1
done
echo "realx: $xterms xterms up:$xpids; writers:$wpids"
n=0
for x in $xpids; do
	place_app app-xterm$n.scope $x $(children "$x")
	n=$((n + 1))
done

# ---------------------------------------------------------------- modes
has_module() { grep -q '^sched_economy ' /proc/modules; }
# The policy the module loads with: "economy" means it, even after a mode
# that named another policy.
load() {
	has_module || { insmod $KO; loaded=1; }
	[ -n "${default_policy:-}" ] || default_policy=$(cat /proc/sys/kernel/sched_economy_policy)
}
setmode() {
	case $1 in
	alone|absent) if has_module; then echo 0 > /proc/sys/kernel/sched_economy; rmmod sched_economy; fi ;;
	off) load; echo 0 > /proc/sys/kernel/sched_economy ;;
	economy) load; echo "$default_policy" > /proc/sys/kernel/sched_economy_policy
		echo 1 > /proc/sys/kernel/sched_economy ;;
	*) load; echo "$1" > /proc/sys/kernel/sched_economy_policy; echo 1 > /proc/sys/kernel/sched_economy ;;
	esac
}
start_loops() {
	[ -n "$lpids" ] && return 0
	n=0
	while [ $n -lt "$loops" ]; do
		$own_session $BASH -c 'while :; do :; done' &
		lpids="$lpids $!"
		place_app app-loop$n.scope $!
		n=$((n + 1))
	done
}

# snap: "T <epoch seconds.micros>" then "PID NS" for every measured task
snap() {
	$BASH -c 'echo "T $EPOCHREALTIME"; for p; do read -r a b < /proc/$p/schedstat && echo "$p $a"; done' \
		snap $xvfb $xpids $wpids $lpids
}

# window MODE ROUND IDX: one window; appends
#   MODE ROUND IDX xvfb xterm... writer... loop...   (shares in %)
window() {
	snap > "$work/a"
	sleep "$wlen"
	snap > "$work/b"
	awk -v mode="$1" -v round="$2" -v idx="$3" -v xvfb="$xvfb" -v xt="$xpids" \
		-v wr="$wpids" -v lp="$lpids" '
		FNR == NR { if ($1 == "T") t0 = $2; else a[$1] = $2; next }
		$1 == "T" { t1 = $2; next }
		{ b[$1] = $2 }
		function sh(p) { return (p in a && p in b) ? (b[p] - a[p]) / ((t1 - t0) * 1e7) : -1 }
		END {
			line = mode " " round " " idx " " sprintf("%.2f", sh(xvfb))
			n = split(xt, v, " "); for (i = 1; i <= n; i++) line = line " " sprintf("%.2f", sh(v[i]))
			n = split(wr, v, " "); for (i = 1; i <= n; i++) line = line " " sprintf("%.2f", sh(v[i]))
			n = split(lp, v, " "); for (i = 1; i <= n; i++) line = line " " sprintf("%.2f", sh(v[i]))
			print line
		}' "$work/a" "$work/b" >> "$work/windows"
}

measure() {	# measure MODE ROUND
	setmode "$1"
	case $1 in alone) ;; *) start_loops ;; esac
	[ -r /proc/sched_economy ] && cat /proc/sched_economy > "$work/books0"
	sleep "$warm"
	k=1
	while [ $k -le "$windows" ]; do
		window "$1" "$2" $k
		k=$((k + 1))
	done
	case $1 in
	alone|absent|off) ;;
	*) echo "books after $1 (round $2, policy $(cat /proc/sys/kernel/sched_economy_policy)):"
	   cat /proc/sched_economy > "$work/books1"
	   sed 's/^/  /' "$work/books1"
	   # what moved during this mode (warm-up included)
	   awk 'FNR == NR { a[$1] = $2; next } { d[$1] = $2 - a[$1] }
		END { printf "  this mode: paid %.1f ms, withdrawn %.1f ms, payments %d, withdrawals %d, refused (no credit) %d, refused (over limit) %d, withdraw_empty %d\n",
			d["paid_ns"] / 1e6, d["withdrawn_ns"] / 1e6, d["payments"], d["withdrawals"],
			d["pay_refused_no_credit"], d["pay_refused_over_limit"], d["withdraw_empty"] }' \
		"$work/books0" "$work/books1" ;;
	esac
}

: > "$work/windows"
alone_modes= other_modes=
for m in $(echo "$modes" | tr , ' '); do
	case $m in alone) alone_modes="$alone_modes $m" ;; *) other_modes="$other_modes $m" ;; esac
done
for m in $alone_modes; do measure alone 1; done
r=1
while [ $r -le "$rounds" ]; do
	for m in $other_modes; do measure "$m" $r; done
	r=$((r + 1))
done

# ---------------------------------------------------------------- table
nx=$(echo $xpids | wc -w) nl=$(echo $lpids | wc -w)
echo
echo "Real X: Xvfb, $nx xterms each running a bash echo \$RANDOM loop, $loops busy loops (bash), $(grep -c '^processor' /proc/cpuinfo) vCPU;"
echo "CPU share in % of one CPU per window of ${wlen} s (warm-up ${warm} s); median [min-max] over windows;"
echo "writers: the bash loops in the xterms; rest: 100 - all of these (kworkers moving pty data, idle, this script)"
awk -v nx="$nx" -v nl="$nl" -v order="$modes" '
	function med(arr, n,   i, j, t, s) {	# median of arr[1..n], sorts arr
		for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
		return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
	}
	function stat(m, c,   n, i, v) {	# "med [min-max]" of column c of mode m
		n = cnt[m]; for (i = 1; i <= n; i++) v[i] = val[m, i, c]
		med(v, n)
		return sprintf("%.1f [%.1f-%.1f]", med(v, n), v[1], v[n])
	}
	function m1(m, c,   n, i, v) { n = cnt[m]; for (i = 1; i <= n; i++) v[i] = val[m, i, c]; return sprintf("%.1f", med(v, n)) }
	{
		m = $1; k = ++cnt[m]
		x = $4; xs = 0; ws = 0; ls = 0
		for (i = 0; i < nx; i++) { xs += $(5 + i); val[m, k, "x" i] = $(5 + i) }
		for (i = 0; i < nx; i++) ws += $(5 + nx + i)
		for (i = 0; i < NF - 4 - 2 * nx; i++) { ls += $(5 + 2 * nx + i); val[m, k, "l" i] = $(5 + 2 * nx + i) }
		val[m, k, "X"] = x; val[m, k, "xs"] = xs; val[m, k, "ws"] = ws
		val[m, k, "all"] = x + xs + ws; val[m, k, "ls"] = ls
		val[m, k, "rest"] = 100 - (x + xs + ws + ls)
		nloops[m] = NF - 4 - 2 * nx
	}
	END {
		printf "%-8s %3s  %-17s %-17s %-17s %-17s %-17s %-5s %s\n", "mode", "win", "Xvfb", "xterms (sum)",
			"writers (sum)", "X side (sum)", "loops (sum)", "rest", "each xterm | each loop"
		n = split(order, o, ",")
		for (j = 1; j <= n; j++) {
			m = o[j]; if (!(m in cnt) || (m in done)) continue; done[m] = 1
			each = ""
			for (i = 0; i < nx; i++) each = each (i ? " " : "") m1(m, "x" i)
			each = each " |"
			for (i = 0; i < nloops[m]; i++) each = each " " m1(m, "l" i)
			printf "%-8s %3d  %-17s %-17s %-17s %-17s %-17s %-5s %s\n", m, cnt[m], stat(m, "X"), stat(m, "xs"),
				stat(m, "ws"), stat(m, "all"), nloops[m] ? stat(m, "ls") : "-", m1(m, "rest"), each
		}
	}' "$work/windows"
echo
sed 's/^/REALX_CSV /; s/ /,/g; s/^REALX_CSV,/REALX_CSV /' "$work/windows"

# Every window measured every task: a -1 means a task vanished.
if grep -q -- '-1\.00' "$work/windows"; then
	echo "realx: FAIL: a task vanished during a window"; exit 1
fi
want=0
for m in $alone_modes; do want=$((want + windows)); done
for m in $other_modes; do want=$((want + windows * rounds)); done
got=$(wc -l < "$work/windows")
[ "$got" -eq "$want" ] || { echo "realx: FAIL: $got windows measured, want $want"; exit 1; }
echo "realx: measured $got windows"
[ -n "$assert" ] || exit 0
# Windows: MODE ... XVFB XTERM... WRITER... LOOP... (see the table above).
awk -v nx="$nx" -v spec="$assert" '
	function med(arr, n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
		return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
	}
	BEGIN { split(spec, a, ":") }
	$1 == a[1] {
		k = ++n; x[k] = $4; side[k] = $4
		for (i = 0; i < 2 * nx; i++) side[k] += $(5 + i)
		nl = NF - 4 - 2 * nx
		lsum = 0
		for (i = 0; i < nl; i++) { l[i, k] = $(5 + 2 * nx + i); lsum += l[i, k] }
		# of the CPU left to the X side and the loops (a[6] "user")
		rel[k] = side[k] + lsum > 0 ? 100 * side[k] / (side[k] + lsum) : 0
	}
	END {
		if (!n) { print "realx: FAIL: no window of mode " a[1]; exit 1 }
		xm = med(x, n); worst = 0
		for (i = 0; i < nl; i++) { for (k = 1; k <= n; k++) v[k] = l[i, k]; m = med(v, n); if (m > worst) worst = m }
		printf "realx: %s: Xvfb %.1f %% (need >= %s), busiest loop %.1f %% (need <= %s)\n", a[1], xm, a[2], worst, a[3]
		ok = xm >= a[2] && worst <= a[3]
		if (a[4] != "") {
			sm = a[6] == "user" ? med(rel, n) : med(side, n)
			printf "realx: %s: X side %.1f %%%s (need %s-%s)\n", a[1], sm,
				a[6] == "user" ? " of the X side and the loops" : "", a[4], a[5]
			ok = ok && sm >= a[4] && sm <= a[5]
		}
		if (ok) { print "realx: PASS"; exit 0 }
		print "realx: FAIL"; exit 1
	}' "$work/windows"
