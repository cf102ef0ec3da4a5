// SPDX-License-Identifier: GPL-2.0
/*
 * blocking_rpc - a client and its server that block where today's event
 * loops do, beside busy loops of another user: the coalition's CPU share
 * with the economy off and on, against the share the economy's rule
 * gives it.
 *
 *   -t epoll    the server is an epoll loop on a named AF_UNIX socket;
 *               the client connect()s -c times and waits for replies in
 *               epoll_wait() (one request outstanding per connection: -c 1
 *               is a synchronous client, -c 8 a pipelining one); -T
 *               seqpacket makes the sockets SOCK_SEQPACKET
 *   -t eventfd  the client posts a request with a write to the server's
 *               eventfd and waits for the reply in a read of its own
 *   -t pi       two tasks take turns at a PI mutex (FUTEX_LOCK_PI),
 *               holding it for -S and -C us of CPU: one always waits for
 *               the other
 *   -t redis    Debian's redis-server on an AF_UNIX socket (an epoll loop)
 *               and its own benchmark client, redis-benchmark -c CONNS -t
 *               get (an epoll loop too); requests counted by the server's
 *               INFO (total_commands_processed)
 *   -t redis-cli  the same server and redis-cli -r, which waits for each
 *               reply in a blocking read()
 *   -t weston   Debian's weston, headless with its CPU renderer (pixman)
 *               and the desktop shell, and -c of its demo clients
 *               weston-presentation-shm -f, which draw a frame each time
 *               the last one was presented and wait for that in poll()
 *               on their connect()ed socket; weston waits in
 *               epoll_wait(). Requests are frames: the lines the clients
 *               print, one per frame, on a pty each
 *
 * The rule (docs/blocking-point.md): a client waiting for its server's
 * reply lends the server its weight. An epoll server waiting for requests
 * lends nothing; an eventfd's reader lends its weight to the writer of
 * record (of its own user), as a pipe's reader does, so the eventfd
 * client runs with the server's weight too; of two tasks taking turns at
 * a PI mutex one always waits for the other. With H busy loops of nice 0
 * a coalition of two nice-0 tasks gets 2/(H+2) of the CPU while one runs
 * with the other's weight and 1/(H+1) while it runs with its own alone.
 * While the server is runnable (the client waits for it, or runs beside
 * it) the coalition weighs two tasks; while it waits for requests the
 * client runs with its own weight alone (an epoll server gives nothing;
 * an eventfd's reader would give its writer, but the wakeup that ended
 * the other's wait makes it a cycle with it: the other's record names it
 * until it runs, docs/blocking-point.md). From the part r of the time the
 * server was runnable with the economy on (schedstat's run and queue
 * time), the expected share is
 *
 *     r 2/(H+2) + (1-r) 1/(H+1)
 *
 * For pi r is 1: of two takers one always waits for the other, and the
 * taker handed the lock waits for nobody (its woken record ends a lock
 * waiter's cycle check), so the pair always weighs two tasks. A client
 * that does not block as it waits (fewer than one
 * voluntary switch in 20 requests: it polls, as redis-benchmark's event
 * loop does) waits for nobody the kernel can name: nothing moves, and
 * the coalition is expected at its share with the economy off.
 *
 * With several clients (weston) the time splits into more states, so the
 * test samples them: every 5-15 ms (at random, not to beat with the
 * tick) it reads the state of the server and of each client. With s = 1
 * if the server is runnable, m clients runnable and k asleep (waiting
 * for their frame), the coalition weighs m + s with the economy off and
 * m + s (1 + k) by the rule, and gets W / (W + H) of the CPU; the
 * expected shares are the means over the samples of the segment. The
 * off prediction is checked too (same bar): a model that cannot tell
 * the share without the economy cannot tell it with.
 *
 * A check fails if the coalition is more than -d pp from it, or a busy
 * loop more than 1 pp above its part of the rest. Modes alternate, fresh
 * processes per segment; the shares are medians of -w windows of -u ms
 * each, from /proc/PID/schedstat.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <termios.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "econ_test.h"

#define REQ		16
#define MAX_CONNS	16
#define MAX_HOGS	16
#define MAX_WIN		32
#define SOCK_NAME	"blocking_rpc"
#define REDIS_SOCK	"/tmp/blocking_rpc-redis.sock"
#define WESTON_DIR	"/tmp/blocking_rpc-xdg"
#define WESTON_SOCK	"blocking_rpc-wayland"
#define WESTON_INI	WESTON_DIR "/weston.ini"

enum kind { K_EPOLL, K_EVENTFD, K_PI, K_REDIS, K_REDIS_CLI, K_WESTON,
	    NR_KINDS };
enum transport { T_STREAM, T_SEQPACKET, NR_TRANSPORTS };
static const char * const transport_names[] = { "stream", "seqpacket" };

static struct {
	enum kind kind;
	enum transport transport;
	int conns, hogs, server_us, client_us, windows, window_ms, rounds;
	double within;
	uid_t hog_uid;
	const char *modes;
} opt = { K_EPOLL, T_STREAM, 1, 5, 300, 300, 5, 2000, 1, 2.0, 1000,
	    "off,economy" };

/* Shared with the children: requests served, and the PI mutex. */
static struct shared {
	volatile long served;
	pthread_mutex_t lock;
	volatile int go;
} *shm;

