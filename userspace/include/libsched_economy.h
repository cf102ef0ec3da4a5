/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libsched_economy: explicit CPU-credit transfers of the scheduler economy.
 *
 * Thin wrappers around the ioctls of /dev/sched_economy (the uapi header
 * sched_economy.h). Credit is the calling thread's EEVDF lag in ns of nice-0
 * service. Every function returns -1 and sets errno on failure, like libc.
 * The device is opened on first use (O_CLOEXEC) and kept open: an open
 * device pins the module, see sched_economy_close().
 *
 * Errors besides those of the ioctls (uapi/sched_economy.h): ENOENT if
 * /dev/sched_economy does not exist (module not loaded).
 */
#ifndef _LIBSCHED_ECONOMY_H
#define _LIBSCHED_ECONOMY_H

#include <sys/types.h>

#include "sched_economy.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Yield the CPU to thread @pid and give it half of the caller's positive
 * credit. Returns the credit moved in ns (>= 0: 0 if the caller had none).
 */
long sched_yield_to(pid_t pid);

/* Pay the account's price into / withdraw it from @fd's account. */
int sched_pay(int fd);
int sched_withdraw(int fd);

/*
 * The same with an amount (0: the account's price) and, for paying,
 * flags (SCHED_ECONOMY_PEER: the connected peer's account). @moved_ns, if
 * not NULL, receives what was actually moved.
 */
int sched_pay_amount(int fd, long long amount_ns, unsigned int flags,
		     long long *moved_ns);
int sched_withdraw_amount(int fd, long long amount_ns, long long *moved_ns);

/* The caller's credit; 0 when alone on its runqueue. */
int sched_credit(long long *ns);

/* Balance and price of @fd's account; either pointer may be NULL. */
int sched_account(int fd, long long *balance_ns, long long *price_ns);

/* Close the device, so the module can be unloaded; reopened on next use. */
void sched_economy_close(void);

#ifdef __cplusplus
}
#endif

#endif /* _LIBSCHED_ECONOMY_H */
