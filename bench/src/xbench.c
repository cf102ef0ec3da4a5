// SPDX-License-Identifier: GPL-2.0
/*
 * xbench - the seed's experiment: an X-like server, its clients and a few
 * busy loops, with CPU shares measured from /proc/PID/schedstat.
 *
 *   server   one process, one request at a time: poll() on N channels,
 *            read one 16-byte request, burn S us of CPU
 *   clients  N processes, each: burn C us, write one request to its own
 *            channel (blocking when the channel's buffer is full)
 *   hogs     H processes: for (;;);
 *
 * A channel is (--transport) an AF_UNIX stream socketpair (the default),
 * a pipe, or a pty pair: the client writes the slave, set raw (no echo,
 * no canonical mode, no output processing), the server reads the master.
 * Each holds the same backlog, 256 requests, before a client blocks (a
 * client lends its weight only while blocked; measured in the guest): a
 * socket 256 of 16 bytes (its send buffer in skbs), a pipe 64 KiB, 256 of
 * 256 bytes, a pty 20 KiB, 256 of 80 bytes.  With 16 bytes a pipe would
 * hold 4096 and a pty 1280: seconds of filling before a client blocks,
 * and then fill-and-drain swings longer than a window.  A pipe shrunk to
 * one page instead wakes its writer only when the page is empty: the
 * clients fall into step and the shares swing 17 / 23 % from window to
 * window.
 * The server's account balances (the price and balance columns) exist
 * only on sockets; on pipes and ptys they read -1.
 *
 * Burns are measured on CLOCK_THREAD_CPUTIME_ID, so a preempted burn still
 * costs exactly its CPU time.  A share is a task's CPU time over the CPU
 * time of all tasks of the experiment in the same window: TCG time is not
 * real time, so only ratios are meaningful.
 *
 * Each mode runs as a segment with fresh processes: set up, warm up,
 * measure --windows windows, tear down.  --rounds repeats the list of modes
 * so that modes alternate in one boot.  --demo instead tells the seed's
 * story with one set of processes: server and clients alone, the hogs
 * arrive, the economy goes on, and off again.
 *
 * The program writes /proc/sys/kernel/sched_economy* itself (and restores
 * them on exit); it loads no module.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>

#include "bench.h"
#include "sched_economy.h"

#define MAX_TASKS	64
#define REQ_SIZE	16	/* a request on a socket: 256 fill its buffer */
#define PIPE_REQ_SIZE	256	/* on a pipe: 256 of them fill its 64 KiB */
#define PTY_REQ_SIZE	80	/* on a pty: 256 of them fill its 20 KiB */
#define REQ_MAX		256
#define SYSCTL		"/proc/sys/kernel/sched_economy"
#define BOOKS		"/proc/sched_economy"
#define CGROOT		"/sys/fs/cgroup"
#define CG_SERVER	CGROOT "/xbench.server"
#define CG_REST		CGROOT "/xbench.rest"
#define NOBODY		65534

static const char help_fmt[] =
"xbench: an X-like server, N clients and H busy loops; CPU shares\n"
"from /proc/PID/schedstat, per window and per mode.\n"
"\n"
"Usage: %s [options]\n"
"\n"
"  -N, --clients N      clients (default 4)\n"
"  -H, --hogs H         busy loops (default 5)\n"
"  -S, --server-us S    CPU burned by the server per request (default 100)\n"
"  -C, --client-us C    CPU burned by a client per request (default 150)\n"
"  -X, --transport T    the clients' requests go over (default unix):\n"
"                         unix     an AF_UNIX stream socketpair each\n"
"                         pipe     a pipe each; requests of 256 bytes\n"
"                         pty      a pty pair each: the client writes the\n"
"                                  slave (raw mode), the server reads the\n"
"                                  master (needs devpts on /dev/pts);\n"
"                                  requests of 80 bytes\n"
"                       (unix: 16 bytes; each holds 256 before a client\n"
"                       blocks)\n"
"  -m, --mode LIST      comma-separated modes (default off,economy):\n"
"                         off      economy off\n"
"                         economy  economy on, --policy (default lend)\n"
"                         fixed    economy on, policy fixed at --price\n"
"                         seed     economy on, policy seed, clients uid 65534\n"
"                         renice   economy off, server at nice -10\n"
"                         group    economy off, server in its own cgroup,\n"
"                                  everyone else in another\n"
"  -r, --rounds R       repeat the list of modes R times (default 1)\n"
"  -w, --windows W      measured windows per segment (default 3)\n"
"  -t, --window-ms MS   window length (default 1000)\n"
"  -u, --warmup-ms MS   before the first window of a segment (default 1000)\n"
"  -p, --price NS       sched_economy_price_ns for fixed and seed\n"
"  -P, --policy NAME    the policy of mode economy (default lend)\n"
"  -d, --demo           the seed's story instead of modes; see --phase-ms\n"
"  -T, --phase-ms MS    demo: length of each of the 4 phases (default 6000)\n"
"  -c, --csv FILE       machine-readable results; \"-\" prints them on stdout\n"
"                       as lines starting with \"XBENCH_CSV \"\n"
"  -a, --affinity       SMP: server on CPU 0, clients spread over the other\n"
"                       CPUs, busy loops left to the load balancer\n"
"  -q, --quiet          no per-window lines, only the summary\n"
"  -h, --help           this text\n"
"\n"
"Fair reference: server and clients together (N+1)/(N+1+H), each hog\n"
"1/(N+1+H), the server S/(S+C) of its coalition's share.\n";

