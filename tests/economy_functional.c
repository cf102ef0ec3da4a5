// SPDX-License-Identifier: GPL-2.0
/*
 * The implicit economy on AF_UNIX: what a send pays and a receive
 * withdraws, for stream, seqpacket and datagram sockets
 * (net/unix/af_unix.c: unix_stream_sendmsg, unix_dgram_sendmsg,
 * unix_stream_read_generic, __unix_dgram_recvmsg).
 *
 * Runs on one vCPU with two busy loops, so that credit (EEVDF lag) exists:
 * alone on a runqueue a task's lag is 0 by definition. The module must be
 * loaded; the economy is switched on with the fixed policy, so the price
 * of a message is exactly sched_economy_price_ns.
 */
#include "economy_util.h"
#include "kselftest_harness.h"

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define PRICE		500000LL
#define PRICE_STR	"500000"
#define NR_HOGS		2
/*
 * Lag also drifts while the test runs its syscalls, which are slow under
 * TCG: measured 100-130 us for a send and a credit read. Allow 40%.
 */
#define SLACK		(PRICE * 2 / 5)
/* The median over ROUNDS of that drift is steady to 3%: allow 10%. */
#define MEDIAN_SLACK	(PRICE / 10)

FIXTURE(economy) {
	int sv[2];
	pid_t hogs[NR_HOGS];
};

FIXTURE_VARIANT(economy) {
	int type;
};

FIXTURE_VARIANT_ADD(economy, stream) { .type = SOCK_STREAM };
FIXTURE_VARIANT_ADD(economy, seqpacket) { .type = SOCK_SEQPACKET };
FIXTURE_VARIANT_ADD(economy, dgram) { .type = SOCK_DGRAM };

FIXTURE_SETUP(economy)
{
	econ_pin(0, 0);
	ASSERT_GE(economy_dev(), 0) TH_LOG("is sched_economy.ko loaded?");
	ASSERT_EQ(0, sysctl_write("sched_economy_policy", "fixed"));
	ASSERT_EQ(0, sysctl_write("sched_economy_price_ns", PRICE_STR));
	ASSERT_EQ(0, sysctl_write("sched_economy_limit_ns", "100000000"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "1"));
	/* Before the sockets, which the hogs would otherwise hold open. */
	start_hogs(self->hogs, NR_HOGS, 0);
	ASSERT_EQ(0, socketpair(AF_UNIX, variant->type, 0, self->sv));
}

FIXTURE_TEARDOWN(economy)
{
	stop_hogs(self->hogs, NR_HOGS);
	close(self->sv[0]);
	close(self->sv[1]);
	sysctl_write("sched_economy", "0");
	sysctl_write("sched_economy_policy", "queue");
	sysctl_write("sched_economy_price_ns", "100000");
	sysctl_write("sched_economy_limit_ns", "2000000");
}

/*
 * Send one byte right after being handed the CPU with enough credit, and
 * return the credit after it; retried until no context switch came
 * between the two reads, which would change the credit by milliseconds.
 */
#define MEASURE	0x1	/* retry until no context switch came in between */
#define PAY	0x2	/* retry until the send paid */

static long long send_with_credit(int fd, int peer, long long *before,
				  int retry)
{
	long long after = 0, n = 0, b0;
	int tries = 20;
	char c;

	while (tries-- > 0) {
		b0 = balance(peer);
		*before = wait_for_credit(PRICE + SLACK / 2, 100000000, &n);
		if (send(fd, "x", 1, 0) != 1)
			return -1;
		after = credit();
		if ((!(retry & MEASURE) || switches() == n) &&
		    (!(retry & PAY) || balance(peer) != b0))
			break;
		/* Take the message and what it paid back, and try again. */
		recv(peer, &c, 1, MSG_DONTWAIT);
	}
	return after;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static long long median(long long *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_ll);
	return v[n / 2];
}

#define ROUNDS	9

/*
 * How much one message moves the sender's (@receiver false) or the
 * receiver's credit: the median over ROUNDS of the change across the
 * send or receive with the economy on, less the median of the same with
 * it off, which is the drift of the syscall itself. Medians, because the
 * host preempting QEMU stalls a few rounds by hundreds of microseconds.
 */