static void burn_us(int us)
{
	struct timespec t;
	long long end, now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	end = t.tv_sec * 1000000000LL + t.tv_nsec + us * 1000LL;
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
		now = t.tv_sec * 1000000000LL + t.tv_nsec;
	} while (now < end);
}

static void die(const char *what)
{
	perror(what);
	_exit(111);
}

static int full_read(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		got += r;
	}
	return 0;
}

/* The epoll pair's socket: -T stream or seqpacket, AF_UNIX. */
static int rpc_socket(struct sockaddr_storage *a, socklen_t *len)
{
	struct sockaddr_un *u = (struct sockaddr_un *)a;

	memset(a, 0, sizeof(*a));
	u->sun_family = AF_UNIX;
	/* abstract: nothing to clean up */
	memcpy(u->sun_path + 1, SOCK_NAME, strlen(SOCK_NAME));
	*len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(SOCK_NAME);
	return socket(AF_UNIX, opt.transport == T_SEQPACKET ? SOCK_SEQPACKET :
		      SOCK_STREAM, 0);
}

/* The epoll server: one loop, one request of a ready connection at a time. */
static void epoll_server(int lfd)
{
	struct epoll_event ev, evs[MAX_CONNS + 1];
	int ep = epoll_create1(0), i, n;
	char req[REQ];

	ev.events = EPOLLIN;
	ev.data.fd = lfd;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev))
		die("epoll");
	for (;;) {
		n = epoll_wait(ep, evs, MAX_CONNS + 1, -1);
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == lfd) {
				int c = accept(lfd, NULL, NULL);

				if (c < 0)
					die("accept");
				ev.events = EPOLLIN;
				ev.data.fd = c;
				epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
				continue;
			}
			if (full_read(fd, req, REQ))
				_exit(0);
			burn_us(opt.server_us);
			if (write(fd, req, REQ) != REQ)
				_exit(0);
			__sync_fetch_and_add(&shm->served, 1);
		}
	}
}

/* The epoll client: -c connections, one request outstanding on each. */
static void epoll_client(void)
{
	struct epoll_event ev, evs[MAX_CONNS];
	int ep = epoll_create1(0), fds[MAX_CONNS], i, n;
	struct sockaddr_storage a;
	char req[REQ] = "request";
	socklen_t len;

	for (i = 0; i < opt.conns; i++) {
		fds[i] = rpc_socket(&a, &len);
		while (connect(fds[i], (struct sockaddr *)&a, len))
			econ_msleep(10);
		ev.events = EPOLLIN;
		ev.data.fd = fds[i];
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev))
			die("epoll_ctl");
		if (write(fds[i], req, REQ) != REQ)
			die("write");
	}
	for (;;) {
		n = epoll_wait(ep, evs, MAX_CONNS, -1);
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (full_read(fd, req, REQ))
				_exit(0);
			burn_us(opt.client_us);
			if (write(fd, req, REQ) != REQ)
				_exit(0);
		}
	}
}

/* eventfd: requests on @req (client writes, server reads), replies on @rep. */
static void eventfd_server(int req, int rep)
{
	uint64_t v;

	for (;;) {
		if (read(req, &v, sizeof(v)) != sizeof(v))
			_exit(0);
		burn_us(opt.server_us);
		v = 1;
		if (write(rep, &v, sizeof(v)) != sizeof(v))
			_exit(0);
		__sync_fetch_and_add(&shm->served, 1);
	}
}

static void eventfd_client(int req, int rep)
{
	uint64_t v = 1;

	for (;;) {
		if (write(req, &v, sizeof(v)) != sizeof(v) ||
		    read(rep, &v, sizeof(v)) != sizeof(v))
			_exit(0);
		burn_us(opt.client_us);
		v = 1;
	}
}

