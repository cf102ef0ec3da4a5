// SPDX-License-Identifier: GPL-2.0
/*
 * launder: a pair split across two CPUs must not take the second CPU from
 * its bystanders beyond what moving the pair's own tasks there would.
 *
 *   CPU A: S (uid 1000) sends 16-byte messages to R as fast as it can,
 *          next to a busy loop of its own (uid 1000): the pair owns CPU A.
 *   CPU B: R (uid 1000) burns CPU and reads only to keep about 8 messages
 *          queued, next to two busy loops of uid 65534, the victims.
 *
 * Had S moved to CPU B, B would hold four tasks: R and S 25 % each, the
 * victims 25 % each. So the bound on B: R <= 51 %, each victim >= 24 %.
 * Lag moved across CPUs broke it (R 65-68 %, victims 16-18 %): a payment
 * on A raises the lag of A's other tasks, a withdrawal on B lowers the
 * lag of B's. Lent weight keeps its value on every CPU.
 *
 * Economy off and on alternate by window; shares of CPU B come from
 * /proc/PID/schedstat. Passes when the median "on" window keeps R <= 51 %
 * and each victim >= 24 %, and the books balance.
 *
 * -g splits the pair over two sibling cgroups (cpu controller on, default
 * cpu.weight): S and its loop in ld.s, R in ld.r; the victims stay in the
 * root cgroup. Had S moved to B, ld.s's weight would split between its
 * two CPUs by their load, 512 on B: R's group 1024 and S's 512 against
 * the victims' 2048, the pair 42.9 % of B, each victim 28.6 %. Donation
 * across groups must give no more (docs/cgroups.md: S's part of ld.s
 * moves to ld.r); bound R <= 42.9 + 1.5, victims >= 28.6 - 1.5.
 *
 * -s (with -a and -b the same CPU) puts S and its loop in ld.s and leaves
 * R with the victims in the root cgroup (review F15): lag is relative to
 * a cfs_rq, so lag S pays in ld.s's cfs_rq and R withdraws in the root's
 * comes from nothing there, CPU or no CPU. Fair: ld.s, R and the two
 * victims weigh 1024 each in the root, a third of the three measured
 * each; bound R <= 33.3 + 1.5, victims >= 33.3 - 1.5. Under a lag
 * policy (-p fixed) lag is all that moves.
 *
 *	launder [-t stream|dgram|pipe] [-r rounds] [-w window_ms] [-p policy]
 *		[-a cpuA] [-b cpuB] [-n nice] [-2] [-g | -s]
 *
 * -p names the policy for "on" (default: the module's default). -n gives
 * R a nice level: the negative control, as at nice -5 (weight 3121 against
 * two 1024s: 60 %) R holds more of B than the bound, and the test must say
 * so (while it holds S's weight, R works at S's: 2048, the bill). -t
 * pipe sends the messages through a pipe, which carries lag in an
 * account of the module's (withdrawn, as on sockets, only on the CPU of
 * the payments). -2 adds a second writer of the pair on CPU B, which
 * sends a message every millisecond: the channel's last write is then on
 * B, where R reads, while S pays on A (what S paid on A must not be
 * withdrawn on B: it is written off). With S2 the pair has one more task
 * on B, so the bound is that of R, S and S2 next to the victims: R <= 61,
 * victims >= 19. Under the default policy the test also checks the books
 * of lag per CPU: on every CPU, withdrawn <= paid (cpuN_* in
 * /proc/sched_economy), which shares cannot show when the lag moved is
 * small next to the weight lent. The
 * lag policies queue and fixed were the negative controls in round 1;
 * with lag withdrawn only where it was paid they stay within the bound
 * (R 37-39 %).
 */
#include "econ_test.h"
#include "econ_cgroup.h"

#include <getopt.h>
#include <math.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define UID_PAIR	1000
#define UID_VICTIM	65534
#define QUEUED		8
#define MAXROUNDS	32

enum { R, V1, V2, NR };

static void become(uid_t uid)
{
	if (setgid(uid) || setuid(uid))
		_exit(111);
}

static pid_t child(int cpu, uid_t uid)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	econ_pin(0, cpu);
	become(uid);
	return 0;
}

static void burn(void)
{
	for (volatile int i = 0; i < 2000; i++)
		;
}

/* ns on CPU: the first field of schedstat. */
/* cpuN_paid_ns or cpuN_withdrawn_ns of the books. */
static void lag_book(int cpu, const char *what, long long *v)
{
	char key[48];

	snprintf(key, sizeof(key), "cpu%d_%s_ns", cpu, what);
	*v = econ_book(key);
}

