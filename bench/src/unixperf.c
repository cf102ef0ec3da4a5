// SPDX-License-Identifier: GPL-2.0
/*
 * unixperf - AF_UNIX stream round trip and bandwidth, for the overhead of
 * the economy's hooks (module absent, loaded but off, on), and the same
 * round trip through a futex (which the economy does not follow yet) and
 * through pipes (perf bench sched pipe), for comparison.
 *
 *   lat  lmbench's lat_unix: a socketpair, parent and child bounce one
 *        small message back and forth; reports ns per round trip
 *   futex  lat through one futex word in MAP_SHARED memory: a sequence,
 *        even while the parent's turn, odd while the child's; each side
 *        bumps it, FUTEX_WAKEs the other (always: as a pipe's write
 *        would, every hand-over is a syscall) and FUTEX_WAITs for its
 *        turn; reports ns per round trip
 *   pipe perf bench sched pipe: two pipes, parent and child bounce an int;
 *        reports ns per round trip
 *   epoll lat with both sides waiting in epoll_wait() before each read
 *        (an event loop's round trip; the parent's socket connect()ed, as
 *        a client's, the child's accept()ed); epoll10k: the same with the
 *        child's epoll also watching 10,000 idle connected sockets (a
 *        server with many idle clients and one active); reports ns per
 *        round trip
 *   eventfd  two eventfds, parent and child bounce a count; reports ns
 *        per round trip
 *   bw   the child writes --size bytes in --chunk writes, the parent reads
 *        them all; reports MB/s
 *   hack rt-tests' hackbench in process mode over AF_UNIX stream socket
 *        pairs (hackbench -s 100 -g 4 -f 5 -l 200 with the defaults):
 *        --groups groups of --fds senders and --fds receivers, every
 *        sender writes --loops messages of --msg bytes to every receiver
 *        of its group; reports the seconds from the start signal until
 *        the last child exits
 *   fanin --fds senders, each connected to one SOCK_DGRAM socket, send
 *        --loops messages of --msg bytes each to it; the parent reads
 *        them all (many senders into one account: X, journald); reports
 *        messages per second
 *
 * One run per invocation: the caller alternates the states between runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

static const char help_fmt[] =
"unixperf: AF_UNIX stream round trip (lmbench lat_unix) and bandwidth;\n"
"the round trip through a futex and through pipes.\n"
"\n"
"Usage: %s [options] lat|bw|hack|fanin|futex|pipe|epoll|epoll10k|eventfd\n"
"\n"
"  -n, --iterations N  round trips for lat, futex and pipe (default 5000)\n"
"  -s, --size MB       megabytes for bw (default 32)\n"
"  -b, --chunk BYTES   write size for bw (default 65536)\n"
"  -l, --label TEXT    printed in the CSV line (default \"-\")\n"
"  -g, --groups N      groups for hack (default 4)\n"
"  -f, --fds N         senders and receivers per group for hack (default 5),\n"
"                      senders for fanin\n"
"  -L, --loops N       messages per sender and receiver for hack and fanin\n"
"                      (default 200)\n"
"  -m, --msg BYTES     message size for hack and fanin (default 100)\n"
"  -h, --help          this text\n"
"\n"
"Prints \"UNIXPERF_CSV TEST,LABEL,value\"\n"
"(ns per round trip, MB/s, seconds, messages/s, ns per round trip, ns per\n"
"round trip).\n";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int full_io(int fd, char *buf, size_t len, int wr)
{
	ssize_t n;

	while (len) {
		n = wr ? write(fd, buf, len) : read(fd, buf, len);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

static double lat(long iters)
{
	char msg[1] = { 'x' };
	int sv[2], status;
	double t0, t1;
	pid_t pid;
	long i;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	pid = fork();
	if (!pid) {
		close(sv[0]);
		while (read(sv[1], msg, 1) == 1)
			if (write(sv[1], msg, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(sv[1]);
	/* warm up */
	for (i = 0; i < 100; i++)
		if (full_io(sv[0], msg, 1, 1) || full_io(sv[0], msg, 1, 0))
			return -1;
	t0 = now();
	for (i = 0; i < iters; i++)
		if (full_io(sv[0], msg, 1, 1) || full_io(sv[0], msg, 1, 0))
			return -1;
	t1 = now();
	close(sv[0]);
	waitpid(pid, &status, 0);
	return (t1 - t0) * 1e9 / iters;
}

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* Hand the turn over: @seq from @val to @val + 1, and wake the other side. */
static void futex_pass(uint32_t *seq, uint32_t val)
{
	__atomic_store_n(seq, val + 1, __ATOMIC_SEQ_CST);
	futex(seq, FUTEX_WAKE, 1);
}

