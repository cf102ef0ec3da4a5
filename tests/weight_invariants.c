// SPDX-License-Identifier: GPL-2.0
/*
 * weight_invariants: the kernel's own accounting after donations, read
 * from /proc/PID/sched (se.load.weight, se.avg.load_avg) and
 * /proc/sched_debug (the cfs_rq sums).
 *
 * A donor W writes into a pipe that nobody drains until W blocks for room:
 * W then donates its weight to the pipe's reader R, a busy loop that read
 * the pipe once (so that the pipe names it). Each case checks R's weight
 * while W sleeps (own + W's) and after the donation ends (own, exactly):
 *
 *   wake     R drains the pipe: W wakes and takes its weight back.
 *   kill     W is killed while it sleeps.
 *   fork     R forks while it holds W's weight: the child weighs its own
 *            nice level, and R goes back to its own when W dies.
 *   migrate  (2+ CPUs) R moves to another CPU while it holds the weight
 *            and again after: its weight and load_avg follow it.
 *   off      the economy is switched off while W sleeps.
 *   rmmod    the module is unloaded while W sleeps.
 *   nice     R is reniced to 5 while it holds the weight: own(5) + W's;
 *            then W is killed.
 *
 *   pi       (review F4) R holds a PI futex; a SCHED_FIFO task blocks on
 *            it, so R is boosted out of the fair class; W is killed while
 *            R is boosted, then R unlocks and is deboosted: R weighs its
 *            own, and still after rmmod (rt_mutex_setprio() does not
 *            reweight: a change made while boosted is applied at R's next
 *            enqueue in the fair class). 2+ CPUs: the boosted R spins.
 *
 *   class_fifo, class_batch, class_idle, class_deadline
 *            R is switched to that policy (sched_setscheduler(), for
 *            SCHED_DEADLINE sched_setattr() with 2 ms / 10 ms / 10 ms)
 *            and back to SCHED_OTHER while W sleeps: own + W's again;
 *            then to it again, W is killed meanwhile, and R comes back
 *            to SCHED_OTHER with its own weight, and keeps it after
 *            rmmod. In SCHED_BATCH, a fair policy, R weighs own + W's
 *            (2048), then its own. In SCHED_IDLE its own is 3
 *            (WEIGHT_IDLEPRIO) and a donation gives it W's weight all
 *            the same: set_load_weight() adds se.economy_weight to the
 *            policy's weight, and economy_adjustment() (module/donate.c)
 *            gives a task all it holds when it holds at least its own
 *            weight, whatever its policy: 3 + 1024 = 1027 while W
 *            sleeps, 3 once W is gone. Outside the fair class (FIFO,
 *            DEADLINE) se.load.weight means nothing and is only printed.
 *
 *   delayed  (review F8a) W runs far ahead of its share on R's CPU (a
 *            100 ms slice, 27 ms on the CPU out of 30), beside R and a
 *            busy loop, then blocks on the full pipe: not eligible, it
 *            would be kept queued as sched_delayed (DELAY_DEQUEUE) with
 *            its weight in the cfs_rq while R already holds that weight
 *            (the kernel before mail 12 did). From /proc/sched_debug,
 *            the cfs_rq of R's group on R's CPU: its load must be the
 *            weights of its entities (the runnable tasks' and a delayed
 *            W's), and, for no weight to count twice, the runnable
 *            tasks' alone, W not delayed; then again once W would have
 *            left the queue. We read from CPU 1; on one CPU we are in
 *            that cfs_rq too (running), with the weight of the harness's
 *            reader of our output, which waits for us.
 *
 * pingpong: two tasks reading from each other beside a busy loop never
 * weigh more than both together (a wait that closes a cycle donates
 * nothing).
 *
 * After every case: R's se.avg.load_avg converges to its own weight once
 * it has run alone for 400 ms (PELT sums in step with the weight), and
 * when every task of the test is gone, no cfs_rq of /proc/sched_debug
 * keeps load (load 0, load_avg below a small bound: no phantom load left
 * by a reweight of a task that was not queued).
 *
 * Exit 0 when every check passes, 1 otherwise.
 */
#include "econ_test.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <stdint.h>
#include <sys/syscall.h>

#define NICE0		1024
#define NICE5		335
#define WEIGHT_IDLE	3	/* the kernel's WEIGHT_IDLEPRIO */

static int failures;

static void check(int ok, const char *what, long long got, long long want)
{
	printf("%s - %s (got %lld, want %lld)\n", ok ? "ok" : "not ok", what,
	       got, want);
	if (!ok)
		failures++;
}

