// SPDX-License-Identifier: GPL-2.0
/*
 * switch_off: the hooks follow /proc/sys/kernel/sched_economy (issue 11).
 *
 *  - hooks_follow_the_switch: loaded, the economy off, the hooks are not
 *    registered (their static key is off, "hooks 0" in /proc/sched_economy);
 *    on registers them, off removes them again, a repeated write changes
 *    nothing.
 *  - off_writes_balances_off: a socket freed while the hooks are out could
 *    not expire its balance, so switching off writes every balance off at
 *    once: outstanding 0, expired up by the balance, residue 0, the account
 *    reads 0; closing the socket later expires nothing twice.
 *
 * Loads the module itself (rmmod first) and unloads it at the end.
 */
#include "economy_util.h"

#include <sys/socket.h>

#include "kselftest_harness.h"

#define AMOUNT_NS	50000

static void reload(struct __test_metadata *_metadata)
{
	/* Fails when it is not loaded: fine. */
	ASSERT_LE(0, system("rmmod sched_economy 2>/dev/null"));
	ASSERT_EQ(0, system("insmod " ECON_MODULE));
}

TEST(hooks_follow_the_switch)
{
	reload(_metadata);
	EXPECT_EQ(0, econ_book("enabled"));
	EXPECT_EQ(0, econ_book("hooks"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "1"));
	EXPECT_EQ(1, econ_book("hooks"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "1"));
	EXPECT_EQ(1, econ_book("hooks"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "0"));
	EXPECT_EQ(0, econ_book("enabled"));
	EXPECT_EQ(0, econ_book("hooks"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "0"));
	EXPECT_EQ(0, econ_book("hooks"));
	/* A refused value changes nothing. */
	EXPECT_EQ(-EINVAL, sysctl_write("sched_economy", "2"));
	EXPECT_EQ(0, econ_book("hooks"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "1"));
	EXPECT_EQ(1, econ_book("hooks"));
	EXPECT_EQ(-EINVAL, sysctl_write("sched_economy", "-1"));
	EXPECT_EQ(1, econ_book("enabled"));
	EXPECT_EQ(1, econ_book("hooks"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "0"));
	EXPECT_EQ(0, system("rmmod sched_economy"));
}

TEST(off_writes_balances_off)
{
	struct sched_economy_xfer x = { .amount_ns = AMOUNT_NS };
	long long expired0, bal, tries = 0;
	int sv[2], dev;
	pid_t hog;

	reload(_metadata);
	ASSERT_EQ(0, econ_pin(0, 0));
	ASSERT_EQ(0, sysctl_write("sched_economy_policy", "fixed"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "1"));
	dev = open(SCHED_ECONOMY_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));

	/* Credit earned waiting for a busy loop on the same CPU. */
	hog = econ_busy_loop(0);
	x.fd = sv[0];
	while (ioctl(dev, SCHED_ECONOMY_IOC_PAY, &x) || !x.moved_ns)
		ASSERT_GT(100000000, ++tries) TH_LOG("pay: %s", strerror(errno));
	econ_kill(&hog, 1);
	bal = balance(sv[0]);
	EXPECT_EQ(x.moved_ns, bal);
	EXPECT_EQ(bal, econ_book("outstanding_ns"));
	EXPECT_EQ(0, econ_book("residue_ns"));

	expired0 = econ_book("expired_ns");
	ASSERT_EQ(0, sysctl_write("sched_economy", "0"));
	EXPECT_EQ(0, econ_book("outstanding_ns"));
	EXPECT_EQ(expired0 + bal, econ_book("expired_ns"));
	EXPECT_EQ(0, econ_book("residue_ns"));
	EXPECT_EQ(0, balance(sv[0]));

	/* Back on, the old balance stays stale; closing expires nothing. */
	ASSERT_EQ(0, sysctl_write("sched_economy", "1"));
	EXPECT_EQ(0, balance(sv[0]));
	close(sv[0]);
	close(sv[1]);
	usleep(100000);
	EXPECT_EQ(expired0 + bal, econ_book("expired_ns"));
	EXPECT_EQ(0, econ_book("outstanding_ns"));
	EXPECT_EQ(0, econ_book("residue_ns"));
	ASSERT_EQ(0, sysctl_write("sched_economy", "0"));
	close(dev);
	close(economy_dev());
	EXPECT_EQ(0, system("rmmod sched_economy"));
}

TEST_HARNESS_MAIN
