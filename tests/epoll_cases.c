// SPDX-License-Identifier: GPL-2.0
/*
 * epoll stays epoll with the economy on (mail 14, docs/blocking-point.md
 * "epoll: which item"): the kernel's record of the item handled last
 * must not change what epoll delivers, and must name only what the
 * relation says.
 *
 * A client does round trips with servers of its own user over AF_UNIX
 * socket pairs (a byte of request, 1 ms of CPU, a byte of reply), waiting
 * for each reply in epoll_wait(); a busy loop shares CPU 0 with all of
 * them, so that the sleeps are reported (on one CPU the kernel leaves out
 * a sleep whose weight would count for no task there). Each case must
 * complete every round trip with no epoll_wait() timing out, and leave
 * the weight books exact once its tasks are gone (weight_residue 0).
 * Cases:
 *
 *   level, edge     one connection, level- and edge-triggered: every
 *                   sleep names the server (named_epoll rises by at least
 *                   half the round trips: the relation sees these waits,
 *                   so the cases below that must name nothing can tell)
 *   nested          the connection in an inner epoll, the client asleep
 *                   in an outer one watching the inner: a nested epoll
 *                   file names nobody (named_epoll does not move)
 *   shared          two threads, one epoll instance, one connection each:
 *                   whichever thread is woken handles the reply it finds
 *   exclusive       two threads with an epoll instance each, both
 *                   watching one connection with EPOLLEXCLUSIVE
 *   oneshot         EPOLLONESHOT, re-armed with EPOLL_CTL_MOD per request
 */
#define _GNU_SOURCE
#include "econ_test.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "kselftest_harness.h"

#define ROUNDS		60
#define SERVER_US	1000
#define WAIT_MS		5000

static void burn_us(int us)
{
	long long end = econ_now_ns() + us * 1000LL;

	while (econ_now_ns() < end)
		;
}

/* A server on @fd: a byte in, SERVER_US of CPU, a byte out. */
static pid_t server(int fd)
{
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	econ_pin(0, 0);
	while (read(fd, &c, 1) == 1) {
		burn_us(SERVER_US);
		if (write(fd, &c, 1) != 1)
			break;
	}
	_exit(0);
}

FIXTURE(rpc) {
	int sv[2][2];
	pid_t pids[3];
	long long named;
};

FIXTURE_SETUP(rpc)
{
	int i;

	if (econ_read_knob("sched_economy") < 0)
		SKIP(return, "the module is not loaded");
	ASSERT_EQ(0, econ_write_knob("sched_economy", "1"));
	ASSERT_EQ(0, econ_pin(0, 0));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, self->sv[i]));
		self->pids[i] = server(self->sv[i][1]);
		ASSERT_GT(self->pids[i], 0);
		close(self->sv[i][1]);
		ASSERT_EQ(0, fcntl(self->sv[i][0], F_SETFL, O_NONBLOCK));
	}
	self->pids[2] = econ_busy_loop(0);
	ASSERT_GT(self->pids[2], 0);
	self->named = econ_book("named_epoll");
}

FIXTURE_TEARDOWN(rpc)
{
	long long residue = 0;
	int i;

	if (!self->pids[2])
		return;
	close(self->sv[0][0]);
	close(self->sv[1][0]);
	econ_kill(self->pids, 3);
	/*
	 * The tasks are gone: what was given is returned or held by a live
	 * donor (the reader of this test's output may give to it, so held
	 * need not be 0). The counters move just outside the records'
	 * locks: a residue may show for an instant, not for 200 ms.
	 */
	for (i = 0; i < 10; i++) {
		residue = econ_book("weight_residue");
		if (!residue)
			break;
		econ_msleep(20);
	}
	TH_LOG("weight_residue %lld, held_weight %lld after the case",
	       residue, econ_book("held_weight"));
	EXPECT_EQ(0, residue);
}

/* Named since setup, by this case's sleeps, and logged. */
static long long named_since(struct __test_metadata *_metadata,
			     long long before, int rounds)
{
	long long n = econ_book("named_epoll") - before;

	TH_LOG("named_epoll +%lld over %d round trips", n, rounds);
	return n;
}

static int request(int fd)
{
	char c = 'r';

	return write(fd, &c, 1) == 1 ? 0 : -1;
}

/* The reply on @fd, if there is one: 1, 0 if none yet, -1 on error. */
static int reply(int fd)
{
	char c;
	ssize_t n = read(fd, &c, 1);

	if (n == 1)
		return 1;
	return n < 0 && errno == EAGAIN ? 0 : -1;
}

/* ROUNDS round trips on @fd, each reply awaited in epoll_wait(@ep). */
static int round_trips(int ep, int fd)
{
	struct epoll_event ev;
	int i, got;

	for (i = 0; i < ROUNDS; i++) {
		if (request(fd))
			return -1;
		do {
			if (epoll_wait(ep, &ev, 1, WAIT_MS) != 1)
				return -1;
			got = reply(fd);
		} while (!got);
		if (got < 0)
			return -1;
	}
	return ROUNDS;
}

