// SPDX-License-Identifier: GPL-2.0
/*
 * victim: sleeps that the relation takes for waiting, turned against
 * their sleeper (review round 4, findings F1, F2 and F5).  The shape of
 * tests/harvest.c: the economy off, then on, in one boot, fresh
 * processes for each, medians of windows of CPU time read from
 * /proc/PID/schedstat; a bar of 2 pp.  Each mode failed on the module of
 * 78aae7e (figures below); since the relation was narrowed (6e4e03c,
 * a68a946) each guards the fix (tests/TESTS, the block above
 * harvest_slow_reader_stream).
 *
 * -m reader (F1, a slow reader harvests its writer)
 *   server     uid 65534, accepts one connection on a named AF_UNIX
 *              stream socket (-t stream), or opens a FIFO for writing
 *              (-t fifo), and writes it replies of 64 KiB; with -t poll
 *              the socket is non-blocking and the server sleeps in
 *              poll(POLLOUT) when it is full
 *   attacker   uid 1000: connects (or opens the FIFO), reads the first
 *              byte of the server's output, so that it is the reader of
 *              record, then busy-loops and never reads again
 *   bystander  uid 2000, a busy loop beside the attacker
 *   The server is blocked for room for ever, waiting for nobody who
 *   owes it anything: fair is the attacker's share of the two loops with
 *   the economy off, 50 %.  Figure: the attacker's CPU over the two
 *   loops'; bar: it rises by at most 2 pp.  The attacker's se.load.weight
 *   (/proc/PID/sched) is sampled while it runs.  With -2 the server is on
 *   CPU 1 and the two loops on CPU 0.  Expected of today's module: the
 *   attacker at 2048 (its own and the server's), 2/3 of the loops.
 *
 * -m listeners (F2, idle listeners pooled in a shared server)
 *   server S   uid 0, single-threaded: poll()s a named AF_UNIX stream
 *              socket and its connections, reads one request (64 bytes)
 *              per ready connection and burns -b us of CPU (default
 *              2 ms) for each request of the worker's; a subscription
 *              costs nothing
 *   2 loops    uid 65534, busy loops beside S
 *   worker     uid 1000: connects and keeps up to 32 requests queued,
 *              sending without ever blocking (MSG_DONTWAIT, then a 2 ms
 *              nanosleep); it never reads: it waits for nothing
 *   listeners  -n of them (default 16), uid 2000: connect, send one
 *              subscription, and once S has read it block in recv()
 *              (-t recv) or poll(POLLIN) (-t poll) for ever: they wait
 *              for events that never come, not for a reply to anything.
 *              With -A S answers each subscription at once and the
 *              listener reads the answer first: its request is done,
 *              and the waits that follow it begin right after a reply
 *              (kernel.sched_economy_reply_us)
 *   Fair: S, busy for the worker, gets a third of S and the loops, as
 *   off.  Figure: S's CPU over S's and the loops'; bar: it rises by at
 *   most 2 pp.  S's se.load.weight is sampled.  Expected of today's
 *   module: S at 1024 times n + 1 (the listeners are connect()ed
 *   clients, so their data waits donate to S whatever its user).
 *
 * -m bill (F5, the bill)
 *   daemon D   uid 0: reads 4 KiB records from a FIFO of the default
 *              size (16 of them) and burns -b us of CPU for each
 *              (default 20 ms: the SCHED_IDLE writer, at 3 / 3075 of the
 *              CPU, then keeps the FIFO full with the economy off; at
 *              2 ms, with the FIFO grown to 1 MiB by F_SETPIPE_SZ (a
 *              draft of this test), it could not: D found the FIFO
 *              empty most of the time, the writer was seldom blocked,
 *              and the test showed nothing either way, 17.1 % off,
 *              17.8 % on, weight 1024 in every sample)
 *   2 loops    uid 2000, busy loops beside D
 *   writer W   uid 65534, SCHED_IDLE: writes records into the FIFO,
 *              blocking when it is full
 *   No cgroups (the guest boots with noautogroup; D, W and the loops
 *   share the root cfs_rq).  Fair: D keeps its own nice-0 weight and its
 *   share; W is SCHED_IDLE and owes D nothing.  Bars: D's sampled
 *   se.load.weight never below 1024, and its share of D and the loops
 *   drops by at most 2 pp.  Expected of today's module: W, blocked for
 *   room, gives D its 3, and a task holding less than its own runs at
 *   twice what it holds: D at 6.
 *
 * Measured on the module of 78aae7e (lend, --icount, medians of 3
 * windows of 3 s; off 49.9-50.1 % / 33.3-33.4 % in every window):
 * reader stream, fifo, poll: attacker 50.0 -> 66.7 %, se.load.weight
 * 2048; -2 (stream) 49.9 -> 66.7 %, 2048.  listeners -n 16, recv and
 * poll: S 33.3 -> 89.5 %, weight 17408, each loop 5.2-5.3 %; -n 40:
 * 95.4 %, 41984, loops 2.3 %.  bill: daemon 33.3 -> 0.3-0.7 %, weight 6
 * in 98.9-100 % of the samples; -b 10000: 1.4 %.  All fail their bars.
 *
 * Each segment sets the knob first, with nothing of the test running,
 * then makes fresh channels and processes (the loops first, and 200 ms
 * before the sleepers, so that they are contenders when the sleepers
 * sleep: a new task is not one until a tick finds it running), then
 * after -u ms measures -w windows of -s s.  Exit 0 passes, 1 fails (or
 * a setup error: "not ok: setup ..."), 4 skips.
 *
 *	victim -m reader [-t stream|fifo|poll] [-2]
 *	victim -m listeners [-t recv|poll] [-n listeners] [-b us] [-A]
 *	victim -m bill [-b us]
 *	       [-w windows] [-s seconds] [-u warmup_ms]
 */
