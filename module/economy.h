/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces of sched_economy.ko, grouped by the file that
 * implements them.
 */
#ifndef _SCHED_ECONOMY_H
#define _SCHED_ECONOMY_H

#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "economy_policy.h"

struct sock;
struct unix_economy;

/* A task of the fair class's policies: the only ones with lag and weight. */
static inline bool economy_fair_policy(struct task_struct *p)
{
	return p->policy == SCHED_NORMAL || p->policy == SCHED_BATCH ||
	       p->policy == SCHED_IDLE;
}

/* account.c APIs: */
extern u64 economy_generation;
int economy_lag_transfer(struct task_struct *p, s64 delta, unsigned int flags,
			 s64 *lag, s64 *applied);
int economy_pay(struct sock *sk, s64 amount, s64 *paid);
bool economy_lag_group_ok(struct task_struct *p);
bool economy_lag_shared(struct task_struct *p);
int economy_withdraw(struct sock *sk, unsigned int nr_skbs, s64 amount,
		     s64 *withdrawn);
void economy_account_read(struct sock *sk, s64 *balance, s64 *price);

/*
 * Whether @a and @b are in one task group, which has one cfs_rq per CPU.
 * A racy read: groups change under cgroup migration.
 */
static inline bool economy_same_task_group(struct task_struct *a,
					   struct task_struct *b)
{
#ifdef CONFIG_FAIR_GROUP_SCHED
	return READ_ONCE(a->sched_task_group) ==
	       READ_ONCE(b->sched_task_group);
#else
	return true;
#endif
}

void economy_account_destroy(struct sock *sk);
void economy_count_refusal(int err, bool pay, unsigned long ino, s64 amount);
void economy_book_payment(s64 ns);
void economy_book_withdrawal(s64 ns, s64 asked);
void economy_book_expiry(s64 ns);
s64 economy_accounts_close(void);
void economy_accounts_init(void);

/* hooks.c APIs: */
extern bool economy_hooks_on;
int economy_start(void);
void economy_hooks_follow_policy(void);
s64 economy_stop(void);

/* relation.c APIs: */
struct task_struct *economy_target(int type, const void *chan, int wait,
				   bool *cross);
bool economy_contended(struct task_struct *t);

/* donate.c APIs: */
void economy_wait_begin(int type, const void *chan, int wait);
void economy_wait_end(void);
void economy_woken(struct task_struct *p);
void economy_donations_end_all(bool settle);

/* ledger.c APIs: */
struct seq_file;
s64 economy_donations_held(void);
s64 economy_donations_received(void);
s64 economy_group_gifts_held(void);
void economy_ledger_show(struct seq_file *m);

/* policy.c APIs: */
extern struct economy_policy_ops __rcu *economy_active_ops;

/* The active policy; NULL only while the module loads or leaves. */
static inline struct economy_policy_ops *economy_ops(void)
{
	return rcu_dereference(economy_active_ops);
}

/* Whether the active policy gives weight at all (has a donation op). */
static inline bool economy_policy_lends(void)
{
	struct economy_policy_ops *ops;
	bool lends;

	rcu_read_lock();
	ops = economy_ops();
	lends = ops && ops->donation;
	rcu_read_unlock();
	return lends;
}

/* Whether the active policy moves lag with messages (pays or withdraws). */
static inline bool economy_policy_trades(void)
{
	struct economy_policy_ops *ops;
	bool trades;

	rcu_read_lock();
	ops = economy_ops();
	trades = ops && (ops->may_pay || ops->may_withdraw);
	rcu_read_unlock();
	return trades;
}

int economy_register_builtin(struct economy_policy_ops *ops);
int economy_policy_set(const char *name);
void economy_policy_name(char *buf);
void economy_policy_list_names(char *buf, size_t size);
int economy_policy_start(struct economy_policy_ops *ops);
void economy_policy_stop(void);

