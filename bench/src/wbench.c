// SPDX-License-Identifier: GPL-2.0
/*
 * wbench - weighted clients: a thread-per-connection AF_UNIX server, one
 * client process per connection at its own nice level, and a few busy
 * loops. Each client burns C us of CPU and writes a 16-byte request to its
 * socket (blocking when the socket buffer is full); the server thread of
 * that connection reads one request at a time and burns S us for it.
 *
 * With S much larger than C a client's request rate is set by the CPU its
 * server thread gets. The server threads all run at nice 0, so with the
 * economy off the clients' weights hardly show in their rates; with the
 * economy on each server thread spends the credit of its own client, and
 * the rates should follow the clients' weights (lottery scheduling's 1994
 * ticket-transfer experiment: 7.69:2.51:1 for tickets 8:3:1).
 *
 * With --sync each client waits for the reply to its request (the server
 * thread writes one back) before it burns for the next: a synchronous
 * call, during which the client is blocked on its server thread.
 *
 * With --single one server thread serves all connections, one request of
 * each ready client in turn (the X shape); each client's CPU then counts
 * the thread's in proportion to the requests served for it.
 *
 * Each client connect()s to the server, as a client of a named service
 * does. Modes (alternating with --rounds, fresh processes per segment): off, and
 * economy (the --policy, default the module's default). Rates are counted
 * per client in shared memory; CPU shares come from
 * /proc/PID/task/TID/schedstat. The program writes
 * /proc/sys/kernel/sched_economy* itself (and restores them); it loads no
 * module.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "bench.h"

#define MAX_CLIENTS	8
#define MAX_HOGS	32
#define MAX_SAMPLES	256
#define REQ_SIZE	16
#define SYSCTL		"/proc/sys/kernel/sched_economy"

static const char help_fmt[] =
"wbench: weighted clients of a thread-per-connection AF_UNIX server, plus\n"
"busy loops; per-client request rates and their ratio against the ratio\n"
"of the clients' weights.\n"
"\n"
"Usage: %s [options]\n"
"\n"
"  -n, --nice LIST      the clients' nice levels (default 0,5,10)\n"
"  -H, --hogs H         busy loops at nice 0 (default 3)\n"
"  -S, --server-us S    CPU burned by a server thread per request (default 200)\n"
"  -C, --client-us C    CPU burned by a client per request (default 20)\n"
"  -y, --sync           clients wait for a reply to each request\n"
"  -1, --single         one server thread for all clients, serving one request\n"
"                       of each ready client in turn (the X shape); a\n"
"                       client's CPU then counts the server's in proportion\n"
"                       to its requests\n"
"  -s, --server-nice N  the server threads' nice level (default 0; 19 leaves\n"
"                       them almost no weight of their own, as the servers of\n"
"                       lottery scheduling's experiment had no tickets)\n"
"  -g, --groups LIST    place as systemd would: the server in\n"
"                       system.slice/wbench.service, client i in\n"
"                       user.slice/user-1000.slice/client-i.scope at\n"
"                       cpu.weight LIST[i], each busy loop in a hog-i.scope\n"
"                       beside them (cgroup v2 on /sys/fs/cgroup)\n"
"  -m, --mode LIST      comma-separated: off, economy (default off,economy)\n"
"  -P, --policy NAME    the policy of mode economy (default: leave the\n"
"                       module's as it is)\n"
"  -r, --rounds R       repeat the list of modes R times (default 1)\n"
"  -w, --windows W      measured windows per segment (default 3)\n"
"  -t, --window-ms MS   window length (default 1000)\n"
"  -u, --warmup-ms MS   before the first window of a segment (default 1000)\n"
"      --keys-offline   SMP: take CPUs 1.. offline while the economy is\n"
"                       switched on or off (QEMU --mttcg; xbench --help)\n"
"  -c, --csv            also print machine-readable lines, prefixed\n"
"                       \"WBENCH_CSV \"\n"
"  -h, --help           this text\n";

/* kernel/sched/core.c: sched_prio_to_weight[], nice -20..19 */
static const int prio_to_weight[40] = {
	88761, 71755, 56483, 46273, 36291,
	29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906,
	3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423,
	335, 272, 215, 172, 137,
	110, 87, 70, 56, 45,
	36, 29, 23, 18, 15,
};

