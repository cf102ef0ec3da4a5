// SPDX-License-Identifier: GPL-2.0
/*
 * xbench - the seed's experiment: an X-like server, its clients and a few
 * busy loops, with CPU shares measured from /proc/PID/schedstat.
 *
 *   server   one process, one request at a time: poll() on N channels
 *            (futex: FUTEX_WAIT when all are empty), take one request from
 *            each ready one, burn S us of CPU per request
 *   clients  N processes, each: burn C us, post one request to its own
 *            channel (blocking when the channel's backlog is full)
 *   proxy    with --proxy, one process between them (below)
 *   hogs     H processes: for (;;);
 *
 * A channel is (--transport) an AF_UNIX stream socketpair (the default),
 * a pipe, a pty pair (the client writes the slave, set raw: no echo, no
 * canonical mode, no output processing; the server reads the master), a
 * futex ring or a pair of eventfds.  Each holds the same backlog, 256
 * requests, before a client blocks (a client lends its weight only while
 * blocked; measured in the guest): a socket 256 of 16 bytes (its send
 * buffer in skbs), a pipe 64 KiB, 256 of 256 bytes, a pty 20 KiB, 256 of
 * 80 bytes.  With 16 bytes a pipe would hold 4096 and a pty 1280: seconds
 * of filling before a client blocks, and then fill-and-drain swings longer
 * than a window.  A pipe shrunk to one page instead wakes its writer only
 * when the page is empty: the clients fall into step and the shares swing
 * 17 / 23 % from window to window.
 *
 * futex and eventfd move no data through the kernel, only wakeups: the
 * transports of shared-memory queues (futex-based locks and queues, the
 * eventfd doorbells of vhost, io_uring and KVM), which an economy that
 * follows data alone does not see.
 *
 *   futex    a ring of 256 request slots of 16 bytes per client in
 *            MAP_SHARED memory, with two counters: head (posted, written by
 *            the client) and tail (taken, by the server).  A client posts
 *            into the ring and FUTEX_WAKEs the server if the server said it
 *            sleeps (a post to a busy server makes no syscall: the point of
 *            a futex).  The server sleeps in FUTEX_WAIT on one word for all
 *            rings, a sequence every post bumps, when no ring has a
 *            request, as it would in poll().  A client whose ring is full
 *            sleeps in FUTEX_WAIT on its tail, and the server wakes it when
 *            64 requests are left: a socket's writer is woken at that point
 *            (unix_writable(): a quarter of the send buffer in use), so a
 *            client sleeps as long as over a socket.
 *   eventfd  two eventfds per client.  requests: the client writes a 1 per
 *            request; the server polls them all, reads each ready one's
 *            count whole (a doorbell: one read for all posted since) and
 *            serves one request from each channel in turn.  room, the way
 *            back: a client starts with 256 credits, spends one per
 *            request and, with none left, blocks reading room.  The server
 *            knows what was posted, so it knows when a client has no
 *            credit left, and it returns the credits then, once 64
 *            requests are left: a client blocks with 256 queued and wakes
 *            with 64, as over a socket (an eventfd would wake its reader
 *            at any count).
 *
 * Over a socket, a futex ring and eventfds the clients fill, block and
 * refill in step: measured over 250 ms windows (1 vCPU, icount, economy
 * off), their share swings between 0 and 40 %.  A 1 s window spans about
 * one cycle of a socket or a futex ring; the eventfd cycle (~1.2 s) makes
 * 1 s windows alternate 25 / 13 %.  A pipe wakes its writer per page
 * freed and stays near 19 %.
 *
 * --proxy makes a chain, client -> proxy -> server, all AF_UNIX: one proxy
 * process polls a socketpair per client, reads one request from each ready
 * one, burns --proxy-us and forwards it to the server over its own
 * socketpair (256 requests of backlog each way), as xterm relays bash to
 * Xvfb.  When the server falls behind, the proxy blocks in its write and
 * the clients behind it block in theirs: their peer sleeps, and only a
 * credit that follows the chain reaches the server.  The proxy is part of
 * the coalition; its share has its own columns.
 *
 * The server's account balances (the price and balance columns) exist
 * only on sockets; on the other transports they read -1.
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
#include <linux/futex.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>

#include "bench.h"
#include "sched_economy.h"

#define MAX_TASKS	64
#define MAX_CLIENTS	16
#define REQ_SIZE	16	/* a request on a socket: 256 fill its buffer */
#define PIPE_REQ_SIZE	256	/* on a pipe: 256 of them fill its 64 KiB */
#define PTY_REQ_SIZE	80	/* on a pty: 256 of them fill its 20 KiB */
#define REQ_MAX		256	/* the backlog of every transport, in requests */
/* futex and eventfd wake a blocked client with this many left, as a socket does */
#define REQ_WAKE	(REQ_MAX / 4)
#define SYSCTL		"/proc/sys/kernel/sched_economy"
#define BOOKS		"/proc/sched_economy"
#define CGROOT		"/sys/fs/cgroup"
/* As systemd places a system service and a user's session. */
#define CG_SYSTEM	CGROOT "/system.slice"
#define CG_SERVER	CG_SYSTEM "/xbench.service"
#define CG_USERS	CGROOT "/user.slice"
#define CG_REST		CG_USERS "/user-1000.slice"
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
"                         futex    a ring in shared memory each, FUTEX_WAIT\n"
"                                  and FUTEX_WAKE both ways\n"
"                         eventfd  two eventfds each: requests (the server\n"
"                                  polls them) and room (the way back)\n"
"                       (unix: 16 bytes; each holds 256 before a client\n"
"                       blocks)\n"
"      --proxy          a chain: client -> proxy -> server over AF_UNIX\n"
"                       socketpairs, one proxy process (-X unix only)\n"
"      --proxy-us P     CPU burned by the proxy per request (default 0;\n"
"                       implies --proxy)\n"
"  -m, --mode LIST      comma-separated modes (default off,economy):\n"
"                         off      economy off\n"
"                         economy  economy on, --policy (default lend)\n"
"                         fixed    economy on, policy fixed at --price\n"
"                         seed     economy on, policy seed, clients uid 65534\n"
"                         renice   economy off, server at nice -10\n"
"                         group    economy off, the server in\n"
"                                  system.slice/xbench.service, everyone\n"
"                                  else in user.slice/user-1000.slice (as\n"
"                                  systemd places a daemon and its users)\n"
"                         slices   economy on, cgroups as for group\n"
"                         slices-nogroup  as slices, with\n"
"                                  sched_economy_groups 0 (donation within\n"
"                                  a cfs_rq only)\n"
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
"      --users-max Q    group and slices: cpu.max of user-1000.slice\n"
"                       (\"QUOTA PERIOD\" in us), a bandwidth limit on the\n"
"                       clients and busy loops\n"
"  -a, --affinity       SMP: server on CPU 0, clients spread over the other\n"
"                       CPUs, busy loops left to the load balancer\n"
"      --keys-offline   SMP: take CPUs 1.. offline while the economy is\n"
"                       switched on or off or its policy changes (QEMU\n"
"                       --mttcg: a static key must not flip under a vCPU\n"
"                       that runs; tests/keys_offline.sh)\n"
"  -q, --quiet          no per-window lines, only the summary\n"
"  -h, --help           this text\n"
"\n"
"Fair reference: server and clients together (N+1)/(N+1+H), each hog\n"
"1/(N+1+H), the server S/(S+C) of its coalition's share.  With --proxy:\n"
"server, proxy and clients together (N+2)/(N+2+H), each hog 1/(N+2+H),\n"
"split S : P : C.\n";

