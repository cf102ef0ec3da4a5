// SPDX-License-Identifier: GPL-2.0
/*
 * The hooks: what the kernel calls at each message and each blocking
 * point, installed while the economy is on and removed while it is off.
 *
 * The static key of the hooks is on only while the economy is: switched
 * off, or with no module, the af_unix, pipe, tty and poll paths pay
 * nothing. Each hook asks the active policy under RCU, which a switch of
 * policy waits for.
 */
#include <linux/rcupdate.h>
#include <linux/sched/economy.h>
#include <net/af_unix.h>
#include <net/sock.h>

#include "economy.h"
#include "economy_policy.h"

/* Current sent a message to @other: it pays if the policy says so. */
static void economy_sent(struct sock *sk, struct sock *other)
{
	struct economy_policy_ops *ops;
	s64 paid;

	if (!READ_ONCE(economy_enabled))
		return;
	rcu_read_lock();
	ops = economy_ops();
	if (ops && ops->may_pay && ops->may_pay(other))
		economy_pay(other, 0, &paid);
	rcu_read_unlock();
}

/* Current read @nr_skbs from @sk: it withdraws if the policy says so. */
static void economy_received(struct sock *sk, unsigned int nr_skbs)
{
	struct economy_policy_ops *ops;
	s64 withdrawn;

	if (!READ_ONCE(economy_enabled))
		return;
	rcu_read_lock();
	ops = economy_ops();
	/* Only on the CPU it was paid on (economy_withdraw()). */
	if (ops && ops->may_withdraw && ops->may_withdraw(sk))
		economy_withdraw(sk, nr_skbs, 0, &withdrawn);
	rcu_read_unlock();
}

static const struct sched_economy_ops economy_hooks = {
	.unix_sent	= economy_sent,
	.unix_received	= economy_received,
	.unix_destroy	= economy_account_destroy,
	.wait_begin	= economy_wait_begin,
	.wait_end	= economy_wait_end,
	.woken		= economy_woken,
};

/* Whether economy_hooks is registered: written under the sysctl's lock. */
bool economy_hooks_on __read_mostly;

/**
 * economy_hooks_follow_policy - have messages reported iff the policy pays
 *
 * The kernel calls the per-message hooks only while asked to
 * (sched_economy_trade_lag()): under a policy that neither pays nor
 * withdraws, the af_unix send and receive paths pass a static branch.
 *
 * Context: process context, under the sysctl's lock, after a switch of
 * policy or as the hooks go in.
 */
void economy_hooks_follow_policy(void)
{
	if (economy_hooks_on)
		WARN_ON_ONCE(sched_economy_trade_lag(&economy_hooks,
						     economy_policy_trades()));
}

/**
 * economy_start - install the hooks and switch the economy on
 *
 * Context: process context, under the sysctl's lock.
 * Return: 0, or -EBUSY if another economy holds the hooks.
 */
int economy_start(void)
{
	int ret = 0;

	if (!economy_hooks_on)
		ret = sched_economy_register(&economy_hooks);
	if (ret)
		return ret;
	economy_hooks_on = true;
	economy_hooks_follow_policy();
	WRITE_ONCE(economy_enabled, 1);
	return 0;
}

/**
 * economy_stop - switch the economy off and remove the hooks
 *
 * Every donation is taken back, and every balance is written off as expired
 * (a socket freed while the hooks are out could not expire its own), so
 * that the books read paid = withdrawn + expired with nothing outstanding.
 *
 * Context: process context, under the sysctl's lock, or at unload.
 * Return: the ns written off.
 */
s64 economy_stop(void)
{
	WRITE_ONCE(economy_enabled, 0);
	if (economy_hooks_on) {
		/*
		 * Waits for the hooks that were running and, as explicit
		 * transfers check economy_enabled in RCU read-side sections,
		 * for those too: nothing moves after this.
		 */
		sched_economy_unregister(&economy_hooks);
		economy_hooks_on = false;
	}
	/* A sleeper donating now will not report its wakeup. */
	economy_donations_end_all(true);
	return economy_accounts_close();
}