static long long credit_moved(int fd, int peer, bool receiver)
{
	long long d[2][ROUNDS], before, after, n = 0;
	int on, i, warm[2];
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, warm))
		return 0;

	for (i = 0; i < ROUNDS; i++) {
		for (on = 0; on < 2; on++) {
			sysctl_write("sched_economy", on ? "1" : "0");
			/*
			 * The switch patches the hooks' static key: run the
			 * patched paths once, on a pair of their own, so that
			 * neither measurement pays for QEMU translating them
			 * anew.
			 */
			if (send(warm[0], "w", 1, 0) == 1)
				recv(warm[1], &c, 1, 0);
			if (!receiver) {
				after = send_with_credit(fd, peer, &before,
							 on ? MEASURE | PAY : MEASURE);
				d[on][i] = after - before;
				recv(peer, &c, 1, 0);
				continue;
			}
			send_with_credit(fd, peer, &before, on ? PAY : 0);
			do {
				before = wait_for_credit(PRICE + 2 * SLACK,
							 10000000, &n);
				if (!recv(peer, &c, 1, MSG_PEEK))
					return 0;
				after = credit();
			} while (switches() != n);
			/* A whole tick ahead of us: no switch in between. */
			before = credit();
			recv(peer, &c, 1, 0);
			after = credit();
			d[on][i] = after - before;
		}
	}
	sysctl_write("sched_economy", "1");
	close(warm[0]);
	close(warm[1]);
	return median(d[1], ROUNDS) - median(d[0], ROUNDS);
}

TEST_F(economy, send_pays_price_into_receiving_account)
{
	long long b0 = balance(self->sv[1]), before, moved;

	send_with_credit(self->sv[0], self->sv[1], &before, PAY);
	ASSERT_GE(before, PRICE + SLACK / 2) TH_LOG("never had credit");
	EXPECT_EQ(balance(self->sv[1]), b0 + PRICE);
	EXPECT_EQ(econ_book("outstanding_ns"), b0 + PRICE);
	EXPECT_EQ(balance(self->sv[0]), 0);
	EXPECT_EQ(econ_book("residue_ns"), 0);

	moved = credit_moved(self->sv[0], self->sv[1], false);
	TH_LOG("a send moved the sender's credit by %lld (price %lld)",
	       moved, PRICE);
	EXPECT_LE(moved, -PRICE + MEDIAN_SLACK);
	EXPECT_GE(moved, -PRICE - MEDIAN_SLACK);
}

TEST_F(economy, receive_withdraws_price)
{
	long long before, moved;
	char c;

	send_with_credit(self->sv[0], self->sv[1], &before, PAY);
	ASSERT_EQ(balance(self->sv[1]), PRICE);
	ASSERT_EQ(1, recv(self->sv[1], &c, 1, 0));
	EXPECT_EQ(balance(self->sv[1]), 0);
	EXPECT_EQ(econ_book("outstanding_ns"), 0);
	EXPECT_EQ(econ_book("residue_ns"), 0);

	moved = credit_moved(self->sv[0], self->sv[1], true);
	TH_LOG("a receive moved the receiver's credit by %lld (price %lld)",
	       moved, PRICE);
	EXPECT_LE(moved, PRICE + MEDIAN_SLACK);
	EXPECT_GE(moved, PRICE - MEDIAN_SLACK);
}

TEST_F(economy, peek_never_withdraws)
{
	long long before, w0;
	char c;

	send_with_credit(self->sv[0], self->sv[1], &before, PAY);
	w0 = econ_book("withdrawals");
	ASSERT_EQ(1, recv(self->sv[1], &c, 1, MSG_PEEK));
	EXPECT_EQ(balance(self->sv[1]), PRICE);
	EXPECT_EQ(econ_book("withdrawals"), w0);
	ASSERT_EQ(1, recv(self->sv[1], &c, 1, 0));
	EXPECT_EQ(balance(self->sv[1]), 0);
	EXPECT_EQ(econ_book("withdrawals"), w0 + 1);
}

TEST_F(economy, off_moves_nothing)
{
	long long before, p0 = econ_book("payments"), w0 = econ_book("withdrawals");
	char c;

	ASSERT_EQ(0, sysctl_write("sched_economy", "0"));
	send_with_credit(self->sv[0], self->sv[1], &before, 0);
	EXPECT_EQ(balance(self->sv[1]), 0);
	ASSERT_EQ(1, recv(self->sv[1], &c, 1, 0));
	EXPECT_EQ(econ_book("payments"), p0);
	EXPECT_EQ(econ_book("withdrawals"), w0);
}

/*
 * Sends at moments of negative credit: a fresh child, placed at zero lag,
 * whose credit runs out before the tick takes the CPU away. The test
 * process itself may still be owed milliseconds from earlier withdrawals.
 * Exits with the number of the 20 sends that were refused.
 */