enum role { SERVER, CLIENT, HOG, PROXY };

enum transport { T_UNIX, T_PIPE, T_PTY, T_FUTEX, T_EVENTFD, NR_TRANSPORTS };
static const char * const transport_names[] = {
	"unix", "pipe", "pty", "futex", "eventfd",
};

struct task {
	pid_t pid;
	enum role role;
	uint64_t ns;		/* schedstat at the last sample */
};

struct sample {
	double server, clients, hogs, hog_min, hog_med, hog_max;
	double req_s, other, price, balance, proxy;
};

static struct {
	int nr_clients, nr_hogs, server_us, client_us;
	int rounds, windows, window_ms, warmup_ms, phase_ms;
	long price;
	const char *policy, *users_max;
	int quiet, affinity, proxy, proxy_us;
	enum transport transport;
} opt = {
	.nr_clients = 4, .nr_hogs = 5, .server_us = 100, .client_us = 150,
	.rounds = 1, .windows = 3, .window_ms = 1000, .warmup_ms = 1000,
	.phase_ms = 6000, .price = -1, .policy = "lend",
};

static struct task tasks[MAX_TASKS];
static int nr_tasks;
/*
 * Channel ends: client i writes client_fds[i]; the server reads
 * server_fds[0 .. nr_chans) (kept in the parent for the account ioctls):
 * the clients' channels, or with --proxy the one from the proxy, which
 * reads proxy_fds[i] and writes proxy_out.  eventfd: *_back, the room
 * eventfd, written by the server, read by the client.  -1: none.
 */