/* A PI mutex (FUTEX_LOCK_PI) shared by fork. */
static void pi_lock_init(void)
{
	pthread_mutexattr_t ma;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	if (pthread_mutex_init(&shm->lock, &ma))
		die("pthread_mutex_init");
}

/* pi: hold the lock for @us of CPU, let go, take it again. */
static void pi_taker(int us, int count)
{
	for (;;) {
		pthread_mutex_lock(&shm->lock);
		burn_us(us);
		pthread_mutex_unlock(&shm->lock);
		if (count)
			__sync_fetch_and_add(&shm->served, 1);
	}
}

static pid_t spawn(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	econ_pin(0, 0);
	fn(arg);
	_exit(0);
}

static void redis_server(void)
{
	execlp("redis-server", "redis-server", "--port", "0", "--unixsocket",
	       REDIS_SOCK, "--save", "", "--appendonly", "no", "--loglevel",
	       "warning", (char *)NULL);
	die("redis-server");
}

static void redis_client(void)
{
	char conns[16];

	snprintf(conns, sizeof(conns), "%d", opt.conns);
	/* redis-cli prints every reply: the console would take the CPU */
	if (!freopen("/dev/null", "w", stdout))
		die("/dev/null");
	if (opt.kind == K_REDIS_CLI)
		execlp("redis-cli", "redis-cli", "-s", REDIS_SOCK, "-r",
		       "1000000000", "GET", "k", (char *)NULL);
	else
		execlp("redis-benchmark", "redis-benchmark", "-s", REDIS_SOCK,
		       "-c", conns, "-n", "1000000000", "-t", "get", "-q",
		       (char *)NULL);
	die("redis client");
}

/* The commands the redis server has processed, from INFO; -1 if none. */
static long long redis_commands(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	static char buf[8192];
	long long n = -1;
	int fd, got = 0, r;
	char *p;

	strcpy(a.sun_path, REDIS_SOCK);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(fd, "INFO stats\r\n", 12) != 12)
		goto out;
	while (got < (int)sizeof(buf) - 1) {
		r = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (r <= 0)
			break;
		got += r;
		buf[got] = 0;
		p = strstr(buf, "total_commands_processed:");
		if (p && strchr(p, '\n')) {
			n = atoll(p + strlen("total_commands_processed:"));
			break;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	return n;
}

/* The CPU time of every thread of @pid, in ns. */
static long long process_cpu_ns(pid_t pid)
{
	char path[320];
	long long sum = 0, v;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return econ_cpu_ns(pid);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", pid,
			 d->d_name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%lld", &v) == 1)
			sum += v;
		if (f)
			fclose(f);
	}
	closedir(dir);
	return sum;
}

static int redis_up(void)
{
	int k;

	for (k = 0; k < 3000; k++) {
		if (redis_commands() >= 0)
			return 0;
		econ_msleep(10);
	}
	return -1;
}

/*
 * weston: the compositor in WESTON_DIR (XDG_RUNTIME_DIR), without the
 * on-screen keyboard it would respawn (not in the guest), the idle
 * timeout that would blank the output, and the panel and background
 * image the shell's helper would take seconds of TCG to draw.
 */
static void weston_server(void)
{
	FILE *f = fopen(WESTON_INI, "w");

	if (!f || fputs("[core]\nidle-time=0\n[input-method]\npath=\n"
			"[shell]\npanel-position=none\nbackground-image=\n"
			"background-color=0xff203040\n", f) < 0 || fclose(f))
		die(WESTON_INI);
	setenv("XDG_RUNTIME_DIR", WESTON_DIR, 1);
	if (!freopen("/dev/null", "w", stdout) ||
	    !freopen("/dev/null", "w", stderr))
		die("/dev/null");
	execlp("weston", "weston", "--backend=headless-backend.so",
	       "--use-pixman", "--socket=" WESTON_SOCK,
	       "--config=" WESTON_INI,
	       "--log=" WESTON_DIR "/weston.log", (char *)NULL);
	die("weston");
}

/* The masters of the clients' ptys: they print a line per frame there. */
static int pty_master[MAX_CONNS];
static long long frames;

/* A client's pty: a terminal makes stdio flush every line. */
static int weston_pty(int i)
{
	struct termios t;
	/* close-on-exec: no client, nor weston, keeps another's master */
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (m < 0 || grantpt(m) || unlockpt(m))
		return -1;
	if (!tcgetattr(m, &t)) {
		cfmakeraw(&t);
		tcsetattr(m, TCSANOW, &t);
	}
	pty_master[i] = m;
	return 0;
}