/* The reader: reads one byte (so the pipe names it), then spins; on SIGUSR1 drains. */
static int rfd_global;

static void drain(int sig)
{
	char buf[4096];

	(void)sig;
	fcntl(rfd_global, F_SETFL, O_NONBLOCK);
	while (read(rfd_global, buf, sizeof(buf)) > 0)
		;
}

/* pi: a PI futex word shared by the reader and the booster. */
static _Atomic unsigned int *pi_word;

static long pi_futex(int op)
{
	return syscall(SYS_futex, pi_word, op, 0, NULL, NULL, 0);
}

static void pi_unlock(int sig)
{
	(void)sig;
	pi_futex(FUTEX_UNLOCK_PI);
}

static pid_t start_reader(int rfd, int cpu)
{
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	econ_pin(0, cpu);
	rfd_global = rfd;
	signal(SIGUSR1, drain);
	signal(SIGUSR2, pi_unlock);
	if (read(rfd, &c, 1) != 1)
		_exit(1);
	/* Owns the PI futex, uncontended, as pthread_mutex_lock() does. */
	if (pi_word)
		*pi_word = syscall(SYS_gettid);
	for (;;)
		__asm__ __volatile__("" ::: "memory");
}

static pid_t start_writer(int wfd, int cpu)
{
	pid_t pid = fork();
	static char buf[4096];

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	econ_pin(0, cpu);
	/*
	 * Twice what the pipe holds (64 KiB): blocks once it is full, and
	 * after one drain writes the rest and waits on nothing.
	 */
	if (write(wfd, buf, 1) != 1)
		_exit(0);
	/* The reader reads that byte: the pipe names it before we block. */
	usleep(100000);
	for (int i = 0; i < 32; i++)
		if (write(wfd, buf, sizeof(buf)) < 0)
			_exit(0);
	for (;;)
		pause();
}

/* The writer has filled the pipe (64 KiB less the byte read) and sleeps. */
static int writer_sleeps(int rfd)
{
	int n = 0;

	if (ioctl(rfd, FIONREAD, &n))
		return 0;
	if (n < 65535)
		return 0;
	econ_msleep(20);
	return 1;
}

/* R's load_avg after it ran alone with its own weight for a while. */
static void check_pelt(pid_t r, long long own, const char *when)
{
	char what[128];
	long long la;

	econ_msleep(400);
	la = econ_sched_field(r, "se.avg.load_avg");
	snprintf(what, sizeof(what), "%s: reader's se.avg.load_avg near its weight", when);
	check(la > own * 80 / 100 && la <= own + own / 20, what, la, own);
}

static int econ_on(void)
{
	return econ_load_module() || econ_write_knob("sched_economy", "1") ||
	       econ_write_knob("sched_economy_policy", "lend");
}

/* sched_setattr(2), which glibc does not wrap: SCHED_ATTR_SIZE_VER0. */
struct wi_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

static int wi_setattr(pid_t pid, struct wi_sched_attr *a)
{
	a->size = sizeof(*a);
	return syscall(SYS_sched_setattr, pid, a, 0);
}

/* class_*: the policy R is switched to, and its own weight there. */
static const struct class_case {
	const char *name;
	int policy;
	long long own;		/* 0: not a fair policy, weight means nothing */
} class_cases[] = {
	{ "class_fifo",		SCHED_FIFO,	0 },
	{ "class_batch",	SCHED_BATCH,	NICE0 },
	{ "class_idle",		SCHED_IDLE,	WEIGHT_IDLE },
	{ "class_deadline",	SCHED_DEADLINE,	0 },
};

static const struct class_case *class_case(const char *name)
{
	for (unsigned int i = 0; i < sizeof(class_cases) / sizeof(class_cases[0]); i++)
		if (!strcmp(class_cases[i].name, name))
			return &class_cases[i];
	return NULL;
}

/* R to @policy: nice kept; SCHED_DEADLINE by sched_setattr(). */
static int set_policy(pid_t pid, int policy)
{
	struct sched_param sp = { .sched_priority = policy == SCHED_FIFO ? 10 : 0 };
	struct wi_sched_attr a = {
		.sched_policy	= SCHED_DEADLINE,
		.sched_runtime	= 2000000,
		.sched_deadline	= 10000000,
		.sched_period	= 10000000,
	};

	if (policy == SCHED_DEADLINE)
		return wi_setattr(pid, &a);
	return sched_setscheduler(pid, policy, &sp);
}