/* Sleep while @seq is @val: until the other side has passed the turn back. */
static void futex_await(uint32_t *seq, uint32_t val)
{
	while (__atomic_load_n(seq, __ATOMIC_SEQ_CST) == val)
		futex(seq, FUTEX_WAIT, val);
}

/*
 * The round trip of lat through a futex: shared memory (MAP_SHARED, so the
 * futex is a shared one, keyed by page, as between processes it must be).
 */
static double futex_lat(long iters)
{
	uint32_t *shm, v = 0;
	int status;
	double t0 = 0, t1;
	pid_t pid;
	long i;

	shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		   -1, 0);
	if (shm == MAP_FAILED)
		return -1;
	/* shm[0]: the sequence; shm[1]: set when the parent is done */
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		for (;;) {
			futex_await(&shm[0], v);	/* v even: the parent's turn */
			if (__atomic_load_n(&shm[1], __ATOMIC_SEQ_CST))
				_exit(0);
			v = __atomic_load_n(&shm[0], __ATOMIC_SEQ_CST);
			futex_pass(&shm[0], v);
			v++;
		}
	}
	/* 100 round trips of warm-up, then the timed ones */
	for (i = -100; i < iters; i++) {
		if (!i)
			t0 = now();
		futex_pass(&shm[0], v);
		futex_await(&shm[0], v + 1);
		v += 2;
	}
	t1 = now();
	__atomic_store_n(&shm[1], 1, __ATOMIC_SEQ_CST);
	futex_pass(&shm[0], v);
	waitpid(pid, &status, 0);
	munmap(shm, 4096);
	return (t1 - t0) * 1e9 / iters;
}

/* perf bench sched pipe: an int back and forth over two pipes. */
static double pipe_lat(long iters)
{
	int to_child[2], to_parent[2], status, m = 0;
	double t0 = 0, t1;
	pid_t pid;
	long i;

	if (pipe(to_child) || pipe(to_parent))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(to_child[1]);
		close(to_parent[0]);
		while (read(to_child[0], &m, sizeof(m)) == sizeof(m))
			if (write(to_parent[1], &m, sizeof(m)) != sizeof(m))
				_exit(1);
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	for (i = -100; i < iters; i++) {
		if (!i)
			t0 = now();
		if (full_io(to_child[1], (char *)&m, sizeof(m), 1) ||
		    full_io(to_parent[0], (char *)&m, sizeof(m), 0))
			return -1;
	}
	t1 = now();
	close(to_child[1]);	/* the child reads the end and exits */
	close(to_parent[0]);
	waitpid(pid, &status, 0);
	return (t1 - t0) * 1e9 / iters;
}

/* Wait in epoll_wait() on @ep until @fd is readable, then read @len. */
static int epoll_read(int ep, int fd, char *buf, size_t len)
{
	struct epoll_event ev;

	if (epoll_wait(ep, &ev, 1, -1) != 1)
		return -1;
	return full_io(fd, buf, len, 0);
}

/*
 * lat over a connect()ed pair, both sides waiting in epoll_wait(); the
 * child's epoll also watches @idle idle connected sockets.
 */
static double epoll_lat(long iters, int idle)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int lfd, c, s, ep, status, i, *idles = NULL;
	struct epoll_event ev = { .events = EPOLLIN };
	double t0 = 0, t1;
	char m = 'x';
	pid_t pid;
	long k;

	/* abstract: nothing to clean up */
	snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "unixperf-%d", getpid());
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(lfd, 16))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		s = accept(lfd, NULL, NULL);
		ep = epoll_create1(0);
		if (idle) {
			struct rlimit rl = { 2 * idle + 64, 2 * idle + 64 };
			int sv[2];

			/* without the privilege, as many as the hard limit allows */
			if (setrlimit(RLIMIT_NOFILE, &rl) &&
			    (getrlimit(RLIMIT_NOFILE, &rl) ||
			     (rl.rlim_cur = rl.rlim_max,
			      setrlimit(RLIMIT_NOFILE, &rl))))
				_exit(1);
			if (2 * idle + 64 > (int)rl.rlim_cur)
				idle = ((int)rl.rlim_cur - 64) / 2;
			fprintf(stderr, "# epoll10k: %d idle sockets\n", idle);

			idles = calloc(2 * idle, sizeof(*idles));
			for (i = 0; idles && i < idle; i++) {
				if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
					_exit(1);
				idles[2 * i] = sv[0];
				idles[2 * i + 1] = sv[1];
				ev.data.fd = sv[0];
				epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &ev);
			}
		}
		ev.data.fd = s;
		if (s < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev))
			_exit(1);
		while (!epoll_read(ep, s, &m, 1))
			if (full_io(s, &m, 1, 1))
				_exit(1);
		_exit(0);
	}
	close(lfd);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	ep = epoll_create1(0);
	if (c < 0 || ep < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	ev.data.fd = c;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev))
		return -1;
	for (k = -100; k < iters; k++) {
		if (!k)
			t0 = now();
		if (full_io(c, &m, 1, 1) || epoll_read(ep, c, &m, 1))
			return -1;
	}
	t1 = now();
	close(c);	/* the child reads the end and exits */
	waitpid(pid, &status, 0);
	return (t1 - t0) * 1e9 / iters;
}