enum role { SERVER, CLIENT, HOG };

enum transport { T_UNIX, T_PIPE, T_PTY };
static const char * const transport_names[] = { "unix", "pipe", "pty" };

struct task {
	pid_t pid;
	enum role role;
	uint64_t ns;		/* schedstat at the last sample */
};

struct sample {
	double server, clients, hogs, hog_min, hog_med, hog_max;
	double req_s, other, price, balance;
};

static struct {
	int nr_clients, nr_hogs, server_us, client_us;
	int rounds, windows, window_ms, warmup_ms, phase_ms;
	long price;
	const char *policy;
	int quiet, affinity;
	enum transport transport;
} opt = {
	.nr_clients = 4, .nr_hogs = 5, .server_us = 100, .client_us = 150,
	.rounds = 1, .windows = 3, .window_ms = 1000, .warmup_ms = 1000,
	.phase_ms = 6000, .price = -1, .policy = "lend",
};

static struct task tasks[MAX_TASKS];
static int nr_tasks;
static int server_fds[MAX_TASKS];	/* the server's ends, kept for ioctls */
static int client_fds[MAX_TASKS];
static volatile uint64_t *requests;	/* shared with the server */
static FILE *csv;
static const char *csv_prefix = "";
static double t_start;
static int ncpu;

/* sysctls as they were, restored at exit */
static char saved_enable[32], saved_policy[32], saved_price[32];

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "xbench: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (fmt[strlen(fmt) - 1] == ':')
		fprintf(stderr, " %s", strerror(errno));
	fprintf(stderr, "\n");
	exit(1);
}

/* ---------------------------------------------------------------- sysctls */

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
	return 0;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int economy_present(void)
{
	return access(SYSCTL, F_OK) == 0;
}

static void set_sysctl(const char *name, const char *val)
{
	char path[128];
	int err;

	snprintf(path, sizeof(path), SYSCTL "%s", name);
	err = write_file(path, val);
	if (err) {
		errno = -err;
		die("write %s to %s (is sched_economy.ko loaded?):", val, path);
	}
}

static void save_sysctls(void)
{
	if (!economy_present())
		return;
	read_file(SYSCTL, saved_enable, sizeof(saved_enable));
	read_file(SYSCTL "_policy", saved_policy, sizeof(saved_policy));
	read_file(SYSCTL "_price_ns", saved_price, sizeof(saved_price));
}

static void restore_sysctls(void)
{
	if (!saved_enable[0] || !economy_present())
		return;
	write_file(SYSCTL, saved_enable);
	write_file(SYSCTL "_policy", saved_policy);
	write_file(SYSCTL "_price_ns", saved_price);
}

/* Economy on with @policy, or off (policy NULL). Without the module, off is a no-op. */
static void economy(const char *policy)
{
	char buf[32];

	if (!policy) {
		if (economy_present())
			set_sysctl("", "0");
		return;
	}
	set_sysctl("_policy", policy);
	if (opt.price > 0) {
		snprintf(buf, sizeof(buf), "%ld", opt.price);
		set_sysctl("_price_ns", buf);
	}
	set_sysctl("", "1");
}