/*
 * R into @cc's policy. A FIFO R spins: we go above it meanwhile, so as to
 * switch it back on one CPU. A deadline task must be allowed every CPU
 * of its root domain (sched_setattr() says EPERM otherwise): R is
 * unpinned while it is one.
 */
static int class_enter(const struct class_case *cc, pid_t r, int ncpus)
{
	struct sched_param sp = { .sched_priority = 20 };
	char what[160];
	int ret, cpu;

	if (cc->policy == SCHED_FIFO && sched_setscheduler(0, SCHED_FIFO, &sp))
		return -1;
	if (cc->policy == SCHED_DEADLINE && ncpus > 1) {
		cpu_set_t set;

		CPU_ZERO(&set);
		for (cpu = 0; cpu < ncpus; cpu++)
			CPU_SET(cpu, &set);
		sched_setaffinity(r, sizeof(set), &set);
	}
	ret = set_policy(r, cc->policy) ? -errno : sched_getscheduler(r);
	if (ret != cc->policy && cc->policy == SCHED_FIFO) {
		sp.sched_priority = 0;
		sched_setscheduler(0, SCHED_OTHER, &sp);
	}
	snprintf(what, sizeof(what), "%s: the reader's policy switched to %d", cc->name, cc->policy);
	check(ret == cc->policy, what, ret, cc->policy);
	return ret == cc->policy ? 0 : -1;
}

static void class_leave(const struct class_case *cc, pid_t r, int rcpu)
{
	struct sched_param sp = { .sched_priority = 0 };
	char what[160];
	int ret;

	ret = set_policy(r, SCHED_OTHER) ? -errno : sched_getscheduler(r);
	if (cc->policy == SCHED_FIFO)
		sched_setscheduler(0, SCHED_OTHER, &sp);
	if (cc->policy == SCHED_DEADLINE)
		econ_pin(r, rcpu);
	snprintf(what, sizeof(what), "%s: the reader's policy back to SCHED_OTHER", cc->name);
	check(ret == SCHED_OTHER, what, ret, SCHED_OTHER);
}

/*
 * R holds W's weight: to @cc's policy and back while W sleeps, then to it
 * again, W killed there, and back. W is reaped (*@w = 0).
 */
static void class_switches(const struct class_case *cc, pid_t r, pid_t *w,
			   int rcpu, int ncpus)
{
	char what[160];
	long long got;

	if (class_enter(cc, r, ncpus))
		return;
	econ_msleep(50);
	got = econ_task_weight(r);
	if (cc->own) {
		snprintf(what, sizeof(what), "%s: reader in its policy holds its own weight and the writer's", cc->name);
		check(got == cc->own + NICE0, what, got, cc->own + NICE0);
	} else {
		printf("# %s: se.load.weight outside the fair class, W asleep: %lld\n", cc->name, got);
	}
	class_leave(cc, r, rcpu);
	econ_msleep(50);
	got = econ_task_weight(r);
	snprintf(what, sizeof(what), "%s: back to SCHED_OTHER while the writer sleeps: own and the writer's", cc->name);
	check(got == 2 * NICE0, what, got, 2 * NICE0);

	if (class_enter(cc, r, ncpus))
		return;
	econ_msleep(20);
	/* The take-back runs in our kill(), the waker's context: R is in cc's policy. */
	kill(*w, SIGKILL);
	econ_msleep(50);
	got = econ_task_weight(r);
	if (cc->own) {
		snprintf(what, sizeof(what), "%s: reader in its policy weighs its own once the writer died", cc->name);
		check(got == cc->own, what, got, cc->own);
	} else {
		printf("# %s: se.load.weight outside the fair class, W dead: %lld\n", cc->name, got);
	}
	class_leave(cc, r, rcpu);
	/* A fair W on a FIFO R's CPU ran to its exit only now. */
	waitpid(*w, NULL, 0);
	*w = 0;
}

