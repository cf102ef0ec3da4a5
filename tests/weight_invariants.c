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
#include <sys/syscall.h>

#define NICE0		1024
#define NICE5		335

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
	if (!strcmp(name, "pi")) {
		if (system("rmmod sched_economy"))
			check(0, "pi: rmmod", 1, 0);
		w_after = econ_task_weight(r);
		check(w_after == own, "pi: reader weighs its own after rmmod", w_after, own);
	}
	check_pelt(r, own, name);
	if (w)
		kill(w, SIGKILL);
	kill(r, SIGKILL);
	kill(hog, SIGKILL);
	if (w)
		waitpid(w, NULL, 0);
	waitpid(r, NULL, 0);
	waitpid(hog, NULL, 0);
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
	kill(r, SIGKILL);
	kill(hog, SIGKILL);
	waitpid(r, NULL, 0);
	waitpid(hog, NULL, 0);
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
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	kill(hog, SIGKILL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	waitpid(hog, NULL, 0);
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
	const char *cases[] = { "wake", "kill", "nice", "migrate", "off", "rmmod", "pi" };
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
	econ_write_knob("sched_economy", "0");
	check_sched_debug();
	printf("# %s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