int main(int argc, char **argv)
{
	int type = SOCK_STREAM, pipe_fds = 0, rounds = 5, window_ms = 1000, cpu_a = 0, cpu_b = 1;
	int nice_r = 0, second = 0, groups = 0;
	double share[2][NR][MAXROUNDS], med[2][NR];
	const char *policy = NULL;
	pid_t pids[NR + 3] = { 0 };
	int sv[2], rd, wr, opt, i, e, k, fail = 0;
	long long t0[NR], t1[NR], sum, lag0[2][2];
	double fair, bound_r, bound_v;

	while ((opt = getopt(argc, argv, "t:r:w:p:a:b:n:2gs")) != -1) {
		switch (opt) {
		case 't':
			type = strcmp(optarg, "dgram") ? SOCK_STREAM : SOCK_DGRAM;
			pipe_fds = !strcmp(optarg, "pipe");
			break;
		case 'r': rounds = atoi(optarg); break;
		case 'w': window_ms = atoi(optarg); break;
		case 'p': policy = optarg; break;
		case 'a': cpu_a = atoi(optarg); break;
		case 'b': cpu_b = atoi(optarg); break;
		case 'n': nice_r = atoi(optarg); break;
		case '2': second = 1; break;
		case 'g': groups = 1; break;
		case 's': groups = 2; break;
		default: fprintf(stderr, "usage: see the top of launder.c\n"); return 2;
		}
	}
	if (rounds < 1 || rounds > MAXROUNDS)
		rounds = 5;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sysconf(_SC_NPROCESSORS_ONLN) <= (cpu_a > cpu_b ? cpu_a : cpu_b)) {
		printf("not ok: needs CPUs %d and %d\n", cpu_a, cpu_b);
		return 1;
	}
	if (policy && econ_write_knob("sched_economy_policy", policy)) {
		printf("not ok: policy %s\n", policy);
		return 1;
	}
	if (groups == 2 && cpu_a != cpu_b) {
		printf("not ok: -s is for one CPU (-a and -b the same)\n");
		return 1;
	}
	if (groups && (second || econ_cg_make("ld.s") ||
		       (groups == 1 && econ_cg_make("ld.r")))) {
		printf("not ok: -g and -s need cgroup v2 with the cpu controller, and no -2\n");
		return 1;
	}
	if (pipe_fds ? pipe(sv) : socketpair(AF_UNIX, type, 0, sv)) {
		perror("pipe/socketpair");
		return 1;
	}
	rd = pipe_fds ? sv[0] : sv[1];
	wr = pipe_fds ? sv[1] : sv[0];

	/* R: burn, and read only what keeps QUEUED messages waiting. */
	pids[R] = child(cpu_b, UID_PAIR);
	if (!pids[R]) {
		char buf[16];
		int queued;

		close(wr);
		for (;;) {
			burn();
			if (ioctl(rd, FIONREAD, &queued))
				_exit(112);
			if (type == SOCK_STREAM)
				queued /= sizeof(buf);
			while (queued-- > QUEUED)
				if (read(rd, buf, sizeof(buf)) <= 0)
					_exit(113);
		}
	}
	if (nice_r && setpriority(PRIO_PROCESS, pids[R], nice_r)) {
		perror("setpriority");
		econ_kill(pids, 1);
		return 1;
	}
	/* S: send as fast as it can (blocking when the socket is full). */
	pids[NR] = child(cpu_a, UID_PAIR);
	if (!pids[NR]) {
		char buf[16] = "launder";

		close(rd);
		for (;;)
			if (write(wr, buf, sizeof(buf)) < 0 && errno != EINTR &&
			    errno != ENOBUFS && errno != EAGAIN)
				_exit(114);
	}
	/* The second writer: a message a millisecond, from CPU B. */
	if (second) {
		pids[NR + 2] = child(cpu_b, UID_PAIR);
		if (!pids[NR + 2]) {
			char buf[16] = "launder2";

			close(rd);
			for (;;) {
				if (write(wr, buf, sizeof(buf)) < 0 &&
				    errno != EINTR && errno != ENOBUFS &&
				    errno != EAGAIN)
					_exit(115);
				usleep(1000);
			}
		}
	}
	close(sv[0]);
	close(sv[1]);
	/* The pair's own busy loop on A, the victims on B. */
	pids[NR + 1] = child(cpu_a, UID_PAIR);
	if (!pids[NR + 1])
		for (;;)
			burn();
	for (i = V1; i <= V2; i++) {
		pids[i] = child(cpu_b, UID_VICTIM);
		if (!pids[i])
			for (;;)
				burn();
	}
	if (groups && ((groups == 1 && econ_cg_move("ld.r", pids[R])) ||
		       econ_cg_move("ld.s", pids[NR]) ||
		       econ_cg_move("ld.s", pids[NR + 1]))) {
		printf("not ok: moving the pair into ld.s and ld.r\n");
		econ_kill(pids, NR + 2);
		return 1;
	}

	/*
	 * Each round switches the economy off first, which writes every
	 * balance off: lag withdrawn from here on was paid from here on.
	 */
	for (i = 0; i < 2; i++) {
		lag_book(i ? cpu_b : cpu_a, "paid", &lag0[i][0]);
		lag_book(i ? cpu_b : cpu_a, "withdrawn", &lag0[i][1]);
	}
	usleep(500000);
	for (k = 0; k < rounds; k++) {
		for (e = 0; e < 2; e++) {
			econ_write_knob("sched_economy", e ? "1" : "0");
			usleep(300000);	/* the economy settles */
			for (i = 0; i < NR; i++)
				t0[i] = econ_cpu_ns(pids[i]);
			usleep(window_ms * 1000);
			for (i = 0, sum = 0; i < NR; i++) {
				t1[i] = econ_cpu_ns(pids[i]) - t0[i];
				sum += t1[i];
			}
			for (i = 0; i < NR; i++)
				share[e][i][k] = sum > 0 ? 100.0 * t1[i] / sum : 0;
			printf("# round %d economy %s: CPU %d: R %.1f %%, victims %.1f / %.1f %%\n",
			       k, e ? "on" : "off", cpu_b, share[e][R][k],
			       share[e][V1][k], share[e][V2][k]);
		}
	}
	econ_write_knob("sched_economy", "0");
	econ_kill(pids, NR + 2 + second);
	if (groups) {
		econ_cg_remove("ld.s");
		if (groups == 1)
			econ_cg_remove("ld.r");
	}

	for (e = 0; e < 2; e++)
		for (i = 0; i < NR; i++)
			med[e][i] = econ_median(share[e][i], rounds);
	printf("# %s%s, policy %s, CPUs %d -> %d, %d rounds of %d ms: median R %.1f -> %.1f %%, victims %.1f / %.1f -> %.1f / %.1f %%\n",
	       pipe_fds ? "pipe" : type == SOCK_STREAM ? "stream" : "dgram",
	       groups == 1 ? " in groups ld.s -> ld.r" :
	       groups ? " from group ld.s to the root group" : "",
	       policy ? policy : "default",
	       cpu_a, cpu_b, rounds, window_ms, med[0][R], med[1][R],
	       med[0][V1], med[0][V2], med[1][V1], med[1][V2]);
	/* Had S moved to B: R, S (and S2) next to the two victims. */
	fair = 100.0 / (2 + second + 2);
	bound_r = (2 + second) * fair + 1;
	bound_v = fair - 1;
	if (groups == 1) {
		/* ld.r 1024 and ld.s's 512 on B, against 2048. */
		bound_r = 100.0 * 1536 / 3584 + 1.5;
		bound_v = 100.0 * 1024 / 3584 - 1.5;
	} else if (groups) {
		/* ld.s, R and the victims, 1024 each: a third of the three */
		bound_r = 100.0 / 3 + 1.5;
		bound_v = 100.0 / 3 - 1.5;
	}
	printf("# bound with S moved to CPU %d: R <= %.1f %%, victims >= %.1f %%\n",
	       cpu_b, bound_r, bound_v);
	printf("# books: donated_weight %lld returned_weight %lld held_weight %lld weight_residue %lld; paid_ns %lld withdrawn_ns %lld residue_ns %lld\n",
	       econ_book("donated_weight"), econ_book("returned_weight"),
	       econ_book("held_weight"), econ_book("weight_residue"),
	       econ_book("paid_ns"), econ_book("withdrawn_ns"),
	       econ_book("residue_ns"));
	if (med[1][R] > bound_r || med[1][V1] < bound_v ||
	    med[1][V2] < bound_v) {
		printf("not ok: the pair laundered CPU %d from its bystanders\n", cpu_b);
		fail = 1;
	}
	if (econ_book("weight_residue") || econ_book("residue_ns") ||
	    econ_book("held_weight")) {
		printf("not ok: books\n");
		fail = 1;
	}
	for (i = 0; !policy && i < 2; i++) {
		int cpu = i ? cpu_b : cpu_a;
		long long paid, taken;

		lag_book(cpu, "paid", &paid);
		lag_book(cpu, "withdrawn", &taken);
		paid -= lag0[i][0];
		taken -= lag0[i][1];
		printf("# lag on CPU %d: paid %lld ns, withdrawn %lld ns\n", cpu,
		       paid, taken);
		if (taken > paid) {
			printf("not ok: lag paid elsewhere was withdrawn on CPU %d\n",
			       cpu);
			fail = 1;
		}
	}
	if (!fail)
		printf("ok: launder\n");
	return fail;
}