#include "econ_test.h"

#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define UID_ATTACKER	1000
#define UID_OTHER	2000
#define UID_NOBODY	65534
#define MAXWIN		32
#define MAXL		64
#define REQ		64		/* a request or a subscription */
#define REC		4096		/* a record of the bill's FIFO */
#define REPLY		65536		/* a reply of the slow reader's server */
#define QUEUED		32		/* requests the worker keeps queued */
#define BAR_PP		2.0
#define SAMPLE_MS	100
#define PATH_SOCK	"/tmp/victim.sock"
#define PATH_FIFO	"/tmp/victim.fifo"

enum mode { M_READER, M_LISTENERS, M_BILL };
static const char * const mnames[] = { "reader", "listeners", "bill" };

struct shared {
	atomic_int ready;		/* parties at their steady state */
	atomic_int hello;		/* reader: the attacker read the first byte */
	atomic_long written;		/* reader: bytes the server wrote */
	atomic_long polls;		/* reader -t poll: the server's poll()s */
	atomic_long sent, done;		/* listeners: the worker's requests */
	atomic_int sub[MAXL];		/* listeners: S read listener i's subscription */
	atomic_long records;		/* bill: records D processed */
	atomic_long wrote;		/* bill: records W wrote */
};

static enum mode mode = M_READER;
static const char *tname;	/* -t */
static int smp2, nlisteners = 16, windows = 3, secs = 3, warm_ms = 1000;
static long burn_us = -1;
static int ack;	/* -m listeners -A: S answers each subscription */
static struct shared *sh;
static pid_t parent;

static void become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		_exit(111);
}

/* A child pinned to @cpu, as @uid (-1: root), SCHED_IDLE if @idle. */
static pid_t child(int cpu, uid_t uid, int idle)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	econ_pin(0, cpu);
	if (idle) {
		struct sched_param sp = { 0 };

		if (sched_setscheduler(0, SCHED_IDLE, &sp))
			_exit(118);
	}
	if (uid != (uid_t)-1)
		become(uid);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	return 0;
}

static void spin(void)
{
	for (;;)
		__asm__ __volatile__("" ::: "memory");
}

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Burn @us of this thread's CPU time. */
static void burn(long us)
{
	long long end = thread_ns() + us * 1000LL;

	while (thread_ns() < end)
		__asm__ __volatile__("" ::: "memory");
}

