// SPDX-License-Identifier: GPL-2.0
/*
 * churn: the economy's state stays bounded under channel and task churn,
 * and costs an unrelated pair nothing in latency.
 *
 *   churners   4 processes of uid 1000, each as fast as it can for -s
 *              seconds (default 10): make a pipe (pipe2; with -t sock an
 *              AF_UNIX stream socketpair, -t eventfd an eventfd), fork a
 *              child that writes one byte (an eventfd: 1) into it and
 *              exits, read it, close both ends, waitpid; -t epoll waits
 *              for the socketpair's byte in epoll_wait() on an epoll set
 *              of its own, made and closed each round.  Every round is a
 *              new channel between a new pair of tasks, one of which is
 *              gone a moment later.
 *   bystanders a root pair doing a pipe ping-pong (1-byte round trips)
 *              beside them; the pinger times each round trip
 *              (CLOCK_MONOTONIC) while the churn runs: p50 and p99.
 *
 * Everything is pinned to CPU 0.  Slab (/proc/meminfo "Slab:", with
 * SReclaimable and SUnreclaim printed beside it) is read before the churn,
 * right after the churners are reaped, and 2 s (-a) later.  The whole run
 * is done with the economy off, then on, in one boot, after a short
 * warm-up run (economy off, -W seconds, not judged) that fills the slab
 * caches the churn itself needs.  Each run sets the knob before any of
 * its processes start.  Loads the module if it is not loaded (and unloads
 * it again at the end).
 *
 * Fair: the economy keeps nothing of a channel or a task that is gone
 * (the ends it names live in the channel, a donation in the task), so 2 s
 * after the churn no more slab is held with the economy on than off, give or take
 * 1 MiB of per-CPU slab noise; and the bystanders' latency does not pay
 * for the bookkeeping of others' churn.  Passes (exit 0) when the slab
 * still held 2 s after the churn with the economy on is at most the held
 * growth with it off + 1 MiB, and the bystanders' p99 round trip with the
 * economy on is at most twice the p99 with it off; fails (1) otherwise;
 * skips (4) when the module is missing.  Prints the books' donation
 * counters before, right after and 2 s after each run.
 *
 * Measured on the baseline module (lend, --icount, 1 vCPU): pipe, slab
 * held 2 s after -4 kB off, +52 / +56 / +56 kB on; bystander p99 5.3-5.5
 * ms off, 4.7-4.9 ms on, p50 87 us off, 155-231 us on; about 7,600
 * rounds off, 7,000-7,200 on.  sock: -4 kB off, +16 kB on; p99 5.3-5.6
 * ms off, 4.7-5.2 on; p50 86 us off, 158-194 on.  Both pass.  The books'
 * parties go from 2 (the bystanders) to 10-14 at the end of the churn and
 * stay there 2 s later; 10 s later (-a 10) they are back at 2: a channel
 * whose writer is gone is kept up to 8 leases (ECONOMY_WAIT_LEASES).
 * With donation at the blocking point: +4 / +8 kB on vs +4 / -4 kB off,
 * p99 4.2-4.5 ms on vs 5.3-5.5 off.  This shape does not reproduce the
 * +2-3 MiB the issue measured on that module, so it proves the bound
 * here, not the fault there.
 *
 *	churn [-t pipe|sock|epoll|eventfd] [-s seconds] [-W warmup_seconds]
 *	      [-a after_seconds]
 *
 * -a sets how long after the churn the held slab is read (default 2 s).
 */
#include "econ_test.h"

#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#define NCHURNERS	4
#define UID_CHURN	1000
#define MAXRTT		(1L << 21)
#define SLAB_BAR_KB	1024

struct shared {
	atomic_int record;	/* the pinger records round trips while 1 */
	atomic_long iters;	/* the churners' rounds */
	atomic_long failed;	/* ... and the failed ones */
	atomic_long n;		/* round trips recorded */
	long long rtt[];	/* ns each */
};

struct result {
	long long slab[3], srecl[3], sunrecl[3];	/* kB: before, right after, -a s after */
	long long parties[3], links[3];
	long iters, failed, n;
	double p50_us, p99_us, max_us;
};

static struct shared *sh;
enum channel { C_PIPE, C_SOCK, C_EPOLL, C_EVENTFD, NR_CHANNELS };
static const char * const cnames[] = { "pipe", "sock", "epoll", "eventfd" };
static int chan, after = 2;
static pid_t parent;

static void become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		_exit(111);
}