struct shared {
	uint64_t requests[MAX_CLIENTS];
	pid_t tid[MAX_CLIENTS];		/* the server thread of each client */
};

struct sample {
	double rate[MAX_CLIENTS];	/* requests/s */
	double ratio[MAX_CLIENTS];	/* rate / rate of the last client */
	double cpu[MAX_CLIENTS];	/* % of the experiment: client + its thread */
	double hogs;			/* % all hogs together */
};

struct mode {
	const char *name;
	int n;
	struct sample s[MAX_SAMPLES];
};

static struct {
	int nice[MAX_CLIENTS], nr_clients, nr_hogs, server_us, client_us;
	int server_nice, single, sync;
	int group_weight[MAX_CLIENTS], groups;
	int rounds, windows, window_ms, warmup_ms, csv;
	const char *policy;
} opt = {
	.nice = { 0, 5, 10 }, .nr_clients = 3, .nr_hogs = 3,
	.server_us = 200, .client_us = 20, .rounds = 1, .windows = 3,
	.window_ms = 1000, .warmup_ms = 1000,
};

static struct shared *sh;
static pid_t server_pid, client_pid[MAX_CLIENTS], hog_pid[MAX_HOGS];
static int server_fd[MAX_CLIENTS];
static char saved_enable[32], saved_policy[32];

static void die(const char *msg)
{
	fprintf(stderr, "wbench: %s%s%s\n", msg, errno ? ": " : "",
		errno ? strerror(errno) : "");
	exit(1);
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
	return 0;
}

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		die(path);
	close(fd);
}

static void economy(int on)
{
	if (access(SYSCTL, F_OK)) {
		errno = 0;
		if (on)
			die("economy mode needs sched_economy.ko loaded");
		return;
	}
	bench_keys_cpus(0);
	if (on && opt.policy)
		write_file(SYSCTL "_policy", opt.policy);
	write_file(SYSCTL, on ? "1" : "0");
	bench_keys_cpus(1);
}

static void restore(void)
{
	if (saved_enable[0]) {
		bench_keys_cpus(0);
		write_file(SYSCTL "_policy", saved_policy);
		write_file(SYSCTL, saved_enable);
		bench_keys_cpus(1);
	}
}

/* ---------------------------------------------------------------- tasks */

static void *server_thread(void *arg)
{
	int i = (long)arg;
	char req[REQ_SIZE];

	sh->tid[i] = syscall(SYS_gettid);
	if (setpriority(PRIO_PROCESS, sh->tid[i], opt.server_nice))
		_exit(2);
	while (recv(server_fd[i], req, sizeof(req), MSG_WAITALL) == sizeof(req)) {
		bench_burn(opt.server_us * 1000ULL);
		__atomic_add_fetch(&sh->requests[i], 1, __ATOMIC_RELAXED);
		if (opt.sync && write(server_fd[i], req, sizeof(req)) != sizeof(req))
			break;
	}
	return NULL;
}

/* The X shape: poll() all connections, one request of each ready one. */
static void single_server(void)
{
	struct pollfd pfd[MAX_CLIENTS];
	char req[REQ_SIZE];
	pid_t tid = syscall(SYS_gettid);
	int i;

	if (setpriority(PRIO_PROCESS, tid, opt.server_nice))
		_exit(2);
	for (i = 0; i < opt.nr_clients; i++) {
		sh->tid[i] = tid;
		pfd[i].fd = server_fd[i];
		pfd[i].events = POLLIN;
	}
	for (;;) {
		if (bench_poll(pfd, opt.nr_clients, -1) < 0)
			_exit(2);
		for (i = 0; i < opt.nr_clients; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			if (recv(pfd[i].fd, req, sizeof(req), MSG_WAITALL) !=
			    sizeof(req))
				_exit(0);
			bench_burn(opt.server_us * 1000ULL);
			__atomic_add_fetch(&sh->requests[i], 1, __ATOMIC_RELAXED);
		}
	}
}

