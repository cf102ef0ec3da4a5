// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libsched_economy: wrappers around the ioctls of /dev/sched_economy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libsched_economy.h"

static int economy_fd = -1;

/* Open the device once; a thread that loses the race closes its copy. */
static int economy_dev(void)
{
	int fd = __atomic_load_n(&economy_fd, __ATOMIC_ACQUIRE);
	int expected = -1;

	if (fd >= 0)
		return fd;
	fd = open(SCHED_ECONOMY_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!__atomic_compare_exchange_n(&economy_fd, &expected, fd, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		close(fd);
		fd = expected;
	}
	return fd;
}

static int economy_ioctl(unsigned long cmd, void *arg)
{
	int fd = economy_dev();

	if (fd < 0)
		return -1;
	return ioctl(fd, cmd, arg) ? -1 : 0;
}

void sched_economy_close(void)
{
	int fd = __atomic_exchange_n(&economy_fd, -1, __ATOMIC_ACQ_REL);

	if (fd >= 0)
		close(fd);
}

long sched_yield_to(pid_t pid)
{
	struct sched_economy_yield_to arg = { .pid = pid };

	if (economy_ioctl(SCHED_ECONOMY_IOC_YIELD_TO, &arg))
		return -1;
	return arg.moved_ns;
}

int sched_pay_amount(int fd, long long amount_ns, unsigned int flags,
		     long long *moved_ns)
{
	struct sched_economy_xfer arg = {
		.fd = fd,
		.flags = flags,
		.amount_ns = amount_ns,
	};

	if (economy_ioctl(SCHED_ECONOMY_IOC_PAY, &arg))
		return -1;
	if (moved_ns)
		*moved_ns = arg.moved_ns;
	return 0;
}

int sched_withdraw_amount(int fd, long long amount_ns, long long *moved_ns)
{
	struct sched_economy_xfer arg = { .fd = fd, .amount_ns = amount_ns };

	if (economy_ioctl(SCHED_ECONOMY_IOC_WITHDRAW, &arg))
		return -1;
	if (moved_ns)
		*moved_ns = arg.moved_ns;
	return 0;
}

int sched_pay(int fd)
{
	return sched_pay_amount(fd, 0, 0, NULL);
}

int sched_withdraw(int fd)
{
	return sched_withdraw_amount(fd, 0, NULL);
}

int sched_credit(long long *ns)
{
	__s64 credit;

	if (!ns) {
		errno = EFAULT;
		return -1;
	}
	if (economy_ioctl(SCHED_ECONOMY_IOC_CREDIT, &credit))
		return -1;
	*ns = credit;
	return 0;
}

int sched_account(int fd, long long *balance_ns, long long *price_ns)
{
	struct sched_economy_account arg = { .fd = fd };

	if (economy_ioctl(SCHED_ECONOMY_IOC_ACCOUNT, &arg))
		return -1;
	if (balance_ns)
		*balance_ns = arg.balance_ns;
	if (price_ns)
		*price_ns = arg.price_ns;
	return 0;
}