static void weston_client(int i)
{
	int fd = open(ptsname(pty_master[i]), O_RDWR | O_NOCTTY);

	if (fd < 0 || dup2(fd, 1) < 0)
		die("pty");
	close(fd);
	if (!freopen("/dev/null", "w", stderr))
		die("/dev/null");
	setenv("XDG_RUNTIME_DIR", WESTON_DIR, 1);
	setenv("WAYLAND_DISPLAY", WESTON_SOCK, 1);
	execlp("weston-presentation-shm", "weston-presentation-shm", "-f",
	       (char *)NULL);
	die("weston-presentation-shm");
}

/* The frames the clients have printed so far. */
static long long weston_frames(void)
{
	char buf[4096];
	ssize_t n, j;
	int i;

	for (i = 0; i < opt.conns; i++)
		while ((n = read(pty_master[i], buf, sizeof(buf))) > 0)
			for (j = 0; j < n; j++)
				frames += buf[j] == '\n';
	return frames;
}

/* Wait until each of @n clients has drawn: 0, or -1 after 60 s. */
static int weston_drawing(int n)
{
	char buf[4096];
	int i, k, done, seen[MAX_CONNS] = { 0 };
	ssize_t r;

	for (k = 0; k < 6000; k++) {
		for (i = 0, done = 0; i < n; i++) {
			while ((r = read(pty_master[i], buf, sizeof(buf))) > 0)
				seen[i] = 1;
			done += seen[i];
		}
		if (done == n)
			return 0;
		econ_msleep(10);
	}
	return -1;
}

/* The clients' ptys closed; weston's socket gone, for weston_up(). */
static void weston_cleanup(int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(pty_master[i]);
	unlink(WESTON_DIR "/" WESTON_SOCK);
	unlink(WESTON_DIR "/" WESTON_SOCK ".lock");
}

static int weston_up(void)
{
	char path[128];
	int k;

	snprintf(path, sizeof(path), "%s/%s", WESTON_DIR, WESTON_SOCK);
	for (k = 0; k < 3000; k++) {
		if (!access(path, F_OK)) {
			econ_msleep(1000);	/* the shell's helper, its surfaces */
			return 0;
		}
		econ_msleep(10);
	}
	return -1;
}

/*
 * Every process whose parent is @ppid (weston's shell helper); @want, if
 * set, must be among them: 0 is returned until it is.
 */
static int children_of(pid_t ppid, const char *want, pid_t *out, int max)
{
	int found = !want;
	char path[300], comm[64], state;
	struct dirent *d;
	int n = 0, pp;
	DIR *dir = opendir("/proc");
	FILE *f;

	while (dir && (d = readdir(dir)) && n < max) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%*d (%63[^)]) %c %d", comm, &state, &pp) == 3 &&
		    pp == ppid) {
			out[n++] = atoi(d->d_name);
			found |= want && !strncmp(comm, want, strlen(want));
		}
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return found ? n : 0;
}

/* Whether the task whose /proc/PID/stat is open at @fd is runnable. */
static int runnable_now(int fd)
{
	char buf[512], *p;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'R';
}

/*
 * Sleep @ms, sampling the coalition's states (see the top): the means of
 * W / (W + H) off and by the rule, in *@off and *@rule.
 */
static void sample_states(pid_t server, const pid_t *clients, int n, int ms,
			  double *off, double *rule)
{
	struct sched_param fifo = { .sched_priority = 1 }, other = { 0 };
	int fds[MAX_CONNS + 1], i, m, s, samples = 0;
	long long end = econ_now_ns() + ms * 1000000LL;
	double h = opt.hogs, w_off, w_rule;
	char path[64];

	/*
	 * Above the fair class, the sampler's wakeups take no lag from the
	 * tasks it watches and never wait behind them.
	 */
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		perror("SCHED_FIFO");
	*off = 0;
	*rule = 0;
	for (i = 0; i <= n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat",
			 i < n ? clients[i] : server);
		fds[i] = open(path, O_RDONLY);
	}
	while (econ_now_ns() < end) {
		econ_msleep(5 + rand() % 11);
		weston_frames();	/* a full pty would stop its client */
		s = runnable_now(fds[n]);
		for (i = 0, m = 0; i < n; i++)
			m += runnable_now(fds[i]);
		w_off = m + s;
		w_rule = m + s * (1 + n - m);
		*off += w_off / (w_off + h);
		*rule += w_rule / (w_rule + h);
		samples++;
	}
	for (i = 0; i <= n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	sched_setscheduler(0, SCHED_OTHER, &other);
	if (samples) {
		*off *= 100.0 / samples;
		*rule *= 100.0 / samples;
	}
}