/* A child on CPU 0 as @uid (-1: root) that dies with the test. */
static pid_t child(uid_t uid)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	econ_pin(0, 0);
	if (uid != (uid_t)-1)
		become(uid);
	/* After the drop: a change of credentials clears it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	return 0;
}

static void meminfo(long long *slab, long long *srecl, long long *sunrecl)
{
	char line[128];
	long long v;
	FILE *f = fopen("/proc/meminfo", "r");

	*slab = *srecl = *sunrecl = -1;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Slab: %lld", &v) == 1)
			*slab = v;
		else if (sscanf(line, "SReclaimable: %lld", &v) == 1)
			*srecl = v;
		else if (sscanf(line, "SUnreclaim: %lld", &v) == 1)
			*sunrecl = v;
	}
	if (f)
		fclose(f);
}

static void snapshot(struct result *r, int i)
{
	meminfo(&r->slab[i], &r->srecl[i], &r->sunrecl[i]);
	r->parties[i] = econ_book("parties");
	r->links[i] = econ_book("links");
}

/* A new channel: its two ends in @fds (an eventfd's are one fd). */
static int make_channel(int fds[2])
{
	if (chan == C_EVENTFD) {
		fds[0] = eventfd(0, EFD_CLOEXEC);
		fds[1] = fds[0];
		return fds[0] < 0 ? -1 : 0;
	}
	if (chan == C_PIPE)
		return pipe2(fds, O_CLOEXEC);
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
}

/*
 * Wait for the child's write as the channel's reader: -t epoll in
 * epoll_wait() on an epoll set of its own (the kernel notes the item and
 * its consumer in it), then read.
 */
static int take(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t v;
	char c;
	int ep, ret;

	if (chan == C_EVENTFD)
		return read(fd, &v, sizeof(v)) == sizeof(v) ? 0 : -1;
	if (chan != C_EPOLL)
		return read(fd, &c, 1) == 1 ? 0 : -1;
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		return -1;
	ret = epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ||
	      epoll_wait(ep, &ev, 1, -1) != 1 || read(fd, &c, 1) != 1;
	close(ep);
	return ret ? -1 : 0;
}

