// SPDX-License-Identifier: GPL-2.0
/*
 * concentration: many sleepers of one user do not make one task of theirs
 * heavier than kernel.sched_economy_hold_max nice-0 tasks (review round 4,
 * F10).
 *
 *   R        uid 1000: makes a pipe, reads a byte from it (so that it is
 *            the pipe's reader of record, the one that owes its writers
 *            room), forks the writers, then spins and never reads again
 *   writers  -n of them (default 90), uid 1000: write 4 KiB at a time
 *            into the pipe until it is full, and block waiting for room
 *            that R, of their own user, owes them
 *   loop     uid 65534, a busy loop beside R, so that R competes and the
 *            writers' sleeps count (sched_economy_contenders())
 *
 * All on CPU 0. Each writer gives R its weight (1024) while it waits: R
 * would weigh 1024 * (n + 1), nice -20's 88761 for n >= 86, the latency
 * of a task 87 times as heavy as the loop, without CAP_SYS_NICE. Bars,
 * from R's se.load.weight (/proc/PID/sched) sampled every 20 ms for 2 s
 * once every writer sleeps: never above hold_max * 1024 (the knob as the
 * test finds it), and at it in most samples (the cap is what stops R, not
 * a donation that never came). -h sets the knob after the bar is read:
 * with -h 87, the module as it was before the knob, R weighs 88761 and
 * the first bar fails; tests/TESTS runs that as the negative control. After: R
 * back at 1024 once the writers are gone, the books' residues 0.
 */
#include "econ_test.h"

#include <fcntl.h>
#include <grp.h>

#define OWN		1024
#define SAMPLES		100

static void become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		_exit(111);
}

static void writer(int wfd)
{
	static char buf[4096];

	for (;;)
		if (write(wfd, buf, sizeof(buf)) < 0)
			_exit(0);
}

static pid_t wpids[1024];

/* R: reads a byte, forks the writers, spins; sends their pids on @ready. */
static void reader(int n, int ready)
{
	int p[2], i;
	char c;

	/* Read before any writer waits: a wait names the reader it finds. */
	if (pipe(p) || write(p[1], "x", 1) != 1 || read(p[0], &c, 1) != 1)
		_exit(1);
	for (i = 0; i < n; i++) {
		wpids[i] = fork();
		if (wpids[i] < 0)
			_exit(2);
		if (!wpids[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(p[0]);
			writer(p[1]);
		}
	}
	close(p[1]);
	if (write(ready, wpids, n * sizeof(pid_t)) != (ssize_t)(n * sizeof(pid_t)))
		_exit(4);
	for (;;)
		__asm__ __volatile__("" ::: "memory");
}

/* How many of the writers are asleep (state S). */
static int sleeping(int n)
{
	char path[64], st[64];
	int i, asleep = 0;
	FILE *f;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", wpids[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* pid (comm) state: comm has no spaces here */
		if (fscanf(f, "%*d %*s %63s", st) == 1 && st[0] == 'S')
			asleep++;
		fclose(f);
	}
	return asleep;
}

int main(int argc, char **argv)
{
	int n = 90, hold = -1, opt, ready[2], i, over = 0, at = 0, fail = 0;
	long long w, worst = 0, cap, after;
	pid_t loop, r;
	char val[16];

	while ((opt = getopt(argc, argv, "n:h:")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			if (n < 1 || n > 1024)
				n = 90;
			break;
		case 'h':
			hold = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: concentration [-n writers] [-h hold_max]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	cap = econ_read_knob("sched_economy_hold_max");
	if (hold > 0) {
		snprintf(val, sizeof(val), "%d", hold);
		if (econ_write_knob("sched_economy_hold_max", val)) {
			printf("not ok: set sched_economy_hold_max %d\n", hold);
			return 1;
		}
	}
	if (cap <= 0 || econ_write_knob("sched_economy", "1") ||
	    econ_write_knob("sched_economy_policy", "lend")) {
		printf("not ok: the module's knobs\n");
		return 1;
	}
	cap *= OWN;
	econ_pin(0, 0);
	loop = econ_busy_loop_as(0, 65534);
	econ_msleep(200);
	if (pipe(ready))
		return 1;
	r = fork();
	if (!r) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		become(1000);
		close(ready[0]);
		reader(n, ready[1]);
	}
	close(ready[1]);
	if (read(ready[0], wpids, n * sizeof(pid_t)) != (ssize_t)(n * sizeof(pid_t))) {
		printf("not ok: the reader and its %d writers did not start\n", n);
		econ_kill((pid_t[]){ loop, r }, 2);
		return 1;
	}
	for (i = 0; i < 500 && sleeping(n) < n; i++)
		econ_msleep(20);
	printf("# %d of %d writers asleep waiting for room after %d ms\n",
	       sleeping(n), n, i * 20);
	for (i = 0; i < SAMPLES; i++) {
		w = econ_task_weight(r);
		if (w > worst)
			worst = w;
		if (w > cap)
			over++;
		if (w == cap)
			at++;
		econ_msleep(20);
	}
	printf("# R's se.load.weight: at most %lld, above %lld in %d of %d samples, at it in %d\n",
	       worst, cap, over, SAMPLES, at);
	if (worst > cap) {
		printf("not ok: R weighed %lld, above hold_max's %lld\n", worst, cap);
		fail = 1;
	} else {
		printf("ok: R never above hold_max's %lld\n", cap);
	}
	if (n * OWN + OWN >= cap && at * 2 < SAMPLES) {
		printf("not ok: R at the cap in only %d of %d samples: the writers did not give\n",
		       at, SAMPLES);
		fail = 1;
	} else {
		printf("ok: R at the cap in %d of %d samples\n", at, SAMPLES);
	}
	kill(r, SIGKILL);
	waitpid(r, NULL, 0);
	kill(loop, SIGKILL);
	waitpid(loop, NULL, 0);
	econ_msleep(300);
	econ_write_knob("sched_economy", "0");
	after = econ_book("weight_residue");
	if (after) {
		printf("not ok: weight_residue %lld after\n", after);
		fail = 1;
	} else {
		printf("ok: weight_residue 0 after\n");
	}
	econ_write_knob("sched_economy_hold_max", "16");
	printf("# %s\n", fail ? "FAIL" : "PASS");
	return fail;
}