static long long served(void)
{
	if (opt.kind == K_REDIS || opt.kind == K_REDIS_CLI)
		return redis_commands();
	if (opt.kind == K_WESTON)
		return weston_frames();
	return shm->served;
}

static int lfd, efd_req, efd_rep;
/* What the economy's segments added to the books. */
static long long books_donations, books_reply_rest;
/* The least part of the fluid model the off segment may get (weston). */
#define PART_MIN	0.85

static long long reply_us_knob(void)
{
	return econ_read_knob("sched_economy_reply_us");
}

static void run_server(void *arg)
{
	(void)arg;
	if (opt.kind == K_REDIS || opt.kind == K_REDIS_CLI)
		redis_server();
	if (opt.kind == K_WESTON)
		weston_server();
	if (opt.kind == K_EPOLL)
		epoll_server(lfd);
	else if (opt.kind == K_EVENTFD)
		eventfd_server(efd_req, efd_rep);
	else
		pi_taker(opt.server_us, 1);
}

static void run_client(void *arg)
{
	if (opt.kind == K_WESTON)
		weston_client(*(int *)arg);
	if (opt.kind == K_REDIS || opt.kind == K_REDIS_CLI)
		redis_client();
	if (opt.kind == K_EPOLL)
		epoll_client();
	else if (opt.kind == K_EVENTFD)
		eventfd_client(efd_req, efd_rep);
	else
		pi_taker(opt.client_us, 0);
}

struct window {
	double server, client, hog[MAX_HOGS], rate, runnable, sleeps;
	double model_off, model_rule;	/* -t weston: sampled, see the top */
};

/* The voluntary context switches of @pid (its main thread). */
static long long voluntary_switches(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return econ_file_key(path, "%127s %lld", "voluntary_ctxt_switches:",
			     0);
}

/* Time @pid (its main thread) was runnable, ns: on CPU plus queued. */
static long long runnable_ns(pid_t pid)
{
	long long run = 0, delay = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld %lld", &run, &delay) != 2)
			run = delay = 0;
		fclose(f);
	}
	return run + delay;
}

/* @f summed over @n processes (process_cpu_ns, voluntary_switches). */
static long long sum_of(long long (*f)(pid_t), const pid_t *pids, int n)
{
	long long sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += f(pids[i]);
	return sum;
}

/*
 * One segment: fresh server, clients and loops; -w windows measured.
 * The server's side is the server and its children (weston's shell
 * helper); there is one client but for weston, which has -c.
 */