static int server_fds[MAX_CLIENTS], server_back[MAX_CLIENTS];
static int client_fds[MAX_CLIENTS], client_back[MAX_CLIENTS];
static int proxy_fds[MAX_CLIENTS], proxy_out = -1;
static int nr_chans;
static volatile uint64_t *requests;	/* shared with the server */

/*
 * -X futex: a ring per client in MAP_SHARED memory (fork keeps it shared,
 * so the futexes are shared ones, not FUTEX_PRIVATE_FLAG).  head - tail is
 * the queue (both wrap); slot head % REQ_MAX takes the next request.
 */
struct fring {
	uint32_t head;		/* posted; written by the client */
	uint32_t tail;		/* taken; written by the server; a full client waits on it */
	uint32_t client_waits;	/* the client sleeps on tail, or is about to */
	char slot[REQ_MAX][REQ_SIZE];
};

static struct fshm {
	uint32_t server_seq;	/* bumped by every post; an idle server waits on it */
	uint32_t server_waits;	/* the server sleeps on server_seq, or is about to */
	struct fring ring[MAX_CLIENTS];
} *fshm;
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
	bench_keys_cpus(0);
	write_file(SYSCTL, saved_enable);
	write_file(SYSCTL "_policy", saved_policy);
	write_file(SYSCTL "_price_ns", saved_price);
	write_file(SYSCTL "_groups", "1");
	bench_keys_cpus(1);
}

/* Economy on with @policy, or off (policy NULL). Without the module, off is a no-op. */
static void economy(const char *policy)
{
	char buf[32];

	if (!policy) {
		if (economy_present()) {
			bench_keys_cpus(0);
			set_sysctl("", "0");
			bench_keys_cpus(1);
		}
		return;
	}
	bench_keys_cpus(0);
	set_sysctl("_policy", policy);
	if (opt.price > 0) {
		snprintf(buf, sizeof(buf), "%ld", opt.price);
		set_sysctl("_price_ns", buf);
	}
	set_sysctl("", "1");
	bench_keys_cpus(1);
}

/* ---------------------------------------------------------------- books */