static int unix_listen(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	unlink(path);
	strcpy(a.sun_path, path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    chmod(path, 0666) || listen(fd, 128)) {
		perror("victim: socket/bind/listen");
		return -1;
	}
	return fd;
}

static int unix_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	strcpy(a.sun_path, path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	return fd;
}

static int read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r > 0)
			got += r;
		else if (r < 0 && errno == EINTR)
			continue;
		else
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ F1 reader */

static int is_fifo(void)
{
	return !strcmp(tname, "fifo");
}

static int is_poll(void)
{
	return !strcmp(tname, "poll");
}

/* The server: one client, replies of 64 KiB for as long as they go. */
static void reader_server(int lfd)
{
	static char buf[REPLY];
	char req[8];
	int c;

	if (is_fifo()) {
		c = open(PATH_FIFO, O_WRONLY);
		if (c < 0)
			_exit(112);
	} else {
		c = accept(lfd, NULL, NULL);
		if (c < 0 || read_full(c, req, sizeof(req)))
			_exit(113);
		close(lfd);
	}
	/* The first byte of the reply, which the attacker reads. */
	if (write(c, "h", 1) != 1)
		_exit(114);
	while (!atomic_load(&sh->hello))
		econ_msleep(1);
	if (is_poll())
		fcntl(c, F_SETFL, O_NONBLOCK);
	memset(buf, 'r', sizeof(buf));
	atomic_fetch_add(&sh->ready, 1);
	for (;;) {
		ssize_t n = is_fifo() ? write(c, buf, sizeof(buf)) :
				send(c, buf, sizeof(buf), MSG_NOSIGNAL);

		if (n > 0) {
			atomic_fetch_add(&sh->written, n);
			continue;
		}
		if (n < 0 && errno == EAGAIN && is_poll()) {
			struct pollfd p = { .fd = c, .events = POLLOUT };

			atomic_fetch_add(&sh->polls, 1);
			poll(&p, 1, -1);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		_exit(115);
	}
}

/* The attacker: read once, so as to be the reader of record; then spin. */
static void reader_attacker(void)
{
	char c;
	int fd;

	if (is_fifo()) {
		fd = open(PATH_FIFO, O_RDONLY);
	} else {
		fd = unix_connect(PATH_SOCK);
		if (fd >= 0 && write(fd, "request", 8) != 8)
			_exit(116);
	}
	if (fd < 0 || read(fd, &c, 1) != 1)
		_exit(117);
	atomic_store(&sh->hello, 1);
	atomic_fetch_add(&sh->ready, 1);
	spin();
}

/* --------------------------------------------------------- F2 listeners */

/* S: poll() everything; a subscription is noted, a request is worked. */
static void listeners_server(int lfd)
{
	struct pollfd p[MAXL + 4];
	char req[REQ];
	int n = 1, i;

	p[0].fd = lfd;
	p[0].events = POLLIN;
	for (;;) {
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(120);
		}
		for (i = 1; i < n; i++) {
			int kind, idx;

			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (read_full(p[i].fd, req, sizeof(req))) {
				close(p[i].fd);
				p[i--] = p[--n];
				continue;
			}
			memcpy(&kind, req, sizeof(kind));
			memcpy(&idx, req + sizeof(kind), sizeof(idx));
			if (kind == 0 && idx >= 0 && idx < MAXL) {
				/* -A: the subscription is answered */
				if (ack && write(p[i].fd, "a", 1) != 1)
					_exit(124);
				atomic_store(&sh->sub[idx], 1);
			} else {
				burn(burn_us);
				atomic_fetch_add(&sh->done, 1);
			}
		}
		if ((p[0].revents & POLLIN) && n < MAXL + 4) {
			int c = accept(lfd, NULL, NULL);

			if (c >= 0) {
				p[n].fd = c;
				p[n].events = POLLIN;
				n++;
			}
		}
	}
}