/* One case: 0 if it could be set up. */
static int run_case(const char *name, int ncpus)
{
	int p[2], rcpu = 0, wcpu = ncpus > 1 ? 1 : 0, i;
	long long own = NICE0, w_on, w_after;
	char what[160];
	pid_t r, w, hog;

	if (econ_on())
		return -1;
	if (pipe(p))
		return -1;
	/* Company for R: weight given to a task alone on its CPU is not. */
	hog = econ_busy_loop(rcpu);
	r = start_reader(p[0], rcpu);
	w = start_writer(p[1], wcpu);
	for (i = 0; i < 200 && !writer_sleeps(p[0]); i++)
		econ_msleep(10);
	econ_msleep(50);
	if (!strcmp(name, "nice")) {
		setpriority(PRIO_PROCESS, r, 5);
		own = NICE5;
		econ_msleep(20);
	}
	w_on = econ_task_weight(r);
	snprintf(what, sizeof(what), "%s: reader holds its own weight and the sleeping writer's", name);
	check(w_on == own + NICE0, what, w_on, own + NICE0);
	if (w_on != own + NICE0) {
		fflush(stdout);
		system("grep -E '^(donat|returned|held|no_target|donate)' /proc/sched_economy; cat /proc/sched_economy_tasks");
	}

	if (!strcmp(name, "wake")) {
		kill(r, SIGUSR1);
	} else if (!strcmp(name, "kill") || !strcmp(name, "nice")) {
		kill(w, SIGKILL);
		waitpid(w, NULL, 0);
		w = 0;
	} else if (!strcmp(name, "migrate")) {
		econ_pin(r, rcpu ^ 1);
		econ_msleep(50);
		w_on = econ_task_weight(r);
		snprintf(what, sizeof(what), "%s: reader keeps the weight on its new CPU", name);
		check(w_on == own + NICE0, what, w_on, own + NICE0);
		kill(r, SIGUSR1);
		econ_msleep(50);
		econ_pin(r, rcpu);
	} else if (!strcmp(name, "pi")) {
		pid_t b = fork();

		if (!b) {
			struct sched_param sp = { .sched_priority = 10 };

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			econ_pin(0, rcpu);
			if (sched_setscheduler(0, SCHED_FIFO, &sp))
				_exit(1);
			pi_futex(FUTEX_LOCK_PI);
			pi_futex(FUTEX_UNLOCK_PI);
			_exit(0);
		}
		for (i = 0; i < 100 && econ_sched_field(r, "prio") >= 100; i++)
			econ_msleep(10);
		snprintf(what, sizeof(what), "%s: reader boosted by the FIFO waiter (prio)", name);
		check(econ_sched_field(r, "prio") < 100, what, econ_sched_field(r, "prio"), 89);
		kill(w, SIGKILL);
		waitpid(w, NULL, 0);
		w = 0;
		econ_msleep(20);
		kill(r, SIGUSR2);
		waitpid(b, NULL, 0);
		econ_msleep(50);
		snprintf(what, sizeof(what), "%s: reader deboosted (prio)", name);
		check(econ_sched_field(r, "prio") == 120, what, econ_sched_field(r, "prio"), 120);
	} else if (class_case(name)) {
		class_switches(class_case(name), r, &w, rcpu, ncpus);
	} else if (!strcmp(name, "off")) {
		econ_write_knob("sched_economy", "0");
	} else if (!strcmp(name, "rmmod")) {
		if (system("rmmod sched_economy")) {
			check(0, "rmmod while a donation is out", 1, 0);
		}
	}
	econ_msleep(50);
	w_after = econ_task_weight(r);
	snprintf(what, sizeof(what), "%s: reader back to its own weight", name);
	check(w_after == own, what, w_after, own);
	if (!strcmp(name, "pi") || class_case(name)) {
		snprintf(what, sizeof(what), "%s: rmmod", name);
		if (system("rmmod sched_economy"))
			check(0, what, 1, 0);
		w_after = econ_task_weight(r);
		snprintf(what, sizeof(what), "%s: reader weighs its own after rmmod", name);
		check(w_after == own, what, w_after, own);
	}
	check_pelt(r, own, name);
	econ_kill((pid_t[]){ w, r, hog }, 3);
	close(p[0]);
	close(p[1]);
	return 0;
}

/*
 * The fork case proper: the donee itself forks while it holds weight, and
 * its child must weigh its own nice level (sched_fork()), whatever the
 * parent held at dup_task_struct().
 */
static volatile sig_atomic_t fork_now;

static void go_fork(int sig)
{
	(void)sig;
	fork_now = 1;
}