#define MAX_BOOKS 96

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
	for (i = 0; i < nr_chans; i++) {
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

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

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

/*
 * Poll @nr channels @fds and @serve one request from each ready one in
 * turn, until every channel is closed; then exit. The server's loop over
 * sockets, pipes and ptys, and the proxy's.
 */
static void serve_ready(const int *fds, int nr, void (*serve)(const char *req))
{
	struct pollfd pfd[MAX_CLIENTS];
	char req[REQ_MAX];
	int i, n, open_fds = nr;

	for (i = 0; i < nr; i++) {
		pfd[i].fd = fds[i];
		pfd[i].events = POLLIN;
	}
	while (open_fds) {
		if (bench_poll(pfd, nr, -1) < 0)
			_exit(2);
		for (i = 0; i < nr; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			n = read_request(pfd[i].fd, req);
			if (n < req_size) {
				pfd[i].fd = -1;
				open_fds--;
				continue;
			}
			serve(req);
		}
	}
	_exit(0);
}

static void serve_request(const char *req __attribute__((unused)))
{
	bench_burn(opt.server_us * 1000ULL);
	__atomic_add_fetch(requests, 1, __ATOMIC_RELAXED);
}

static void server_loop(void)
{
	serve_ready(server_fds, nr_chans, serve_request);
}

/*
 * The server of -X eventfd.  Per client, the requests posted (as far as
 * read), taken, and taken when the client last got its credits back:
 * posted - returned is what the client has spent of its REQ_MAX.
 */
static uint64_t efd_posted[MAX_CLIENTS], efd_taken[MAX_CLIENTS];
static uint64_t efd_returned[MAX_CLIENTS];

/* Client @i has no credit left and REQ_WAKE requests queued: give them back. */
static void eventfd_room(int i)
{
	uint64_t n = efd_taken[i] - efd_returned[i];

	if (efd_posted[i] - efd_returned[i] < REQ_MAX ||
	    efd_posted[i] - efd_taken[i] > REQ_WAKE)
		return;
	if (write(server_back[i], &n, sizeof(n)) != sizeof(n))
		_exit(2);
	efd_returned[i] = efd_taken[i];
}

/*
 * Poll (without waiting while requests are left), read the counts of the
 * ready eventfds, then one request from each client that has one.  A
 * client out of credits has posted its last request, which left its
 * eventfd ready: the server reads it, and so learns that it must return
 * the credits.
 */
static void server_eventfd_loop(void)
{
	struct pollfd pfd[MAX_CLIENTS];
	int i, left;
	uint64_t n;

	for (i = 0; i < nr_chans; i++) {
		pfd[i].fd = server_fds[i];
		pfd[i].events = POLLIN;
	}
	for (;;) {
		for (i = left = 0; i < nr_chans; i++)
			left |= efd_posted[i] != efd_taken[i];
		if (bench_poll(pfd, nr_chans, left ? 0 : -1) < 0)
			_exit(2);
		for (i = 0; i < nr_chans; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			if (read(pfd[i].fd, &n, sizeof(n)) != sizeof(n))
				_exit(2);
			efd_posted[i] += n;
			eventfd_room(i);
		}
		for (i = 0; i < nr_chans; i++) {
			if (efd_posted[i] == efd_taken[i])
				continue;
			efd_taken[i]++;
			eventfd_room(i);	/* a socket frees the room here */
			bench_burn(opt.server_us * 1000ULL);
			__atomic_add_fetch(requests, 1, __ATOMIC_RELAXED);
		}
	}
}

/*
 * The server of -X futex: a pass takes one request from each ring that has
 * one; when a pass finds none, FUTEX_WAIT on server_seq as it read it
 * before the pass.  A post after that read bumped server_seq (so the wait
 * returns at once) or saw server_waits set (and wakes the server): every
 * access is sequentially consistent.  The same holds for a full client
 * between client_waits and tail.
 */
static void server_futex_loop(void)
{
	uint32_t seq, head, tail;
	char req[REQ_SIZE];
	int i, busy;

	for (;;) {
		seq = __atomic_load_n(&fshm->server_seq, __ATOMIC_SEQ_CST);
		busy = 0;
		for (i = 0; i < opt.nr_clients; i++) {
			struct fring *r = &fshm->ring[i];

			tail = r->tail;
			head = __atomic_load_n(&r->head, __ATOMIC_SEQ_CST);
			if (head == tail)
				continue;
			busy = 1;
			memcpy(req, r->slot[tail % REQ_MAX], REQ_SIZE);
			__atomic_store_n(&r->tail, tail + 1, __ATOMIC_SEQ_CST);
			/* a socket wakes its writer here: taken, not served */
			if (head - (tail + 1) <= REQ_WAKE &&
			    __atomic_load_n(&r->client_waits, __ATOMIC_SEQ_CST)) {
				__atomic_store_n(&r->client_waits, 0, __ATOMIC_SEQ_CST);
				futex(&r->tail, FUTEX_WAKE, 1);
			}
			bench_burn(opt.server_us * 1000ULL);
			__atomic_add_fetch(requests, 1, __ATOMIC_RELAXED);
		}
		if (busy)
			continue;
		__atomic_store_n(&fshm->server_waits, 1, __ATOMIC_SEQ_CST);
		futex(&fshm->server_seq, FUTEX_WAIT, seq);
		__atomic_store_n(&fshm->server_waits, 0, __ATOMIC_SEQ_CST);
	}
}

/* Post one request into ring @r; a full ring sleeps until the server wakes it. */
static void futex_post(struct fring *r, const char *req)
{
	uint32_t head = r->head;

	while (head - __atomic_load_n(&r->tail, __ATOMIC_SEQ_CST) >= REQ_MAX) {
		uint32_t tail;

		__atomic_store_n(&r->client_waits, 1, __ATOMIC_SEQ_CST);
		tail = __atomic_load_n(&r->tail, __ATOMIC_SEQ_CST);
		if (head - tail < REQ_MAX) {
			/* taken meanwhile: no wake needed, spare the server the syscall */
			__atomic_store_n(&r->client_waits, 0, __ATOMIC_SEQ_CST);
			break;
		}
		futex(&r->tail, FUTEX_WAIT, tail);
	}
	memcpy(r->slot[head % REQ_MAX], req, REQ_SIZE);
	__atomic_store_n(&r->head, head + 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&fshm->server_seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&fshm->server_waits, __ATOMIC_SEQ_CST))
		futex(&fshm->server_seq, FUTEX_WAKE, 1);
}