/* The worker: keeps S busy and never waits for S. */
static void listeners_worker(void)
{
	char req[REQ] = { 0 };
	int kind = 1, fd = unix_connect(PATH_SOCK);

	if (fd < 0)
		_exit(121);
	memcpy(req, &kind, sizeof(kind));
	atomic_fetch_add(&sh->ready, 1);
	for (;;) {
		while (atomic_load(&sh->sent) - atomic_load(&sh->done) < QUEUED &&
		       send(fd, req, sizeof(req), MSG_DONTWAIT | MSG_NOSIGNAL) ==
		       sizeof(req))
			atomic_fetch_add(&sh->sent, 1);
		econ_msleep(2);
	}
}

/* A listener: subscribe, then wait for events that never come. */
static void listeners_listener(int i)
{
	char req[REQ] = { 0 };
	int kind = 0, fd = unix_connect(PATH_SOCK);

	if (fd < 0)
		_exit(122);
	memcpy(req, &kind, sizeof(kind));
	memcpy(req + sizeof(kind), &i, sizeof(i));
	if (write(fd, req, sizeof(req)) != sizeof(req))
		_exit(123);
	/* -A: the answer is read, so no request of the listener's is left */
	if (ack && read(fd, req, 1) != 1)
		_exit(125);
	/* Not in a wait of the channel's: a nanosleep gives nothing. */
	while (!atomic_load(&sh->sub[i]))
		econ_msleep(2);
	atomic_fetch_add(&sh->ready, 1);
	for (;;) {
		if (!strcmp(tname, "poll")) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			poll(&p, 1, -1);
		} else {
			recv(fd, req, sizeof(req), 0);
		}
	}
}

/* -------------------------------------------------------------- F5 bill */

static void bill_daemon(void)
{
	static char rec[REC];
	int fd = open(PATH_FIFO, O_RDONLY);

	if (fd < 0)
		_exit(130);
	atomic_fetch_add(&sh->ready, 1);
	for (;;) {
		if (read_full(fd, rec, sizeof(rec)))
			_exit(131);
		burn(burn_us);
		atomic_fetch_add(&sh->records, 1);
	}
}

static void bill_writer(void)
{
	static char rec[REC];
	int fd = open(PATH_FIFO, O_WRONLY);

	if (fd < 0)
		_exit(132);
	memset(rec, 'w', sizeof(rec));
	atomic_fetch_add(&sh->ready, 1);
	for (;;) {
		if (write(fd, rec, sizeof(rec)) != sizeof(rec) && errno != EINTR)
			_exit(133);
		atomic_fetch_add(&sh->wrote, 1);
	}
}

/* ------------------------------------------------------------- segments */

/*
 * The parties of a segment.  pids[0] is the one whose weight is watched
 * and whose share is the figure; pids[1..nshare-1] share the figure's
 * denominator with it.
 */
#define MAXP	(MAXL + 8)
static pid_t pids[MAXP];
static const char *pnames[MAXP];
static int np, nshare, nready;

static void add(pid_t pid, const char *name)
{
	pids[np] = pid;
	pnames[np++] = name;
}

static void cleanup(void)
{
	unlink(PATH_SOCK);
	unlink(PATH_FIFO);
}