static void run_fork_in_donee(void)
{
	int p[2], c2p[2], i;
	pid_t r, w, child = 0, hog;
	long long wc, wr;

	if (econ_on() || pipe(p) || pipe(c2p))
		return;
	hog = econ_busy_loop(0);
	r = fork();
	if (!r) {
		char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		econ_pin(0, 0);
		signal(SIGUSR2, go_fork);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		/* Runnable while it holds the weight: spin until told to fork. */
		while (!fork_now)
			__asm__ __volatile__("" ::: "memory");
		child = fork();
		if (!child) {
			for (;;)
				__asm__ __volatile__("" ::: "memory");
		}
		if (write(c2p[1], &child, sizeof(child)) < 0)
			_exit(1);
		for (;;)
			__asm__ __volatile__("" ::: "memory");
	}
	w = start_writer(p[1], 0);
	for (i = 0; i < 200 && !writer_sleeps(p[0]); i++)
		econ_msleep(10);
	econ_msleep(50);
	wr = econ_task_weight(r);
	check(wr == 2 * NICE0, "fork: donee holds the writer's weight before it forks", wr, 2 * NICE0);
	kill(r, SIGUSR2);
	if (read(c2p[0], &child, sizeof(child)) != sizeof(child))
		child = 0;
	if (child > 0) {
		wc = econ_task_weight(child);
		check(wc == NICE0, "fork: the donee's child weighs its own nice level", wc, NICE0);
		kill(child, SIGKILL);
	} else {
		check(0, "fork: child pid", 0, 1);
	}
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	econ_msleep(50);
	wr = econ_task_weight(r);
	check(wr == NICE0, "fork: donee back to its own weight after the writer died", wr, NICE0);
	econ_kill((pid_t[]){ r, hog }, 2);
	close(p[0]);
	close(p[1]);
}

/*
 * A ping-pong (two tasks each reading what the other writes, over two
 * pipes) beside a busy loop: each waits for the other in turn, and a wait
 * that would close a cycle donates nothing, so neither ever holds more
 * than the other's weight (a cycle fed back what it gave, doubling at
 * every turn, up to nice -20's weight).
 */
static void run_pingpong(void)
{
	int ab[2], ba[2], i;
	long long w, worst = 0;
	pid_t a, b, hog;

	if (econ_on() || pipe(ab) || pipe(ba))
		return;
	hog = econ_busy_loop(0);
	a = fork();
	if (!a) {
		char c = 'x';

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		econ_pin(0, 0);
		for (;;)
			if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
				_exit(1);
	}
	b = fork();
	if (!b) {
		char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		econ_pin(0, 0);
		for (;;)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
	}
	for (i = 0; i < 50; i++) {
		econ_msleep(20);
		w = econ_task_weight(a);
		if (w > worst)
			worst = w;
		w = econ_task_weight(b);
		if (w > worst)
			worst = w;
	}
	printf("# pingpong: donations %lld, skipped as cycles %lld\n",
	       econ_book("donations"), econ_book("donate_skipped_cycle"));
	check(worst <= 2 * NICE0, "pingpong: neither side ever weighs more than both together", worst, 2 * NICE0);
	econ_kill((pid_t[]){ a, b, hog }, 3);
}

/*
 * delayed: a writer that first runs far ahead of its share on @cpu. A
 * 100 ms slice (sched_setattr() sched_runtime) lets it run that long once
 * picked; it spins until it has had 27 ms of a 30 ms window, then fills
 * the pipe and blocks with a lag of about -17 ms of service, not
 * eligible: dequeue_entity() keeps it queued, sched_delayed.
 */
static pid_t start_delayed_writer(int wfd, int cpu)
{
	struct wi_sched_attr a = {
		.sched_policy	= SCHED_OTHER,
		.sched_runtime	= 100000000,
	};
	pid_t pid = fork();
	static char buf[4096];
	struct timespec ts;
	long long t0, c0, t, c;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	econ_pin(0, cpu);
	if (wi_setattr(0, &a))
		_exit(1);
	if (write(wfd, buf, 1) != 1)
		_exit(0);
	usleep(100000);
	t0 = econ_now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	c0 = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	for (;;) {
		t = econ_now_ns();
		if (t - t0 < 30000000)
			continue;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		c = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		if (c - c0 >= 27000000)
			break;
		t0 = t;
		c0 = c;
	}
	for (int i = 0; i < 32; i++)
		if (write(wfd, buf, sizeof(buf)) < 0)
			_exit(0);
	for (;;)
		pause();
}

#define OTHER_MAX	4

/* One CPU's cfs_rq of the reader's group, read in one go from /proc/sched_debug. */
struct rq_sample {
	char group[128];	/* the reader's group path, "/" for the root */
	long long load;		/* the cfs_rq's load, nice 0 = 1024 */
	long long nr_running, h_nr_delayed;
	int nr_runnable;	/* fair tasks of the group listed in state R on the CPU */
	long long runnable;	/* their se.load.weight */
	int nr_other;		/* tasks of other classes in state R (not in load) */
	struct { pid_t pid; long long policy; } other[OTHER_MAX];	/* the first */
	char wstate, welig;	/* the writer's state and eligibility there, 0: absent */
};

/* SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE: the classes a cfs_rq's load counts. */
static int fair_policy(long long policy)
{
	return policy == SCHED_OTHER || policy == SCHED_BATCH || policy == SCHED_IDLE;
}

/* The next line of @*pos, NUL-terminated in place; NULL at the end. */
static char *next_line(char **pos)
{
	char *l = *pos, *nl;

	if (!l || !*l)
		return NULL;
	nl = strchr(l, '\n');
	if (nl) {
		*nl = '\0';
		*pos = nl + 1;
	} else {
		*pos = l + strlen(l);
	}
	return l;
}

/* A line of the "runnable tasks:" list: state, pid, eligibility, group path. */
static int task_line(const char *l, char *state, pid_t *pid, char *elig,
		     const char **group)
{
	char comm[64], vr[64];
	const char *g;

	if ((l[0] != ' ' && l[0] != '>') || !l[1] || l[1] == ' ')
		return -1;
	if (sscanf(l + 2, "%63s %d %63s %c", comm, pid, vr, elig) != 4)
		return -1;
	*state = l[1];
	g = l + strlen(l);
	while (g > l && g[-1] == ' ')
		g--;
	while (g > l && g[-1] != ' ')
		g--;
	*group = g;
	return 0;
}

static int sample_rq(int cpu, pid_t r, pid_t w, struct rq_sample *s)
{
	char *buf, *pos, *l, head[160], k[64], state, elig;
	size_t size = 1 << 20, n = 0, got;
	int pass, cur = -1, in_rq = 0, in_tasks = 0, c;
	const char *g;
	long long v, policy;
	pid_t pid;
	FILE *f;

	memset(s, 0, sizeof(*s));
	f = fopen("/proc/sched_debug", "r");
	if (!f)
		f = fopen("/sys/kernel/debug/sched/debug", "r");
	buf = malloc(size);
	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return -1;
	}
	while (n < size - 1 && (got = fread(buf + n, 1, size - 1 - n, f)) > 0)
		n += got;
	buf[n] = '\0';
	fclose(f);
	/* Pass 0 finds the reader's group in the task list, pass 1 reads its cfs_rq. */
	for (pass = 0; pass < 2; pass++) {
		char *copy = pass ? buf : strdup(buf);

		pos = copy;
		cur = -1;
		while ((l = next_line(&pos))) {
			if (sscanf(l, "cpu#%d", &c) == 1) {
				cur = c;
				in_rq = in_tasks = 0;
				continue;
			}
			if (cur != cpu)
				continue;
			if (!strncmp(l, "cfs_rq[", 7) || !strncmp(l, "rt_rq[", 6) ||
			    !strncmp(l, "dl_rq[", 6)) {
				snprintf(head, sizeof(head), "cfs_rq[%d]:%s", cpu, s->group);
				in_rq = pass && !strcmp(l, head);
				continue;
			}
			if (!strncmp(l, "runnable tasks:", 15)) {
				in_rq = 0;
				in_tasks = 1;
				continue;
			}
			if (in_rq && sscanf(l, " .%63s : %lld", k, &v) == 2) {
				if (!strcmp(k, "load"))
					s->load = sizeof(long) < 8 ? v : v >> 10;
				else if (!strcmp(k, "nr_running"))
					s->nr_running = v;
				else if (!strcmp(k, "h_nr_delayed"))
					s->h_nr_delayed = v;
				continue;
			}
			if (!in_tasks || task_line(l, &state, &pid, &elig, &g))
				continue;
			if (!pass) {
				if (pid == r)
					snprintf(s->group, sizeof(s->group), "%s", g);
				continue;
			}
			if (strcmp(g, s->group))
				continue;
			if (pid == w) {
				s->wstate = state;
				s->welig = elig;
			}
			if (state != 'R')
				continue;
			/*
			 * A stopper or RT kthread listed R is not in the
			 * cfs_rq's load (its se.load.weight is its nice's).
			 */
			policy = econ_sched_field(pid, "policy");
			if (!fair_policy(policy)) {
				if (s->nr_other < OTHER_MAX) {
					s->other[s->nr_other].pid = pid;
					s->other[s->nr_other].policy = policy;
				}
				s->nr_other++;
				continue;
			}
			s->nr_runnable++;
			s->runnable += econ_task_weight(pid);
		}
		if (!pass)
			free(copy);
		if (!pass && !s->group[0]) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}

