// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_ECONOMY_IOC_YIELD_TO (module/dev.c, economy_yield_to()): the
 * target runs before the caller gets the CPU back, and it receives half of
 * the caller's positive credit.
 *
 *   caller A --futex wake--> target B (SCHED_BATCH: never preempts A)
 *   A: credit = CREDIT; moved = YIELD_TO(B); did B run?  (shared memory)
 *   + 4 busy loops on the same CPU, or A and B on two CPUs with 2 loops
 *     on each (TESTS runs that one on multi-threaded TCG: on a single
 *     host thread an IPI waits for QEMU's next vCPU switch, a tick).
 *     A target whose wakeup is still in flight to another CPU
 *     (TASK_WAKING, not yet queued: reads 'R' in /proc, so no wait here
 *     could see it) receives nothing and yield_to() does not yield; such
 *     trials count as failures. The guest kernel has SCHED_MC, whose
 *     shared LLC makes a wakeup onto a busy CPU complete at once.
 *
 * One trial: A bumps a sequence number and wakes B, then yields to it.
 * B, whenever it runs, stores the sequence number it saw and sleeps again.
 * When A's yield returns, B has run first iff it stored this trial's
 * number. The same protocol with plain sched_yield() is the baseline,
 * measured and printed, not assumed.
 *
 * B spends what it receives before it sleeps again, as a server would, so
 * that it stays below its lag bound (target_at_bound_refunds covers the
 * case where it does not).
 *
 * Credit: moved_ns must be half of the credit A read just before, minus
 * what A spent between the two ioctls. Tolerance: moved in
 * [credit/2 - TOL_NS, credit/2 + TOL_SLACK_NS] in >= 95% of the trials
 * with credit > 0, and exactly 0 when A had no positive credit (only
 * checked where the credit read is <= -TOL_NS, as A's credit drifts
 * between the ioctls). The books' yield_moved_ns must grow by exactly the
 * sum of moved_ns.
 */
#include "econ_test.h"

#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "libsched_economy.h"

#define TRIALS		1000
#define BASELINE_TRIALS	200
#define LOOPS		4
/*
 * One CPU: the target runs first in this share of the yield-to trials.
 * Measured under --icount (make check runs it there, beside other guests):
 * 93.4-95.0 % with this round's kernel (99.2 % with round 1's, not
 * understood); plain TCG 97-99 % on a quiet host but 90.4 % with another
 * guest beside it. sched_yield alone: 24-46 %.
 */
#define WANT_PERMILLE	900
#define TOL_NS		50000	/* what A may spend between the two ioctls */
#define TOL_SLACK_NS	2000	/* rounding of the ns <-> vruntime scaling */
/* Lag bound: max(2 slices, TICK_NSEC) = 4 ms at HZ=250, less what B ran. */
#define TARGET_FULL_NS	3500000

struct shared {
	_Atomic unsigned int wake;	/* trial number; ~0: exit */
	_Atomic unsigned int seen;	/* B: the last trial number it saw */
	_Atomic long long seen_ns;	/* B: when */
	_Atomic unsigned int asleep;	/* B: about to sleep after this trial */
	_Atomic long long b_credit;	/* B: its credit when it ran */
};

struct result {
	int trials, early, ran_first, preempted, shown, target_full;
	int credit_pos, credit_ok, zero_checked, zero_ok;
	long long sum_moved, sum_credit_half, worst_under, worst_over;
	long long lat[TRIALS];
};

/* Involuntary switches of this thread: yields and preemptions. */
static long nivcsw(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nivcsw;
}

static long futex(_Atomic unsigned int *uaddr, int op, unsigned int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/*
 * @burn: after each run, spend the credit received, as a server would, so
 * that the target never sits at its lag bound (where it can take no more).
 */
static void target_loop(struct shared *sh, int cpu, bool burn)
{
	struct sched_param sp = { 0 };
	unsigned int last = 0, w;
	long long credit;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	econ_pin(0, cpu);
	sched_setscheduler(0, SCHED_BATCH, &sp);
	for (;;) {
		atomic_store(&sh->asleep, last);
		while ((w = atomic_load(&sh->wake)) == last)
			futex(&sh->wake, FUTEX_WAIT, last);
		if (w == ~0U)
			_exit(0);
		atomic_store(&sh->seen_ns, econ_now_ns());
		if (sched_credit(&credit))
			credit = LLONG_MIN;
		atomic_store(&sh->b_credit, credit);
		atomic_store(&sh->seen, w);
		last = w;
		while (burn && !sched_credit(&credit) && credit > 0)
			;
	}
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* @yield_to: the economy's yield-to, or else plain sched_yield(). */
static int run_trials(struct __test_metadata *_metadata, struct shared *sh,
		      pid_t target, int n, bool yield_to, struct result *r)
{
	static unsigned int seq;
	long long credit, moved, t0, lost;
	long sw;
	int i;

	memset(r, 0, sizeof(*r));
	/*
	 * @n trials counted: a target that preempts A at the wakeup (one
	 * with positive lag often does) makes no trial, so try again, up to
	 * 3n times (35 to over 40 of 200 were lost so before).
	 */
	for (i = 0; r->trials < n && i < 3 * n; i++) {
		unsigned int me = ++seq;

		lost = econ_book("yield_lost_ns");
		atomic_store(&sh->wake, me);
		futex(&sh->wake, FUTEX_WAKE, 1);
		if (atomic_load(&sh->seen) == me) {
			/* A was preempted between the wake and the yield. */
			r->early++;
			continue;
		}
		sw = nivcsw();
		if (sched_credit(&credit))
			return -1;
		t0 = econ_now_ns();
		if (yield_to) {
			moved = sched_yield_to(target);
			if (moved < 0)
				return -1;
		} else {
			moved = 0;
			sched_yield();
		}
		r->trials++;
		if (nivcsw() - sw > 1)
			sw = -1;
		if (atomic_load(&sh->seen) == me) {
			r->ran_first++;
			r->lat[r->ran_first - 1] = atomic_load(&sh->seen_ns) - t0;
		}
		/* The next trial starts when B has run and gone back to sleep. */
		while (atomic_load(&sh->asleep) != me)
			sched_yield();
		r->sum_moved += moved;
		/* More than the yield itself: A waited between the ioctls. */
		if (sw < 0) {
			r->preempted++;
		} else if (credit > 0 && moved < credit / 2 - TOL_NS &&
			   atomic_load(&sh->b_credit) >= TARGET_FULL_NS) {
			/* The target's lag bound took what it could. */
			r->target_full++;
		} else if (credit > 0) {
			long long d = moved - credit / 2;

			r->credit_pos++;
			r->sum_credit_half += credit / 2;
			if (d >= -TOL_NS && d <= TOL_SLACK_NS)
				r->credit_ok++;
			else if (r->shown++ < 5)
				TH_LOG("trial %d: credit %lld moved %lld, yield_lost_ns +%lld",
				       i, credit, moved,
				       econ_book("yield_lost_ns") - lost);
			if (d < r->worst_under)
				r->worst_under = d;
			if (d > r->worst_over)
				r->worst_over = d;
		} else if (credit <= -TOL_NS) {
			r->zero_checked++;
			r->zero_ok += !moved;
		}
	}
	qsort(r->lat, r->ran_first, sizeof(r->lat[0]), cmp_ll);
	return 0;
}

static void report(struct __test_metadata *_metadata, const char *what,
		   const struct result *r)
{
	TH_LOG("%-10s trials %4d  target ran first %4d = %5.1f%%  (early %d, preempted between the ioctls %d)  latency median %lld us p95 %lld us",
	       what, r->trials, r->ran_first,
	       r->trials ? 100.0 * r->ran_first / r->trials : 0.0, r->early,
	       r->preempted,
	       r->ran_first ? r->lat[r->ran_first / 2] / 1000 : -1,
	       r->ran_first ? r->lat[r->ran_first * 95 / 100] / 1000 : -1);
}

FIXTURE(yield) {
	struct shared *sh;
	pid_t pids[2 * LOOPS + 1];
	int nr;
};

FIXTURE_SETUP(yield)
{
	ASSERT_EQ(0, econ_load_module());
	/*
	 * Yield-to moves lag whatever the policy; under "queue" no weight
	 * loans run beside it (the test's console writes would make it a
	 * party of the lend economy's sweeper).
	 */
	ASSERT_EQ(0, econ_write_knob("sched_economy_policy", "queue"));
	ASSERT_EQ(0, econ_write_knob("sched_economy", "1"));
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	self->nr = 0;
}

FIXTURE_TEARDOWN(yield)
{
	atomic_store(&self->sh->wake, ~0U);
	futex(&self->sh->wake, FUTEX_WAKE, 1);
	econ_kill(self->pids, self->nr);
}

/* A on @cpu_a with @loops_a busy loops, B on @cpu_b with @loops_b. */
static void scenario(struct __test_metadata *_metadata,
		     FIXTURE_DATA(yield) *self, int cpu_a, int loops_a,
		     int cpu_b, int loops_b, bool burn, int trials)
{
	long long moved0 = econ_book("yield_moved_ns");
	long long lost0 = econ_book("yield_lost_ns");
	long long tos0 = econ_book("yield_tos");
	static struct result base, yt;
	pid_t target;
	int i;

	ASSERT_EQ(0, econ_pin(0, cpu_a));
	for (i = 0; i < loops_a; i++)
		self->pids[self->nr++] = econ_busy_loop(cpu_a);
	for (i = 0; i < loops_b; i++)
		self->pids[self->nr++] = econ_busy_loop(cpu_b);
	target = fork();
	ASSERT_LE(0, target);
	if (!target)
		target_loop(self->sh, cpu_b, burn);
	self->pids[self->nr++] = target;

	ASSERT_EQ(0, run_trials(_metadata, self->sh, target, BASELINE_TRIALS,
				false, &base));
	ASSERT_EQ(0, run_trials(_metadata, self->sh, target, trials, true, &yt))
		TH_LOG("yield-to: %s", strerror(errno));

	report(_metadata, "sched_yield", &base);
	report(_metadata, "yield-to", &yt);
	TH_LOG("credit: %d trials where the target reached its lag bound (excluded below)",
	       yt.target_full);
	TH_LOG("credit: %d trials with credit > 0, moved = credit/2 within [-%d, +%d] ns in %d (%.1f%%); sum moved %lld ns vs sum credit/2 %lld ns (%.1f%%); worst %lld / +%lld ns",
	       yt.credit_pos, TOL_NS, TOL_SLACK_NS, yt.credit_ok,
	       yt.credit_pos ? 100.0 * yt.credit_ok / yt.credit_pos : 0.0,
	       yt.sum_moved, yt.sum_credit_half,
	       yt.sum_credit_half ? 100.0 * yt.sum_moved / yt.sum_credit_half : 0.0,
	       yt.worst_under, yt.worst_over);
	TH_LOG("credit <= -%d ns: %d trials, moved 0 in %d", TOL_NS,
	       yt.zero_checked, yt.zero_ok);
	TH_LOG("books: yield_tos +%lld, yield_moved_ns +%lld, yield_lost_ns +%lld",
	       econ_book("yield_tos") - tos0, econ_book("yield_moved_ns") - moved0,
	       econ_book("yield_lost_ns") - lost0);

	EXPECT_EQ(yt.trials, econ_book("yield_tos") - tos0);
	EXPECT_EQ(yt.sum_moved, econ_book("yield_moved_ns") - moved0);
	EXPECT_GE(yt.trials, trials * 8 / 10);
	if (cpu_a != cpu_b) {
		/*
		 * Across CPUs the caller is often picked again at once (its
		 * yield only pushes its deadline by a slice) and races the
		 * target's resched IPI back to user space. The target ran
		 * first in 95.5 to 98.8 % on a quiet host, but the guest's
		 * vCPU threads fill both host cores, so any host load delays
		 * an IPI: 47.6 % in one make check (plain sched_yield 14.7 %).
		 * Asserted, robust to that: the target runs first clearly more
		 * often than with sched_yield, and its latency, tick-bound
		 * without the yield-to, falls tenfold (measured 32x to 87x).
		 * The zero-credit rule is left to one_cpu: here a preemption
		 * of A between the ioctls is invisible when the target is
		 * already running and yield_to() does not switch.
		 */
		EXPECT_GE(yt.ran_first * 100 / yt.trials,
			  base.ran_first * 100 / base.trials + 20);
		/*
		 * Against sched_yield's tail: the few sched_yield trials
		 * where the target happened to run first include fast ones
		 * (median 12 us, 16 of 200, in one run), so their median
		 * measures that selection; their p95 is the tick-bound IPI
		 * (3.7-5 ms). Yield-to's median stays ten times below it
		 * (38 us quiet, 117 us with other guests on the host).
		 */
		EXPECT_LT(yt.lat[yt.ran_first / 2] * 10,
			  base.lat[base.ran_first * 95 / 100]);
	} else {
		EXPECT_GE(yt.ran_first * 1000, yt.trials * WANT_PERMILLE);
		EXPECT_EQ(yt.zero_checked, yt.zero_ok);
	}
	if (burn) {
		/*
		 * Trials where A was preempted between the two ioctls are
		 * left out; they were 11 to 39 % of them over five runs, so a
		 * quarter of the trials must remain to judge the credit.
		 */
		EXPECT_LE(trials / 4, yt.credit_pos);
		EXPECT_GE(yt.credit_ok * 100, yt.credit_pos * 95);
	}
	/*
	 * module/dev.c: what the target refuses is refunded; only a caller
	 * left alone on its runqueue (never here: 4 busy loops) loses any.
	 */
	if (!burn)
		EXPECT_EQ(0, econ_book("yield_lost_ns") - lost0);
}

TEST_F_TIMEOUT(yield, one_cpu, 600)
{
	scenario(_metadata, self, 0, LOOPS, 0, 0, true, TRIALS);
}

TEST_F_TIMEOUT(yield, two_cpus, 600)
{
	/* A cross-CPU test on one CPU fails: a skip would read as a pass. */
	ASSERT_LE(2, sysconf(_SC_NPROCESSORS_ONLN))
		TH_LOG("needs 2 CPUs: run it on a guest with smp 2 or more");
	scenario(_metadata, self, 0, LOOPS / 2, 1, LOOPS / 2, true, TRIALS);
}

/*
 * A target that never spends what it gets reaches its lag bound and can
 * take no more: then the caller must be refunded (yield_lost_ns stays 0)
 * and moved_ns is whatever the target could take.
 */
TEST_F_TIMEOUT(yield, target_at_bound_refunds, 600)
{
	scenario(_metadata, self, 0, LOOPS, 0, 0, false, TRIALS / 5);
}

TEST_HARNESS_MAIN