static void server_main(void)
{
	pthread_t th[MAX_CLIENTS];
	long i;

	if (opt.single)
		single_server();

	for (i = 0; i < opt.nr_clients; i++)
		if (pthread_create(&th[i], NULL, server_thread, (void *)i))
			_exit(2);
	for (i = 0; i < opt.nr_clients; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

static pid_t child(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	return pid;
}

/*
 * A connection as a client makes one: connect() to a listening socket
 * (abstract, per wbench process), then accept(). sv[0] is the client's
 * end, the one that connected.
 */
static void connected_pair(int sv[2])
{
	static int lfd = -1;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t len;

	snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "wbench-%d", getpid());
	len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a.sun_path + 1);
	if (lfd < 0) {
		lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, len) ||
		    listen(lfd, MAX_CLIENTS))
			die("listen");
	}
	sv[0] = socket(AF_UNIX, SOCK_STREAM, 0);
	if (sv[0] < 0 || connect(sv[0], (struct sockaddr *)&a, len))
		die("connect");
	sv[1] = accept(lfd, NULL, NULL);
	if (sv[1] < 0)
		die("accept");
}

static void spawn_all(void)
{
	char req[REQ_SIZE] = "request";
	int sv[2], cfd[MAX_CLIENTS], i, j;

	memset(sh, 0, sizeof(*sh));
	for (i = 0; i < opt.nr_clients; i++) {
		connected_pair(sv);
		cfd[i] = sv[0];
		server_fd[i] = sv[1];
	}
	server_pid = child();
	if (!server_pid) {
		for (i = 0; i < opt.nr_clients; i++)
			close(cfd[i]);
		server_main();
	}
	for (i = 0; i < opt.nr_clients; i++) {
		client_pid[i] = child();
		if (!client_pid[i]) {
			for (j = 0; j < opt.nr_clients; j++) {
				close(server_fd[j]);
				if (j != i)
					close(cfd[j]);
			}
			if (setpriority(PRIO_PROCESS, 0, opt.nice[i]))
				_exit(3);
			for (;;) {
				bench_burn(opt.client_us * 1000ULL);
				if (write(cfd[i], req, sizeof(req)) != sizeof(req))
					_exit(0);
				if (opt.sync &&
				    recv(cfd[i], req, sizeof(req), MSG_WAITALL) != sizeof(req))
					_exit(0);
			}
		}
	}
	for (i = 0; i < opt.nr_clients; i++) {
		close(cfd[i]);
		close(server_fd[i]);
	}
	for (i = 0; i < opt.nr_hogs; i++) {
		hog_pid[i] = child();
		if (!hog_pid[i])
			for (;;)
				bench_spin(1000000);
	}
}

#define CGROOT		"/sys/fs/cgroup"
#define CG_USER		CGROOT "/user.slice/user-1000.slice"

static void cg_put(const char *group, const char *weight, pid_t pid)
{
	char path[200], buf[32];

	mkdir(group, 0755);
	if (weight) {
		snprintf(path, sizeof(path), "%s/cpu.weight", group);
		write_file(path, weight);
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", group);
	snprintf(buf, sizeof(buf), "%d", pid);
	write_file(path, buf);
}

/* The placement of --groups; write_file() dies on a failure. */
static void cg_setup(void)
{
	char group[160], weight[16];
	int i;

	write_file(CGROOT "/cgroup.subtree_control", "+cpu");
	mkdir(CGROOT "/system.slice", 0755);
	mkdir(CGROOT "/user.slice", 0755);
	mkdir(CG_USER, 0755);
	write_file(CGROOT "/system.slice/cgroup.subtree_control", "+cpu");
	write_file(CGROOT "/user.slice/cgroup.subtree_control", "+cpu");
	write_file(CG_USER "/cgroup.subtree_control", "+cpu");
	cg_put(CGROOT "/system.slice/wbench.service", NULL, server_pid);
	for (i = 0; i < opt.nr_clients; i++) {
		snprintf(group, sizeof(group), CG_USER "/client-%d.scope", i);
		snprintf(weight, sizeof(weight), "%d", opt.group_weight[i]);
		cg_put(group, weight, client_pid[i]);
	}
	for (i = 0; i < opt.nr_hogs; i++) {
		snprintf(group, sizeof(group), CG_USER "/hog-%d.scope", i);
		cg_put(group, NULL, hog_pid[i]);
	}
}

static void cg_teardown(void)
{
	char group[160];
	int i;

	for (i = 0; i < MAX_CLIENTS; i++) {
		snprintf(group, sizeof(group), CG_USER "/client-%d.scope", i);
		rmdir(group);
	}
	for (i = 0; i < MAX_HOGS; i++) {
		snprintf(group, sizeof(group), CG_USER "/hog-%d.scope", i);
		rmdir(group);
	}
	rmdir(CGROOT "/system.slice/wbench.service");
	rmdir(CG_USER);
	rmdir(CGROOT "/user.slice");
	rmdir(CGROOT "/system.slice");
}

static void kill_all(void)
{
	int i;

	for (i = 0; i < opt.nr_hogs; i++)
		kill(hog_pid[i], SIGKILL);
	for (i = 0; i < opt.nr_clients; i++)
		kill(client_pid[i], SIGKILL);
	kill(server_pid, SIGKILL);
	for (i = 0; i < opt.nr_hogs; i++)
		waitpid(hog_pid[i], NULL, 0);
	for (i = 0; i < opt.nr_clients; i++)
		waitpid(client_pid[i], NULL, 0);
	waitpid(server_pid, NULL, 0);
}

static uint64_t schedstat(pid_t pid, pid_t tid)
{
	char path[64], buf[128];
	unsigned long long ns = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid, tid);
	if (!read_file(path, buf, sizeof(buf)))
		sscanf(buf, "%llu", &ns);
	return ns;
}

