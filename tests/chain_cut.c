// SPDX-License-Identifier: GPL-2.0
/*
 * chain_cut: a chain longer than the module passes changes down gives no
 * weight of a task that no longer waits (review round 4, F8c).
 *
 * Six tasks, T0 .. T5, all of one user, on CPU 0 beside a busy loop of
 * another: T5 spins; each T_i (i < 5) fills pipe i, whose reader of
 * record is T_{i+1} (it read a byte of it), and blocks waiting for room,
 * giving T_{i+1} its weight and what it holds. The waits are made in the
 * order that the hop limit (ECONOMY_MAX_HOPS, 4, module/donate.c) once
 * left unbalanced:
 *
 *   T3 -> T4, T2 -> T3, T1 -> T2   the chain above T4
 *   T0 -> T1                       T0's weight reaches T4, four hops down
 *   T4 -> T5                       T4 gives its own and all it holds: T5
 *                                  weighs 6 x 1024
 *   T0 killed                      its take-back stops at T4, four hops
 *                                  down; T4's gift to T5 must not keep it
 *
 * Bars, from se.load.weight (/proc/PID/sched): T5 at 6144 while the five
 * sleep (the setup worked), then, with T0 gone, at most 5120, the four
 * sleepers' (the module before the cut kept 6144: the dead T0's weight,
 * for as long as T4 sleeps); and 1024, its own, once all are gone. The
 * books after each step: weight_residue 0 (donated = returned + the
 * records) and received_residue 0 (what the tasks hold = the records).
 */
#include "econ_test.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#define OWN	1024
#define LINKS	5		/* T0 .. T4 wait; T5 spins */

static volatile sig_atomic_t go;

static void on_go(int sig)
{
	(void)sig;
	go = 1;
}

/*
 * T_i: reads a byte of pipe i - 1 (it is then that pipe's reader of
 * record), waits for SIGUSR1, then fills pipe i and blocks. T5 spins.
 */
static pid_t start_link(int i, int pipes[][2])
{
	static char buf[4096];
	sigset_t block, old;
	pid_t pid;
	char c;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGUSR1, on_go);
	if (i > 0 && read(pipes[i - 1][0], &c, 1) != 1)
		_exit(1);
	if (i == LINKS) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		for (;;)
			__asm__ __volatile__("" ::: "memory");
	}
	/* pause() is no wait the economy sees: nothing is given yet. */
	while (!go)
		sigsuspend(&old);
	for (;;)
		if (write(pipes[i][1], buf, sizeof(buf)) < 0)
			_exit(0);
}

/* Pipe @i is full: T_i blocks in it. */
static int full(int pipes[][2], int i)
{
	int n = 0, tries;

	for (tries = 0; tries < 200; tries++) {
		if (!ioctl(pipes[i][0], FIONREAD, &n) && n >= 65535) {
			econ_msleep(50);
			return 1;
		}
		econ_msleep(10);
	}
	return 0;
}

static int failures;

static void check(int ok, const char *what, long long got, long long want)
{
	printf("%s: %s (%lld, bar %lld)\n", ok ? "# ok" : "not ok", what, got,
	       want);
	if (!ok)
		failures++;
}

static void check_books(const char *when)
{
	char what[96];

	snprintf(what, sizeof(what), "%s: weight_residue 0", when);
	check(econ_book("weight_residue") == 0, what,
	      econ_book("weight_residue"), 0);
	snprintf(what, sizeof(what), "%s: received_residue 0", when);
	check(econ_book("received_residue") == 0, what,
	      econ_book("received_residue"), 0);
}

int main(void)
{
	static const int order[] = { 3, 2, 1, 0, 4 };
	int pipes[LINKS][2], i;
	pid_t t[LINKS + 1], loop;
	long long w;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (econ_load_module() && access(ECON_BOOKS, F_OK)) {
		printf("not ok: load the module\n");
		return 1;
	}
	if (econ_write_knob("sched_economy", "1") ||
	    econ_write_knob("sched_economy_policy", "lend")) {
		printf("not ok: the module's knobs\n");
		return 1;
	}
	econ_pin(0, 0);
	loop = econ_busy_loop_as(0, 65534);
	for (i = 0; i < LINKS; i++)
		if (pipe(pipes[i]) || write(pipes[i][1], "x", 1) != 1)
			return 1;
	for (i = 0; i <= LINKS; i++)
		t[i] = start_link(i, pipes);
	econ_msleep(200);
	for (i = 0; i < LINKS; i++) {
		int n = 1;

		if (ioctl(pipes[i][0], FIONREAD, &n) || n) {
			printf("not ok: T%d did not read its byte of pipe %d\n",
			       i + 1, i);
			kill(loop, SIGKILL);
			econ_kill(t, LINKS + 1);
			return 1;
		}
	}
	for (i = 0; i < LINKS; i++) {
		kill(t[order[i]], SIGUSR1);
		if (!full(pipes, order[i])) {
			printf("not ok: T%d did not block in pipe %d\n",
			       order[i], order[i]);
			kill(loop, SIGKILL);
			econ_kill(t, LINKS + 1);
			return 1;
		}
		printf("# T%d -> T%d: T5 weighs %lld\n", order[i], order[i] + 1,
		       econ_task_weight(t[LINKS]));
	}
	w = econ_task_weight(t[LINKS]);
	check(w == (LINKS + 1) * OWN, "T5 holds the five sleepers' weight",
	      w, (LINKS + 1) * OWN);
	check_books("all five asleep");

	kill(t[0], SIGKILL);
	waitpid(t[0], NULL, 0);
	t[0] = 0;
	econ_msleep(100);
	w = econ_task_weight(t[LINKS]);
	check(w <= LINKS * OWN,
	      "T0 gone: T5 holds no more than the four sleepers' weight", w,
	      LINKS * OWN);
	check_books("T0 gone");

	for (i = 1; i < LINKS; i++) {
		kill(t[i], SIGKILL);
		waitpid(t[i], NULL, 0);
		t[i] = 0;
	}
	econ_msleep(100);
	w = econ_task_weight(t[LINKS]);
	check(w == OWN, "all gone: T5 weighs its own", w, OWN);
	check_books("all gone");
	t[0] = loop;
	econ_kill(t, LINKS + 1);
	if (failures)
		return 1;
	printf("ok: chain_cut\n");
	return 0;
}