/* ---------------------------------------------------------------- books */

#define MAX_BOOKS 32

struct books {
	int n;
	char name[MAX_BOOKS][40];
	long long val[MAX_BOOKS];
};

static void books_read(struct books *b)
{
	char line[128];
	FILE *f = fopen(BOOKS, "r");

	b->n = 0;
	if (!f)
		return;
	while (b->n < MAX_BOOKS && fgets(line, sizeof(line), f))
		if (sscanf(line, "%39s %lld", b->name[b->n], &b->val[b->n]) == 2)
			b->n++;
	fclose(f);
}

/* The counters that changed from @a to @b, as "name=delta" pairs. */
static void books_print(const char *mode, struct books *a, struct books *b)
{
	int i;

	if (!b->n)
		return;
	printf("  books %-8s", mode);
	for (i = 0; i < b->n && i < a->n; i++) {
		long long d = b->val[i] - a->val[i];

		if (!strcmp(b->name[i], "generation") || !strcmp(b->name[i], "enabled"))
			continue;
		if (d || !strcmp(b->name[i], "residue_ns"))
			printf(" %s=%lld", b->name[i],
			       !strcmp(b->name[i], "residue_ns") ? b->val[i] : d);
	}
	printf("\n");
	if (csv) {
		fprintf(csv, "%sbooks,%s", csv_prefix, mode);
		for (i = 0; i < b->n && i < a->n; i++)
			fprintf(csv, ",%s=%lld", b->name[i], b->val[i] - a->val[i]);
		fprintf(csv, "\n");
	}
}

/* Mean price and total balance of the server's accounts, or -1. */
static void accounts(double *price, double *balance)
{
	struct sched_economy_account a;
	int fd, i, n = 0;

	*price = -1;
	*balance = -1;
	if (opt.transport != T_UNIX)
		return;		/* accounts live on sockets only */
	fd = open(SCHED_ECONOMY_DEVICE, O_RDONLY);
	if (fd < 0)
		return;
	*price = 0;
	*balance = 0;
	for (i = 0; i < opt.nr_clients; i++) {
		memset(&a, 0, sizeof(a));
		a.fd = server_fds[i];
		if (ioctl(fd, SCHED_ECONOMY_IOC_ACCOUNT, &a))
			continue;
		*price += a.price_ns;
		*balance += a.balance_ns;
		n++;
	}
	*price = n ? *price / n : -1;
	close(fd);
}

/* ---------------------------------------------------------------- tasks */

static void child_init(int start_fd)
{
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	/* wait for the go: the parent closes the pipe's write end */
	if (read(start_fd, &c, 1) < 0)
		_exit(1);
	close(start_fd);
}

static void become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		_exit(3);
}

static int req_size = REQ_SIZE;

