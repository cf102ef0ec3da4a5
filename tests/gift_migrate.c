// SPDX-License-Identifier: GPL-2.0
/*
 * gift_migrate: a group gift stays with the CPU it was made on when its
 * recipient migrates (review round 4, F8d). 2 vCPUs.
 *
 *   cc.slice/a.scope   D, which fills R's pipe and blocks: a waiter
 *   cc.slice/b.scope   R (the pipe's reader of record) and S, busy loops
 *   root               a busy loop of another user on each CPU
 *
 * All on CPU 0. D sleeps: b's entity on CPU 0 gains D's part of a (a's
 * whole share, D being alone there), and R weighs more in b's cfs_rq, so
 * that the part counts for R and not for S. Then R is moved to CPU 1.
 * S, for whom nobody waits, is then alone in b on CPU 0: b's entity there
 * may weigh at most b's whole share (1024) whatever the split of b's load,
 * since no gift is for S. A gift that stays where it was made leaves b's
 * entity on CPU 0 at its share there plus D's part, above 1024, and S
 * runs with D's weight.
 *
 * Bars, on b's entity weights (/sys/kernel/debug/sched/debug) and the
 * books: above 1024 on CPU 0 while D sleeps and R is there (the setup);
 * at most 1024 on CPU 0 once R is on CPU 1; the books' residues 0 once D
 * is gone, and b's entities at most 1024 each.
 */
#include "econ_test.h"
#include "econ_cgroup.h"
#include "econ_check.h"
#include "econ_waiter.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#define OWN	1024
#define GROUP_A	"cc.slice/a.scope"
#define GROUP_B	"cc.slice/b.scope"

static int pipe_full(int rfd)
{
	int n = 0;

	for (int tries = 0; tries < 200; tries++) {
		if (!ioctl(rfd, FIONREAD, &n) && n >= 65535) {
			econ_msleep(50);
			return 1;
		}
		econ_msleep(10);
	}
	return 0;
}

int main(void)
{
	pid_t d, r, s, l0, l1, all[5];
	long long b0, b1;
	int p[2];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("not ok: gift_migrate needs 2 CPUs\n");
		return 1;
	}
	if (econ_load_module() && access(ECON_BOOKS, F_OK)) {
		printf("not ok: load the module\n");
		return 1;
	}
	if (econ_write_knob("sched_economy", "1") ||
	    econ_write_knob("sched_economy_policy", "lend") ||
	    econ_cg_make(GROUP_A) || econ_cg_make(GROUP_B)) {
		printf("not ok: the module's knobs or the cgroups\n");
		return 1;
	}
	if (pipe(p) || write(p[1], "x", 1) != 1)
		return 1;
	l0 = econ_busy_loop_as(0, 65534);
	l1 = econ_busy_loop_as(1, 65534);
	/* D and R on CPU 0, as we fork them; we watch from CPU 1. */
	econ_pin(0, 0);
	d = econ_start_waiter(-1, p[1]);
	r = econ_start_waiter(p[0], -1);
	econ_pin(0, 1);
	s = econ_busy_loop(0);
	all[0] = d, all[1] = r, all[2] = s, all[3] = l0, all[4] = l1;
	if (econ_cg_move(GROUP_A, d) || econ_cg_move(GROUP_B, r) ||
	    econ_cg_move(GROUP_B, s)) {
		printf("not ok: move the tasks into their groups\n");
		econ_kill(all, 5);
		return 1;
	}
	econ_msleep(300);
	kill(d, SIGUSR1);
	if (!pipe_full(p[0])) {
		printf("not ok: D did not block\n");
		econ_kill(all, 5);
		return 1;
	}
	econ_msleep(200);
	b0 = econ_cg_entity_weight(GROUP_B, 0);
	printf("# D asleep, R and S on CPU 0: R weighs %lld, S %lld; b's entity %lld on CPU 0; group gifts %lld\n",
	       econ_task_weight(r), econ_task_weight(s), b0,
	       econ_book("group_gifts"));
	econ_check(b0 > OWN, "setup: b's entity on CPU 0 holds D's part", b0, OWN);

	econ_pin(r, 1);
	econ_msleep(500);
	b0 = econ_cg_entity_weight(GROUP_B, 0);
	b1 = econ_cg_entity_weight(GROUP_B, 1);
	printf("# R moved to CPU 1: R weighs %lld, S %lld; b's entity %lld on CPU 0, %lld on CPU 1\n",
	       econ_task_weight(r), econ_task_weight(s), b0, b1);
	econ_check(b0 <= OWN,
	      "R on CPU 1: b's entity on CPU 0, S alone, at most b's share",
	      b0, OWN);

	kill(d, SIGKILL);
	waitpid(d, NULL, 0);
	all[0] = 0;
	econ_msleep(200);
	b0 = econ_cg_entity_weight(GROUP_B, 0);
	b1 = econ_cg_entity_weight(GROUP_B, 1);
	printf("# D gone: R weighs %lld; b's entity %lld on CPU 0, %lld on CPU 1\n",
	       econ_task_weight(r), b0, b1);
	econ_check(econ_task_weight(r) == OWN, "D gone: R weighs its own",
	      econ_task_weight(r), OWN);
	econ_check(b0 <= OWN && b1 <= OWN, "D gone: b's entities at most its share",
	      b0 > b1 ? b0 : b1, OWN);
	econ_check_books("D gone");
	econ_kill(all, 5);
	econ_cg_remove(GROUP_A);
	econ_cg_remove(GROUP_B);
	if (econ_failures)
		return 1;
	printf("ok: gift_migrate\n");
	return 0;
}