/* ---------------------------------------------------------------- measuring */

struct snap {
	double t;
	uint64_t req[MAX_CLIENTS], cli[MAX_CLIENTS], srv[MAX_CLIENTS];
	uint64_t hog[MAX_HOGS];
};

static void snapshot(struct snap *s)
{
	int i;

	s->t = bench_now();
	for (i = 0; i < opt.nr_clients; i++) {
		s->req[i] = __atomic_load_n(&sh->requests[i], __ATOMIC_RELAXED);
		s->cli[i] = schedstat(client_pid[i], client_pid[i]);
		s->srv[i] = schedstat(server_pid, sh->tid[i]);
	}
	for (i = 0; i < opt.nr_hogs; i++)
		s->hog[i] = schedstat(hog_pid[i], hog_pid[i]);
}

static void measure(const struct snap *a, const struct snap *b, struct sample *s)
{
	double total = 0, last, srv[MAX_CLIENTS], reqs = 0;
	int i, n = opt.nr_clients;

	for (i = 0; i < n; i++) {
		srv[i] = b->srv[i] - a->srv[i];
		reqs += b->req[i] - a->req[i];
	}
	/* One thread: counted once, shared out by requests served. */
	for (i = 0; opt.single && i < n; i++)
		srv[i] = reqs ? srv[0] * (b->req[i] - a->req[i]) / reqs : 0;
	for (i = 0; i < n; i++)
		total += (b->cli[i] - a->cli[i]) + srv[i];
	for (i = 0; i < opt.nr_hogs; i++)
		total += b->hog[i] - a->hog[i];
	if (total <= 0)
		total = 1;
	s->hogs = 0;
	for (i = 0; i < opt.nr_hogs; i++)
		s->hogs += 100.0 * (b->hog[i] - a->hog[i]) / total;
	for (i = 0; i < n; i++) {
		s->rate[i] = (b->req[i] - a->req[i]) / (b->t - a->t);
		s->cpu[i] = 100.0 * ((b->cli[i] - a->cli[i]) + srv[i]) / total;
	}
	last = s->rate[n - 1];
	for (i = 0; i < n; i++)
		s->ratio[i] = last > 0 ? s->rate[i] / last : 0;
}

static void print_sample(const char *mode, int round, int win, struct sample *s)
{
	int i;

	printf("%-8s %2d %2d ", mode, round, win);
	for (i = 0; i < opt.nr_clients; i++)
		printf(" %7.0f", s->rate[i]);
	printf("  ");
	for (i = 0; i < opt.nr_clients; i++)
		printf("%s%.2f", i ? ":" : " ", s->ratio[i]);
	printf("  ");
	for (i = 0; i < opt.nr_clients; i++)
		printf(" %5.1f", s->cpu[i]);
	printf("  %5.1f\n", s->hogs);
	if (!opt.csv)
		return;
	printf("WBENCH_CSV win,%s,%d,%d", mode, round, win);
	for (i = 0; i < opt.nr_clients; i++)
		printf(",%d,%.1f,%.3f,%.2f", opt.nice[i], s->rate[i],
		       s->ratio[i], s->cpu[i]);
	printf(",hogs,%.2f\n", s->hogs);
}

