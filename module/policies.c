// SPDX-License-Identifier: GPL-2.0
/*
 * The built-in policies, ops tables on the same interface as a policy
 * module's (economy_policy.h):
 *
 * lend:  the default. A task sleeping for another donates its load
 *	weight (times kernel.sched_economy_lend_pct) to it: every task has
 *	weight, and it keeps its value across CPUs. It trades no lag.
 * queue: lag follows messages, and the price steers the reader's queue
 *	to a target length, so that neither side has to wait.
 * fixed: lag follows messages at a fixed price.
 * seed:  the 2007 prototype: non-root senders pay a fixed price, root
 *	receivers withdraw it.
 * The three lag policies move lag only between tasks of the root task
 * group (economy_lag_group_ok()): in a cgroup with the cpu controller or
 * an autogroup they move nothing.
 */
#include <linux/cred.h>
#include <linux/export.h>
#include <linux/uidgid.h>
#include <net/af_unix.h>
#include <net/sock.h>

#include "arith.h"
#include "economy.h"
#include "economy_policy.h"

/**
 * economy_lend_donation - lend's donation: the sleeper's own weight
 * @w: the sleep
 *
 * Return: @w->own times kernel.sched_economy_lend_pct / 100.
 */
int economy_lend_donation(const struct economy_wait *w)
{
	return w->own * (int)READ_ONCE(economy_lend_pct) / 100;
}
EXPORT_SYMBOL_GPL(economy_lend_donation);

static bool economy_always(struct sock *sk)
{
	return true;
}

static bool economy_is_root(struct sock *sk)
{
	return uid_eq(current_euid(), GLOBAL_ROOT_UID);
}

static bool economy_is_not_root(struct sock *sk)
{
	return !economy_is_root(sk);
}

/*
 * Anyone may send to an unconnected datagram socket (syslog, journald):
 * its queue is everyone's, so whoever keeps it long would set the price
 * for all the others. There the queue may lower the price, never raise
 * it above price_ns. A connected socket is filled by its peer alone,
 * which pays for what it raises.
 */
static bool economy_queue_shared(struct sock *sk)
{
	return sk->sk_type == SOCK_DGRAM && !READ_ONCE(unix_peer(sk));
}

/**
 * economy_queue_price - queue's price: steered by the reader's queue
 * @acct: @sk's account; its price is the state that is steered
 * @sk: the receiving socket
 *
 * Context: under @acct->lock.
 * Return: the price of the next message.
 */
s64 economy_queue_price(struct unix_economy *acct, struct sock *sk)
{
	u32 qlen = skb_queue_len_lockless(&sk->sk_receive_queue);
	s64 price = economy_adapt_price(acct->price, qlen,
					READ_ONCE(economy_target_qlen),
					READ_ONCE(economy_limit_ns));

	if (economy_queue_shared(sk))
		price = min_t(s64, price, READ_ONCE(economy_price_ns));
	WRITE_ONCE(acct->price, price);
	return price;
}
EXPORT_SYMBOL_GPL(economy_queue_price);

/**
 * economy_queue_withdrawal - queue's withdrawal
 * @acct: @sk's account
 * @sk: the socket read from
 * @nr: messages consumed
 *
 * The price of what was read, or more when few messages are left to
 * carry the balance, so that an idle reader strands nothing.
 *
 * Context: under @acct->lock.
 * Return: what to withdraw, at most the balance.
 */
s64 economy_queue_withdrawal(struct unix_economy *acct, struct sock *sk,
			     unsigned int nr)
{
	u32 left = skb_queue_len_lockless(&sk->sk_receive_queue);

	return max(economy_messages_worth(acct->balance, nr, acct->price),
		   economy_share(acct->balance, nr, left));
}
EXPORT_SYMBOL_GPL(economy_queue_withdrawal);

/**
 * economy_fixed_price - fixed's price: kernel.sched_economy_price_ns
 * @acct: @sk's account
 * @sk: the receiving socket
 *
 * Context: under @acct->lock.
 * Return: the price of the next message.
 */
s64 economy_fixed_price(struct unix_economy *acct, struct sock *sk)
{
	WRITE_ONCE(acct->price, READ_ONCE(economy_price_ns));
	return acct->price;
}
EXPORT_SYMBOL_GPL(economy_fixed_price);

/**
 * economy_fixed_withdrawal - fixed's withdrawal: @nr messages at price_ns
 * @acct: @sk's account
 * @sk: the socket read from
 * @nr: messages consumed
 *
 * Context: under @acct->lock.
 * Return: what to withdraw, at most the balance.
 */
s64 economy_fixed_withdrawal(struct unix_economy *acct, struct sock *sk,
			     unsigned int nr)
{
	return economy_messages_worth(acct->balance, nr,
				      READ_ONCE(economy_price_ns));
}
EXPORT_SYMBOL_GPL(economy_fixed_withdrawal);

static struct economy_policy_ops economy_builtin[] = {
	{
		.name		= "lend",
		.donation	= economy_lend_donation,
	},
	{
		.name		= "queue",
		.may_pay	= economy_always,
		.may_withdraw	= economy_always,
		.price		= economy_queue_price,
		.withdrawal	= economy_queue_withdrawal,
	},
	{
		.name		= "fixed",
		.may_pay	= economy_always,
		.may_withdraw	= economy_always,
	},
	{
		.name		= "seed",
		.may_pay	= economy_is_not_root,
		.may_withdraw	= economy_is_root,
	},
};

/**
 * economy_builtin_register - register the built-in policies, lend first
 *
 * Return: 0 or the error of economy_register_policy(); nothing is left
 * registered on error.
 */
int economy_builtin_register(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(economy_builtin); i++) {
		ret = economy_register_builtin(&economy_builtin[i]);
		if (ret) {
			while (i--)
				economy_unregister_policy(&economy_builtin[i]);
			return ret;
		}
	}
	return 0;
}

/**
 * economy_builtin_unregister - unregister the built-in policies
 *
 * Context: none of them is active any more (economy_policy_stop()).
 */
void economy_builtin_unregister(void)
{
	int i;

	for (i = ARRAY_SIZE(economy_builtin) - 1; i >= 0; i--)
		economy_unregister_policy(&economy_builtin[i]);
}

/**
 * economy_default_policy - the policy active at load: lend
 *
 * Return: its ops.
 */
struct economy_policy_ops *economy_default_policy(void)
{
	return &economy_builtin[0];
}