/* Start the parties of the mode.  0, or 1 on an error. */
static int start(void)
{
	int server_cpu = smp2 ? 1 : 0, lfd = -1, i;
	pid_t p, l1, l2;

	np = 0;
	cleanup();
	umask(0);
	switch (mode) {
	case M_READER:
		/* pids: attacker, bystander, server */
		if (is_fifo() ? mkfifo(PATH_FIFO, 0666) :
				(lfd = unix_listen(PATH_SOCK)) < 0)
			return 1;
		l2 = child(0, UID_OTHER, 0);
		if (!l2)
			spin();
		econ_msleep(200);
		p = child(server_cpu, UID_NOBODY, 0);
		if (!p)
			reader_server(lfd);
		if (lfd >= 0)
			close(lfd);
		l1 = child(0, UID_ATTACKER, 0);
		if (!l1)
			reader_attacker();
		add(l1, "attacker");
		add(l2, "bystander");
		add(p, "server");
		nshare = 2;
		nready = 2;
		break;
	case M_LISTENERS:
		/* pids: S, loop, loop, worker, listeners */
		l1 = child(0, UID_NOBODY, 0);
		if (!l1)
			spin();
		l2 = child(0, UID_NOBODY, 0);
		if (!l2)
			spin();
		lfd = unix_listen(PATH_SOCK);
		if (lfd < 0) {
			add(l1, "loop");
			add(l2, "loop");
			return 1;
		}
		p = child(0, -1, 0);
		if (!p)
			listeners_server(lfd);
		close(lfd);
		add(p, "S");
		add(l1, "loop 1");
		add(l2, "loop 2");
		econ_msleep(200);
		p = child(0, UID_ATTACKER, 0);
		if (!p)
			listeners_worker();
		add(p, "worker");
		for (i = 0; i < nlisteners; i++) {
			p = child(0, UID_OTHER, 0);
			if (!p)
				listeners_listener(i);
			add(p, "listener");
		}
		nshare = 3;
		nready = 1 + nlisteners;
		break;
	case M_BILL:
		/* pids: D, loop, loop, W */
		if (mkfifo(PATH_FIFO, 0666))
			return 1;
		l1 = child(0, UID_OTHER, 0);
		if (!l1)
			spin();
		l2 = child(0, UID_OTHER, 0);
		if (!l2)
			spin();
		econ_msleep(200);
		p = child(0, -1, 0);
		if (!p)
			bill_daemon();
		add(p, "daemon");
		add(l1, "loop 1");
		add(l2, "loop 2");
		p = child(0, UID_NOBODY, 1);
		if (!p)
			bill_writer();
		add(p, "writer");
		nshare = 3;
		nready = 2;
		break;
	}
	for (i = 0; atomic_load(&sh->ready) < nready && i < 10000; i++)
		econ_msleep(1);
	if (atomic_load(&sh->ready) < nready || waitpid(-1, NULL, WNOHANG) > 0) {
		printf("not ok: setup: %d of %d parties ready\n",
		       atomic_load(&sh->ready), nready);
		return 1;
	}
	return 0;
}

static void print_books(const char *when)
{
	static const char * const keys[] = {
		"donations", "donate_refused_other_user", "donate_no_target",
		"donate_skipped_uncontended", "held_weight",
	};
	unsigned int i;

	printf("# books %s:", when);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		long long v = econ_book(keys[i]);

		if (v != LLONG_MIN)
			printf(" %s %lld", keys[i], v);
	}
	printf("\n");
}

struct result {
	double share;		/* median of the windows' figure, % */
	double cpu;		/* pids[0]'s median CPU, % of one CPU */
	long long wmin, wmax;	/* pids[0]'s weight sampled, over all windows */
	double wmed;		/* ... its median */
	double below;		/* % of the samples below 1024 */
};

