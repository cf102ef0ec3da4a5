#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# weighted.sh CHECK [WBENCH OPTIONS...]: clients of different weights
# through a thread-per-connection server (wbench, bench/), economy off and
# on alternating in one boot; medians over the windows of each mode.
#   ratio:A:B   the economy on separates the clients by weight: the first
#               client's request rate over the last one's is at least A,
#               the second's over the last one's at least B; and the busy
#               loops keep their fair share, less 1 pp, of a coalition
#               that counts every client and every server thread (weight
#               flowing to the server is the clients', never new).
#   within:PCT  each rate ratio within PCT % of the weights' ratio (with
#               -1, the X shape: one server thread for all, where the
#               served CPU is the request rate times S), the busy loops as
#               for ratio.
#   share:PCT   as within, on the pairs' CPU shares (client + its server
#               thread, from schedstat) instead of their request rates:
#               what the scheduler hands out, without the cost of a
#               request, which on a real-time (mttcg) guest moves from
#               boot to boot by itself.
#   idle:PCT    the last client gets nothing extra through the server: its
#               request rate with the economy on is at most PCT % of off.
#   nogain:PP   the busy loops, who wait for nobody, take no more with the
#               economy on than off, plus PP points; and the clients are
#               served in the order of their weights (each rate ratio above
#               the next, the last above 1).
# With -g W1,W2,... (wbench --groups) the weights compared against are the
# clients' scopes' cpu.weights, and the busy loops' fair share is their
# scopes' part of the user slice.
# A server thread holds what its waiting client donates and works at twice
# it when that is less than its own weight (module/donate.c, the bill).
set -eu

check=$1
shift
. ./econ_module.sh

out=$(wbench "$@" --csv)
echo "$out" | grep -v '^WBENCH_CSV '

# WBENCH_CSV win,MODE,round,win, then per client nice,rate,ratio,cpu, then
# hogs,SHARE.
single=0
case " $* " in *" -1 "*|*" --single "*) single=1 ;; esac
echo "$out" | awk -F, -v check="$check" -v single=$single \
	-v hogs_n="$(echo "$@" | sed -n 's/.*-H \([0-9]*\).*/\1/p')" \
	-v groups="$(echo "$@" | sed -n 's/.*-g \([0-9,]*\).*/\1/p')" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$1 == "WBENCH_CSV win" {
	m = $2; k = ++n[m]; nc = (NF - 6) / 4
	for (i = 0; i < nc; i++) {
		nice[i] = $(5 + 4 * i)
		rate[m, i, k] = $(6 + 4 * i)
		if (i < nc - 1 && $(6 + 4 * (nc - 1)) > 0)
			ratio[m, i, k] = $(6 + 4 * i) / $(6 + 4 * (nc - 1))
		if (i < nc - 1 && $(8 + 4 * (nc - 1)) > 0)
			cratio[m, i, k] = $(8 + 4 * i) / $(8 + 4 * (nc - 1))
	}
	hog[m, k] = $NF
}
function med(m, what, i,   k, a) {
	for (k = 1; k <= n[m]; k++)
		a[k] = what == "rate" ? rate[m, i, k] : what == "ratio" ? ratio[m, i, k] :
		       what == "cratio" ? cratio[m, i, k] : hog[m, k]
	return median(a, n[m])
}
END {
	split(check, c, ":")
	# Off is needed by idle only (SMP boots run the economy mode alone).
	if (!n["economy"] || ((c[1] == "idle" || c[1] == "nogain") && !n["off"])) { print "FAIL: no windows from wbench"; exit 1 }
	w[-20] = 88761; w[-10] = 9548; w[-5] = 3121; w[0] = 1024; w[5] = 335
	w[10] = 110; w[15] = 36; w[19] = 15
	if (c[1] == "ratio" || c[1] == "within" || c[1] == "share") {
		what = c[1] == "share" ? "cratio" : "ratio"
		r0 = med("economy", what, 0); r1 = med("economy", what, 1)
		w0 = w[nice[0]] / w[nice[nc - 1]]; w1 = w[nice[1]] / w[nice[nc - 1]]
		if (groups != "") {
			ng = split(groups, gw, ",")
			w0 = gw[1] / gw[ng]; w1 = gw[2] / gw[ng]
		}
		h = med("economy", "hogs")
		offr = n["off"] ? sprintf("off %.2f : %.2f : 1", med("off", what, 0), med("off", what, 1)) : "off not run"
		offh = n["off"] ? sprintf("%.1f%% off", med("off", "hogs")) : "off not run"
		# Fair: hogs, server threads (nice 0) and clients all runnable.
		sum = 1024 * hogs_n + (single ? 1024 : 0)
		for (i = 0; i < nc; i++) sum += w[nice[i]] + (single ? 0 : 1024)
		fair = 100 * 1024 * hogs_n / sum
		# -g: the user slice (half the CPU) holds the scopes of the
		# clients and of the loops (cpu.weight 100 each); clients
		# blocked on the service give it their part, the loops keep
		# their own.
		if (groups != "") {
			gsum = 100 * hogs_n
			for (i = 1; i <= ng; i++) gsum += gw[i]
			fair = 50 * 100 * hogs_n / gsum
		}
		if (what == "cratio")
			printf "economy on: rate ratios %.2f : %.2f : 1 (not checked)\n",
				med("economy", "ratio", 0), med("economy", "ratio", 1)
		printf "economy on: %s ratios %.2f : %.2f : 1 (%s; weights %.2f : %.2f : 1); want %s\n",
			(what == "cratio" ? "CPU share" : "rate"), r0, r1, offr, w0, w1, (c[1] == "ratio" ? ">= " c[2] " : " c[3] : "each within " c[2] "% of the weights")
		printf "busy loops: %.1f%% on, %s, fair share %.1f%%, want >= %.1f%%\n", h, offh, fair, fair - 1
		if (c[1] == "ratio")
			ok = r0 >= c[2] && r1 >= c[3]
		else
			ok = r0 >= w0 * (1 - c[2] / 100) && r0 <= w0 * (1 + c[2] / 100) &&
			     r1 >= w1 * (1 - c[2] / 100) && r1 <= w1 * (1 + c[2] / 100)
		ok = ok && h >= fair - 1
	} else if (c[1] == "nogain") {
		r0 = med("economy", "ratio", 0); r1 = med("economy", "ratio", 1)
		h = med("economy", "hogs"); offh = med("off", "hogs")
		printf "economy on: rate ratios %.2f : %.2f : 1 (off %.2f : %.2f : 1); want decreasing, above 1\n",
			r0, r1, med("off", "ratio", 0), med("off", "ratio", 1)
		printf "busy loops: %.1f%% on, %.1f%% off, want <= %.1f%%\n", h, offh, offh + c[2]
		ok = r0 > r1 && r1 > 1 && h <= offh + c[2]
	} else if (c[1] == "idle") {
		on = med("economy", "rate", nc - 1); off = med("off", "rate", nc - 1)
		printf "nice %d client: %.0f requests/s on, %.0f off (%.0f%%), want <= %s%%\n",
			nice[nc - 1], on, off, (off > 0 ? 100 * on / off : 0), c[2]
		ok = off > 0 && on <= off * c[2] / 100
	} else {
		print "FAIL: unknown check " check; exit 1
	}
	if (ok) { print "PASS"; exit 0 }
	print "FAIL"
	exit 1
}'
