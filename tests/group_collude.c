// SPDX-License-Identifier: GPL-2.0
/*
 * group_collude: a user's tasks split over cgroups gain nothing from
 * donation that placing them could not give (1 vCPU, shares from
 * /proc/PID/schedstat, economy off and on alternating by window).
 *
 *   root cgroup:  R (uid 1000), a busy loop that reads a page from a
 *                 pipe every 20 ms, and two busy loops of uid 65534, the
 *                 victims;
 *   gc.x:         D (uid 1000), which fills the pipe and sleeps waiting
 *                 for R to make room, and three busy loops of uid 1000.
 *
 * Placement alone: gc.x's entity and R against the victims, the user 50 %.
 * D stands for a quarter of gc.x as it sleeps: given to R, that quarter
 * must leave gc.x. Donating D's own weight (a task's weight counts in
 * its own group only) made R weigh 2048 at the root while gc.x kept its
 * whole 1024: the user took 60 %. Bound: the user's tasks <= 51 %, each
 * victim >= 24 %.
 *
 *	group_collude [-r rounds] [-w window_ms]
 */
#include "econ_test.h"
#include "econ_cgroup.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#define UID_USER	1000
#define UID_VICTIM	65534
#define MAXROUNDS	16
#define GROUP		"gc.x"

enum { T_R, T_D, T_B1, T_B2, T_B3, T_V1, T_V2, T_NR };

static pid_t as_user(uid_t uid)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setgid(uid) || setuid(uid))
		_exit(111);
	return 0;
}

int main(int argc, char **argv)
{
	double share[2][T_NR][MAXROUNDS], user[2][MAXROUNDS], med_user[2];
	double med_v[2][2];
	int rounds = 6, window_ms = 1000, opt, p[2], i, k, e, fail = 0;
	long long t0[T_NR], t1[T_NR], sum;
	pid_t pids[T_NR];
	static char buf[4096];

	while ((opt = getopt(argc, argv, "r:w:")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 'w': window_ms = atoi(optarg); break;
		default: fprintf(stderr, "usage: see the top of group_collude.c\n"); return 2;
		}
	}
	if (rounds < 1 || rounds > MAXROUNDS)
		rounds = 6;
	setvbuf(stdout, NULL, _IOLBF, 0);
	econ_pin(0, 0);
	if (econ_load_module() || econ_write_knob("sched_economy_policy", "lend") ||
	    econ_cg_make(GROUP) || pipe(p)) {
		printf("not ok: setup\n");
		return 1;
	}

	pids[T_R] = as_user(UID_USER);
	if (!pids[T_R]) {
		long long next = 0;

		close(p[1]);
		/* A page every 20 ms: D wakes, writes, and sleeps again. */
		for (;;) {
			if (econ_now_ns() < next)
				continue;
			if (read(p[0], buf, sizeof(buf)) <= 0)
				_exit(112);
			next = econ_now_ns() + 20000000LL;
		}
	}
	pids[T_D] = as_user(UID_USER);
	if (!pids[T_D]) {
		close(p[0]);
		if (write(p[1], buf, 1) != 1)
			_exit(113);
		usleep(100000);
		for (;;)
			if (write(p[1], buf, sizeof(buf)) < 0 && errno != EINTR)
				_exit(114);
	}
	for (i = T_B1; i <= T_B3; i++)
		pids[i] = econ_busy_loop_as(0, UID_USER);
	for (i = T_V1; i <= T_V2; i++)
		pids[i] = econ_busy_loop_as(0, UID_VICTIM);
	for (i = T_D; i <= T_B3; i++)
		if (econ_cg_move(GROUP, pids[i])) {
			printf("not ok: cannot move %d to " GROUP "\n", pids[i]);
			econ_kill(pids, T_NR);
			return 1;
		}
	close(p[0]);
	close(p[1]);
	usleep(500000);

	for (k = 0; k < rounds; k++) {
		for (e = 0; e < 2; e++) {
			econ_write_knob("sched_economy", e ? "1" : "0");
			usleep(300000);
			for (i = 0; i < T_NR; i++)
				t0[i] = econ_cpu_ns(pids[i]);
			usleep(window_ms * 1000);
			for (i = 0, sum = 0; i < T_NR; i++) {
				t1[i] = econ_cpu_ns(pids[i]) - t0[i];
				sum += t1[i];
			}
			user[e][k] = 0;
			for (i = 0; i < T_NR; i++) {
				share[e][i][k] = sum > 0 ? 100.0 * t1[i] / sum : 0;
				if (i < T_V1)
					user[e][k] += share[e][i][k];
			}
			printf("# round %d economy %s: user %.1f %% (R %.1f, D %.1f, gc.x's loops %.1f / %.1f / %.1f), victims %.1f / %.1f %%\n",
			       k, e ? "on" : "off", user[e][k], share[e][T_R][k],
			       share[e][T_D][k], share[e][T_B1][k], share[e][T_B2][k],
			       share[e][T_B3][k], share[e][T_V1][k], share[e][T_V2][k]);
		}
	}
	econ_write_knob("sched_economy", "0");
	econ_kill(pids, T_NR);
	rmdir(ECON_CGROOT "/" GROUP);

	for (e = 0; e < 2; e++) {
		med_user[e] = econ_median(user[e], rounds);
		med_v[e][0] = econ_median(share[e][T_V1], rounds);
		med_v[e][1] = econ_median(share[e][T_V2], rounds);
	}
	printf("# medians: user %.1f -> %.1f %%, victims %.1f / %.1f -> %.1f / %.1f %%; bound: user <= 51, victims >= 24\n",
	       med_user[0], med_user[1], med_v[0][0], med_v[0][1], med_v[1][0],
	       med_v[1][1]);
	printf("# books: group_gifts %lld group_given_weight %lld group_held_weight %lld group_weight_residue %lld\n",
	       econ_book("group_gifts"), econ_book("group_given_weight"),
	       econ_book("group_held_weight"), econ_book("group_weight_residue"));
	if (med_user[1] > 51 || med_v[1][0] < 24 || med_v[1][1] < 24) {
		printf("not ok: the user gained from splitting its tasks over groups\n");
		fail = 1;
	}
	if (econ_book("group_held_weight") || econ_book("group_weight_residue") ||
	    econ_book("held_weight") || econ_book("weight_residue")) {
		printf("not ok: books\n");
		fail = 1;
	}
	if (!fail)
		printf("ok: group_collude\n");
	return fail;
}
