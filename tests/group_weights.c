// SPDX-License-Identifier: GPL-2.0
/*
 * group_weights: donation between cgroups, read from the scheduler's own
 * accounting (the group entities' se->load.weight in
 * /sys/kernel/debug/sched/debug, a task's se.load.weight in
 * /proc/PID/sched) and from the module's books.
 *
 * A writer W in group A fills a pipe whose reader R, a busy loop in group
 * B, read it once: W blocks for room and waits for R. On 1 CPU every
 * group's entity weighs its cpu.weight (100: 1024) when nothing moves.
 * While W sleeps, B's entity gains W's part of A's, and A's loses it:
 *
 *   alone    W alone in A: A's whole weight moves, B weighs 2048, and R
 *            holds W's part (1024) on top of its own.
 *   shared   a busy loop beside W in A: W stands for half of A, B weighs
 *            1536 and A 512 while W sleeps.
 *   joins    W alone in A gives all of A; then a busy loop starts in A:
 *            A's entity weighs 512 (the loop's part, W's counted away),
 *            not the nothing a debit of A's whole weight would leave it.
 *   limited  A has a cpu.max: W gives nothing, to B or to R.
 *   nested   A and B are two scopes of one user's slice (u1/x, u1/y)
 *            beside another user's (u2, a busy loop): x's weight moves to
 *            y inside u1, and u1 and u2 keep theirs.
 *   kill     W is killed while it sleeps.
 *   rmmod    the module is unloaded while W sleeps.
 *   rmdir    R leaves B and B is removed while W sleeps; then W wakes:
 *            the gift is undone on the removed group (the module held a
 *            reference), with no splat.
 *
 * After each case every weight is back, exactly, and the module's group
 * books balance (group_held_weight 0, group_weight_residue 0).
 *
 * Exit 0 when every check passes, 1 otherwise.
 */
#include "econ_test.h"
#include "econ_cgroup.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#define NICE0	1024

static int failures;

static void check(int ok, const char *what, long long got, long long want)
{
	printf("%s - %s (got %lld, want %lld)\n", ok ? "ok" : "not ok", what,
	       got, want);
	if (ok)
		return;
	failures++;
	fflush(stdout);
	if (system("cat /proc/sched_economy_tasks; grep -E '^(group|donat|held|returned)' /proc/sched_economy"))
		printf("# no ledger\n");
}

/* Within 2 %: a group's shares follow its load_avg as well as its load. */
static void check_near(const char *what, long long got, long long want)
{
	check(got >= want - want / 50 && got <= want + want / 50, what, got,
	      want);
}

/*
 * Within 10 %: the paying side's shares come from calc_group_shares(),
 * whose load is PELT's (debug kernel, 2 vCPUs: 528 and 546 for 512).
 */
static void check_paid(const char *what, long long got, long long want)
{
	check(got >= want - want / 10 && got <= want + want / 10, what, got,
	      want);
}

static int rfd_global;
static volatile sig_atomic_t draining;

/* From now on R reads everything W writes: W finishes and waits on nothing. */
static void drain(int sig)
{
	(void)sig;
	fcntl(rfd_global, F_SETFL, O_NONBLOCK);
	draining = 1;
}

/* Forked stopped at a pipe, so that the parent places it first. */
static pid_t spawn(int *go)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid) {
		close(p[0]);
		*go = p[1];
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		_exit(1);
	close(p[0]);
	return 0;
}

static void release(int go)
{
	if (write(go, "g", 1) != 1)
		perror("release");
	close(go);
}

static pid_t start_in(const char *group, int *go)
{
	pid_t pid = spawn(go);

	if (pid > 0 && econ_cg_move(group, pid))
		printf("# cannot move %d to %s\n", pid, group);
	return pid;
}

static pid_t busy_in(const char *group)
{
	int go;
	pid_t pid = start_in(group, &go);

	if (!pid)
		for (;;)
			__asm__ __volatile__("" ::: "memory");
	release(go);
	return pid;
}