static void segment(struct mode *m, int round)
{
	struct snap a, b;
	int w, i;

	economy(!strcmp(m->name, "economy"));
	spawn_all();
	/* the server threads publish their tids */
	for (i = 0; i < 1000; i++) {
		int ready = 1, j;

		for (j = 0; j < opt.nr_clients; j++)
			ready &= !!__atomic_load_n(&sh->tid[j], __ATOMIC_RELAXED);
		if (ready)
			break;
		usleep(1000);
	}
	if (opt.groups)
		cg_setup();
	bench_sleep_until(bench_now() + opt.warmup_ms / 1000.0);
	snapshot(&a);
	for (w = 0; w < opt.windows; w++) {
		struct sample *s = &m->s[m->n < MAX_SAMPLES ? m->n : MAX_SAMPLES - 1];

		bench_sleep_until(a.t + opt.window_ms / 1000.0);
		snapshot(&b);
		measure(&a, &b, s);
		print_sample(m->name, round, w, s);
		if (m->n < MAX_SAMPLES)
			m->n++;
		a = b;
	}
	kill_all();
	if (opt.groups)
		cg_teardown();
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* "median [min-max]" of @v (sorted in place) */
static const char *mmm(double *v, int n, int prec)
{
	static char buf[4][48];
	static int k;
	double med;

	qsort(v, n, sizeof(*v), cmp_double);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%.*f [%.*f-%.*f]", prec, med, prec,
		 v[0], prec, v[n - 1]);
	return buf[k];
}

static void summary(struct mode *modes, int nr_modes)
{
	double v[MAX_SAMPLES], wl = prio_to_weight[opt.nice[opt.nr_clients - 1] + 20];
	int i, j, k;

	printf("\nsummary: %d windows of %d ms per mode; median [min-max]\n",
	       modes[0].n, opt.window_ms);
	printf("%-8s %-6s %6s %9s  %-22s %-22s %s\n", "mode", "nice", "weight",
	       "w ratio", "requests/s", "rate ratio", "CPU % (client+thread)");
	for (i = 0; i < nr_modes; i++) {
		struct mode *m = &modes[i];

		for (j = 0; j < opt.nr_clients && m->n; j++) {
			int wt = prio_to_weight[opt.nice[j] + 20];
			const char *r, *q, *c;

			for (k = 0; k < m->n; k++)
				v[k] = m->s[k].rate[j];
			r = mmm(v, m->n, 0);
			for (k = 0; k < m->n; k++)
				v[k] = m->s[k].ratio[j];
			q = mmm(v, m->n, 2);
			for (k = 0; k < m->n; k++)
				v[k] = m->s[k].cpu[j];
			c = mmm(v, m->n, 1);
			printf("%-8s %-6d %6d %9.2f  %-22s %-22s %s\n",
			       j ? "" : m->name, opt.nice[j], wt, wt / wl, r, q, c);
		}
		for (k = 0; k < m->n; k++)
			v[k] = m->s[k].hogs;
		printf("%-8s %-6s %6s %9s  %-22s %-22s %s\n", "", "hogs", "", "",
		       "", "", mmm(v, m->n, 1));
	}
}