/* Post one request on eventfd @fd, first waiting on @back for a credit. */
static void eventfd_post(int fd, int back, uint64_t *credits)
{
	uint64_t one = 1, more;

	if (!*credits) {
		if (read(back, &more, sizeof(more)) != sizeof(more))
			_exit(2);
		*credits = more;
	}
	if (write(fd, &one, sizeof(one)) != sizeof(one))
		_exit(2);
	(*credits)--;
}

static void client_loop(int i)
{
	char req[REQ_MAX] = "request";
	uint64_t credits = REQ_MAX;

	for (;;) {
		bench_burn(opt.client_us * 1000ULL);
		switch (opt.transport) {
		case T_FUTEX:
			futex_post(&fshm->ring[i], req);
			break;
		case T_EVENTFD:
			eventfd_post(client_fds[i], client_back[i], &credits);
			break;
		default:
			if (write(client_fds[i], req, req_size) != req_size)
				_exit(errno == EPIPE ? 0 : 2);
		}
	}
}

/*
 * --proxy: one request at a time from each ready client, burn P us, and
 * forward it to the server (blocking while the server's backlog is full).
 */
static void forward_request(const char *req)
{
	if (opt.proxy_us)
		bench_burn(opt.proxy_us * 1000ULL);
	if (write(proxy_out, req, req_size) != req_size)
		_exit(errno == EPIPE ? 0 : 2);
}