static pid_t reader_in(const char *group, int rfd)
{
	int go;
	pid_t pid = start_in(group, &go);
	char c;

	if (!pid) {
		static char buf[4096];

		rfd_global = rfd;
		signal(SIGUSR1, drain);
		if (read(rfd, &c, 1) != 1)
			_exit(1);
		for (;;)
			if (draining)
				while (read(rfd, buf, sizeof(buf)) > 0)
					;
	}
	release(go);
	return pid;
}

static pid_t writer_in(const char *group, int wfd)
{
	static char buf[4096];
	int go;
	pid_t pid = start_in(group, &go);

	if (!pid) {
		if (write(wfd, buf, 1) != 1)
			_exit(0);
		usleep(100000);
		for (int i = 0; i < 32; i++)
			if (write(wfd, buf, sizeof(buf)) < 0)
				_exit(0);
		for (;;)
			pause();
	}
	release(go);
	return pid;
}

static int writer_sleeps(int rfd)
{
	int n = 0;

	if (ioctl(rfd, FIONREAD, &n) || n < 65535)
		return 0;
	econ_msleep(20);
	return 1;
}

struct gcase {
	const char *name;
	const char *a, *b;	/* W's group, R's group */
	const char *a_top, *b_top; /* their sides below the common ancestor */
	int shared, limited, joins;
	const char *other;	/* another user's slice, with a busy loop */
	const char *end;	/* wake, kill, rmmod, rmdir */
};

static void books(const char *when)
{
	char what[160];
	long long held = econ_book("group_held_weight");
	long long residue = econ_book("group_weight_residue");

	snprintf(what, sizeof(what), "%s: group books hold nothing", when);
	check(held == 0, what, held, 0);
	snprintf(what, sizeof(what), "%s: group books balance", when);
	check(residue == 0, what, residue, 0);
}