static int segment(struct window *w)
{
	pid_t side[8], clients[MAX_CONNS], hogs[MAX_HOGS], server;
	long long s0, c0, h0[MAX_HOGS], h1[MAX_HOGS], t0, t1, s1, c1, n0, a0,
		  v0, n1, all, per;
	int i, k, nside = 1, nclients = 1, idx[MAX_CONNS];
	struct sockaddr_storage a;
	socklen_t len;

	shm->served = 0;
	/* a fresh lock: the last segment's takers were killed, one holding it */
	if (opt.kind == K_PI)
		pi_lock_init();
	if (opt.kind == K_EPOLL) {
		lfd = rpc_socket(&a, &len);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, len) ||
		    listen(lfd, 64))
			die("listen");
	} else if (opt.kind == K_EVENTFD) {
		efd_req = eventfd(0, 0);
		efd_rep = eventfd(0, 0);
	} else if (opt.kind == K_WESTON) {
		nclients = opt.conns;
		mkdir(WESTON_DIR, 0700);
		/* a socket left by a run that died would look like weston up */
		weston_cleanup(0);
		if (econ_mount_devpts())
			die("mount devpts");
		for (i = 0; i < nclients; i++)
			if (weston_pty(i))
				die("posix_openpt");
	}
	server = spawn(run_server, NULL);
	side[0] = server;
	if (((opt.kind == K_REDIS || opt.kind == K_REDIS_CLI) && redis_up()) ||
	    (opt.kind == K_WESTON && weston_up())) {
		printf("not ok - %s did not come up\n",
		       opt.kind == K_WESTON ? "weston" : "redis-server");
		kill(server, SIGKILL);
		if (opt.kind == K_WESTON)
			weston_cleanup(nclients);
		return -1;
	}
	if (opt.kind == K_WESTON) {
		/* the shell's helper: its name is cut to 15 characters */
		for (k = 0; k < 500 && nside == 1; k++) {
			nside += children_of(server, "weston-desktop-", side + 1,
					     7);
			if (nside == 1)
				econ_msleep(10);
		}
		if (nside == 1) {
			printf("not ok - weston started no shell helper\n");
			kill(server, SIGKILL);
			weston_cleanup(nclients);
			return -1;
		}
	}
	for (i = 0; i < nclients; i++) {
		idx[i] = i;
		clients[i] = spawn(run_client, &idx[i]);
	}
	if (opt.kind == K_WESTON && weston_drawing(nclients)) {
		printf("not ok - weston's clients drew no frames\n");
		for (i = 0; i < nside; i++)
			kill(side[i], SIGKILL);
		econ_kill(clients, nclients);
		weston_cleanup(nclients);
		return -1;
	}
	for (i = 0; i < opt.hogs; i++)
		hogs[i] = econ_busy_loop_as(0, opt.hog_uid);
	if (opt.kind == K_EPOLL)
		close(lfd);
	else if (opt.kind == K_EVENTFD) {
		close(efd_req);
		close(efd_rep);
	}
	econ_msleep(opt.window_ms / 2);	/* connected, warmed up */
	for (k = 0; k < opt.windows; k++) {
		t0 = econ_now_ns();
		s0 = sum_of(process_cpu_ns, side, nside);
		c0 = sum_of(process_cpu_ns, clients, nclients);
		n0 = served();
		a0 = runnable_ns(server);
		v0 = sum_of(voluntary_switches, clients, nclients);
		for (i = 0; i < opt.hogs; i++)
			h0[i] = econ_cpu_ns(hogs[i]);
		if (opt.kind == K_WESTON)
			sample_states(server, clients, nclients,
				      opt.window_ms, &w[k].model_off,
				      &w[k].model_rule);
		else
			econ_msleep(opt.window_ms);
		t1 = econ_now_ns() - t0;
		s1 = sum_of(process_cpu_ns, side, nside) - s0;
		c1 = sum_of(process_cpu_ns, clients, nclients) - c0;
		for (i = 0, all = s1 + c1; i < opt.hogs; i++) {
			h1[i] = econ_cpu_ns(hogs[i]) - h0[i];
			all += h1[i];
		}
		/*
		 * Shares of the window, or with -t weston of what the coalition
		 * and the loops ran: the model's W / (W + H) leaves out the
		 * sampler's few per cent as it leaves out everything else.
		 */
		per = opt.kind == K_WESTON && all > 0 ? all : t1;
		w[k].server = 100.0 * s1 / per;
		w[k].client = 100.0 * c1 / per;
		n1 = served() - n0;
		w[k].rate = n1 * 1e9 / t1;
		w[k].sleeps = n1 > 0 ?
			(double)(sum_of(voluntary_switches, clients, nclients) - v0) / n1 : 0;
		w[k].runnable = (double)(runnable_ns(server) - a0) / t1;
		for (i = 0; i < opt.hogs; i++)
			w[k].hog[i] = 100.0 * h1[i] / per;
	}
	for (i = 0; i < nside; i++)
		kill(side[i], SIGKILL);
	for (i = 0; i < nclients; i++)
		kill(clients[i], SIGKILL);
	econ_kill(hogs, opt.hogs);
	if (opt.kind == K_REDIS || opt.kind == K_REDIS_CLI)
		unlink(REDIS_SOCK);
	if (opt.kind == K_WESTON)
		weston_cleanup(nclients);
	return 0;
}

static const char *kind_names[] = { "epoll", "eventfd", "pi", "redis",
				     "redis-cli", "weston" };

static int parse(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "t:T:c:H:S:C:w:u:r:d:U:m:")) != -1) {
		switch (c) {
		case 'T':
			for (opt.transport = 0; opt.transport < NR_TRANSPORTS;
			     opt.transport++)
				if (!strcmp(optarg,
					    transport_names[opt.transport]))
					break;
			if (opt.transport == NR_TRANSPORTS)
				return -1;
			break;
		case 't':
			for (opt.kind = 0; opt.kind < NR_KINDS; opt.kind++)
				if (!strcmp(optarg, kind_names[opt.kind]))
					break;
			if (opt.kind == NR_KINDS)
				return -1;
			break;
		case 'c': opt.conns = atoi(optarg); break;
		case 'H': opt.hogs = atoi(optarg); break;
		case 'S': opt.server_us = atoi(optarg); break;
		case 'C': opt.client_us = atoi(optarg); break;
		case 'w': opt.windows = atoi(optarg); break;
		case 'u': opt.window_ms = atoi(optarg); break;
		case 'r': opt.rounds = atoi(optarg); break;
		case 'd': opt.within = atof(optarg); break;
		case 'U': opt.hog_uid = atoi(optarg); break;
		case 'm': opt.modes = optarg; break;
		default: return -1;
		}
	}
	if (opt.conns < 1 || opt.conns > MAX_CONNS || opt.hogs < 1 ||
	    opt.hogs > MAX_HOGS || opt.windows < 1 || opt.windows > MAX_WIN ||
	    opt.rounds < 1 || opt.rounds * opt.windows > 64)
		return -1;
	return 0;
}