/* A comma-separated list of at most MAX_CLIENTS integers into @v; their number. */
static int int_list(char *arg, int *v)
{
	char *tok, *save;
	int n = 0;

	for (tok = strtok_r(arg, ",", &save); tok && n < MAX_CLIENTS;
	     tok = strtok_r(NULL, ",", &save))
		v[n++] = atoi(tok);
	return n;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "nice",	required_argument, NULL, 'n' },
		{ "hogs",	required_argument, NULL, 'H' },
		{ "server-us",	required_argument, NULL, 'S' },
		{ "client-us",	required_argument, NULL, 'C' },
		{ "server-nice", required_argument, NULL, 's' },
		{ "single",	no_argument,	   NULL, '1' },
		{ "sync",	no_argument,	   NULL, 'y' },
		{ "groups",	required_argument, NULL, 'g' },
		{ "mode",	required_argument, NULL, 'm' },
		{ "policy",	required_argument, NULL, 'P' },
		{ "rounds",	required_argument, NULL, 'r' },
		{ "windows",	required_argument, NULL, 'w' },
		{ "window-ms",	required_argument, NULL, 't' },
		{ "warmup-ms",	required_argument, NULL, 'u' },
		{ "csv",	no_argument,	   NULL, 'c' },
		{ "keys-offline", no_argument,	   NULL, 'K' },
		{ "help",	no_argument,	   NULL, 'h' },
		{}
	};
	static struct mode modes[4];
	char *mode_list = strdup("off,economy"), *tok, *save;
	int c, i, r, nr_modes = 0;

	while ((c = getopt_long(argc, argv, "n:H:S:C:s:1yg:m:P:r:w:t:u:ch",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			opt.nr_clients = int_list(optarg, opt.nice);
			break;
		case 'H': opt.nr_hogs = atoi(optarg); break;
		case 'S': opt.server_us = atoi(optarg); break;
		case 'C': opt.client_us = atoi(optarg); break;
		case 's': opt.server_nice = atoi(optarg); break;
		case '1': opt.single = 1; break;
		case 'y': opt.sync = 1; break;
		case 'g':
			opt.groups = int_list(optarg, opt.group_weight);
			break;
		case 'm': mode_list = strdup(optarg); break;
		case 'P': opt.policy = optarg; break;
		case 'r': opt.rounds = atoi(optarg); break;
		case 'w': opt.windows = atoi(optarg); break;
		case 't': opt.window_ms = atoi(optarg); break;
		case 'u': opt.warmup_ms = atoi(optarg); break;
		case 'c': opt.csv = 1; break;
		case 'K': bench_keys_offline = 1; break;
		case 'h':
			printf(help_fmt, argv[0]);
			return 0;
		default:
			fprintf(stderr, help_fmt, argv[0]);
			return 2;
		}
	}
	errno = 0;
	if (opt.nr_clients < 1 || opt.nr_hogs < 0 || opt.nr_hogs > MAX_HOGS ||
	    opt.server_us < 1 || opt.client_us < 1 || opt.rounds < 1 ||
	    opt.windows < 1 || opt.window_ms < 10 || opt.warmup_ms < 0 ||
	    opt.rounds * opt.windows > MAX_SAMPLES)
		die("bad arguments (see --help)");
	for (i = 0; i < opt.nr_clients; i++)
		if (opt.nice[i] < -20 || opt.nice[i] > 19)
			die("nice out of range");
	if (opt.server_nice < -20 || opt.server_nice > 19)
		die("server nice out of range");
	if (opt.groups && opt.groups != opt.nr_clients)
		die("--groups needs one cpu.weight per client");
	for (i = 0; i < opt.groups; i++)
		if (opt.group_weight[i] < 1 || opt.group_weight[i] > 10000)
			die("cpu.weight out of range (1-10000)");
	for (tok = strtok_r(mode_list, ",", &save); tok && nr_modes < 4;
	     tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "off") && strcmp(tok, "economy"))
			die("unknown mode (off, economy)");
		modes[nr_modes++].name = tok;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	if (!read_file(SYSCTL, saved_enable, sizeof(saved_enable)))
		read_file(SYSCTL "_policy", saved_policy, sizeof(saved_policy));
	signal(SIGPIPE, SIG_IGN);
	bench_calibrate();

	printf("wbench: %d clients (nice", opt.nr_clients);
	for (i = 0; i < opt.nr_clients; i++)
		printf(" %d", opt.nice[i]);
	printf("), %d hogs, S=%dus C=%dus, %s at nice %d, policy %s\n",
	       opt.nr_hogs, opt.server_us, opt.client_us,
	       opt.single ? "one server thread" : "server threads",
	       opt.server_nice,
	       opt.policy ? opt.policy : saved_policy[0] ? saved_policy : "-");
	printf("%-8s %2s %2s  requests/s per client, rate ratio, CPU %% per client+thread, hogs %%\n",
	       "mode", "rd", "w");
	for (r = 0; r < opt.rounds; r++)
		for (i = 0; i < nr_modes; i++)
			segment(&modes[i], r);
	summary(modes, nr_modes);
	restore();
	return 0;
}