/*
 * The weights are read after the snapshot: a sample counts when the next
 * one agrees (on one CPU the harness's reader of our output wakes, and
 * takes back what it gave us, and sleeps again, around our prints).
 */
static int sample_stable(int cpu, pid_t r, pid_t w, struct rq_sample *s)
{
	struct rq_sample prev;
	int i;

	if (sample_rq(cpu, r, w, &prev))
		return -1;
	for (i = 0; i < 20; i++) {
		if (sample_rq(cpu, r, w, s))
			return -1;
		if (s->load == prev.load && s->nr_running == prev.nr_running &&
		    s->h_nr_delayed == prev.h_nr_delayed &&
		    s->nr_runnable == prev.nr_runnable &&
		    s->nr_other == prev.nr_other &&
		    s->runnable == prev.runnable && s->wstate == prev.wstate)
			return 0;
		prev = *s;
	}
	return -1;
}

static void print_sample(const char *when, int cpu, const struct rq_sample *s,
			 pid_t r, pid_t w, pid_t hog)
{
	printf("# delayed: %s: cfs_rq[%d]:%s load %lld, nr_running %lld, h_nr_delayed %lld; "
	       "%d tasks in state R weigh %lld (reader %lld, loop %lld, we %lld); writer %c %c, weighs %lld\n",
	       when, cpu, s->group, s->load, s->nr_running, s->h_nr_delayed,
	       s->nr_runnable, s->runnable, econ_task_weight(r), econ_task_weight(hog),
	       econ_task_weight(getpid()), s->wstate ? s->wstate : '-',
	       s->welig ? s->welig : '-', econ_task_weight(w));
	for (int i = 0; i < s->nr_other && i < OTHER_MAX; i++)
		printf("# delayed: also R, not fair: pid %d policy %lld\n",
		       s->other[i].pid, s->other[i].policy);
}

/*
 * One try of the delayed case; 1 if the writer was seen delayed while it
 * donates (the checks made), 0 if not (nothing checked), -1 on setup.
 * @last: the last try, which checks whatever it sees.
 */
static int delayed_try(int ncpus, int attempt, int last)
{
	int p[2], i, cpu = 0, seen, n;
	struct rq_sample s, s2;
	long long wr, t0, ww;
	char when[64];
	pid_t r, w, hog;

	if (econ_on() || pipe(p))
		return -1;
	(void)ncpus;
	hog = econ_busy_loop(cpu);
	r = start_reader(p[0], cpu);
	w = start_delayed_writer(p[1], cpu);
	/*
	 * Seldom: on one CPU each of our wakeups preempts the writer (our
	 * slice is the shorter), and the loop and the reader run after us.
	 */
	for (i = 0; i < 50; i++) {
		n = 0;
		if (!ioctl(p[0], FIONREAD, &n) && n >= 65535)
			break;
		econ_msleep(100);
	}
	/* The pipe is full: the writer is about to sleep, or sleeps. */
	for (i = 0; i < 200; i++) {
		if (!sample_stable(cpu, r, w, &s) && s.wstate && s.wstate != 'R' &&
		    econ_task_weight(r) == 2 * NICE0)
			break;
		econ_msleep(1);
	}
	t0 = econ_now_ns();
	wr = econ_task_weight(r);
	ww = econ_task_weight(w);
	/*
	 * The writer sleeps donating. Today's kernel dequeues it at once; one
	 * that delays it (h_nr_delayed) counts it twice. A try where it was
	 * neither delayed nor, with the fix, would have been is repeated.
	 */
	seen = s.wstate && s.wstate != 'R' && wr == 2 * NICE0 &&
	       (s.h_nr_delayed > 0 || last);
	if (ioctl(p[0], FIONREAD, &n))
		n = -1;
	snprintf(when, sizeof(when), "try %d, pipe full (%d bytes)", attempt, n);
	print_sample(when, cpu, &s, r, w, hog);
	if (seen || last) {
		check(wr == 2 * NICE0, "delayed: reader holds its own weight and the sleeping writer's", wr, 2 * NICE0);
		check(seen, "delayed: the writer sleeps donating", s.wstate, 'S');
		check(!s.h_nr_delayed, "delayed: the donating writer is not kept queued, sched_delayed (h_nr_delayed)",
		      s.h_nr_delayed, 0);
		check(s.load == s.runnable + s.h_nr_delayed * ww,
		      "delayed: cfs_rq load is its entities' weights, runnable tasks and delayed writer",
		      s.load, s.runnable + s.h_nr_delayed * ww);
		check(s.load == s.runnable,
		      "delayed: no weight counted twice: cfs_rq load is the runnable tasks' weights, the reader holding the delayed writer's",
		      s.load, s.runnable);
		/* Until the writer is picked, and so dequeued, at last. */
		for (i = 0; i < 600; i++) {
			if (!sample_stable(cpu, r, w, &s2) && !s2.h_nr_delayed)
				break;
			econ_msleep(5);
		}
		snprintf(when, sizeof(when), "writer left the queue after %lld ms",
			 (econ_now_ns() - t0) / 1000000);
		print_sample(when, cpu, &s2, r, w, hog);
		check(!s2.h_nr_delayed && s2.load == s2.runnable,
		      "delayed: once the writer left the queue, cfs_rq load is the runnable tasks' weights",
		      s2.load, s2.runnable);
	}
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	econ_msleep(50);
	if (seen || last) {
		wr = econ_task_weight(r);
		check(wr == NICE0, "delayed: reader back to its own weight", wr, NICE0);
		check_pelt(r, NICE0, "delayed");
	}
	econ_kill((pid_t[]){ r, hog }, 2);
	close(p[0]);
	close(p[1]);
	return seen;
}