/* One request of req_size bytes from @fd: > 0, or <= 0 at the end. */
static ssize_t read_request(int fd, char *req)
{
	ssize_t n, got = 0;

	if (opt.transport == T_UNIX)
		return recv(fd, req, req_size, MSG_WAITALL);
	/* pipes and ptys: no recv(), and a pty may hand over part of a request */
	while (got < req_size) {
		n = read(fd, req + got, req_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return got ? got : n;	/* a pty master reads EIO when its slave is gone */
		got += n;
	}
	return got;
}

static void server_loop(void)
{
	struct pollfd pfd[MAX_TASKS];
	char req[REQ_MAX];
	int i, n, open_fds = opt.nr_clients;

	for (i = 0; i < opt.nr_clients; i++) {
		pfd[i].fd = server_fds[i];
		pfd[i].events = POLLIN;
	}
	while (open_fds) {
		if (bench_poll(pfd, opt.nr_clients) < 0)
			_exit(2);
		/* one request from each ready client, one at a time */
		for (i = 0; i < opt.nr_clients; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			n = read_request(pfd[i].fd, req);
			if (n < req_size) {
				pfd[i].fd = -1;
				open_fds--;
				continue;
			}
			bench_burn(opt.server_us * 1000ULL);
			__atomic_add_fetch(requests, 1, __ATOMIC_RELAXED);
		}
	}
	_exit(0);
}

static void client_loop(int fd)
{
	char req[REQ_MAX] = "request";

	for (;;) {
		bench_burn(opt.client_us * 1000ULL);
		if (write(fd, req, req_size) != req_size)
			_exit(errno == EPIPE ? 0 : 2);
	}
}

static void hog_loop(void)
{
	for (;;)
		bench_spin(1000000);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(4);
}

static pid_t spawn(enum role role, const int start[2], int arg, int seed)
{
	pid_t pid;
	int i;

	if (nr_tasks >= MAX_TASKS)
		die("too many tasks");
	pid = fork();
	if (pid < 0)
		die("fork:");
	if (!pid) {
		/* keep only the fds this role uses */
		for (i = 0; i < opt.nr_clients; i++) {
			if (role != SERVER)
				close(server_fds[i]);
			if (client_fds[i] >= 0 && client_fds[i] != arg)
				close(client_fds[i]);
		}
		if (role == CLIENT && seed)
			become_nobody();
		if (opt.affinity && ncpu > 1 && role != HOG)
			pin(role == SERVER ? 0 : 1 + nr_tasks % (ncpu - 1));
		close(start[1]);
		child_init(start[0]);
		switch (role) {
		case SERVER:
			server_loop();
			break;
		case CLIENT:
			client_loop(arg);
			break;
		case HOG:
			hog_loop();
			break;
		}
		_exit(0);
	}
	tasks[nr_tasks].pid = pid;
	tasks[nr_tasks].role = role;
	tasks[nr_tasks].ns = 0;
	nr_tasks++;
	return pid;
}

static uint64_t schedstat(pid_t pid)
{
	char path[64], buf[128];
	unsigned long long ns = 0;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	if (!read_file(path, buf, sizeof(buf)))
		sscanf(buf, "%llu", &ns);
	return ns;
}

static void cg_move(const char *group, pid_t pid)
{
	char path[128], buf[32];
	int err;

	snprintf(path, sizeof(path), "%s/cgroup.procs", group);
	snprintf(buf, sizeof(buf), "%d", pid);
	err = write_file(path, buf);
	if (err) {
		errno = -err;
		die("write %s:", path);
	}
}

static void cg_setup(void)
{
	int i;

	write_file(CGROOT "/cgroup.subtree_control", "+cpu");
	mkdir(CG_SERVER, 0755);
	mkdir(CG_REST, 0755);
	for (i = 0; i < nr_tasks; i++)
		cg_move(tasks[i].role == SERVER ? CG_SERVER : CG_REST, tasks[i].pid);
}

static void cg_teardown(void)
{
	rmdir(CG_SERVER);
	rmdir(CG_REST);
}

static void kill_all(void)
{
	int i;

	for (i = 0; i < nr_tasks; i++)
		kill(tasks[i].pid, SIGKILL);
	for (i = 0; i < nr_tasks; i++)
		waitpid(tasks[i].pid, NULL, 0);
	nr_tasks = 0;
	for (i = 0; i < opt.nr_clients; i++) {
		if (server_fds[i] >= 0)
			close(server_fds[i]);
		server_fds[i] = -1;
	}
}

static void cleanup(void)
{
	if (nr_tasks)
		kill_all();
	cg_teardown();
	restore_sysctls();
}

static void on_signal(int sig)
{
	cleanup();
	_exit(128 + sig);
}

/* A channel from a client (@cfd, it writes) to the server (@sfd, it reads). */
static void channel(int *cfd, int *sfd)
{
	struct termios tio;
	int fds[2], m, s;

	switch (opt.transport) {
	case T_UNIX:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
			die("socketpair:");
		*cfd = fds[0];
		*sfd = fds[1];
		return;
	case T_PIPE:
		if (pipe(fds))
			die("pipe:");
		*cfd = fds[1];
		*sfd = fds[0];
		return;
	case T_PTY:
		m = posix_openpt(O_RDWR | O_NOCTTY);
		if (m < 0)
			die("posix_openpt (is devpts mounted on /dev/pts?):");
		if (grantpt(m) || unlockpt(m))
			die("grantpt/unlockpt:");
		s = open(ptsname(m), O_RDWR | O_NOCTTY);
		if (s < 0)
			die("open %s:", ptsname(m));
		/* raw: no echo back to the master, no line editing, no OPOST */
		if (tcgetattr(s, &tio))
			die("tcgetattr:");
		cfmakeraw(&tio);
		tio.c_cc[VMIN] = 1;
		tio.c_cc[VTIME] = 0;
		if (tcsetattr(s, TCSANOW, &tio))
			die("tcsetattr:");
		*cfd = s;
		*sfd = m;
		return;
	}
}

/*
 * Fork the server and clients (and the hogs unless @hogs is 0), held at a
 * start pipe until the caller has placed them; returns the pipe's write end.
 */
static int spawn_all(int hogs, int seed)
{
	int start[2], i;

	if (pipe(start))
		die("pipe:");
	for (i = 0; i < opt.nr_clients; i++)
		channel(&client_fds[i], &server_fds[i]);
	*requests = 0;
	spawn(SERVER, start, 0, seed);
	for (i = 0; i < opt.nr_clients; i++)
		spawn(CLIENT, start, client_fds[i], seed);
	for (i = 0; i < opt.nr_clients; i++) {
		close(client_fds[i]);
		client_fds[i] = -1;
	}
	for (i = 0; i < hogs; i++)
		spawn(HOG, start, 0, seed);
	close(start[0]);
	return start[1];
}

static void spawn_hogs(void)
{
	int start[2], i;

	if (pipe(start))
		die("pipe:");
	for (i = 0; i < opt.nr_hogs; i++)
		spawn(HOG, start, 0, 0);
	close(start[0]);
	close(start[1]);
}

/* ---------------------------------------------------------------- measuring */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void snapshot(double *t, uint64_t *req)
{
	int i;

	*t = bench_now();
	*req = __atomic_load_n(requests, __ATOMIC_RELAXED);
	for (i = 0; i < nr_tasks; i++)
		tasks[i].ns = schedstat(tasks[i].pid);
}

/* Shares between the previous snapshot (@prev, @t0, @r0) and now. */
static void measure(const uint64_t *prev, double t0, uint64_t r0,
		    double t1, uint64_t r1, struct sample *s)
{
	double hog[MAX_TASKS], total = 0, d;
	int i, nh = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < nr_tasks; i++)
		total += tasks[i].ns - prev[i];
	if (total <= 0)
		total = 1;
	for (i = 0; i < nr_tasks; i++) {
		d = 100.0 * (tasks[i].ns - prev[i]) / total;
		switch (tasks[i].role) {
		case SERVER:
			s->server += d;
			break;
		case CLIENT:
			s->clients += d;
			break;
		case HOG:
			s->hogs += d;
			hog[nh++] = d;
			break;
		}
	}
	if (nh) {
		s->hog_med = median(hog, nh);
		s->hog_min = hog[0];
		s->hog_max = hog[nh - 1];
	}
	s->req_s = (r1 - r0) / (t1 - t0);
	s->other = 100.0 * (1 - total / 1e9 / ((t1 - t0) * ncpu));
	accounts(&s->price, &s->balance);
}

