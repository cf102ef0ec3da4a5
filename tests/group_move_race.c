// SPDX-License-Identifier: GPL-2.0
/*
 * group_move_race (review F3): a donor moved between cgroups of different
 * depths while it gives across groups.
 *
 *   W      writer in gm-d/x (depth 2), filling a pipe: every write blocks
 *          for room, and each block gives W's part to the reader's group
 *          (sched_economy_group_give())
 *   R      the pipe's reader in gm-r, beside a busy loop (so a gift
 *          counts); it drains the pipe every 2 ms, so W wakes, takes its
 *          gift back and blocks again
 *   mover  writes W's pid to gm-d/x and gm-d/y/a/b/c (depth 5) in turn,
 *          as fast as it can, for the whole run
 *
 * The gift's part was computed along W's own entity, which the move
 * re-parents without the lock the gift holds (that of R's runqueue), and
 * counted away in the group W was in: a deeper new group walks the old
 * group's chain past the root (a NULL dereference). Passes (exit 0) when
 * the run ends without a kernel report (the runner fails any), every
 * gift was taken back (group_held_weight 0, group_weight_residue 0) and
 * the groups can be removed. 2 vCPUs put W and R on different CPUs.
 *
 *	group_move_race [seconds]
 */
#include "econ_test.h"
#include "econ_cgroup.h"

#include <fcntl.h>

#define CG_SHALLOW	"gm-d/x"
#define CG_DEEP		"gm-d/y/a/b/c"
#define CG_READER	"gm-r"

static int failures;

static void check(int ok, const char *what, long long got, long long want)
{
	printf("%s - %s (got %lld, want %lld)\n", ok ? "ok" : "not ok", what,
	       got, want);
	if (!ok)
		failures++;
}

static pid_t child(int cpu)
{
	pid_t pid = fork();

	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		econ_pin(0, cpu);
	}
	return pid;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 20, ncpus, rcpu, p[2];
	long long end, moves = 0, held, residue, gifts;
	pid_t r, w, hog;
	char c = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	rcpu = ncpus > 1 ? 1 : 0;
	if (econ_load_module() || econ_write_knob("sched_economy", "1") ||
	    econ_write_knob("sched_economy_policy", "lend"))
		return 1;
	if (econ_cg_make(CG_SHALLOW) || econ_cg_make(CG_DEEP) ||
	    econ_cg_make(CG_READER)) {
		printf("not ok - cgroups with the cpu controller\n");
		return 4;
	}
	if (pipe(p))
		return 1;
	hog = econ_busy_loop(rcpu);
	econ_cg_move(CG_READER, hog);
	r = child(rcpu);
	if (!r) {
		static char buf[65536];

		if (read(p[0], &c, 1) != 1)
			_exit(1);
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		for (;;) {
			long long t = econ_now_ns() + 2000000;

			while (econ_now_ns() < t)
				;
			while (read(p[0], buf, sizeof(buf)) > 0)
				;
		}
	}
	econ_cg_move(CG_READER, r);
	w = child(0);
	if (!w) {
		static char buf[16384];

		if (write(p[1], buf, 1) != 1)
			_exit(1);
		usleep(100000);
		for (;;)
			if (write(p[1], buf, sizeof(buf)) < 0)
				_exit(1);
	}
	econ_cg_move(CG_SHALLOW, w);
	gifts = econ_book("group_gifts");
	end = econ_now_ns() + secs * 1000000000LL;
	while (econ_now_ns() < end) {
		econ_cg_move(moves & 1 ? CG_SHALLOW : CG_DEEP, w);
		moves++;
	}
	gifts = econ_book("group_gifts") - gifts;
	econ_kill((pid_t[]){ w, r, hog }, 3);
	econ_write_knob("sched_economy", "0");
	econ_msleep(100);
	held = econ_book("group_held_weight");
	residue = econ_book("group_weight_residue");
	printf("# %lld moves, %lld gifts between groups in %d s\n", moves,
	       gifts, secs);
	check(gifts > 0, "W gave across groups while it was moved", gifts, 1);
	check(held == 0, "every gift taken back (group_held_weight)", held, 0);
	check(residue == 0, "group_weight_residue", residue, 0);
	econ_cg_remove(CG_DEEP);
	econ_cg_remove(CG_SHALLOW);
	econ_cg_remove(CG_READER);
	check(access(ECON_CGROOT "/gm-d", F_OK) != 0, "the groups can be removed", 0, 0);
	printf("# %s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
