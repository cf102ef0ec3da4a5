/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between the economy's core (sched_economy.ko) and its
 * policies, built in or in modules of their own, in the shape of
 * struct tcp_congestion_ops.
 *
 * The core finds who waits for whom, moves weight and lag, keeps the
 * books and settles everything when a policy is switched or the module
 * leaves. A policy decides how much of that happens: how much of its
 * weight a sleeper gives to the task it waits for, and whether, and at
 * what price, a message moves lag. Every member is optional; a policy
 * without any moves nothing.
 *
 * What a policy cannot change, because the core decides it before or
 * after asking: a sleeper gives only to the task the kernel names at the
 * other end of the channel it sleeps on, only while it sleeps, never
 * more than its own weight; a reader waiting for data gives only to a
 * task of its own user or to the server it called connect() on; lag is
 * withdrawn only from an account it was paid into, on the CPU it was
 * paid on; nothing is allocated per task or channel.
 */
#ifndef _SCHED_ECONOMY_POLICY_H
#define _SCHED_ECONOMY_POLICY_H

#include <linux/list.h>
#include <linux/types.h>

struct module;
struct sock;
struct task_struct;
struct unix_economy;

#define ECONOMY_POLICY_NAME_MAX	16

/**
 * struct economy_wait - a sleep the core found a task to wait for
 * @to: the task at the channel's other end that current waits for, as
 *	the kernel recorded it (the reader that will make room, the server
 *	that will reply, a writer of current's own user); valid only for
 *	the call (the core holds no reference to it then)
 * @chan: the channel: a struct sock, pipe_inode_info, tty_struct,
 *	poll_wqueues, an epoll item's file (valid only for the call), an
 *	eventfd's sched_economy_end or a PI futex's owner, by @type
 * @type: enum sched_economy_chan
 * @wait: enum sched_economy_wait: data, room or send buffer (for an
 *	epoll item, the events it asks for)
 * @own: current's own load weight, its nice level's
 */
struct economy_wait {
	struct task_struct *to;
	const void *chan;
	int type;
	int wait;
	int own;
};

/**
 * struct economy_policy_ops - one economy policy
 * @donation: the weight current, about to sleep in @w, gives @w->to for
 *	as long as it sleeps. The core clamps it to 0..@w->own and adds
 *	what current holds from its own waiters, so chains follow; 0 gives
 *	nothing. NULL: no donation. Called in process context, with RCU
 *	read held; must not sleep.
 * @may_pay: whether current, sending a message to @sk, pays for it.
 *	NULL: never. Called with RCU read held, in process context. A
 *	policy with neither @may_pay nor @may_withdraw is not told of
 *	messages at all: the kernel's message hooks are off while it is
 *	active.
 * @may_withdraw: whether current, having read from @sk, withdraws.
 *	NULL: never.
 * @price: what the next message to @sk costs; @acct->price is the
 *	policy's own state per socket. Called under @acct->lock. NULL:
 *	economy_fixed_price().
 * @withdrawal: how much a reader consuming @nr messages of @sk takes; the
 *	core never gives more than @acct holds. Called under @acct->lock.
 *	NULL: economy_fixed_withdrawal().
 * @init: called as the policy becomes the active one; an error keeps the
 *	old one. NULL: nothing to do. Called with the registry's locks
 *	held: it must not register or switch policies.
 * @release: called once the policy is no longer active and no hook uses
 *	it any more. NULL: nothing to do. The same locks are held.
 * @list: the core's list of policies
 * @owner: THIS_MODULE of the policy's module (required), pinned while
 *	the policy is active
 * @name: what /proc/sys/kernel/sched_economy_policy takes: 1 to 15 of
 *	[a-z0-9_]
 */
struct economy_policy_ops {
	int (*donation)(const struct economy_wait *w);
	bool (*may_pay)(struct sock *sk);
	bool (*may_withdraw)(struct sock *sk);
	s64 (*price)(struct unix_economy *acct, struct sock *sk);
	s64 (*withdrawal)(struct unix_economy *acct, struct sock *sk,
			  unsigned int nr);
	int (*init)(void);
	void (*release)(void);

	struct list_head list;
	struct module *owner;
	char name[ECONOMY_POLICY_NAME_MAX];
};

int economy_register_policy(struct economy_policy_ops *ops);
void economy_unregister_policy(struct economy_policy_ops *ops);

/* The built-in policies' decisions, for policies that reuse them: */
int economy_lend_donation(const struct economy_wait *w);
s64 economy_fixed_price(struct unix_economy *acct, struct sock *sk);
s64 economy_fixed_withdrawal(struct unix_economy *acct, struct sock *sk,
			     unsigned int nr);
s64 economy_queue_price(struct unix_economy *acct, struct sock *sk);
s64 economy_queue_withdrawal(struct unix_economy *acct, struct sock *sk,
			     unsigned int nr);

#endif /* _SCHED_ECONOMY_POLICY_H */
