/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * sched_economy: explicit transfers of CPU credit through /dev/sched_economy.
 *
 * Credit is a task's EEVDF lag in ns of nice-0 service. Every call works on
 * the calling thread; amounts are in ns.
 */
#ifndef _UAPI_LINUX_SCHED_ECONOMY_H
#define _UAPI_LINUX_SCHED_ECONOMY_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SCHED_ECONOMY_DEVICE	"/dev/sched_economy"

/**
 * struct sched_economy_yield_to - argument of %SCHED_ECONOMY_IOC_YIELD_TO
 * @pid: thread to yield to (a TID, as sched_setaffinity() takes)
 * @flags: must be 0
 * @moved_ns: out: credit moved from the caller to @pid
 */
struct sched_economy_yield_to {
	__s32 pid;
	__u32 flags;
	__s64 moved_ns;
};

/* Pay into the account of the connected peer instead of @fd's own. */
#define SCHED_ECONOMY_PEER	0x1

/**
 * struct sched_economy_xfer - argument of %SCHED_ECONOMY_IOC_PAY / _WITHDRAW
 * @fd: an AF_UNIX socket of the caller
 * @flags: %SCHED_ECONOMY_PEER (pay only), or 0
 * @amount_ns: in: how much; 0 means the account's current price
 * @moved_ns: out: how much was actually moved
 *
 * Lag is relative to one runqueue: PAY fails with EXDEV while the account
 * holds lag paid on another CPU, or if the caller is in a task group (a
 * cgroup with the cpu controller, an autogroup: lag moves only in each
 * CPU's root group); WITHDRAW then moves 0.
 */
struct sched_economy_xfer {
	__s32 fd;
	__u32 flags;
	__s64 amount_ns;
	__s64 moved_ns;
};

/**
 * struct sched_economy_account - argument of %SCHED_ECONOMY_IOC_ACCOUNT
 * @fd: an AF_UNIX socket of the caller
 * @flags: must be 0
 * @balance_ns: out: credit held by the socket's account
 * @price_ns: out: the account's current price
 */
struct sched_economy_account {
	__s32 fd;
	__u32 flags;
	__s64 balance_ns;
	__s64 price_ns;
};

#define SCHED_ECONOMY_IOC_MAGIC		0xEC
#define SCHED_ECONOMY_IOC_YIELD_TO \
	_IOWR(SCHED_ECONOMY_IOC_MAGIC, 0x40, struct sched_economy_yield_to)
#define SCHED_ECONOMY_IOC_PAY \
	_IOWR(SCHED_ECONOMY_IOC_MAGIC, 0x41, struct sched_economy_xfer)
#define SCHED_ECONOMY_IOC_WITHDRAW \
	_IOWR(SCHED_ECONOMY_IOC_MAGIC, 0x42, struct sched_economy_xfer)
#define SCHED_ECONOMY_IOC_CREDIT \
	_IOR(SCHED_ECONOMY_IOC_MAGIC, 0x43, __s64)
#define SCHED_ECONOMY_IOC_ACCOUNT \
	_IOWR(SCHED_ECONOMY_IOC_MAGIC, 0x44, struct sched_economy_account)

#endif /* _UAPI_LINUX_SCHED_ECONOMY_H */