/* policies.c APIs: */
int economy_builtin_register(void);
void economy_builtin_unregister(void);
struct economy_policy_ops *economy_default_policy(void);

/* A nice-0 task's load weight, in the units of sched_economy_reweight(). */
#define ECONOMY_NICE0_WEIGHT	1024

/* sysctl.c APIs: */
extern int economy_enabled;
extern unsigned int economy_price_ns;
extern unsigned int economy_limit_ns;
extern unsigned int economy_target_qlen;
extern unsigned int economy_lend_pct;
extern int economy_groups;
extern int economy_cross_user;
extern unsigned int economy_hold_max;
extern unsigned int economy_reply_us;
int economy_sysctl_register(void);
void economy_sysctl_unregister(void);

/* stats.c APIs: */
enum economy_counter {
	ECONOMY_PAID_NS,
	ECONOMY_WITHDRAWN_NS,
	ECONOMY_EXPIRED_NS,
	ECONOMY_OUTSTANDING_NS,
	ECONOMY_PAYMENTS,
	ECONOMY_WITHDRAWALS,
	ECONOMY_EXPIRIES,
	ECONOMY_PAY_NO_CREDIT,
	ECONOMY_PAY_OVER_LIMIT,
	ECONOMY_PAY_ALONE,
	ECONOMY_PAY_INELIGIBLE,
	ECONOMY_PAY_ELSEWHERE,
	ECONOMY_PAY_GROUP,
	ECONOMY_WITHDRAW_EMPTY,
	ECONOMY_WITHDRAW_ALONE,
	ECONOMY_WITHDRAW_GROUP,
	ECONOMY_WITHDRAW_INELIGIBLE,
	ECONOMY_WITHDRAW_CLAMPED,
	ECONOMY_YIELD_TOS,
	ECONOMY_YIELD_MOVED_NS,
	ECONOMY_YIELD_LOST_NS,
	ECONOMY_DONATIONS,
	ECONOMY_DONATED_WEIGHT,
	ECONOMY_RETURNED_WEIGHT,
	ECONOMY_DONATE_NO_TARGET,
	ECONOMY_DONATE_OTHER_USER,
	ECONOMY_DONATE_UNCONTENDED,
	ECONOMY_DONATE_CYCLE,
	ECONOMY_DONATE_DECLINED,
	ECONOMY_GROUP_GIFTS,
	ECONOMY_GROUP_WEIGHT,
	ECONOMY_GROUP_RETURNED,
	ECONOMY_GROUP_LIMITED,
	ECONOMY_GROUP_REFUSED_DATA,
	ECONOMY_DONATE_NO_REQUEST,
	ECONOMY_CHAIN_CUTS,
	ECONOMY_GROUP_CARRIED,
	ECONOMY_NAMED_EPOLL,
	ECONOMY_NAMED_EVENTFD,
	ECONOMY_NAMED_LOCK,
	ECONOMY_REPLY_REST,
	ECONOMY_RQ_LOCKS,
	ECONOMY_RQ_LOCKS_REMOTE,
	ECONOMY_NR_COUNTERS,
};

/**
 * struct economy_stats - one CPU's share of the counters
 * @v: added to on this CPU; the books are the sums over all CPUs
 */
struct economy_stats {
	s64 v[ECONOMY_NR_COUNTERS];
};

DECLARE_PER_CPU(struct economy_stats, economy_stats);

/*
 * Per CPU, so that every message does not bounce one cache line between
 * all CPUs; this_cpu_add() is safe from any context, softirq included.
 */
static inline void economy_count(enum economy_counter c, s64 v)
{
	this_cpu_add(economy_stats.v[c], v);
}

s64 economy_stat(enum economy_counter c);

int economy_stats_init(void);
void economy_stats_exit(void);

/* dev.c APIs: */
int economy_dev_register(void);
void economy_dev_unregister(void);

#endif /* _SCHED_ECONOMY_H */