static void churner(long long deadline)
{
	long n = 0, failed = 0;
	uint64_t one = 1;
	int fds[2];

	while (econ_now_ns() < deadline) {
		pid_t pid;

		if (make_channel(fds)) {
			failed++;
			continue;
		}
		pid = fork();
		if (!pid) {
			if (chan == C_EVENTFD ?
			    write(fds[1], &one, sizeof(one)) != sizeof(one) :
			    write(fds[1], "x", 1) != 1)
				_exit(1);
			_exit(0);
		}
		if (pid > 0 && take(fds[0]))
			failed++;
		close(fds[0]);
		if (fds[1] != fds[0])
			close(fds[1]);
		if (pid < 0) {
			failed++;
			continue;
		}
		waitpid(pid, NULL, 0);
		n++;
	}
	atomic_fetch_add(&sh->iters, n);
	atomic_fetch_add(&sh->failed, failed);
	_exit(0);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void run(const char *label, int on, int secs, struct result *r)
{
	pid_t ping, pong, churners[NCHURNERS];
	int a[2], b[2], i;
	long long deadline;
	char c = 'p';

	memset(r, 0, sizeof(*r));
	econ_write_knob("sched_economy", on ? "1" : "0");
	atomic_store(&sh->record, 0);
	atomic_store(&sh->iters, 0);
	atomic_store(&sh->failed, 0);
	atomic_store(&sh->n, 0);
	if (pipe(a) || pipe(b)) {
		perror("pipe");
		exit(1);
	}
	pong = child(-1);
	if (!pong) {
		close(a[1]);
		close(b[0]);
		while (read(a[0], &c, 1) == 1)
			if (write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	ping = child(-1);
	if (!ping) {
		close(a[0]);
		close(b[1]);
		for (;;) {
			long long t0 = econ_now_ns(), t;

			if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
				_exit(1);
			t = econ_now_ns() - t0;
			if (atomic_load(&sh->record)) {
				long k = atomic_load(&sh->n);

				if (k < MAXRTT) {
					sh->rtt[k] = t;
					atomic_store(&sh->n, k + 1);
				}
			}
		}
	}
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	usleep(500000);	/* the pair settles (and forms its link, if on) */

	snapshot(r, 0);
	atomic_store(&sh->record, 1);
	deadline = econ_now_ns() + secs * 1000000000LL;
	for (i = 0; i < NCHURNERS; i++) {
		churners[i] = child(UID_CHURN);
		if (!churners[i])
			churner(deadline);
	}
	for (i = 0; i < NCHURNERS; i++)
		waitpid(churners[i], NULL, 0);
	atomic_store(&sh->record, 0);
	snapshot(r, 1);
	usleep(after * 1000000);
	snapshot(r, 2);

	kill(ping, SIGKILL);
	kill(pong, SIGKILL);
	waitpid(ping, NULL, 0);
	waitpid(pong, NULL, 0);

	r->iters = atomic_load(&sh->iters);
	r->failed = atomic_load(&sh->failed);
	r->n = atomic_load(&sh->n);
	if (r->n > 0) {
		qsort(sh->rtt, r->n, sizeof(sh->rtt[0]), cmp_ll);
		r->p50_us = sh->rtt[r->n / 2] / 1000.0;
		r->p99_us = sh->rtt[r->n * 99 / 100] / 1000.0;
		r->max_us = sh->rtt[r->n - 1] / 1000.0;
	}
	printf("# %s (economy %s, t=%s): %d churners, %ld rounds (%ld failed) in %d s\n",
	       label, on ? "on" : "off", cnames[chan],
	       NCHURNERS, r->iters, r->failed, secs);
	printf("# %s: Slab before %lld kB (SReclaimable %lld, SUnreclaim %lld); right after %+lld kB (%+lld, %+lld); %d s after %+lld kB (%+lld, %+lld)\n",
	       label, r->slab[0], r->srecl[0], r->sunrecl[0],
	       r->slab[1] - r->slab[0], r->srecl[1] - r->srecl[0],
	       r->sunrecl[1] - r->sunrecl[0], after,
	       r->slab[2] - r->slab[0], r->srecl[2] - r->srecl[0],
	       r->sunrecl[2] - r->sunrecl[0]);
	if (r->parties[0] != LLONG_MIN)
		printf("# %s: books parties %lld -> %lld -> %lld, links %lld -> %lld -> %lld (before, right after, %d s after)\n",
		       label, r->parties[0], r->parties[1], r->parties[2],
		       r->links[0], r->links[1], r->links[2], after);
	printf("# %s: bystander pipe round trips %ld: p50 %.1f us, p99 %.1f us, max %.1f us\n",
	       label, r->n, r->p50_us, r->p99_us, r->max_us);
}

/* The books' lines that mention parties or links. */
static void print_book_lines(const char *when)
{
	char line[128];
	FILE *f = fopen(ECON_BOOKS, "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "part") || strstr(line, "link"))
			printf("# books %s: %s", when, line);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	int secs = 10, warm = 2, opt, loaded = 0, fail = 0, ret;
	struct result warmup, off, on;
	long long held_off, held_on;

	while ((opt = getopt(argc, argv, "t:s:W:a:")) != -1) {
		switch (opt) {
		case 't':
			for (chan = 0; chan < NR_CHANNELS &&
			     strcmp(optarg, cnames[chan]); chan++)
				;
			if (chan == NR_CHANNELS) {
				fprintf(stderr, "churn: -t pipe|sock|epoll|eventfd\n");
				return 2;
			}
			break;
		case 's': secs = atoi(optarg); break;
		case 'W': warm = atoi(optarg); break;
		case 'a': after = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: see the top of churn.c\n");
			return 2;
		}
	}
	if (secs < 1 || warm < 0 || after < 0) {
		fprintf(stderr, "churn: bad -s, -W or -a\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	parent = getpid();
	if (geteuid()) {
		printf("# SKIP: needs root\n");
		return 4;
	}
	ret = econ_need_module(&loaded);
	if (ret)
		return ret;
	sh = mmap(NULL, sizeof(*sh) + MAXRTT * sizeof(sh->rtt[0]),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	econ_pin(0, 0);
	print_book_lines("at start");
	if (warm)
		run("warm-up", 0, warm, &warmup);
	run("off", 0, secs, &off);
	run("on", 1, secs, &on);
	print_book_lines("with the economy on, after the run");
	econ_write_knob("sched_economy", "0");
	print_book_lines("after off");
	if (loaded && system("rmmod sched_economy"))
		printf("# rmmod sched_economy failed\n");

	held_off = off.slab[2] - off.slab[0];
	held_on = on.slab[2] - on.slab[0];
	printf("churn: t=%s off held %+lld kB p50 %.1f us p99 %.1f us; on held %+lld kB p50 %.1f us p99 %.1f us (held: %d s after)\n",
	       cnames[chan], held_off, off.p50_us, off.p99_us,
	       held_on, on.p50_us, on.p99_us, after);
	printf("# bars: held on <= held off + %d kB (%+lld kB); p99 on <= 2 x p99 off (%.1f us)\n",
	       SLAB_BAR_KB, held_off + SLAB_BAR_KB, 2 * off.p99_us);
	if (off.n < 100 || on.n < 100 || !off.iters || !on.iters) {
		printf("not ok: churn: too few round trips or rounds to judge\n");
		fail = 1;
	}
	if (held_on > held_off + SLAB_BAR_KB) {
		printf("not ok: churn: %+lld kB of slab held %d s after the churn with the economy on, %+lld kB off\n",
		       held_on, after, held_off);
		fail = 1;
	}
	if (on.p99_us > 2 * off.p99_us) {
		printf("not ok: churn: bystander p99 %.1f us on, %.1f us off\n",
		       on.p99_us, off.p99_us);
		fail = 1;
	}
	if (!fail)
		printf("ok: churn t=%s\n", cnames[chan]);
	return fail;
}