/* Medians over every window of a mode. */
struct summary {
	double server, client, coalition, hog_max, hogs, rate, runnable,
	       sleeps, model_off, model_rule;
};

/* The median over @n windows of the field at @offset of struct window. */
static double window_median(const struct window *w, int n, size_t offset)
{
	double v[64];
	int i;

	for (i = 0; i < n; i++)
		v[i] = *(const double *)((const char *)&w[i] + offset);
	return econ_median(v, n);
}

static void summarize(struct window *w, int n, struct summary *s)
{
	double v[64], all[64], hs[64];
	int i, j;

	s->server = window_median(w, n, offsetof(struct window, server));
	s->client = window_median(w, n, offsetof(struct window, client));
	s->rate = window_median(w, n, offsetof(struct window, rate));
	s->runnable = window_median(w, n, offsetof(struct window, runnable));
	s->sleeps = window_median(w, n, offsetof(struct window, sleeps));
	s->model_off = window_median(w, n, offsetof(struct window, model_off));
	s->model_rule = window_median(w, n,
				      offsetof(struct window, model_rule));
	for (i = 0; i < n; i++)
		all[i] = w[i].server + w[i].client;
	s->coalition = econ_median(all, n);
	s->hog_max = 0;
	s->hogs = 0;
	for (j = 0; j < opt.hogs; j++) {
		for (i = 0; i < n; i++)
			hs[i] = w[i].hog[j];
		v[j] = econ_median(hs, n);
		s->hogs += v[j];
		if (v[j] > s->hog_max)
			s->hog_max = v[j];
	}
}

