/* SPDX-License-Identifier: GPL-2.0 */
/*
 * More helpers for the guest tests, on top of econ_test.h: sysctl writes
 * that report the errno, the explicit API, the switch count, and groups of
 * busy loops to share a CPU with.
 */
#ifndef _ECONOMY_UTIL_H
#define _ECONOMY_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "econ_test.h"
#include "sched_economy.h"

static inline int sysctl_write(const char *name, const char *val)
{
	char path[128];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

static inline int economy_dev(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open(SCHED_ECONOMY_DEVICE, O_RDWR | O_CLOEXEC);
	return fd;
}

static inline long long credit(void)
{
	long long ns = 0;

	if (ioctl(economy_dev(), SCHED_ECONOMY_IOC_CREDIT, &ns))
		return -0x7fffffffffffffffLL - 1;
	return ns;
}

static inline long long balance(int fd)
{
	struct sched_economy_account a = { .fd = fd };

	if (ioctl(economy_dev(), SCHED_ECONOMY_IOC_ACCOUNT, &a))
		return -0x7fffffffffffffffLL - 1;
	return a.balance_ns;
}

/* Times this thread was switched in: a change means it lost the CPU. */
static inline long long switches(void)
{
	static int fd = -1;
	unsigned long long run, wait, n = 0;
	char buf[128];
	ssize_t r;

	if (fd < 0)
		fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	r = pread(fd, buf, sizeof(buf) - 1, 0);
	if (r <= 0)
		return -1;
	buf[r] = 0;
	sscanf(buf, "%llu %llu %llu", &run, &wait, &n);
	return n;
}

/* Busy loops on @cpu that die with their parent. */
static inline void start_hogs(pid_t *pids, int n, int cpu)
{
	int i;

	for (i = 0; i < n; i++)
		pids[i] = econ_busy_loop(cpu);
}

static inline void stop_hogs(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/*
 * Spin until the scheduler has just handed us the CPU back after a wait,
 * which is when our credit is highest, and return it once it is at least
 * @want, with the switch count it was read under in @n. Gives up after
 * @tries reads.
 */
static inline long long wait_for_credit(long long want, long tries,
					long long *n)
{
	long long c = 0;

	while (tries-- > 0) {
		*n = switches();
		c = credit();
		if (c >= want)
			return c;
	}
	return c;
}

#endif /* _ECONOMY_UTIL_H */
