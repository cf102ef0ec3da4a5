// SPDX-License-Identifier: GPL-2.0
/*
 * Explicit PAY / WITHDRAW keep the books exact (module/account.c):
 *
 *   paid = withdrawn + expired + outstanding	(residue_ns 0)
 *
 * Workers (one per CPU, each with a busy loop for company, so that credit
 * is not 0 by definition) pay into and withdraw from the accounts of
 * shared stream, datagram and seqpacket socket pairs, own side and peer
 * side, and close some sockets that still hold a balance. Then: residue 0,
 * each counter moved by exactly what the ioctls reported, and outstanding
 * moved by exactly the sum of the ACCOUNT balances of the open sockets.
 */
#include "econ_test.h"

#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "libsched_economy.h"

#define PAIRS		6	/* 2 each: stream, dgram, seqpacket */
#define ROUNDS		1500
#define AMOUNT_NS	20000

struct tally {
	_Atomic long long paid, withdrawn, pays, withdrawals, refused;
};

static void worker(struct tally *t, int (*sv)[2], int cpu, unsigned int seed)
{
	long long moved;
	int i;

	econ_pin(0, cpu);
	for (i = 0; i < ROUNDS; i++) {
		int *p = sv[rand_r(&seed) % PAIRS];
		int fd = p[rand_r(&seed) % 2];
		long long amount = AMOUNT_NS / 2 + rand_r(&seed) % AMOUNT_NS;

		if (rand_r(&seed) % 3) {
			unsigned int flags = rand_r(&seed) % 2 ? SCHED_ECONOMY_PEER : 0;

			if (!sched_pay_amount(fd, amount, flags, &moved)) {
				atomic_fetch_add(&t->paid, moved);
				atomic_fetch_add(&t->pays, 1);
			} else {
				atomic_fetch_add(&t->refused, 1);
			}
		} else if (!sched_withdraw_amount(fd, amount, &moved)) {
			atomic_fetch_add(&t->withdrawn, moved);
			atomic_fetch_add(&t->withdrawals, moved > 0);
		} else {
			atomic_fetch_add(&t->refused, 1);
		}
		/* Waiting earns credit. */
		if (!(i % 4))
			sched_yield();
	}
	_exit(0);
}

static long long balance(int fd)
{
	long long b = LLONG_MIN;

	sched_account(fd, &b, NULL);
	return b;
}

TEST(books_stay_exact)
{
	static const int types[3] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	long long paid0, withdrawn0, expired0, outstanding0, closed = 0, open = 0;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), nr = 0, i, status;
	pid_t pids[4], wpids[4];
	struct tally *t;
	int sv[PAIRS][2];

	ASSERT_EQ(0, econ_load_module());
	/* Lag moves only under a lag policy; "lend" lends weight. */
	ASSERT_EQ(0, econ_write_knob("sched_economy_policy", "queue"));
	ASSERT_EQ(0, econ_write_knob("sched_economy", "1"));
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, t);
	for (i = 0; i < PAIRS; i++)
		ASSERT_EQ(0, socketpair(AF_UNIX, types[i % 3], 0, sv[i]));

	paid0 = econ_book("paid_ns");
	withdrawn0 = econ_book("withdrawn_ns");
	expired0 = econ_book("expired_ns");
	outstanding0 = econ_book("outstanding_ns");
	ASSERT_EQ(0, econ_book("residue_ns"));

	if (ncpu > 4)
		ncpu = 4;
	for (i = 0; i < ncpu; i++)
		pids[nr++] = econ_busy_loop(i);
	for (i = 0; i < ncpu; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid)
			worker(t, sv, i, 12345 + i);
		wpids[i] = pid;
	}
	for (i = 0; i < ncpu; i++) {
		ASSERT_EQ(wpids[i], waitpid(wpids[i], &status, 0));
		ASSERT_EQ(0, status);
	}
	econ_kill(pids, nr);

	TH_LOG("%d worker(s): %lld pays (%lld ns), %lld withdrawals (%lld ns), %lld refused",
	       ncpu, (long long)t->pays, (long long)t->paid,
	       (long long)t->withdrawals, (long long)t->withdrawn,
	       (long long)t->refused);
	EXPECT_LT(ROUNDS / 10, t->pays);
	EXPECT_LT(ROUNDS / 20, t->withdrawals);

	/*
	 * Close the first two pairs: their balances expire when the socket
	 * is freed, which for a connected pair is when both ends are closed.
	 */
	for (i = 0; i < 2; i++) {
		closed += balance(sv[i][0]) + balance(sv[i][1]);
		close(sv[i][0]);
		close(sv[i][1]);
	}
	for (i = 2; i < PAIRS; i++)
		open += balance(sv[i][0]) + balance(sv[i][1]);
	TH_LOG("books: paid +%lld withdrawn +%lld expired +%lld outstanding +%lld residue %lld",
	       econ_book("paid_ns") - paid0,
	       econ_book("withdrawn_ns") - withdrawn0,
	       econ_book("expired_ns") - expired0,
	       econ_book("outstanding_ns") - outstanding0,
	       econ_book("residue_ns"));
	TH_LOG("sockets: %lld ns on the open ones, %lld ns expired with the closed ones",
	       open, closed);
	EXPECT_EQ(0, econ_book("residue_ns"));
	EXPECT_EQ(t->paid, econ_book("paid_ns") - paid0);
	EXPECT_EQ(t->withdrawn, econ_book("withdrawn_ns") - withdrawn0);
	EXPECT_EQ(closed, econ_book("expired_ns") - expired0);
	EXPECT_EQ(open, econ_book("outstanding_ns") - outstanding0);
	EXPECT_EQ(t->paid - t->withdrawn, open + closed);
	EXPECT_LT(0, closed + open);

	for (i = 2; i < PAIRS; i++) {
		close(sv[i][0]);
		close(sv[i][1]);
	}
	EXPECT_EQ(0, econ_book("residue_ns"));
	EXPECT_EQ(outstanding0, econ_book("outstanding_ns"));
}

TEST_HARNESS_MAIN
