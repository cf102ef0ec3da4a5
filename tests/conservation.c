// SPDX-License-Identifier: GPL-2.0
/*
 * conservation: paid = withdrawn + expired + outstanding, exactly, under
 * contention: many processes on many sockets of all three types, implicit
 * and explicit transfers, readers that exit mid-stream, on every vCPU.
 * Outstanding is checked against the sum of the balances of the sockets
 * still open, and must move into expired, to the ns, when they close.
 *
 * Not on the module's word (its residue_ns) alone: the identity is
 * computed here from the four books, and after the traffic, with the
 * accounts still holding what it left, one worker per CPU makes explicit
 * PAY and WITHDRAW calls on the open sockets and tallies their moved_ns
 * in shared memory, as pay_withdraw does: paid_ns and withdrawn_ns must
 * grow by exactly the tallies, expired_ns not at all, and both
 * outstanding_ns and the sum of the balances (read socket by socket) by
 * paid - withdrawn.
 *
 *	conservation [pairs [messages [min_transactions]]]
 */
#include "economy_util.h"

#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/socket.h>

#define MSG	16
#define XFER_ROUNDS	3000	/* explicit calls per worker after the traffic */
#define XFER_NS		20000

struct tally {
	_Atomic long long paid, withdrawn, pays, withdrawals, refused;
};

/* Explicit transfers only (nothing is sent any more), tallied. */
static void xfer_worker(struct tally *t, int (*sv)[2], int pairs, int cpu,
			unsigned int seed)
{
	struct sched_economy_xfer x;
	int i, *p;

	econ_pin(0, cpu);
	for (i = 0; i < XFER_ROUNDS; i++) {
		do
			p = sv[rand_r(&seed) % pairs];
		while (p[0] < 0);
		memset(&x, 0, sizeof(x));
		x.fd = p[rand_r(&seed) % 2];
		x.amount_ns = XFER_NS / 2 + rand_r(&seed) % XFER_NS;
		if (rand_r(&seed) % 3) {
			x.flags = rand_r(&seed) % 2 ? SCHED_ECONOMY_PEER : 0;
			if (!ioctl(economy_dev(), SCHED_ECONOMY_IOC_PAY, &x)) {
				atomic_fetch_add(&t->paid, x.moved_ns);
				atomic_fetch_add(&t->pays, 1);
			} else {
				atomic_fetch_add(&t->refused, 1);
			}
		} else if (!ioctl(economy_dev(), SCHED_ECONOMY_IOC_WITHDRAW, &x)) {
			atomic_fetch_add(&t->withdrawn, x.moved_ns);
			atomic_fetch_add(&t->withdrawals, x.moved_ns > 0);
		} else {
			atomic_fetch_add(&t->refused, 1);
		}
		if (!(i % 4))
			sched_yield();	/* waiting for the busy loop earns credit */
	}
	_exit(0);
}

static long long open_balances(int (*sv)[2], int pairs)
{
	long long sum = 0;
	int i;

	for (i = 0; i < pairs; i++)
		if (sv[i][0] >= 0)
			sum += balance(sv[i][0]) + balance(sv[i][1]);
	return sum;
}

/* paid = withdrawn + expired + outstanding, from the books, said if not. */
static int identity(const char *when)
{
	long long p = econ_book("paid_ns"), w = econ_book("withdrawn_ns");
	long long e = econ_book("expired_ns"), o = econ_book("outstanding_ns");

	if (p == w + e + o)
		return 0;
	printf("not ok: %s: paid %lld != withdrawn %lld + expired %lld + outstanding %lld (off by %lld)\n",
	       when, p, w, e, o, p - w - e - o);
	return 1;
}

static const int types[] = { SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM };

static void writer(int fd, int n)
{
	struct sched_economy_xfer x = { .fd = fd, .flags = SCHED_ECONOMY_PEER };
	char buf[MSG] = "conservation";
	int i;

	for (i = 0; i < n; i++) {
		if (send(fd, buf, MSG, MSG_NOSIGNAL) != MSG)
			_exit(0);
		if (i % 64 == 0)
			ioctl(economy_dev(), SCHED_ECONOMY_IOC_PAY, &x);
	}
	_exit(0);
}