/*
 * delayed: R, the loop and W on CPU 0; we watch from CPU 1 if there is
 * one (on one CPU we are in the cfs_rq too, running as we read it). A
 * writer that was dequeued at once (its lag not negative after all) is
 * tried again, up to 3 times (with mail 12 none is, and all three run).
 */
static void run_delayed(int ncpus)
{
	cpu_set_t set;
	int i, ret = 0, have = !sched_getaffinity(0, sizeof(set), &set);

	if (ncpus > 1)
		econ_pin(0, 1);
	for (i = 0; i < 3; i++) {
		ret = delayed_try(ncpus, i, i == 2);
		if (ret)
			break;
	}
	if (ret < 0) {
		printf("not ok - delayed: setup\n");
		failures++;
	}
	if (have)
		sched_setaffinity(0, sizeof(set), &set);
}

/* No cfs_rq keeps load once the tasks of the test are gone. */
static void check_sched_debug(void)
{
	char line[256], k[64];
	long long v, worst_load = 0, worst_avg = 0;
	FILE *f;
	int in_cfs = 0, n = 0;

	econ_msleep(1500);
	f = fopen("/proc/sched_debug", "r");
	if (!f)
		f = fopen("/sys/kernel/debug/sched/debug", "r");
	if (!f) {
		check(0, "sched_debug readable", 0, 1);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cfs_rq[", 7)) {
			in_cfs = 1;
			n++;
			continue;
		}
		if (!strncmp(line, "rt_rq[", 6) || !strncmp(line, "dl_rq[", 6))
			in_cfs = 0;
		if (!in_cfs)
			continue;
		if (sscanf(line, " .%63s : %lld", k, &v) != 2)
			continue;
		if (!strcmp(k, "load") && v > worst_load)
			worst_load = v;
		if (!strcmp(k, "load_avg") && v > worst_avg)
			worst_avg = v;
	}
	fclose(f);
	printf("# %d cfs_rq, largest load %lld, largest load_avg %lld\n", n, worst_load, worst_avg);
	/* The runner itself and kernel threads may be runnable: one task's worth. */
	check(worst_load <= 2 * NICE0 * 1024LL, "no cfs_rq keeps more load than two runnable tasks", worst_load, 2 * NICE0 * 1024LL);
	check(worst_avg <= 2 * NICE0, "no cfs_rq keeps load_avg of departed tasks", worst_avg, 2 * NICE0);
}

int main(void)
{
	const char *cases[] = { "wake", "kill", "nice", "migrate", "off", "rmmod", "pi",
				"class_fifo", "class_batch", "class_idle", "class_deadline" };
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pi_word = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pi_word == MAP_FAILED)
		pi_word = NULL;
	for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		/* pi: the boosted reader spins as a FIFO task: not on our CPU. */
		if ((!strcmp(cases[i], "migrate") || !strcmp(cases[i], "pi")) &&
		    ncpus < 2)
			continue;
		if (run_case(cases[i], ncpus)) {
			printf("not ok - %s: setup\n", cases[i]);
			failures++;
		}
	}
	run_fork_in_donee();
	run_pingpong();
	run_delayed(ncpus);
	econ_write_knob("sched_economy", "0");
	check_sched_debug();
	printf("# %s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
