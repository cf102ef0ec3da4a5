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
 *               is a synchronous client, -c 8 a pipelining one)
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
 * an eventfd's reader would give its writer, and a PI taker the holder,
 * but the wakeup that ended the other's wait makes it a cycle with it:
 * the other's record names it until it runs, docs/blocking-point.md). From the part
 * r of the time the server was runnable with the economy on (schedstat's
 * run and queue time), the expected share is
 *
 *     r 2/(H+2) + (1-r) 1/(H+1)
 *
 * (for pi the "server" is one taker, the "client" the other). A client that does not block as it waits (fewer than one
 * voluntary switch in 20 requests: it polls, as redis-benchmark's event
 * loop does) waits for nobody the kernel can name: nothing moves, and
 * the coalition is expected at its share with the economy off.
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

enum kind { K_EPOLL, K_EVENTFD, K_PI, K_REDIS, K_REDIS_CLI, NR_KINDS };

static struct {
	enum kind kind;
	int conns, hogs, server_us, client_us, windows, window_ms, rounds;
	double within;
	uid_t hog_uid;
	const char *modes;
} opt = { K_EPOLL, 1, 5, 300, 300, 5, 2000, 1, 2.0, 1000, "off,economy" };

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

static void sock_addr(struct sockaddr_un *a, socklen_t *len)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	/* abstract: nothing to clean up */
	memcpy(a->sun_path + 1, SOCK_NAME, strlen(SOCK_NAME));
	*len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(SOCK_NAME);
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
	struct sockaddr_un a;
	char req[REQ] = "request";
	socklen_t len;

	sock_addr(&a, &len);
	for (i = 0; i < opt.conns; i++) {
		fds[i] = socket(AF_UNIX, SOCK_STREAM, 0);
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

static long long served(void)
{
	if (opt.kind == K_REDIS || opt.kind == K_REDIS_CLI)
		return redis_commands();
	return shm->served;
}

static int lfd, efd_req, efd_rep;

static void run_server(void *arg)
{
	(void)arg;
	if (opt.kind == K_REDIS || opt.kind == K_REDIS_CLI)
		redis_server();
	if (opt.kind == K_EPOLL)
		epoll_server(lfd);
	else if (opt.kind == K_EVENTFD)
		eventfd_server(efd_req, efd_rep);
	else
		pi_taker(opt.server_us, 1);
}

static void run_client(void *arg)
{
	(void)arg;
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

/* One segment: fresh server, client and loops; -w windows measured. */
static int segment(struct window *w)
{
	pid_t server, client, hogs[MAX_HOGS];
	long long s0, c0, h0[MAX_HOGS], t0, t1, s1, c1, n0, a0, v0, n1;
	struct sockaddr_un a;
	socklen_t len;
	int i, k;

	shm->served = 0;
	/* a fresh lock: the last segment's takers were killed, one holding it */
	if (opt.kind == K_PI)
		pi_lock_init();
	if (opt.kind == K_EPOLL) {
		sock_addr(&a, &len);
		lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, len) ||
		    listen(lfd, 64))
			die("listen");
	} else if (opt.kind == K_EVENTFD) {
		efd_req = eventfd(0, 0);
		efd_rep = eventfd(0, 0);
	}
	server = spawn(run_server, NULL);
	if ((opt.kind == K_REDIS || opt.kind == K_REDIS_CLI) && redis_up()) {
		printf("not ok - redis-server did not come up\n");
		kill(server, SIGKILL);
		return -1;
	}
	client = spawn(run_client, NULL);
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
		s0 = process_cpu_ns(server);
		c0 = process_cpu_ns(client);
		n0 = served();
		a0 = runnable_ns(server);
		v0 = voluntary_switches(client);
		for (i = 0; i < opt.hogs; i++)
			h0[i] = econ_cpu_ns(hogs[i]);
		econ_msleep(opt.window_ms);
		t1 = econ_now_ns() - t0;
		s1 = process_cpu_ns(server) - s0;
		c1 = process_cpu_ns(client) - c0;
		w[k].server = 100.0 * s1 / t1;
		w[k].client = 100.0 * c1 / t1;
		n1 = served() - n0;
		w[k].rate = n1 * 1e9 / t1;
		w[k].sleeps = n1 > 0 ?
			(double)(voluntary_switches(client) - v0) / n1 : 0;
		w[k].runnable = (double)(runnable_ns(server) - a0) / t1;
		for (i = 0; i < opt.hogs; i++)
			w[k].hog[i] = 100.0 * (econ_cpu_ns(hogs[i]) - h0[i]) / t1;
	}
	kill(server, SIGKILL);
	kill(client, SIGKILL);
	econ_kill(hogs, opt.hogs);
	if (opt.kind == K_REDIS || opt.kind == K_REDIS_CLI)
		unlink(REDIS_SOCK);
	return 0;
}

static const char *kind_names[] = { "epoll", "eventfd", "pi", "redis",
				     "redis-cli" };

static int parse(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "t:c:H:S:C:w:u:r:d:U:m:")) != -1) {
		switch (c) {
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
	       sleeps;
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
		fprintf(stderr, "usage: %s -t epoll|eventfd|pi [-c conns] [-H hogs] [-S us] [-C us] [-w windows] [-u ms] [-r rounds] [-d pp] [-U uid] [-m off,economy]\n",
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
	printf("# blocking_rpc -t %s -c %d: %d busy loops of uid %d, server %d us, client %d us per request, %d x %d windows of %d ms\n",
	       kind_names[opt.kind], opt.conns, opt.hogs, opt.hog_uid,
	       opt.server_us, opt.client_us, opt.rounds, opt.windows,
	       opt.window_ms);
	for (r = 0; r < opt.rounds; r++)
		for (m = 0; m < nmodes; m++) {
			econ_write_knob("sched_economy", mode_on[m] ? "1" : "0");
			if (segment(&win[m][r * opt.windows]))
				return 1;
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
		if (!mode_on[m])
			continue;
		f = sum[m].runnable;
		want = 100.0 * (f * 2 / (h + 2) + (1 - f) / (h + 1));
		printf("# the client slept %.2f times per request\n",
		       sum[m].sleeps);
		if (sum[m].sleeps < 0.05 && nmodes == 2 &&
		    !mode_on[0]) {
			/* a client that spins waits for nobody: nothing moves */
			want = sum[0].coalition;
			printf("# the client does not block as it waits (it polls): the rule moves nothing, expected as off\n");
		}
		hog_fair = (100.0 - want) / h;
		printf("# economy's rule: the server runnable %.2f of the time, expected coalition %.1f %%, each loop %.1f %%\n",
		       f, want, hog_fair);
		if (sum[m].coalition < want - opt.within ||
		    sum[m].coalition > want + opt.within) {
			printf("not ok - coalition %.1f %%, expected %.1f +- %.1f\n",
			       sum[m].coalition, want, opt.within);
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