static void reader(int fd, int n, int quit_early)
{
	struct sched_economy_xfer x = { .fd = fd };
	long want = (long)n * MSG, got = 0, r;
	char buf[4 * MSG];
	int i = 0;

	if (quit_early)
		want /= 2;
	while (got < want) {
		r = recv(fd, buf, sizeof(buf) < (size_t)(want - got) ?
			 sizeof(buf) : (size_t)(want - got), 0);
		if (r <= 0)
			_exit(1);
		got += r;
		if (++i % 64 == 0)
			ioctl(economy_dev(), SCHED_ECONOMY_IOC_WITHDRAW, &x);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 32;
	int n = argc > 2 ? atoi(argv[2]) : 15000;
	long long min_moves = argc > 3 ? atoll(argv[3]) : 100000;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, fail = 0, status;
	long long held = 0, paid, moved, b;
	long long p0, w0, e0, o0, bal0, dp, dw, de, dout, dbal;
	struct tally *t;
	int (*sv)[2] = calloc(pairs, sizeof(*sv));
	pid_t *kids = calloc(2 * pairs, sizeof(*kids));
	pid_t hogs[16];

	if (economy_dev() < 0 || sysctl_write("sched_economy_policy", "queue") ||
	    sysctl_write("sched_economy", "1")) {
		perror("sched_economy");
		return 1;
	}
	/* Busy loops on every CPU, so that there is credit to trade. */
	for (i = 0; i < ncpu && i < 16; i++)
		start_hogs(&hogs[i], 1, i);

	for (i = 0; i < pairs; i++) {
		int type = types[i % 3], quit_early = i % 4 == 3;

		if (socketpair(AF_UNIX, type, 0, sv[i]))
			return 1;
		kids[2 * i] = fork();
		if (!kids[2 * i]) {
			close(sv[i][1]);
			writer(sv[i][0], n);
		}
		kids[2 * i + 1] = fork();
		if (!kids[2 * i + 1]) {
			close(sv[i][0]);
			reader(sv[i][1], n, quit_early);
		}
		if (quit_early) {
			/* Only the children hold these: they die mid-stream. */
			close(sv[i][0]);
			close(sv[i][1]);
			sv[i][0] = sv[i][1] = -1;
		}
	}
	for (i = 0; i < 2 * pairs; i++)
		if (waitpid(kids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail = 1;
	if (fail)
		printf("not ok: a reader failed\n");

	/* Explicit transfers on the open accounts, tallied here. */
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return 1;
	memset(t, 0, sizeof(*t));
	usleep(100000);
	p0 = econ_book("paid_ns");
	w0 = econ_book("withdrawn_ns");
	e0 = econ_book("expired_ns");
	o0 = econ_book("outstanding_ns");
	bal0 = open_balances(sv, pairs);
	for (i = 0; i < ncpu && i < 16; i++) {
		kids[i] = fork();
		if (!kids[i])
			xfer_worker(t, sv, pairs, i, 1234 + i);
	}
	for (i = 0; i < ncpu && i < 16; i++)
		if (waitpid(kids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail = 1;
	dp = econ_book("paid_ns") - p0;
	dw = econ_book("withdrawn_ns") - w0;
	de = econ_book("expired_ns") - e0;
	dout = econ_book("outstanding_ns") - o0;
	dbal = open_balances(sv, pairs) - bal0;
	printf("# explicit, %d workers: tally %lld pays (%lld ns), %lld withdrawals (%lld ns), %lld refused; books paid +%lld withdrawn +%lld expired +%lld outstanding +%lld; balances +%lld\n",
	       ncpu < 16 ? ncpu : 16, (long long)t->pays, (long long)t->paid,
	       (long long)t->withdrawals, (long long)t->withdrawn,
	       (long long)t->refused, dp, dw, de, dout, dbal);
	if (dp != t->paid || dw != t->withdrawn || de ||
	    dout != t->paid - t->withdrawn || dbal != t->paid - t->withdrawn) {
		printf("not ok: the books do not match the tally of the explicit calls\n");
		fail = 1;
	}
	if (!t->paid || !t->withdrawn) {
		printf("not ok: the explicit calls moved nothing (paid %lld, withdrawn %lld)\n",
		       (long long)t->paid, (long long)t->withdrawn);
		fail = 1;
	}
	fail |= identity("after the traffic");
	stop_hogs(hogs, ncpu < 16 ? ncpu : 16);
	/*
	 * Every child is gone, so nothing moves; the economy stays on until
	 * the sockets are closed, as switching it off writes balances off.
	 */
	usleep(200000);

	for (i = 0; i < pairs; i++) {
		if (sv[i][0] < 0)
			continue;
		b = balance(sv[i][0]) + balance(sv[i][1]);
		held += b;
	}
	paid = econ_book("paid_ns");
	moved = econ_book("payments") + econ_book("withdrawals");
	printf("# transactions %lld (payments %lld, withdrawals %lld), refusals: no credit %lld, over limit %lld, alone %lld\n",
	       moved, econ_book("payments"), econ_book("withdrawals"),
	       econ_book("pay_refused_no_credit"), econ_book("pay_refused_over_limit"),
	       econ_book("pay_refused_alone"));
	printf("# paid %lld = withdrawn %lld + expired %lld + outstanding %lld; residue %lld; open sockets hold %lld\n",
	       paid, econ_book("withdrawn_ns"), econ_book("expired_ns"),
	       econ_book("outstanding_ns"), econ_book("residue_ns"), held);
	fail |= identity("before close");
	if (econ_book("residue_ns") || econ_book("outstanding_ns") != held) {
		printf("not ok: books before close\n");
		fail = 1;
	}

	b = econ_book("expired_ns");
	for (i = 0; i < pairs; i++) {
		if (sv[i][0] < 0)
			continue;
		close(sv[i][0]);
		close(sv[i][1]);
	}
	usleep(200000);
	printf("# after close: expired +%lld, outstanding %lld, residue %lld\n",
	       econ_book("expired_ns") - b, econ_book("outstanding_ns"),
	       econ_book("residue_ns"));
	fail |= identity("after close");
	if (econ_book("residue_ns") || econ_book("outstanding_ns") ||
	    econ_book("expired_ns") - b != held) {
		printf("not ok: books after close\n");
		fail = 1;
	}
	sysctl_write("sched_economy", "0");
	if (econ_book("residue_ns") || econ_book("outstanding_ns")) {
		printf("not ok: books after switching off\n");
		fail = 1;
	}
	if (moved < min_moves) {
		printf("not ok: only %lld transactions\n", moved);
		fail = 1;
	}
	if (!paid) {
		printf("not ok: nothing was paid\n");
		fail = 1;
	}
	return fail;
}
