// SPDX-License-Identifier: GPL-2.0
/*
 * dgram_price: anyone may send to an unconnected datagram socket (a
 * syslog or journald socket); keeping its queue long must not raise what
 * its other senders pay under the queue-steered price (issue 11). Policy
 * queue, price_ns 100 us, target_qlen 4: a flooder keeps the queue of a
 * bound, unconnected SOCK_DGRAM socket at 10 while its reader drains it,
 * 200 messages; the price of the socket's account must stay at or below
 * price_ns. Control: on a connected pair, where only the peer can fill the
 * queue and pays for it, the same flood still raises the price.
 *
 * Loads the module unless loaded; switches the economy off at the end.
 */
#include "economy_util.h"

#include <sys/socket.h>
#include <stddef.h>
#include <sys/un.h>

#include "kselftest_harness.h"

#define PRICE_NS	100000
#define BACKLOG		10
#define FLOOD		200

static long long price(int fd)
{
	struct sched_economy_account a = { .fd = fd };

	if (ioctl(economy_dev(), SCHED_ECONOMY_IOC_ACCOUNT, &a))
		return -1;
	return a.price_ns;
}

/* Keep @rx's queue at BACKLOG: one read, one send, FLOOD times. */
static int flood(int tx, int rx, const struct sockaddr_un *to, socklen_t len)
{
	char c = 'f';
	int i;

	for (i = 0; i < BACKLOG; i++)
		if (sendto(tx, &c, 1, 0, (const void *)to, len) != 1)
			return -1;
	for (i = 0; i < FLOOD; i++) {
		if (recv(rx, &c, 1, 0) != 1 ||
		    sendto(tx, &c, 1, 0, (const void *)to, len) != 1)
			return -1;
	}
	while (recv(rx, &c, 1, MSG_DONTWAIT) == 1)
		;
	return 0;
}

FIXTURE(dgram) {
	int dev;
};

FIXTURE_SETUP(dgram)
{
	ASSERT_EQ(0, econ_load_module());
	self->dev = economy_dev();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, sysctl_write("sched_economy", "0"));
	ASSERT_EQ(0, sysctl_write("sched_economy_policy", "queue"));
	ASSERT_EQ(0, sysctl_write("sched_economy_price_ns", "100000"));
	ASSERT_EQ(0, sysctl_write("sched_economy_target_qlen", "4"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "1"));
}

FIXTURE_TEARDOWN(dgram)
{
	sysctl_write("sched_economy", "0");
}

TEST_F(dgram, flood_of_unconnected_socket_does_not_raise_price)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t len = offsetof(struct sockaddr_un, sun_path) + 12;
	int rx, tx, client;
	char c = 'c';

	/* Abstract: "\0dgram_price" */
	memcpy(addr.sun_path, "\0dgram_price", 12);
	rx = socket(AF_UNIX, SOCK_DGRAM, 0);
	ASSERT_LE(0, rx);
	ASSERT_EQ(0, bind(rx, (void *)&addr, len));
	tx = socket(AF_UNIX, SOCK_DGRAM, 0);
	client = socket(AF_UNIX, SOCK_DGRAM, 0);
	ASSERT_LE(0, tx);
	ASSERT_LE(0, client);

	ASSERT_EQ(0, flood(tx, rx, &addr, len));
	/* A legitimate client's message after the flood. */
	ASSERT_EQ(1, sendto(client, &c, 1, 0, (void *)&addr, len));
	TH_LOG("unconnected socket after %d messages at queue length %d: price %lld ns (price_ns %d)",
	       FLOOD, BACKLOG, price(rx), PRICE_NS);
	EXPECT_GE(PRICE_NS, price(rx));
	EXPECT_LT(0, price(rx));
	close(rx);
	close(tx);
	close(client);
}

TEST_F(dgram, flood_of_connected_pair_still_raises_price)
{
	int sv[2];

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM, 0, sv));
	ASSERT_EQ(0, flood(sv[0], sv[1], NULL, 0));
	TH_LOG("connected pair after %d messages at queue length %d: price %lld ns (price_ns %d)",
	       FLOOD, BACKLOG, price(sv[1]), PRICE_NS);
	EXPECT_LT(2 * PRICE_NS, price(sv[1]));
	close(sv[0]);
	close(sv[1]);
}

TEST_HARNESS_MAIN