int main(int argc, char **argv)
{
	struct window win[2][64];
	struct summary sum[2];
	int loaded, rc, r, m, nmodes = 0, fail = 0;
	char modes[64], *tok, *save;
	int mode_on[2];
	double f, h, want, hog_fair;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse(argc, argv)) {
		fprintf(stderr, "usage: %s -t epoll|eventfd|pi|redis|redis-cli|weston [-T stream|seqpacket] [-c conns] [-H hogs] [-S us] [-C us] [-w windows] [-u ms] [-r rounds] [-d pp] [-U uid] [-m off,economy]\n",
			argv[0]);
		return 2;
	}
	rc = econ_need_module(&loaded);
	if (rc)
		return rc;
	snprintf(modes, sizeof(modes), "%s", opt.modes);
	for (tok = strtok_r(modes, ",", &save); tok && nmodes < 2;
	     tok = strtok_r(NULL, ",", &save))
		mode_on[nmodes++] = strcmp(tok, "off") != 0;
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		die("mmap");
	econ_pin(0, 0);
	if (opt.kind == K_EPOLL)
		printf("# over %s sockets\n", transport_names[opt.transport]);
	printf("# blocking_rpc -t %s -c %d: %d busy loops of uid %d, server %d us, client %d us per request, %d x %d windows of %d ms\n",
	       kind_names[opt.kind], opt.conns, opt.hogs, opt.hog_uid,
	       opt.server_us, opt.client_us, opt.rounds, opt.windows,
	       opt.window_ms);
	for (r = 0; r < opt.rounds; r++)
		for (m = 0; m < nmodes; m++) {
			long long d0 = econ_book("donations");
			long long r0 = econ_book("reply_rest");

			econ_write_knob("sched_economy", mode_on[m] ? "1" : "0");
			if (segment(&win[m][r * opt.windows]))
				return 1;
			if (mode_on[m]) {
				books_donations += econ_book("donations") - d0;
				books_reply_rest += econ_book("reply_rest") - r0;
			}
		}
	econ_write_knob("sched_economy", "0");
	for (m = 0; m < nmodes; m++) {
		summarize(win[m], opt.rounds * opt.windows, &sum[m]);
		printf("# %-7s server %5.1f  client %5.1f  coalition %5.1f %%  busy loops %5.1f %% (each at most %4.1f)  requests/s %.0f\n",
		       mode_on[m] ? "economy" : "off", sum[m].server,
		       sum[m].client, sum[m].coalition, sum[m].hogs,
		       sum[m].hog_max, sum[m].rate);
	}
	h = opt.hogs;
	for (m = 0; m < nmodes; m++) {
		if (opt.kind != K_WESTON)
			continue;
		want = mode_on[m] ? sum[m].model_rule : sum[m].model_off;
		printf("# %-7s sampled states: coalition expected %.1f %% off, %.1f %% by the rule\n",
		       mode_on[m] ? "economy" : "off", sum[m].model_off,
		       sum[m].model_rule);
		if (mode_on[m])
			continue;
		if (sum[m].coalition < want - opt.within ||
		    sum[m].coalition > want + opt.within) {
			printf("not ok - off: coalition %.1f %%, the states predict %.1f +- %.1f\n",
			       sum[m].coalition, want, opt.within);
			fail = 1;
		} else {
			printf("ok - off: coalition %.1f %%, the states predict %.1f +- %.1f\n",
			       sum[m].coalition, want, opt.within);
		}
	}
	for (m = 0; m < nmodes; m++) {
		if (!mode_on[m])
			continue;
		f = sum[m].runnable;
		/* pi: one taker always waits for the other, and gives */
		if (opt.kind == K_PI)
			f = 1;
		want = 100.0 * (f * 2 / (h + 2) + (1 - f) / (h + 1));
		if (opt.kind == K_WESTON) {
			double part = 1;

			want = sum[m].model_rule;
			/* the part of the model that the tick delivers, off */
			if (nmodes == 2 && !mode_on[0] && sum[0].model_off > 0)
				part = sum[0].coalition / sum[0].model_off;
			printf("# the rule's %.1f %% times %.3f, the part of the model delivered off\n",
			       sum[m].model_rule, part);
			/*
			 * Measured 0.88-0.96 (1 to 4 clients): outside
			 * PART_MIN..1 the off run was not the shape the
			 * model is calibrated on, and the test tells nothing.
			 */
			if (part < PART_MIN || part > 1.0) {
				printf("not ok - the off segment got %.3f of its model, outside %.2f..1\n",
				       part, PART_MIN);
				fail = 1;
			}
			want *= part;
			printf("# books of the economy segment: donations %lld, reply_rest %lld\n",
			       books_donations, books_reply_rest);
			if (books_reply_rest <= 0 && reply_us_knob() > 0) {
				printf("not ok - no wait past a first reply gave (reply_rest %lld)\n",
				       books_reply_rest);
				fail = 1;
			}
		}
		printf("# the client slept %.2f times per request\n",
		       sum[m].sleeps);
		if (opt.kind != K_WESTON && sum[m].sleeps < 0.05 &&
		    nmodes == 2 && !mode_on[0]) {
			/* a client that spins waits for nobody: nothing moves */
			want = sum[0].coalition;
			printf("# the client does not block as it waits (it polls): the rule moves nothing, expected as off\n");
		}

		hog_fair = (100.0 - want) / h;
		printf("# economy's rule: the server runnable %.2f of the time, expected coalition %.1f %%, each loop %.1f %%\n",
		       f, want, hog_fair);
		if (sum[m].coalition < want - opt.within ||
		    sum[m].coalition > want + opt.within) {
			printf("not ok - coalition %.1f %%, expected %.1f +- %.1f (donations %lld, reply_rest %lld)\n",
			       sum[m].coalition, want, opt.within,
			       books_donations, books_reply_rest);
			fail = 1;
		} else {
			printf("ok - coalition %.1f %%, expected %.1f +- %.1f\n",
			       sum[m].coalition, want, opt.within);
		}
		if (sum[m].hog_max > hog_fair + 1) {
			printf("not ok - a busy loop at %.1f %%, its part %.1f + 1\n",
			       sum[m].hog_max, hog_fair);
			fail = 1;
		} else {
			printf("ok - busy loops at most %.1f %%, their part %.1f + 1\n",
			       sum[m].hog_max, hog_fair);
		}
	}
	if (nmodes == 2 && !mode_on[0] && mode_on[1])
		printf("# requests/s off -> economy: %.0f -> %.0f (%.2fx)\n",
		       sum[0].rate, sum[1].rate,
		       sum[0].rate > 0 ? sum[1].rate / sum[0].rate : 0);
	if (loaded && system("rmmod sched_economy"))
		fail = 1;
	return fail;
}