static void fair(double *server, double *clients, double *hog)
{
	double n = opt.nr_clients + 1 + opt.nr_hogs, coal;

	coal = 100.0 * (opt.nr_clients + 1) / n;
	*hog = opt.nr_hogs ? 100.0 / n : 0;
	*server = coal * opt.server_us / (opt.server_us + opt.client_us);
	*clients = coal - *server;
}

static void print_sample(const char *mode, int round, int win, double t,
			 struct sample *s)
{
	if (!opt.quiet)
		printf("%-8s %2d %2d %7.1f  %6.1f %7.1f %6.1f  %5.1f %5.1f %5.1f  %7.0f %6.1f %8.0f %9.0f\n",
		       mode, round, win, t, s->server, s->clients, s->hogs,
		       s->hog_min, s->hog_med, s->hog_max, s->req_s, s->other,
		       s->price, s->balance);
	if (csv)
		fprintf(csv, "%swin,%s,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.0f,%.2f,%.0f,%.0f\n",
			csv_prefix, mode, round, win, t, s->server, s->clients,
			s->hogs, s->hog_min, s->hog_med, s->hog_max, s->req_s,
			s->other, s->price, s->balance);
}

static void print_header(void)
{
	if (!opt.quiet)
		printf("%-8s %2s %2s %7s  %6s %7s %6s  %5s %5s %5s  %7s %6s %8s %9s\n",
		       "mode", "rd", "w", "t[s]", "server", "clients", "hogs",
		       "hogmin", "hogmd", "hogmx", "req/s", "other",
		       "price", "balance");
	if (csv)
		fprintf(csv, "%swin,mode,round,window,t,server,clients,hogs,hog_min,hog_med,hog_max,req_s,other,price_ns,balance_ns\n",
			csv_prefix);
}