static void run(const struct gcase *c)
{
	long long a_want, b_want, r_want, limited0, v;
	pid_t hog, r, w, a2 = 0, oth = 0;
	char what[200];
	int p[2], i;

	if (econ_load_module() || econ_write_knob("sched_economy", "1") ||
	    econ_write_knob("sched_economy_policy", "lend") ||
	    econ_cg_make(c->a) || econ_cg_make(c->b) || econ_cg_make("gw.c") ||
	    (c->other && econ_cg_make(c->other)) || pipe(p)) {
		printf("not ok - %s: setup\n", c->name);
		failures++;
		return;
	}
	if (c->limited)
		econ_cg_write(c->a, "cpu.max", "50000 100000");
	limited0 = econ_book("group_refused_limited");
	/* Company: weight given to a task alone on its CPU is not. */
	hog = busy_in("gw.c");
	if (c->other)
		oth = busy_in(c->other);
	if (c->shared)
		a2 = busy_in(c->a);
	r = reader_in(c->b, p[0]);
	w = writer_in(c->a, p[1]);
	printf("# %s: hog %d, R %d, W %d, a2 %d\n", c->name, hog, r, w, a2);
	for (i = 0; i < 200 && !writer_sleeps(p[0]); i++)
		econ_msleep(10);
	econ_msleep(100);

	/* What W stands for in A's side: all of it, or half beside a2. */
	v = c->limited ? 0 : c->shared ? NICE0 / 2 : NICE0;
	b_want = NICE0 + v;
	a_want = c->shared ? NICE0 - v : -2;	/* A empty: not asked */
	/* R holds v: with the bill, it runs at 2v when v is below its own. */
	r_want = v >= NICE0 ? NICE0 + v : NICE0 + 2 * v - NICE0;
	if (!v)
		r_want = NICE0;
	snprintf(what, sizeof(what), "%s: %s's entity while W sleeps", c->name,
		 c->b_top);
	check_near(what, econ_cg_entity_weight(c->b_top, 0), b_want);
	if (a_want > 0) {
		snprintf(what, sizeof(what), "%s: %s's entity while W sleeps",
			 c->name, c->a_top);
		check_paid(what, econ_cg_entity_weight(c->a_top, 0), a_want);
	}
	snprintf(what, sizeof(what), "%s: R's weight while W sleeps", c->name);
	check_near(what, econ_task_weight(r), r_want);
	if (c->limited) {
		snprintf(what, sizeof(what), "%s: refusals counted", c->name);
		v = econ_book("group_refused_limited");
		check(v > limited0, what, v, limited0 + 1);
	}
	if (c->joins) {
		a2 = busy_in(c->a);
		econ_msleep(200);
		snprintf(what, sizeof(what), "%s: %s's entity with a loop beside W's absence",
			 c->name, c->a_top);
		check_paid(what, econ_cg_entity_weight(c->a_top, 0), NICE0 / 2);
		snprintf(what, sizeof(what), "%s: %s's entity still holds W's part",
			 c->name, c->b_top);
		check_near(what, econ_cg_entity_weight(c->b_top, 0), b_want);
	}
	if (c->other) {
		check_near("nested: u1's entity keeps its weight",
			   econ_cg_entity_weight("gw.u1", 0), NICE0);
		check_near("nested: u2's entity keeps its weight",
			   econ_cg_entity_weight(c->other, 0), NICE0);
	}

	if (!strcmp(c->end, "wake")) {
		kill(r, SIGUSR1);
	} else if (!strcmp(c->end, "kill")) {
		kill(w, SIGKILL);
		waitpid(w, NULL, 0);
		w = 0;
	} else if (!strcmp(c->end, "rmmod")) {
		check(!system("rmmod sched_economy"), "rmmod: while W sleeps", 0, 0);
	} else if (!strcmp(c->end, "rmdir")) {
		econ_cg_move(".", r);
		econ_cg_remove(c->b);
		snprintf(what, sizeof(what), "rmdir: %s removed while W sleeps", c->b);
		check(access(ECON_CGROOT "/gw.b", F_OK) != 0, what, 0, 0);
		kill(r, SIGUSR1);
	}
	econ_msleep(200);
	if (strcmp(c->end, "rmdir")) {
		snprintf(what, sizeof(what), "%s: %s's entity back", c->name, c->b_top);
		check_near(what, econ_cg_entity_weight(c->b_top, 0), NICE0);
	}
	if (a2) {
		snprintf(what, sizeof(what), "%s: %s's entity back", c->name, c->a_top);
		check_near(what, econ_cg_entity_weight(c->a_top, 0), NICE0);
	}
	snprintf(what, sizeof(what), "%s: R's weight back", c->name);
	check(econ_task_weight(r) == NICE0, what, econ_task_weight(r), NICE0);
	if (strcmp(c->end, "rmmod"))
		books(c->name);

	if (w)
		kill(w, SIGKILL);
	kill(r, SIGKILL);
	kill(hog, SIGKILL);
	if (a2)
		kill(a2, SIGKILL);
	if (oth)
		kill(oth, SIGKILL);
	while (wait(NULL) > 0)
		;
	close(p[0]);
	close(p[1]);
	econ_msleep(50);
	econ_cg_remove(c->a);
	econ_cg_remove(c->b);
	econ_cg_remove("gw.c");
	if (c->other)
		econ_cg_remove(c->other);
}

int main(void)
{
	static const struct gcase cases[] = {
		{ "alone", "gw.a", "gw.b", "gw.a", "gw.b", 0, 0, 0, NULL, "wake" },
		{ "shared", "gw.a", "gw.b", "gw.a", "gw.b", 1, 0, 0, NULL, "wake" },
		{ "joins", "gw.a", "gw.b", "gw.a", "gw.b", 0, 0, 1, NULL, "wake" },
		{ "limited", "gw.a", "gw.b", "gw.a", "gw.b", 1, 1, 0, NULL, "wake" },
		{ "nested", "gw.u1/x", "gw.u1/y", "gw.u1/x", "gw.u1/y", 0, 0, 0,
		  "gw.u2", "wake" },
		{ "kill", "gw.a", "gw.b", "gw.a", "gw.b", 1, 0, 0, NULL, "kill" },
		{ "rmmod", "gw.a", "gw.b", "gw.a", "gw.b", 1, 0, 0, NULL, "rmmod" },
		{ "rmdir", "gw.a", "gw.b", "gw.a", "gw.b", 1, 0, 0, NULL, "rmdir" },
	};
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (econ_pin(0, 0))
		printf("# cannot pin to CPU 0\n");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run(&cases[i]);
	econ_write_knob("sched_economy", "0");
	printf("# %s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