static int debtor(int fd, int peer)
{
	long long c = 0, b0, n, spins;
	int tries = 0, refused = 0;
	char buf[64];

	/* At nice 10 a tick of running costs more than any wait earns. */
	if (setpriority(PRIO_PROCESS, 0, 10))
		return 253;
	while (tries < 20) {
		for (spins = 0; spins < 1000000; spins++) {
			n = switches();
			c = credit();
			if (c < 0)
				break;
		}
		if (c >= 0)
			return 255;
		b0 = balance(peer);
		if (send(fd, "x", 1, MSG_DONTWAIT) != 1)
			return 254;
		/* A switch in between hands us fresh credit: not a test. */
		if (switches() == n) {
			tries++;
			if (balance(peer) == b0)
				refused++;
		}
		while (recv(peer, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
	}
	return refused;
}

TEST_F_TIMEOUT(economy, debtor_cannot_pay, 300)
{
	long long r0 = econ_book("pay_refused_no_credit");
	int status;
	pid_t pid;

	pid = fork();
	if (!pid)
		_exit(debtor(self->sv[0], self->sv[1]));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_NE(WEXITSTATUS(status), 255) TH_LOG("credit never went below 0");
	TH_LOG("%d of 20 sends in debt refused", WEXITSTATUS(status));
	EXPECT_EQ(WEXITSTATUS(status), 20);
	EXPECT_GE(econ_book("pay_refused_no_credit"), r0 + 20);
}

TEST_F(economy, account_at_limit_refuses)
{
	long long before, b, r0 = econ_book("pay_refused_over_limit");
	char c;

	ASSERT_EQ(0, sysctl_write("sched_economy_limit_ns", PRICE_STR));
	send_with_credit(self->sv[0], self->sv[1], &before, PAY);
	ASSERT_EQ(balance(self->sv[1]), PRICE);
	send_with_credit(self->sv[0], self->sv[1], &before, 0);
	EXPECT_EQ(balance(self->sv[1]), PRICE);
	EXPECT_EQ(econ_book("pay_refused_over_limit"), r0 + 1);
	ASSERT_EQ(1, recv(self->sv[1], &c, 1, 0));
	/* Near the lag bound the reader may take less than the price. */
	b = balance(self->sv[1]);
	EXPECT_LT(b, PRICE);
	send_with_credit(self->sv[0], self->sv[1], &before, PAY);
	EXPECT_EQ(balance(self->sv[1]), b + PRICE);
}

TEST_F(economy, freed_socket_balance_expires)
{
	long long before, e0 = econ_book("expired_ns");

	send_with_credit(self->sv[0], self->sv[1], &before, PAY);
	ASSERT_EQ(balance(self->sv[1]), PRICE);
	close(self->sv[1]);
	close(self->sv[0]);
	usleep(100000);
	TH_LOG("expired %lld -> %lld, expiries %lld", e0, econ_book("expired_ns"),
	       econ_book("expiries"));
	EXPECT_EQ(econ_book("expired_ns"), e0 + PRICE);
	EXPECT_EQ(econ_book("residue_ns"), 0);
	ASSERT_EQ(0, socketpair(AF_UNIX, variant->type, 0, self->sv));
}

/*
 * Under "lend" weight moves, not lag: a message pays nothing, whatever
 * its price, and the reader withdraws nothing.
 */
TEST_F(economy, lend_trades_no_lag)
{
	long long before, p0 = econ_book("payments");

	ASSERT_EQ(0, sysctl_write("sched_economy_policy", "lend"));
	ASSERT_EQ(0, sysctl_write("sched_economy_price_ns", "4000"));
	ASSERT_GE(send_with_credit(self->sv[0], self->sv[1], &before, 0), 0);
	EXPECT_EQ(balance(self->sv[1]), 0);
	EXPECT_EQ(econ_book("payments"), p0);
}

TEST(alone_on_the_runqueue_nobody_pays)
{
	long long a0 = econ_book("pay_refused_alone");
	int sv[2];

	econ_pin(0, 0);
	/* A lag policy: "lend" pays no lag at all. */
	ASSERT_EQ(0, sysctl_write("sched_economy_policy", "queue"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "1"));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	/* Let a task that just blocked leave its delayed dequeue. */
	usleep(50000);
	EXPECT_EQ(credit(), 0);
	ASSERT_EQ(1, send(sv[0], "x", 1, 0));
	EXPECT_EQ(balance(sv[1]), 0);
	EXPECT_EQ(econ_book("pay_refused_alone"), a0 + 1);
	close(sv[0]);
	close(sv[1]);
	sysctl_write("sched_economy", "0");
	sysctl_write("sched_economy_policy", "lend");
}

TEST_HARNESS_MAIN