static int add(int ep, int fd, unsigned int events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/* One connection in one epoll watching it for @events: names the server. */
static void one_connection(struct __test_metadata *_metadata,
			   FIXTURE_DATA(rpc) *self, unsigned int events)
{
	int ep = epoll_create1(0);

	ASSERT_EQ(0, add(ep, self->sv[0][0], events));
	ASSERT_EQ(ROUNDS, round_trips(ep, self->sv[0][0]));
	EXPECT_GE(named_since(_metadata, self->named, ROUNDS), ROUNDS / 2);
	close(ep);
}

TEST_F(rpc, level)
{
	one_connection(_metadata, self, EPOLLIN);
}

TEST_F(rpc, edge)
{
	one_connection(_metadata, self, EPOLLIN | EPOLLET);
}

TEST_F(rpc, nested)
{
	int inner = epoll_create1(0), outer = epoll_create1(0);

	ASSERT_EQ(0, add(inner, self->sv[0][0], EPOLLIN));
	ASSERT_EQ(0, add(outer, inner, EPOLLIN));
	ASSERT_EQ(ROUNDS, round_trips(outer, self->sv[0][0]));
	EXPECT_EQ(0, named_since(_metadata, self->named, ROUNDS));
	close(outer);
	close(inner);
}

TEST_F(rpc, oneshot)
{
	int ep = epoll_create1(0), fd = self->sv[0][0], i, got;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT,
				  .data.fd = fd };

	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(0, request(fd));
		do {
			ASSERT_EQ(1, epoll_wait(ep, &ev, 1, WAIT_MS));
			got = reply(fd);
		} while (!got);
		ASSERT_EQ(1, got);
		ev.events = EPOLLIN | EPOLLONESHOT;
		ev.data.fd = fd;
		ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev));
	}
	EXPECT_GE(named_since(_metadata, self->named, ROUNDS), ROUNDS / 2);
	close(ep);
}

/* Two threads: shared (one epoll) or exclusive (one each, one socket). */
struct pair {
	int ep[2];
	int fd[2];		/* the connection each event's data names */
	_Atomic int replies[2];
	_Atomic int done, failed;
};

static void *handler(void *arg)
{
	struct pair *p = arg;
	static _Atomic int next;
	int self = atomic_fetch_add(&next, 1) % 2;
	struct epoll_event ev;
	int n, c, got;

	while (!atomic_load(&p->done)) {
		n = epoll_wait(p->ep[self], &ev, 1, 200);
		if (n < 0 && errno != EINTR) {
			atomic_store(&p->failed, 1);
			break;
		}
		if (n != 1)
			continue;
		c = ev.data.fd == p->fd[0] ? 0 : 1;
		got = reply(p->fd[c]);
		if (got < 0) {
			atomic_store(&p->failed, 1);
			break;
		}
		if (!got)
			continue;
		if (atomic_fetch_add(&p->replies[c], 1) + 1 < ROUNDS)
			request(p->fd[c]);
	}
	return NULL;
}

/* Run two handlers until @want replies came in all, or WAIT_MS of none. */
static int run_pair(struct pair *p, int conns, int want)
{
	pthread_t th[2];
	int i, last = -1, seen, idle = 0;

	for (i = 0; i < conns; i++)
		if (request(p->fd[i]))
			return -1;
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, handler, p))
			return -1;
	for (;;) {
		seen = atomic_load(&p->replies[0]) + atomic_load(&p->replies[1]);
		if (seen >= want || atomic_load(&p->failed))
			break;
		idle = seen == last ? idle + 50 : 0;
		if (idle >= WAIT_MS)
			break;
		last = seen;
		econ_msleep(50);
	}
	atomic_store(&p->done, 1);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return atomic_load(&p->failed) ? -1 : seen;
}

TEST_F(rpc, shared)
{
	struct pair p = { .fd = { self->sv[0][0], self->sv[1][0] } };
	int ep = epoll_create1(0);

	p.ep[0] = p.ep[1] = ep;
	ASSERT_EQ(0, add(ep, p.fd[0], EPOLLIN));
	ASSERT_EQ(0, add(ep, p.fd[1], EPOLLIN));
	ASSERT_EQ(2 * ROUNDS, run_pair(&p, 2, 2 * ROUNDS));
	named_since(_metadata, self->named, 2 * ROUNDS);
	close(ep);
}

TEST_F(rpc, exclusive)
{
	struct pair p = { .fd = { self->sv[0][0], self->sv[0][0] } };
	int i;

	for (i = 0; i < 2; i++) {
		p.ep[i] = epoll_create1(0);
		ASSERT_EQ(0, add(p.ep[i], p.fd[0], EPOLLIN | EPOLLEXCLUSIVE));
	}
	/* one connection: its replies are all counted in replies[0] */
	ASSERT_EQ(ROUNDS, run_pair(&p, 1, ROUNDS));
	named_since(_metadata, self->named, ROUNDS);
	close(p.ep[0]);
	close(p.ep[1]);
}

TEST_HARNESS_MAIN