/* An eventfd each way: a count back and forth. */
static double eventfd_lat(long iters)
{
	int to_child = eventfd(0, 0), to_parent = eventfd(0, 0), status;
	uint64_t v = 1;
	double t0 = 0, t1;
	pid_t pid;
	long k;

	if (to_child < 0 || to_parent < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		for (;;) {
			if (read(to_child, &v, sizeof(v)) != sizeof(v))
				_exit(1);
			if (v > 1)	/* the parent's end */
				_exit(0);
			if (write(to_parent, &v, sizeof(v)) != sizeof(v))
				_exit(1);
		}
	}
	for (k = -100; k < iters; k++) {
		if (!k)
			t0 = now();
		v = 1;
		if (write(to_child, &v, sizeof(v)) != sizeof(v) ||
		    read(to_parent, &v, sizeof(v)) != sizeof(v))
			return -1;
	}
	t1 = now();
	v = 2;
	if (write(to_child, &v, sizeof(v)) != sizeof(v))
		return -1;
	waitpid(pid, &status, 0);
	return (t1 - t0) * 1e9 / iters;
}

static double bw(long mb, long chunk)
{
	long total = mb << 20, left;
	int sv[2], status;
	double t0, t1;
	char *buf;
	ssize_t n;
	pid_t pid;

	buf = calloc(1, chunk);
	if (!buf || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -1;
	pid = fork();
	if (!pid) {
		close(sv[0]);
		for (left = total; left > 0; left -= chunk)
			if (full_io(sv[1], buf, left < chunk ? left : chunk, 1))
				_exit(1);
		_exit(0);
	}
	close(sv[1]);
	t0 = now();
	for (left = total; left > 0; left -= n) {
		n = read(sv[0], buf, chunk);
		if (n <= 0)
			return -1;
	}
	t1 = now();
	close(sv[0]);
	waitpid(pid, &status, 0);
	free(buf);
	return total / (t1 - t0) / 1e6;
}

/* Forks a child that waits for @start to close, then runs @fn. */
static pid_t hack_child(int start[2], int (*fn)(int, int, int, long),
			int a, int b, int c, long d)
{
	pid_t pid = fork();
	char x;

	if (pid)
		return pid;
	close(start[1]);
	if (read(start[0], &x, 1) != 0)
		_exit(1);
	_exit(fn(a, b, c, d));
}

static int hack_receive(int fd, int nfds, int size, long loops)
{
	char buf[512];
	long left = (long)nfds * loops * size;
	ssize_t n;

	while (left > 0) {
		n = read(fd, buf, left < (long)sizeof(buf) ? left : (long)sizeof(buf));
		if (n <= 0)
			return 1;
		left -= n;
	}
	return 0;
}

/* @first is the first of @nfds receiving fds, numbered consecutively. */
static int hack_send(int first, int nfds, int size, long loops)
{
	char buf[512] = { 0 };
	long i;
	int j;

	for (i = 0; i < loops; i++)
		for (j = 0; j < nfds; j++)
			if (full_io(first + j, buf, size, 1))
				return 1;
	return 0;
}

static double hack(int groups, int nfds, int size, long loops)
{
	int start[2], status, g, i, fail = 0, fds[64];
	pid_t kids[2 * 64 * 16];
	int nkids = 0, sv[2];
	double t0, t1;

	if (groups > 16 || nfds > 64 || size > 512 || pipe(start))
		return -1;
	for (g = 0; g < groups; g++) {
		for (i = 0; i < nfds; i++) {
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
				return -1;
			kids[nkids++] = hack_child(start, hack_receive, sv[0],
						   nfds, size, loops);
			close(sv[0]);
			fds[i] = sv[1];
		}
		/* Consecutive numbers for the senders: dup them above 1000. */
		for (i = 0; i < nfds; i++) {
			if (dup2(fds[i], 1000 + i) < 0)
				return -1;
			close(fds[i]);
		}
		for (i = 0; i < nfds; i++)
			kids[nkids++] = hack_child(start, hack_send, 1000, nfds,
						   size, loops);
		for (i = 0; i < nfds; i++)
			close(1000 + i);
	}
	close(start[0]);
	t0 = now();
	close(start[1]);
	for (i = 0; i < nkids; i++)
		if (waitpid(kids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail = 1;
	t1 = now();
	return fail ? -1 : t1 - t0;
}

static int fanin_send(int fd, int unused, int size, long loops)
{
	char buf[512] = { 0 };
	long i;

	(void)unused;
	for (i = 0; i < loops; i++)
		if (send(fd, buf, size, 0) != size)
			return 1;
	return 0;
}

/* @nfds senders into one datagram socket; messages per second. */
static double fanin(int nfds, int size, long loops)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int start[2], status, i, rfd, fd, fail = 0;
	long left = (long)nfds * loops;
	pid_t kids[64];
	char buf[512];
	double t0, t1;

	/* Abstract name, unique per run. */
	snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1,
		 "unixperf-fanin-%d", getpid());
	rfd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (rfd < 0 || bind(rfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    pipe(start))
		return -1;
	for (i = 0; i < nfds; i++) {
		fd = socket(AF_UNIX, SOCK_DGRAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
			return -1;
		kids[i] = hack_child(start, fanin_send, fd, 0, size, loops);
		close(fd);
	}
	close(start[0]);
	t0 = now();
	close(start[1]);
	while (left > 0 && recv(rfd, buf, sizeof(buf), 0) > 0)
		left--;
	t1 = now();
	for (i = 0; i < nfds; i++)
		if (waitpid(kids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail = 1;
	close(rfd);
	return fail || left ? -1 : (double)nfds * loops / (t1 - t0);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "iterations",	required_argument, NULL, 'n' },
		{ "size",	required_argument, NULL, 's' },
		{ "chunk",	required_argument, NULL, 'b' },
		{ "label",	required_argument, NULL, 'l' },
		{ "groups",	required_argument, NULL, 'g' },
		{ "fds",	required_argument, NULL, 'f' },
		{ "loops",	required_argument, NULL, 'L' },
		{ "msg",	required_argument, NULL, 'm' },
		{ "help",	no_argument,	   NULL, 'h' },
		{}
	};
	long iters = 5000, mb = 32, chunk = 65536, loops = 200;
	int groups = 4, nfds = 5, msg = 100;
	const char *label = "-";
	double v;
	int c;

	while ((c = getopt_long(argc, argv, "n:s:b:l:g:f:L:m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': iters = atol(optarg); break;
		case 's': mb = atol(optarg); break;
		case 'b': chunk = atol(optarg); break;
		case 'l': label = optarg; break;
		case 'g': groups = atoi(optarg); break;
		case 'f': nfds = atoi(optarg); break;
		case 'L': loops = atol(optarg); break;
		case 'm': msg = atoi(optarg); break;
		case 'h':
			printf(help_fmt, argv[0]);
			return 0;
		default:
			fprintf(stderr, help_fmt, argv[0]);
			return 2;
		}
	}
	if (optind != argc - 1 || iters < 1 || mb < 1 || chunk < 1 ||
	    groups < 1 || groups > 16 || nfds < 1 || nfds > 64 || loops < 1 ||
	    msg < 1 || msg > 512) {
		fprintf(stderr, help_fmt, argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(argv[optind], "lat")) {
		v = lat(iters);
		if (v < 0)
			return 1;
		printf("UNIXPERF_CSV lat,%s,%.0f\n", label, v);
	} else if (!strcmp(argv[optind], "bw")) {
		v = bw(mb, chunk);
		if (v < 0)
			return 1;
		printf("UNIXPERF_CSV bw,%s,%.1f\n", label, v);
	} else if (!strcmp(argv[optind], "hack")) {
		v = hack(groups, nfds, msg, loops);
		if (v < 0)
			return 1;
		printf("UNIXPERF_CSV hack,%s,%.4f\n", label, v);
	} else if (!strcmp(argv[optind], "fanin")) {
		v = fanin(nfds, msg, loops);
		if (v < 0)
			return 1;
		printf("UNIXPERF_CSV fanin,%s,%.0f\n", label, v);
	} else if (!strcmp(argv[optind], "futex")) {
		v = futex_lat(iters);
		if (v < 0)
			return 1;
		printf("UNIXPERF_CSV futex,%s,%.0f\n", label, v);
	} else if (!strcmp(argv[optind], "pipe")) {
		v = pipe_lat(iters);
		if (v < 0)
			return 1;
		printf("UNIXPERF_CSV pipe,%s,%.0f\n", label, v);
	} else if (!strcmp(argv[optind], "epoll") ||
		   !strcmp(argv[optind], "epoll10k")) {
		int idle = strcmp(argv[optind], "epoll") ? 10000 : 0;

		v = epoll_lat(iters, idle);
		if (v < 0)
			return 1;
		printf("UNIXPERF_CSV %s,%s,%.0f\n", argv[optind], label, v);
	} else if (!strcmp(argv[optind], "eventfd")) {
		v = eventfd_lat(iters);
		if (v < 0)
			return 1;
		printf("UNIXPERF_CSV eventfd,%s,%.0f\n", label, v);
	} else {
		fprintf(stderr, help_fmt, argv[0]);
		return 2;
	}
	return 0;
}
