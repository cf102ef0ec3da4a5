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
 *
 * -g, the same across groups (cgroup v2, cpu controller): a waiter
 * crosses with what it holds, and a loss of that ends its gift.
 *
 *   cc.slice/a.scope   D, R and a busy loop L
 *   cc.slice/b.scope   T, a busy loop that read a byte of R's pipe
 *
 *   D -> R             D fills R's pipe: R, asleep, holds D's weight
 *                      (same group: weight in a's cfs_rq), 2048
 *   R -> T             R fills T's pipe: across groups R gives its part
 *                      of a as it runs, 2048 of a's load of 3072 (R and
 *                      L): 2/3 of a's share, 682, which b's entity gains
 *                      (1706). The kernel before (R's own weight only)
 *                      gave 1/3: b at 1365, below the first bar
 *   D killed           R holds nothing; its gift was made of D's weight
 *                      too and goes whole: b at its own 1024, where a
 *                      gift that stayed (the module before) kept 1706,
 *                      above what R alone gives now (1/2 of a: 1536)
 *
 * Bars, on b's entity weight (/sys/kernel/debug/sched/debug): above 1536
 * while D and R sleep, at most 1536 once D is gone, its own share (1024)
 * once R is gone, and T then at its own weight; the books,
 * group_weight_residue included, 0 after each step. (T's own weight is
 * printed: holding less than its own weight, it runs at twice what it
 * holds, the bill: 1024 + 2 x 682 - 1024.)
 *
 * -G, a chain across three groups, each program its own (issue 36's
 * per-session placement): S in cc.slice/a.scope fills M's pipe, M in
 * b.scope fills X's, X in c.scope spins. M runs alone in b, so as it
 * sleeps its gift to X carries what S's gift gave b's entity (kernel
 * mail 13): c's entity weighs its own 1024, M's b (1024) and S's a
 * (1024) while both sleep, 3072, where b's share, off the runqueue with
 * M asleep, used to keep S's part for nobody (2048). -G -r makes M wait
 * first: S's gift then reaches c through M's. S killed: c back to 2048
 * (M's gift keeps its own part); M killed: 1024, b's entity 1024.
 */
#include "econ_test.h"
#include "econ_cgroup.h"
#include "econ_check.h"
#include "econ_waiter.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#define OWN	1024
#define LINKS	5		/* T0 .. T4 wait; T5 spins */

/*
 * T_i: reads a byte of pipe i - 1 (it is then that pipe's reader of
 * record), waits for SIGUSR1, then fills pipe i and blocks. T5 spins.
 */
static pid_t start_link(int i, int pipes[][2])
{
	return econ_start_waiter(i > 0 ? pipes[i - 1][0] : -1,
				 i < LINKS ? pipes[i][1] : -1);
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

static int chain(void)
{
	static const int order[] = { 3, 2, 1, 0, 4 };
	int pipes[LINKS][2], i;
	pid_t t[LINKS + 1], loop;
	long long w;

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
	econ_check(w == (LINKS + 1) * OWN, "T5 holds the five sleepers' weight",
	      w, (LINKS + 1) * OWN);
	econ_check_books("all five asleep");

	kill(t[0], SIGKILL);
	waitpid(t[0], NULL, 0);
	t[0] = 0;
	econ_msleep(100);
	w = econ_task_weight(t[LINKS]);
	econ_check(w <= LINKS * OWN,
	      "T0 gone: T5 holds no more than the four sleepers' weight", w,
	      LINKS * OWN);
	econ_check_books("T0 gone");

	for (i = 1; i < LINKS; i++) {
		kill(t[i], SIGKILL);
		waitpid(t[i], NULL, 0);
		t[i] = 0;
	}
	econ_msleep(100);
	w = econ_task_weight(t[LINKS]);
	econ_check(w == OWN, "all gone: T5 weighs its own", w, OWN);
	econ_check_books("all gone");
	t[0] = loop;
	econ_kill(t, LINKS + 1);
	return 0;
}

#define GROUP_A	"cc.slice/a.scope"
#define GROUP_B	"cc.slice/b.scope"

static int groups(void)
{
	int p[2][2], i, ok = 1;
	pid_t d, r, t, l, loop, all[5];
	long long w;

	if (econ_cg_make(GROUP_A) || econ_cg_make(GROUP_B)) {
		printf("not ok: cgroups %s, %s\n", GROUP_A, GROUP_B);
		return 1;
	}
	/* p[0]: D -> R; p[1]: R -> T. */
	for (i = 0; i < 2; i++)
		if (pipe(p[i]) || write(p[i][1], "x", 1) != 1)
			return 1;
	loop = econ_busy_loop_as(0, 65534);
	d = econ_start_waiter(-1, p[0][1]);
	r = econ_start_waiter(p[0][0], p[1][1]);
	t = econ_start_waiter(p[1][0], -1);
	l = econ_busy_loop(0);
	all[0] = d, all[1] = r, all[2] = t, all[3] = l, all[4] = loop;
	if (econ_cg_move(GROUP_A, d) || econ_cg_move(GROUP_A, r) ||
	    econ_cg_move(GROUP_A, l) || econ_cg_move(GROUP_B, t)) {
		printf("not ok: move the tasks into their groups\n");
		econ_kill(all, 5);
		return 1;
	}
	econ_msleep(300);
	kill(d, SIGUSR1);
	ok = full(p, 0);
	printf("# D -> R: R weighs %lld, T %lld; donations %lld, none for want of a target %lld, uncontended %lld, group gifts %lld\n",
	       econ_task_weight(r), econ_task_weight(t), econ_book("donations"),
	       econ_book("donate_no_target"),
	       econ_book("donate_skipped_uncontended"),
	       econ_book("group_gifts"));
	kill(r, SIGUSR1);
	ok = ok && full(p, 1);
	if (!ok) {
		printf("not ok: D or R did not block\n");
		econ_kill(all, 5);
		return 1;
	}
	w = econ_cg_entity_weight(GROUP_B, 0);
	printf("# R -> T: T weighs %lld, b's entity %lld, a's %lld\n",
	       econ_task_weight(t), w, econ_cg_entity_weight(GROUP_A, 0));
	econ_check(w > OWN + OWN / 2,
	      "groups: R crossed with D's weight: b gained 2/3 of a's share",
	      w, OWN + OWN / 2);
	econ_check_books("groups: D and R asleep");

	kill(d, SIGKILL);
	waitpid(d, NULL, 0);
	all[0] = 0;
	econ_msleep(100);
	w = econ_cg_entity_weight(GROUP_B, 0);
	printf("# D gone: T weighs %lld, b's entity %lld\n",
	       econ_task_weight(t), w);
	econ_check(w <= OWN + OWN / 2,
	      "groups: D gone: b holds no more than R alone gives (1/2 of a)",
	      w, OWN + OWN / 2);
	econ_check_books("groups: D gone");

	kill(r, SIGKILL);
	waitpid(r, NULL, 0);
	all[1] = 0;
	econ_msleep(100);
	w = econ_task_weight(t);
	econ_check(w == OWN, "groups: R gone: T weighs its own", w, OWN);
	w = econ_cg_entity_weight(GROUP_B, 0);
	econ_check(w == OWN, "groups: R gone: b's entity has its own share", w, OWN);
	econ_check_books("groups: R gone");
	econ_kill(all, 5);
	econ_cg_remove(GROUP_A);
	econ_cg_remove(GROUP_B);
	return 0;
}

#define GROUP_C	"cc.slice/c.scope"

/* -G: S (a) -> M (b) -> X (c); @m_first: M waits before S does. */
static int carry(int m_first)
{
	int p[2][2], i, ok;
	pid_t s, m, x, loop, all[4];
	long long w;

	if (econ_cg_make(GROUP_A) || econ_cg_make(GROUP_B) ||
	    econ_cg_make(GROUP_C)) {
		printf("not ok: cgroups\n");
		return 1;
	}
	/* p[0]: S -> M; p[1]: M -> X. */
	for (i = 0; i < 2; i++)
		if (pipe(p[i]) || write(p[i][1], "x", 1) != 1)
			return 1;
	loop = econ_busy_loop_as(0, 65534);
	s = econ_start_waiter(-1, p[0][1]);
	m = econ_start_waiter(p[0][0], p[1][1]);
	x = econ_start_waiter(p[1][0], -1);
	all[0] = s, all[1] = m, all[2] = x, all[3] = loop;
	if (econ_cg_move(GROUP_A, s) || econ_cg_move(GROUP_B, m) ||
	    econ_cg_move(GROUP_C, x)) {
		printf("not ok: move the tasks into their groups\n");
		econ_kill(all, 4);
		return 1;
	}
	econ_msleep(300);
	kill(m_first ? m : s, SIGUSR1);
	ok = full(p, m_first);
	printf("# %s waits: c's entity %lld, b's %lld\n", m_first ? "M" : "S",
	       econ_cg_entity_weight(GROUP_C, 0),
	       econ_cg_entity_weight(GROUP_B, 0));
	kill(m_first ? s : m, SIGUSR1);
	ok = ok && full(p, !m_first);
	if (!ok) {
		printf("not ok: S or M did not block\n");
		econ_kill(all, 4);
		return 1;
	}
	w = econ_cg_entity_weight(GROUP_C, 0);
	printf("# both wait: c's entity %lld, b's %lld, a's %lld; X weighs %lld; group_carried_weight %lld\n",
	       w, econ_cg_entity_weight(GROUP_B, 0),
	       econ_cg_entity_weight(GROUP_A, 0), econ_task_weight(x),
	       econ_book("group_carried_weight"));
	econ_check(w > 5 * OWN / 2 && w <= 3 * OWN + 8,
	      "carry: c holds M's share and the share S gave b", w, 3 * OWN);
	econ_check_books("carry: S and M asleep");

	kill(s, SIGKILL);
	waitpid(s, NULL, 0);
	all[0] = 0;
	econ_msleep(100);
	w = econ_cg_entity_weight(GROUP_C, 0);
	printf("# S gone: c's entity %lld, b's %lld\n", w,
	       econ_cg_entity_weight(GROUP_B, 0));
	econ_check(w >= 2 * OWN - 8 && w <= 2 * OWN + 8,
	      "carry: S gone: c holds M's share only", w, 2 * OWN);
	econ_check_books("carry: S gone");

	kill(m, SIGKILL);
	waitpid(m, NULL, 0);
	all[1] = 0;
	econ_msleep(100);
	w = econ_cg_entity_weight(GROUP_C, 0);
	econ_check(w == OWN, "carry: M gone: c's entity has its own share", w, OWN);
	w = econ_cg_entity_weight(GROUP_B, 0);
	econ_check(w == OWN, "carry: M gone: b's entity has its own share", w, OWN);
	econ_check_books("carry: M gone");
	econ_kill(all, 4);
	econ_cg_remove(GROUP_A);
	econ_cg_remove(GROUP_B);
	econ_cg_remove(GROUP_C);
	return 0;
}

int main(int argc, char **argv)
{
	int g = argc > 1 && !strcmp(argv[1], "-g");
	int G = argc > 1 && !strcmp(argv[1], "-G");
	int r = argc > 2 && !strcmp(argv[2], "-r");

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
	if (G ? carry(r) : g ? groups() : chain())
		return 1;
	if (econ_failures)
		return 1;
	printf("ok: chain_cut%s%s\n", g ? " -g" : G ? " -G" : "",
	       r ? " -r" : "");
	return 0;
}