static int segment(int on, struct result *r)
{
	static double wsamples[MAXWIN * 1000];
	double share[MAXWIN], cpu[MAXWIN];
	long long t0[MAXP], d[MAXP];
	int i, k, nw = 0, nbelow = 0;

	if (econ_write_knob("sched_economy", on ? "1" : "0")) {
		printf("not ok: cannot switch the economy %s\n", on ? "on" : "off");
		return 1;
	}
	memset(sh, 0, sizeof(*sh));
	if (start()) {
		econ_kill(pids, np);
		cleanup();
		return 1;
	}
	econ_msleep(warm_ms);
	r->wmin = LLONG_MAX;
	r->wmax = 0;
	for (k = 0; k < windows; k++) {
		long long sum = 0, t, t1, end, a0 = 0, b0 = 0;
		char extra[160] = "";

		switch (mode) {
		case M_READER:
			a0 = atomic_load(&sh->written);
			b0 = atomic_load(&sh->polls);
			break;
		case M_LISTENERS:
			a0 = atomic_load(&sh->done);
			break;
		case M_BILL:
			a0 = atomic_load(&sh->records);
			b0 = atomic_load(&sh->wrote);
			break;
		}
		/*
		 * The time of a read of every party's CPU time is the middle
		 * of the reads: a heavy S can preempt the reader between them.
		 */
		t = econ_now_ns();
		for (i = 0; i < np; i++)
			t0[i] = econ_cpu_ns(pids[i]);
		t = (t + econ_now_ns()) / 2;
		end = t + secs * 1000000000LL;
		while (econ_now_ns() < end) {
			long long w;

			econ_msleep(SAMPLE_MS);
			w = econ_task_weight(pids[0]);
			if (w <= 0 || nw >= (int)(sizeof(wsamples) / sizeof(wsamples[0])))
				continue;
			wsamples[nw++] = w;
			nbelow += w < 1024;
			if (w < r->wmin)
				r->wmin = w;
			if (w > r->wmax)
				r->wmax = w;
		}
		t1 = econ_now_ns();
		for (i = 0; i < np; i++)
			d[i] = econ_cpu_ns(pids[i]) - t0[i];
		t = (t1 + econ_now_ns()) / 2 - t;
		for (i = 0; i < nshare; i++)
			sum += d[i];
		share[k] = sum > 0 ? 100.0 * d[0] / sum : 0;
		cpu[k] = 100.0 * d[0] / t;
		switch (mode) {
		case M_READER:
			snprintf(extra, sizeof(extra),
				 "; server ran %.2f %% of a CPU, wrote %lld bytes, polled %lld times",
				 100.0 * d[2] / t, atomic_load(&sh->written) - a0,
				 atomic_load(&sh->polls) - b0);
			break;
		case M_LISTENERS: {
			long long ln = 0;

			for (i = 4; i < np; i++)
				ln += d[i];
			snprintf(extra, sizeof(extra),
				 "; loops %.1f / %.1f %%; worker %.2f %%, listeners %.2f %% of a CPU; %lld requests done",
				 sum ? 100.0 * d[1] / sum : 0, sum ? 100.0 * d[2] / sum : 0,
				 100.0 * d[3] / t, 100.0 * ln / t,
				 atomic_load(&sh->done) - a0);
			break;
		}
		case M_BILL:
			snprintf(extra, sizeof(extra),
				 "; loops %.1f / %.1f %%; writer %.3f %% of a CPU; %lld records read, %lld written",
				 sum ? 100.0 * d[1] / sum : 0, sum ? 100.0 * d[2] / sum : 0,
				 100.0 * d[3] / t, atomic_load(&sh->records) - a0,
				 atomic_load(&sh->wrote) - b0);
			break;
		}
		printf("# economy %s window %d: %s %.1f %% of the %d (%.1f %% of a CPU)%s\n",
		       on ? "on" : "off", k, pnames[0], share[k], nshare, cpu[k],
		       extra);
	}
	r->share = econ_median(share, windows);
	r->cpu = econ_median(cpu, windows);
	if (nw) {
		/* econ_median() sorts a copy of at most 64: sort here. */
		qsort(wsamples, nw, sizeof(*wsamples), econ_cmp_double);
		r->wmed = nw % 2 ? wsamples[nw / 2] :
			(wsamples[nw / 2 - 1] + wsamples[nw / 2]) / 2;
		r->below = 100.0 * nbelow / nw;
	} else {
		r->wmin = r->wmax = -1;
		r->wmed = -1;
		r->below = 0;
	}
	printf("# economy %s: %s se.load.weight sampled every %d ms: median %.0f, min %lld, max %lld, %.1f %% of %d samples below 1024\n",
	       on ? "on" : "off", pnames[0], SAMPLE_MS, r->wmed, r->wmin,
	       r->wmax, r->below, nw);
	if (mode == M_READER)
		printf("# economy %s: the server wrote %ld bytes in all, polled %ld times\n",
		       on ? "on" : "off", atomic_load(&sh->written),
		       atomic_load(&sh->polls));
	print_books(on ? "with the economy on" : "with the economy off");
	econ_kill(pids, np);
	cleanup();
	return 0;
}

