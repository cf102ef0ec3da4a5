/* SPDX-License-Identifier: GPL-2.0 */
/*
 * econ_waiter.h: the pipe waiters of the chain tests: a task that becomes
 * a pipe's reader of record, then, on SIGUSR1, fills another pipe and
 * blocks waiting for room (a wait the economy sees; pause() is not one).
 */
#ifndef _ECON_WAITER_H
#define _ECON_WAITER_H

#include "econ_test.h"

static volatile sig_atomic_t econ_go;

static void econ_on_go(int sig)
{
	(void)sig;
	econ_go = 1;
}

/*
 * A task that reads a byte of @in (if >= 0), then fills @out on SIGUSR1
 * and blocks; with @out < 0 it spins instead.
 */
static inline pid_t econ_start_waiter(int in, int out)
{
	static char buf[4096];
	sigset_t block, old;
	pid_t pid;
	char c;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGUSR1, econ_on_go);
	if (in >= 0 && read(in, &c, 1) != 1)
		_exit(1);
	if (out < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		for (;;)
			__asm__ __volatile__("" ::: "memory");
	}
	while (!econ_go)
		sigsuspend(&old);
	for (;;)
		if (write(out, buf, sizeof(buf)) < 0)
			_exit(0);
}

#endif /* _ECON_WAITER_H */
