// SPDX-License-Identifier: GPL-2.0
/*
 * Policies: who pays, who withdraws, and at what price.
 *
 * lend:  the default. A task sleeping for another donates its load
 *	weight to it (donate.c): every task has weight, and it keeps its
 *	value across CPUs. It trades no lag.
 * queue: lag follows messages, and the price steers the reader's queue
 *	to a target length, so that neither side has to wait.
 * fixed: money follows messages at a fixed price.
 * seed:  the 2007 prototype: non-root senders pay a fixed price, root
 *	receivers withdraw it.
 */
#include <linux/cred.h>
#include <linux/string.h>
#include <linux/uidgid.h>
#include <net/af_unix.h>
#include <net/sock.h>

#include "arith.h"
#include "economy.h"

static bool economy_always(void)
{
	return true;
}

static bool economy_never(void)
{
	return false;
}

static bool economy_is_root(void)
{
	return uid_eq(current_euid(), GLOBAL_ROOT_UID);
}

static bool economy_is_not_root(void)
{
	return !economy_is_root();
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

static s64 economy_queue_price(struct unix_economy *acct,
			       struct sock *sk)
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

static s64 economy_queue_withdrawal(struct unix_economy *acct,
				    struct sock *sk, unsigned int nr)
{
	u32 left = skb_queue_len_lockless(&sk->sk_receive_queue);

	/*
	 * The price of what was read, or more when few messages are left to
	 * carry the balance, so that an idle reader strands nothing.
	 */
	return max(economy_fixed_withdrawal(acct->balance, nr, acct->price),
		   economy_share(acct->balance, nr, left));
}

static s64 economy_fixed_price(struct unix_economy *acct,
			       struct sock *sk)
{
	WRITE_ONCE(acct->price, READ_ONCE(economy_price_ns));
	return acct->price;
}

static s64 economy_fixed_withdraw(struct unix_economy *acct,
				  struct sock *sk, unsigned int nr)
{
	return economy_fixed_withdrawal(acct->balance, nr,
					READ_ONCE(economy_price_ns));
}

const struct economy_policy economy_policies[ECONOMY_NR_POLICIES] = {
	[ECONOMY_POLICY_LEND] = {
		.name		= "lend",
		.lends		= true,
		.may_pay	= economy_never,
		.may_withdraw	= economy_never,
		.price		= economy_queue_price,
		.withdrawal	= economy_queue_withdrawal,
	},
	[ECONOMY_POLICY_QUEUE] = {
		.name		= "queue",
		.may_pay	= economy_always,
		.may_withdraw	= economy_always,
		.price		= economy_queue_price,
		.withdrawal	= economy_queue_withdrawal,
	},
	[ECONOMY_POLICY_FIXED] = {
		.name		= "fixed",
		.may_pay	= economy_always,
		.may_withdraw	= economy_always,
		.price		= economy_fixed_price,
		.withdrawal	= economy_fixed_withdraw,
	},
	[ECONOMY_POLICY_SEED] = {
		.name		= "seed",
		.may_pay	= economy_is_not_root,
		.may_withdraw	= economy_is_root,
		.price		= economy_fixed_price,
		.withdrawal	= economy_fixed_withdraw,
	},
};

const struct economy_policy *economy_policy(void)
{
	return &economy_policies[READ_ONCE(economy_policy_id)];
}

/**
 * economy_policy_find - look a policy up by name
 * @name: as written to the sysctl, without the trailing newline
 *
 * Return: its id, or -EINVAL.
 */
int economy_policy_find(const char *name)
{
	int i;

	for (i = 0; i < ECONOMY_NR_POLICIES; i++)
		if (!strcmp(name, economy_policies[i].name))
			return i;
	return -EINVAL;
}