int main(int argc, char **argv)
{
	int loaded = 0, opt, i, ret = 0, fail = 0;
	struct result res[2];
	char label[64];

	while ((opt = getopt(argc, argv, "m:t:2n:b:w:s:u:A")) != -1) {
		switch (opt) {
		case 'm':
			for (i = 0; i < 3 && strcmp(optarg, mnames[i]); i++)
				;
			if (i == 3) {
				fprintf(stderr, "victim: unknown mode %s\n", optarg);
				return 2;
			}
			mode = i;
			break;
		case 't': tname = optarg; break;
		case '2': smp2 = 1; break;
		case 'n': nlisteners = atoi(optarg); break;
		case 'A': ack = 1; break;
		case 'b': burn_us = atol(optarg); break;
		case 'w': windows = atoi(optarg); break;
		case 's': secs = atoi(optarg); break;
		case 'u': warm_ms = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: see the top of victim.c\n");
			return 2;
		}
	}
	if (!tname)
		tname = mode == M_LISTENERS ? "recv" : "stream";
	if (burn_us < 0)
		burn_us = mode == M_BILL ? 20000 : 2000;
	if ((mode == M_READER && strcmp(tname, "stream") && !is_fifo() &&
	     !is_poll()) ||
	    (mode == M_LISTENERS && strcmp(tname, "recv") && strcmp(tname, "poll")) ||
	    (smp2 && mode != M_READER)) {
		fprintf(stderr, "victim: bad -t or -2 for -m %s\n", mnames[mode]);
		return 2;
	}
	if (windows < 1 || windows > MAXWIN || secs < 1 || warm_ms < 0 ||
	    nlisteners < 1 || nlisteners > MAXL || burn_us < 1) {
		fprintf(stderr, "victim: bad -w, -s, -u, -n or -b\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	parent = getpid();
	if (geteuid()) {
		printf("# SKIP: needs root\n");
		return 4;
	}
	if (smp2 && sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("# SKIP: -2 needs 2 CPUs\n");
		return 4;
	}
	ret = econ_need_module(&loaded);
	if (ret)
		return ret;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	snprintf(label, sizeof(label), "-m %s -t %s%s", mnames[mode], tname,
		 smp2 ? " -2" : "");
	if (mode == M_LISTENERS)
		snprintf(label + strlen(label), sizeof(label) - strlen(label),
			 " -n %d", nlisteners);
	if (mode == M_BILL)
		snprintf(label, sizeof(label), "-m bill -b %ld", burn_us);
	printf("# victim %s: %s, %d windows of %d s after %d ms, %ld us of CPU per request/record\n",
	       label, smp2 ? "2 vCPUs" : "1 vCPU", windows, secs, warm_ms,
	       burn_us);
	for (i = 0; i < 2 && !ret; i++)
		ret = segment(i, &res[i]);
	econ_write_knob("sched_economy", "0");
	print_books("after off");
	if (loaded && system("rmmod sched_economy"))
		printf("# rmmod sched_economy failed\n");
	if (ret)
		return ret;

	printf("victim: %s off %s %.1f %% (weight %.0f) on %s %.1f %% (weight median %.0f, min %lld, max %lld)\n",
	       label, pnames[0], res[0].share, res[0].wmed, pnames[0],
	       res[1].share, res[1].wmed, res[1].wmin, res[1].wmax);
	switch (mode) {
	case M_READER:
	case M_LISTENERS:
		printf("# fair: %s's share off; bar: on at most %.0f pp above it\n",
		       pnames[0], BAR_PP);
		if (res[1].share - res[0].share > BAR_PP) {
			printf("not ok: victim %s: %s's share rose %+.1f pp with the economy on (se.load.weight %.0f)\n",
			       label, pnames[0], res[1].share - res[0].share,
			       res[1].wmed);
			fail = 1;
		}
		break;
	case M_BILL:
		printf("# fair: the daemon's share off and its own weight 1024; bars: on at most %.0f pp below, weight never below 1024\n",
		       BAR_PP);
		if (res[0].share - res[1].share > BAR_PP) {
			printf("not ok: victim %s: the daemon's share dropped %+.1f pp with the economy on\n",
			       label, res[1].share - res[0].share);
			fail = 1;
		}
		if (res[1].wmin < 1024) {
			printf("not ok: victim %s: the daemon's se.load.weight went down to %lld (below 1024 in %.1f %% of the samples)\n",
			       label, res[1].wmin, res[1].below);
			fail = 1;
		}
		break;
	}
	if (fail)
		return 1;
	printf("ok: victim %s\n", label);
	return 0;
}