/* ---------------------------------------------------------------- modes */

#define MAX_MODES	8
#define MAX_SAMPLES	256

struct mode {
	const char *name;
	int n;
	struct sample s[MAX_SAMPLES];
};

static void segment(struct mode *m, int round)
{
	int seed = !strcmp(m->name, "seed"), go, i, w;
	uint64_t prev[MAX_TASKS], r0, r1;
	struct books b0, b1;
	double t0, t1;

	if (!strcmp(m->name, "off") || !strcmp(m->name, "renice") ||
	    !strcmp(m->name, "group"))
		economy(NULL);
	else if (!strcmp(m->name, "economy"))
		economy(opt.policy);
	else if (!strcmp(m->name, "fixed"))
		economy("fixed");
	else if (seed)
		economy("seed");
	else
		die("unknown mode %s", m->name);

	go = spawn_all(opt.nr_hogs, seed);
	if (!strcmp(m->name, "renice") &&
	    setpriority(PRIO_PROCESS, tasks[0].pid, -10))
		die("setpriority:");
	if (!strcmp(m->name, "group"))
		cg_setup();
	close(go);

	bench_sleep_until(bench_now() + opt.warmup_ms / 1000.0);
	books_read(&b0);
	snapshot(&t0, &r0);
	for (w = 0; w < opt.windows; w++) {
		struct sample s;

		for (i = 0; i < nr_tasks; i++)
			prev[i] = tasks[i].ns;
		bench_sleep_until(t0 + opt.window_ms / 1000.0);
		snapshot(&t1, &r1);
		measure(prev, t0, r0, t1, r1, &s);
		print_sample(m->name, round, w, t1 - t_start, &s);
		if (m->n < MAX_SAMPLES)
			m->s[m->n++] = s;
		t0 = t1;
		r0 = r1;
	}
	books_read(&b1);
	books_print(m->name, &b0, &b1);
	kill_all();
	cg_teardown();
}

/* median [min-max] of one field over a mode's windows */
static void col_stat(struct mode *m, size_t off, double *med, double *lo, double *hi)
{
	double v[MAX_SAMPLES];
	int i;

	for (i = 0; i < m->n; i++)
		v[i] = *(double *)((char *)&m->s[i] + off);
	*med = median(v, m->n);
	*lo = v[0];
	*hi = v[m->n - 1];
}

static void summary(struct mode *modes, int nr_modes)
{
	static const struct { const char *name; size_t off; } cols[] = {
		{ "server",  offsetof(struct sample, server) },
		{ "clients", offsetof(struct sample, clients) },
		{ "hog",     offsetof(struct sample, hog_med) },
		{ "hog_min", offsetof(struct sample, hog_min) },
		{ "hog_max", offsetof(struct sample, hog_max) },
		{ "req_s",   offsetof(struct sample, req_s) },
		{ "price",   offsetof(struct sample, price) },
	};
	double fs, fc, fh, med, lo, hi;
	int i, j;

	fair(&fs, &fc, &fh);
	printf("\nsummary: N=%d H=%d S=%dus C=%dus, %d windows of %d ms per mode; median [min-max] %%\n",
	       opt.nr_clients, opt.nr_hogs, opt.server_us, opt.client_us,
	       modes[0].n, opt.window_ms);
	printf("%-8s %-19s %-19s %-19s %-19s %-19s\n", "mode", "server", "clients",
	       "hog (median hog)", "hog min..max", "req/s");
	for (i = 0; i < nr_modes; i++) {
		struct mode *m = &modes[i];
		double hl, hh, d;

		if (!m->n)
			continue;
		printf("%-8s", m->name);
		for (j = 0; j < 3; j++) {
			char buf[32];

			col_stat(m, cols[j].off, &med, &lo, &hi);
			snprintf(buf, sizeof(buf), "%.1f [%.1f-%.1f]", med, lo, hi);
			printf(" %-19s", buf);
		}
		col_stat(m, cols[3].off, &hl, &lo, &d);
		col_stat(m, cols[4].off, &d, &lo, &hh);
		{
			char buf[32];

			snprintf(buf, sizeof(buf), "%.1f..%.1f", hl, hh);
			printf(" %-19s", buf);
		}
		col_stat(m, cols[5].off, &med, &lo, &hi);
		printf(" %.0f [%.0f-%.0f]\n", med, lo, hi);
		if (csv) {
			fprintf(csv, "%ssum,%s,%d", csv_prefix, m->name, m->n);
			for (j = 0; j < 7; j++) {
				col_stat(m, cols[j].off, &med, &lo, &hi);
				fprintf(csv, ",%.2f,%.2f,%.2f", med, lo, hi);
			}
			fprintf(csv, "\n");
		}
	}
	printf("%-8s %-19.1f %-19.1f %-19.1f\n", "fair", fs, fc, fh);
	if (csv)
		fprintf(csv, "%sfair,%.2f,%.2f,%.2f,%.2f\n", csv_prefix, fs, fc,
			fh, fs + fc);
}