static void proxy_loop(void)
{
	serve_ready(proxy_fds, opt.nr_clients, forward_request);
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

/*
 * In a child: close the channel ends that @role (client @i) does not use,
 * so that a reader sees the end of a channel when its writer dies.
 */
static void close_others(enum role role, int i)
{
	int j;

	for (j = 0; j < MAX_CLIENTS; j++) {
		if (role != SERVER) {
			close_fd(&server_fds[j]);
			close_fd(&server_back[j]);
		}
		if (role != CLIENT || j != i) {
			close_fd(&client_fds[j]);
			close_fd(&client_back[j]);
		}
		if (role != PROXY)
			close_fd(&proxy_fds[j]);
	}
	if (role != PROXY)
		close_fd(&proxy_out);
}

/* @i: a client's index */
static pid_t spawn(enum role role, const int start[2], int i, int seed)
{
	pid_t pid;

	if (nr_tasks >= MAX_TASKS)
		die("too many tasks");
	pid = fork();
	if (pid < 0)
		die("fork:");
	if (!pid) {
		close_others(role, i);
		if (role == CLIENT && seed)
			become_nobody();
		if (opt.affinity && ncpu > 1 && role != HOG)
			pin(role == SERVER ? 0 : 1 + nr_tasks % (ncpu - 1));
		close(start[1]);
		child_init(start[0]);
		switch (role) {
		case SERVER:
			if (opt.transport == T_FUTEX)
				server_futex_loop();
			if (opt.transport == T_EVENTFD)
				server_eventfd_loop();
			server_loop();
			break;
		case CLIENT:
			client_loop(i);
			break;
		case PROXY:
			proxy_loop();
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
	mkdir(CG_SYSTEM, 0755);
	mkdir(CG_USERS, 0755);
	write_file(CG_SYSTEM "/cgroup.subtree_control", "+cpu");
	write_file(CG_USERS "/cgroup.subtree_control", "+cpu");
	mkdir(CG_SERVER, 0755);
	mkdir(CG_REST, 0755);
	if (opt.users_max && write_file(CG_REST "/cpu.max", opt.users_max))
		die("write " CG_REST "/cpu.max:");
	for (i = 0; i < nr_tasks; i++)
		cg_move(tasks[i].role == SERVER ? CG_SERVER : CG_REST, tasks[i].pid);
}

static void cg_teardown(void)
{
	rmdir(CG_SERVER);
	rmdir(CG_REST);
	rmdir(CG_SYSTEM);
	rmdir(CG_USERS);
}

static void kill_all(void)
{
	int i;

	for (i = 0; i < nr_tasks; i++)
		kill(tasks[i].pid, SIGKILL);
	for (i = 0; i < nr_tasks; i++)
		waitpid(tasks[i].pid, NULL, 0);
	nr_tasks = 0;
	for (i = 0; i < MAX_CLIENTS; i++)
		close_fd(&server_fds[i]);
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

/*
 * A channel from a client (@cfd, it writes) to the server (@sfd, it reads);
 * eventfd also the way back (@sback, the server writes; @cback).  futex: no
 * fds, the ring is fshm's.
 */
static void channel(int *cfd, int *sfd, int *cback, int *sback)
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
	case T_FUTEX:
		return;
	case T_EVENTFD:
		/* one eventfd each way, an fd for each side (each closes the other's) */
		*sfd = eventfd(0, 0);
		*sback = eventfd(0, 0);
		if (*sfd < 0 || *sback < 0)
			die("eventfd:");
		*cfd = dup(*sfd);
		*cback = dup(*sback);
		if (*cfd < 0 || *cback < 0)
			die("dup:");
		return;
	case NR_TRANSPORTS:
		break;
	}
}

/*
 * Fork the server, the proxy and the clients (and the hogs unless @hogs is
 * 0), held at a start pipe until the caller has placed them; returns the
 * pipe's write end.  The server is tasks[0].
 */
static int spawn_all(int hogs, int seed)
{
	int start[2], i;

	if (pipe(start))
		die("pipe:");
	if (fshm)
		memset(fshm, 0, sizeof(*fshm));
	for (i = 0; i < opt.nr_clients; i++)
		channel(&client_fds[i], opt.proxy ? &proxy_fds[i] : &server_fds[i],
			&client_back[i], &server_back[i]);
	if (opt.proxy)	/* a socket: no way back */
		channel(&proxy_out, &server_fds[0], NULL, NULL);
	nr_chans = opt.proxy ? 1 : opt.nr_clients;
	*requests = 0;
	spawn(SERVER, start, 0, seed);
	if (opt.proxy)
		spawn(PROXY, start, 0, seed);
	for (i = 0; i < opt.nr_clients; i++)
		spawn(CLIENT, start, i, seed);
	/* the parent keeps the server's ends only, for the account ioctls */
	for (i = 0; i < MAX_CLIENTS; i++) {
		close_fd(&client_fds[i]);
		close_fd(&client_back[i]);
		close_fd(&server_back[i]);
		close_fd(&proxy_fds[i]);
	}
	close_fd(&proxy_out);
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
		case PROXY:
			s->proxy += d;
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

/* The coalition (server, proxy, clients) gets a share per task, split by cost. */
static void fair(double *server, double *clients, double *proxy, double *hog)
{
	int coal_tasks = opt.nr_clients + 1 + opt.proxy;
	double n = coal_tasks + opt.nr_hogs, coal, cost;

	coal = 100.0 * coal_tasks / n;
	cost = opt.server_us + opt.client_us + (opt.proxy ? opt.proxy_us : 0);
	*hog = opt.nr_hogs ? 100.0 / n : 0;
	*server = coal * opt.server_us / cost;
	*proxy = opt.proxy ? coal * opt.proxy_us / cost : 0;
	*clients = coal - *server - *proxy;
}

static void print_sample(const char *mode, int round, int win, double t,
			 struct sample *s)
{
	if (!opt.quiet) {
		printf("%-8s %2d %2d %7.1f  %6.1f %7.1f %6.1f  %5.1f %5.1f %5.1f  %7.0f %6.1f %8.0f %9.0f",
		       mode, round, win, t, s->server, s->clients, s->hogs,
		       s->hog_min, s->hog_med, s->hog_max, s->req_s, s->other,
		       s->price, s->balance);
		if (opt.proxy)
			printf(" %6.1f", s->proxy);
		printf("\n");
	}
	/* new columns go at the end: tests and bench/tables.py count them */
	if (csv)
		fprintf(csv, "%swin,%s,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.0f,%.2f,%.0f,%.0f,%.2f\n",
			csv_prefix, mode, round, win, t, s->server, s->clients,
			s->hogs, s->hog_min, s->hog_med, s->hog_max, s->req_s,
			s->other, s->price, s->balance, s->proxy);
}

static void print_header(void)
{
	if (!opt.quiet)
		printf("%-8s %2s %2s %7s  %6s %7s %6s  %5s %5s %5s  %7s %6s %8s %9s%s\n",
		       "mode", "rd", "w", "t[s]", "server", "clients", "hogs",
		       "hogmin", "hogmd", "hogmx", "req/s", "other",
		       "price", "balance", opt.proxy ? "  proxy" : "");
	if (csv)
		fprintf(csv, "%swin,mode,round,window,t,server,clients,hogs,hog_min,hog_med,hog_max,req_s,other,price_ns,balance_ns,proxy\n",
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
	else if (!strcmp(m->name, "economy") || !strcmp(m->name, "slices"))
		economy(opt.policy);
	else if (!strcmp(m->name, "slices-nogroup"))
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
	if (!strcmp(m->name, "group") || !strncmp(m->name, "slices", 6))
		cg_setup();
	if (economy_present())
		set_sysctl("_groups",
			   strcmp(m->name, "slices-nogroup") ? "1" : "0");
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
		{ "proxy",   offsetof(struct sample, proxy) },	/* CSV: appended */
	};
	const int nr_cols = sizeof(cols) / sizeof(cols[0]);
	double fs, fc, fp, fh, med, lo, hi;
	int i, j;

	fair(&fs, &fc, &fp, &fh);
	printf("\nsummary: N=%d H=%d S=%dus C=%dus",
	       opt.nr_clients, opt.nr_hogs, opt.server_us, opt.client_us);
	if (opt.proxy)
		printf(" P=%dus (proxy)", opt.proxy_us);
	printf(", %d windows of %d ms per mode; median [min-max] %%\n",
	       modes[0].n, opt.window_ms);
	printf("%-8s %-19s %-19s %-19s %-19s %-19s%s\n", "mode", "server", "clients",
	       "hog (median hog)", "hog min..max", "req/s",
	       opt.proxy ? " proxy" : "");
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
		if (opt.proxy) {
			char buf[32];

			snprintf(buf, sizeof(buf), "%.0f [%.0f-%.0f]", med, lo, hi);
			col_stat(m, cols[7].off, &med, &lo, &hi);
			printf(" %-19s %.1f [%.1f-%.1f]\n", buf, med, lo, hi);
		} else {
			printf(" %.0f [%.0f-%.0f]\n", med, lo, hi);
		}
		if (csv) {
			fprintf(csv, "%ssum,%s,%d", csv_prefix, m->name, m->n);
			for (j = 0; j < nr_cols; j++) {
				col_stat(m, cols[j].off, &med, &lo, &hi);
				fprintf(csv, ",%.2f,%.2f,%.2f", med, lo, hi);
			}
			fprintf(csv, "\n");
		}
	}
	printf("%-8s %-19.1f %-19.1f %-19.1f", "fair", fs, fc, fh);
	if (opt.proxy)
		printf(" %-19s %-19s %.1f", "", "", fp);
	printf("\n");
	/* server, clients, hog, the coalition (server + clients + proxy), proxy */
	if (csv)
		fprintf(csv, "%sfair,%.2f,%.2f,%.2f,%.2f,%.2f\n", csv_prefix, fs, fc,
			fh, fs + fc + fp, fp);
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

enum { OPT_PROXY = 256, OPT_PROXY_US, OPT_USERS_MAX, OPT_KEYS_OFFLINE };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "clients",	required_argument, NULL, 'N' },
		{ "hogs",	required_argument, NULL, 'H' },
		{ "server-us",	required_argument, NULL, 'S' },
		{ "client-us",	required_argument, NULL, 'C' },
		{ "transport",	required_argument, NULL, 'X' },
		{ "proxy",	no_argument,	   NULL, OPT_PROXY },
		{ "proxy-us",	required_argument, NULL, OPT_PROXY_US },
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
		{ "users-max",	required_argument, NULL, OPT_USERS_MAX },
		{ "keys-offline", no_argument,	   NULL, OPT_KEYS_OFFLINE },
		{ "quiet",	no_argument,	   NULL, 'q' },
		{ "help",	no_argument,	   NULL, 'h' },
		{}
	};
	struct mode modes[MAX_MODES];
	char *mode_list = strdup("off,economy"), *tok, *save;
	static const int req_sizes[] = {
		[T_UNIX] = REQ_SIZE, [T_PIPE] = PIPE_REQ_SIZE,
		[T_PTY] = PTY_REQ_SIZE, [T_FUTEX] = REQ_SIZE,
		[T_EVENTFD] = sizeof(uint64_t),	/* a count, 1 */
	};
	int c, i, r, nr_modes = 0, do_demo = 0;
	double fs, fc, fp, fh;

	while ((c = getopt_long(argc, argv, "N:H:S:C:X:m:r:w:t:u:p:P:dT:c:aqh",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'N': opt.nr_clients = atoi(optarg); break;
		case 'H': opt.nr_hogs = atoi(optarg); break;
		case 'S': opt.server_us = atoi(optarg); break;
		case 'C': opt.client_us = atoi(optarg); break;
		case 'X':
			for (i = 0; i < NR_TRANSPORTS && strcmp(optarg, transport_names[i]); i++)
				;
			if (i == NR_TRANSPORTS)
				die("unknown transport %s (unix, pipe, pty, futex or eventfd)",
				    optarg);
			opt.transport = i;
			req_size = req_sizes[i];
			break;
		case OPT_PROXY_US:
			opt.proxy_us = atoi(optarg);
			/* fall through */
		case OPT_PROXY:
			opt.proxy = 1;
			break;
		case OPT_USERS_MAX: opt.users_max = optarg; break;
		case OPT_KEYS_OFFLINE: bench_keys_offline = 1; break;
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
	if (opt.nr_clients < 1 || opt.nr_clients > MAX_CLIENTS || opt.nr_hogs < 0 ||
	    opt.nr_hogs > 40 || opt.server_us < 1 || opt.client_us < 1 ||
	    opt.proxy_us < 0 || opt.rounds < 1 || opt.windows < 1 ||
	    opt.window_ms < 10 || opt.warmup_ms < 0)
		die("bad arguments (see --help)");
	if (opt.proxy && opt.transport != T_UNIX)
		die("--proxy chains AF_UNIX sockets only (-X unix)");
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
	if (opt.transport == T_FUTEX) {
		fshm = mmap(NULL, sizeof(*fshm), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (fshm == MAP_FAILED)
			die("mmap:");
	}
	for (i = 0; i < MAX_CLIENTS; i++)
		server_fds[i] = server_back[i] = client_fds[i] = client_back[i] =
			proxy_fds[i] = -1;
	save_sysctls();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	bench_calibrate();
	t_start = bench_now();

	fair(&fs, &fc, &fp, &fh);
	printf("xbench: N=%d H=%d S=%dus C=%dus over %s, %d CPU(s), spin chunk %llu; fair: server %.1f%% clients %.1f%% hog %.1f%%",
	       opt.nr_clients, opt.nr_hogs, opt.server_us, opt.client_us,
	       transport_names[opt.transport], ncpu,
	       (unsigned long long)bench_spin_chunk(), fs, fc, fh);
	if (opt.proxy)
		printf("; proxy P=%dus between clients and server, fair %.1f%%",
		       opt.proxy_us, fp);
	printf("\n");
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