/* ---------------------------------------------------------------- demo */

static void demo(void)
{
	static const char * const phase[] = {
		"alone", "hogs", "economy", "off",
	};
	uint64_t prev[MAX_TASKS], r0, r1;
	struct books b0, b1;
	double t0, t1, start;
	int p, i, go, steps = opt.phase_ms / opt.window_ms;

	if (steps < 1)
		steps = 1;
	economy(NULL);
	go = spawn_all(0, 0);
	close(go);
	bench_sleep_until(bench_now() + opt.warmup_ms / 1000.0);
	start = bench_now();
	snapshot(&t0, &r0);
	if (csv)
		fprintf(csv, "%sdemo,t,phase,server,clients,hogs,hog_mean,req_s,price_ns\n",
			csv_prefix);
	for (p = 0; p < 4; p++) {
		const char *name = phase[p];
		double acc_s = 0, acc_c = 0, acc_h = 0;
		int k;

		switch (p) {
		case 1:
			spawn_hogs();
			for (i = 0; i < nr_tasks; i++)
				tasks[i].ns = schedstat(tasks[i].pid);
			break;
		case 2:
			books_read(&b0);
			economy(opt.policy);
			break;
		case 3:
			economy(NULL);
			books_read(&b1);
			books_print("economy", &b0, &b1);
			break;
		}
		if (csv)
			fprintf(csv, "%sevent,%.2f,%s\n", csv_prefix, bench_now() - start, name);
		printf("--- %5.1f s: %s\n", bench_now() - start,
		       p == 0 ? "server and clients alone" :
		       p == 1 ? "the hogs arrive (economy off)" :
		       p == 2 ? "economy on" : "economy off again");
		for (k = 0; k < steps; k++) {
			struct sample s;
			int nh = p ? opt.nr_hogs : 0;

			for (i = 0; i < nr_tasks; i++)
				prev[i] = tasks[i].ns;
			bench_sleep_until(t0 + opt.window_ms / 1000.0);
			snapshot(&t1, &r1);
			measure(prev, t0, r0, t1, r1, &s);
			if (csv)
				fprintf(csv, "%sdemo,%.2f,%s,%.2f,%.2f,%.2f,%.2f,%.0f,%.0f\n",
					csv_prefix, t1 - start, name, s.server,
					s.clients, s.hogs, nh ? s.hogs / nh : 0,
					s.req_s, s.price);
			acc_s += s.server;
			acc_c += s.clients;
			acc_h += nh ? s.hogs / nh : 0;
			t0 = t1;
			r0 = r1;
		}
		printf("    %-8s server %5.1f%%  clients %5.1f%%  each hog %5.1f%%  (mean of %d x %d ms)\n",
		       name, acc_s / steps, acc_c / steps, acc_h / steps, steps,
		       opt.window_ms);
	}
	if (csv)
		fprintf(csv, "%sevent,%.2f,end\n", csv_prefix, bench_now() - start);
	kill_all();
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "clients",	required_argument, NULL, 'N' },
		{ "hogs",	required_argument, NULL, 'H' },
		{ "server-us",	required_argument, NULL, 'S' },
		{ "client-us",	required_argument, NULL, 'C' },
		{ "transport",	required_argument, NULL, 'X' },
		{ "mode",	required_argument, NULL, 'm' },
		{ "rounds",	required_argument, NULL, 'r' },
		{ "windows",	required_argument, NULL, 'w' },
		{ "window-ms",	required_argument, NULL, 't' },
		{ "warmup-ms",	required_argument, NULL, 'u' },
		{ "price",	required_argument, NULL, 'p' },
		{ "policy",	required_argument, NULL, 'P' },
		{ "demo",	no_argument,	   NULL, 'd' },
		{ "phase-ms",	required_argument, NULL, 'T' },
		{ "csv",	required_argument, NULL, 'c' },
		{ "affinity",	no_argument,	   NULL, 'a' },
		{ "quiet",	no_argument,	   NULL, 'q' },
		{ "help",	no_argument,	   NULL, 'h' },
		{}
	};
	struct mode modes[MAX_MODES];
	char *mode_list = strdup("off,economy"), *tok, *save;
	int c, i, r, nr_modes = 0, do_demo = 0;
	double fs, fc, fh;

	while ((c = getopt_long(argc, argv, "N:H:S:C:X:m:r:w:t:u:p:P:dT:c:aqh",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'N': opt.nr_clients = atoi(optarg); break;
		case 'H': opt.nr_hogs = atoi(optarg); break;
		case 'S': opt.server_us = atoi(optarg); break;
		case 'C': opt.client_us = atoi(optarg); break;
		case 'X':
			for (i = 0; i < 3 && strcmp(optarg, transport_names[i]); i++)
				;
			if (i == 3)
				die("unknown transport %s (unix, pipe or pty)", optarg);
			opt.transport = i;
			req_size = opt.transport == T_PTY ? PTY_REQ_SIZE :
				   opt.transport == T_PIPE ? PIPE_REQ_SIZE : REQ_SIZE;
			break;
		case 'm': mode_list = strdup(optarg); break;
		case 'r': opt.rounds = atoi(optarg); break;
		case 'w': opt.windows = atoi(optarg); break;
		case 't': opt.window_ms = atoi(optarg); break;
		case 'u': opt.warmup_ms = atoi(optarg); break;
		case 'p': opt.price = atol(optarg); break;
		case 'P': opt.policy = optarg; break;
		case 'd': do_demo = 1; break;
		case 'T': opt.phase_ms = atoi(optarg); break;
		case 'c':
			if (!strcmp(optarg, "-")) {
				csv = stdout;
				csv_prefix = "XBENCH_CSV ";
			} else if (!(csv = fopen(optarg, "w"))) {
				die("%s:", optarg);
			}
			break;
		case 'a': opt.affinity = 1; break;
		case 'q': opt.quiet = 1; break;
		case 'h':
			printf(help_fmt, argv[0]);
			return 0;
		default:
			fprintf(stderr, help_fmt, argv[0]);
			return 2;
		}
	}
	if (opt.nr_clients < 1 || opt.nr_clients > 16 || opt.nr_hogs < 0 ||
	    opt.nr_hogs > 40 || opt.server_us < 1 || opt.client_us < 1 ||
	    opt.rounds < 1 || opt.windows < 1 || opt.window_ms < 10 ||
	    opt.warmup_ms < 0)
		die("bad arguments (see --help)");
	for (tok = strtok_r(mode_list, ",", &save); tok && nr_modes < MAX_MODES;
	     tok = strtok_r(NULL, ",", &save)) {
		modes[nr_modes].name = tok;
		modes[nr_modes].n = 0;
		nr_modes++;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	requests = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (requests == MAP_FAILED)
		die("mmap:");
	for (i = 0; i < MAX_TASKS; i++)
		server_fds[i] = client_fds[i] = -1;
	save_sysctls();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	bench_calibrate();
	t_start = bench_now();

	fair(&fs, &fc, &fh);
	printf("xbench: N=%d H=%d S=%dus C=%dus over %s, %d CPU(s), spin chunk %llu; fair: server %.1f%% clients %.1f%% hog %.1f%%\n",
	       opt.nr_clients, opt.nr_hogs, opt.server_us, opt.client_us,
	       transport_names[opt.transport], ncpu,
	       (unsigned long long)bench_spin_chunk(), fs, fc, fh);
	if (do_demo) {
		demo();
		restore_sysctls();
		return 0;
	}
	print_header();
	for (r = 0; r < opt.rounds; r++)
		for (i = 0; i < nr_modes; i++)
			segment(&modes[i], r);
	summary(modes, nr_modes);
	cleanup();
	return 0;
}
