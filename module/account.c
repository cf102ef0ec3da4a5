// SPDX-License-Identifier: GPL-2.0
/*
 * Accounts: the escrow of CPU credit on each AF_UNIX socket.
 *
 * A payment debits the sender's lag and credits the account; a withdrawal
 * does the opposite for the reader. Both happen under the account lock, so
 * the check "has enough credit, account below its limit" and the transfer
 * are one step, and every ns lands in exactly one of the counters
 * paid = withdrawn + expired + outstanding.
 *
 * Lock order: account lock -> pi_lock -> rq lock (inside
 * sched_lag_transfer()).
 */
#include <linux/errno.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/economy.h>
#include <linux/spinlock.h>
#include <net/af_unix.h>
#include <net/sock.h>

#include "arith.h"
#include "economy.h"
#include "economy_policy.h"

#include "trace.h"

u64 economy_generation __read_mostly;

/*
 * Lag is spendable only on the CPU it was paid on, where the payment
 * raised the lag of the very tasks that the withdrawal lowers: lag moved
 * between CPUs would be made from nothing, whatever the policy. An
 * account keeps that CPU in its generation: the economy's (odd) plus
 * twice the CPU, so one word tells this economy's balances from a gone
 * one's, and the CPU they were paid on.
 */
static u64 economy_account_gen(int cpu)
{
	return READ_ONCE(economy_generation) + 2 * (u64)cpu;
}

/* Whether the running economy owns @acct's balance; paid on *@cpu. */
static bool economy_account_ours(const struct unix_economy *acct,
				 int *cpu)
{
	u64 d = READ_ONCE(acct->generation) - READ_ONCE(economy_generation);

	if (d & 1 || d >= 2 * (u64)nr_cpu_ids)
		return false;
	if (cpu)
		*cpu = d / 2;
	return true;
}

/*
 * A balance left by an economy that was unloaded was counted as expired
 * when it went; the new economy starts the account from zero.
 */
static void economy_account_claim(struct unix_economy *acct)
{
	lockdep_assert_held(&acct->lock);
	if (economy_account_ours(acct, NULL))
		return;
	WRITE_ONCE(acct->generation,
		   economy_account_gen(raw_smp_processor_id()));
	WRITE_ONCE(acct->balance, 0);
	WRITE_ONCE(acct->price, READ_ONCE(economy_price_ns));
}

/**
 * economy_lag_group_ok - whether @p may pay into or withdraw from accounts
 * @p: the payer or reader
 *
 * Lag is relative to a cfs_rq, and a CPU has one per task group: lag paid
 * in a group's cfs_rq and withdrawn in another's would be made from
 * nothing there, as across CPUs (review F15: a payer in a cgroup with its
 * own loop for company, a reader beside the victims in the root). An
 * account keeps the CPU of its balance, not the group, so lag moves only
 * in the root task group's cfs_rq of each CPU: a task in a cgroup with
 * the cpu controller or in an autogroup neither pays nor withdraws. The
 * root group is init_task's (the idle task of CPU 0 never moves), as
 * root_task_group is not exported. A racy read: a task moved between
 * the check and the transfer under the account lock (cgroup migration
 * takes only the rq lock) moves one transfer's worth, at most
 * kernel.sched_economy_limit_ns, as a move alone carries its lag.
 *
 * Return: true if @p is in the root task group.
 */
bool economy_lag_group_ok(struct task_struct *p)
{
	return economy_same_task_group(p, &init_task);
}

/**
 * economy_lag_shared - whether @p shares current's cfs_rq
 * @p: a task current would move lag to
 *
 * The same CPU and the same task group. A racy read, as in
 * economy_lag_group_ok(): a move between the check and the transfer gets
 * at most one transfer's worth, bounded by @p's lag bound.
 *
 * Return: true if @p and current are on one cfs_rq.
 */
bool economy_lag_shared(struct task_struct *p)
{
	return task_cpu(p) == raw_smp_processor_id() &&
	       economy_same_task_group(p, current);
}

/*
 * Whether current is on another CPU than the one @acct's balance was paid
 * on. The account lock keeps current on its CPU.
 */
static bool economy_account_elsewhere(struct unix_economy *acct)
{
	int cpu = 0;

	economy_account_ours(acct, &cpu);
	return cpu != raw_smp_processor_id();
}

/*
 * The books of lag money, for sockets' accounts and channels' alike:
 * every ns lands in exactly one of paid = withdrawn + expired +
 * outstanding.
 */

/**
 * economy_book_payment - @ns were paid into an account
 * @ns: what moved, >= 0
 */
void economy_book_payment(s64 ns)
{
	economy_count(ECONOMY_PAID_NS, ns);
	economy_count(ECONOMY_OUTSTANDING_NS, ns);
	economy_count(ECONOMY_PAYMENTS, 1);
}

/**
 * economy_book_withdrawal - @ns of the @asked were withdrawn
 * @ns: what moved, >= 0
 * @asked: what the reader asked for; more than @ns when the lag bound
 *	clamped it
 */
void economy_book_withdrawal(s64 ns, s64 asked)
{
	if (ns < asked)
		economy_count(ECONOMY_WITHDRAW_CLAMPED, 1);
	economy_count(ECONOMY_WITHDRAWN_NS, ns);
	economy_count(ECONOMY_OUTSTANDING_NS, -ns);
	economy_count(ECONOMY_WITHDRAWALS, 1);
}

/**
 * economy_book_expiry - a balance of @ns is written off
 * @ns: the balance
 */
void economy_book_expiry(s64 ns)
{
	economy_count(ECONOMY_EXPIRED_NS, ns);
	economy_count(ECONOMY_OUTSTANDING_NS, -ns);
	economy_count(ECONOMY_EXPIRIES, 1);
}

/**
 * economy_lag_transfer - sched_lag_transfer(), booked to the ns asked
 * @p: the task
 * @delta: ns of lag to move
 * @flags: as for sched_lag_transfer()
 * @lag: out, may be NULL: the lag of @p before
 * @applied: out: what moved, @delta itself when within rounding of it
 *
 * Return: the error of sched_lag_transfer().
 */
int economy_lag_transfer(struct task_struct *p, s64 delta, unsigned int flags,
			 s64 *lag, s64 *applied)
{
	int err = sched_lag_transfer(p, delta, flags, lag, applied);

	*applied = economy_snap(*applied, delta);
	return err;
}

/* The inode number is for tracing only: spare the lock when it is off. */
static unsigned long economy_ino(struct sock *sk)
{
	if (trace_economy_pay_enabled() || trace_economy_withdraw_enabled() ||
	    trace_economy_refuse_enabled())
		return sock_i_ino(sk);
	return 0;
}

/**
 * economy_count_refusal - count and trace a transfer refused
 * @err: the error of sched_lag_transfer()
 * @pay: a payment (else a withdrawal)
 * @ino: the socket's inode number for the trace, 0 if none
 * @amount: ns asked
 */
void economy_count_refusal(int err, bool pay, unsigned long ino, s64 amount)
{
	switch (err) {
	case -ERANGE:
		economy_count(ECONOMY_PAY_NO_CREDIT, 1);
		trace_economy_refuse(ino, "no_credit", amount);
		break;
	case -ENOENT:
		economy_count(pay ? ECONOMY_PAY_ALONE : ECONOMY_WITHDRAW_ALONE, 1);
		trace_economy_refuse(ino, "alone", amount);
		break;
	default:
		economy_count(pay ? ECONOMY_PAY_INELIGIBLE :
			      ECONOMY_WITHDRAW_INELIGIBLE, 1);
		trace_economy_refuse(ino, "ineligible", amount);
		break;
	}
}

/*
 * The active policy's price and withdrawal, or the fixed ones. Called
 * under the account lock, in the RCU read-side section of the hook or of
 * the explicit call. A price is never above what an account may hold.
 */
static s64 economy_price_of(struct unix_economy *acct, struct sock *sk)
{
	struct economy_policy_ops *ops = economy_ops();
	s64 price;

	if (ops && ops->price)
		price = ops->price(acct, sk);
	else
		price = economy_fixed_price(acct, sk);
	return clamp_t(s64, price, 0, READ_ONCE(economy_limit_ns));
}

static s64 economy_withdrawal_of(struct unix_economy *acct, struct sock *sk,
				 unsigned int nr)
{
	struct economy_policy_ops *ops = economy_ops();

	if (ops && ops->withdrawal)
		return ops->withdrawal(acct, sk, nr);
	return economy_fixed_withdrawal(acct, sk, nr);
}

/**
 * economy_pay - current pays into the account of @sk
 * @sk: the receiving socket
 * @amount: ns to pay; 0 asks the policy for the price of one message
 * @paid: out: what was actually paid
 *
 * Only positive lag is spent: a task in debt that sleeps is forgiven by
 * DELAY_DEQUEUE, so paying from debt would print money. An account holds
 * lag of one CPU: a payment from another CPU is refused while the account
 * holds any.
 *
 * Return: 0, -ENOSPC if the account is at its limit, -EXDEV if it holds
 * lag paid on another CPU or current is in a task group
 * (economy_lag_group_ok()), or the error of sched_lag_transfer().
 */
int economy_pay(struct sock *sk, s64 amount, s64 *paid)
{
	struct unix_economy *acct = &unix_sk(sk)->economy;
	unsigned long ino;
	s64 applied = 0;
	int err;

	*paid = 0;
	ino = economy_ino(sk);
	spin_lock(&acct->lock);
	economy_account_claim(acct);
	if (!economy_lag_group_ok(current)) {
		economy_count(ECONOMY_PAY_GROUP, 1);
		trace_economy_refuse(ino, "group", amount);
		err = -EXDEV;
		goto unlock;
	}
	if (economy_account_elsewhere(acct)) {
		/*
		 * One account, one CPU: while lag paid on another CPU waits
		 * there for its reader, a payment from here is refused; an
		 * empty account follows its payer.
		 */
		if (acct->balance) {
			economy_count(ECONOMY_PAY_ELSEWHERE, 1);
			trace_economy_refuse(ino, "elsewhere", amount);
			err = -EXDEV;
			goto unlock;
		}
		WRITE_ONCE(acct->generation,
			   economy_account_gen(raw_smp_processor_id()));
	}
	if (acct->balance >= READ_ONCE(economy_limit_ns)) {
		economy_count(ECONOMY_PAY_OVER_LIMIT, 1);
		trace_economy_refuse(ino, "over_limit", amount);
		err = -ENOSPC;
		goto unlock;
	}
	if (!amount)
		amount = economy_price_of(acct, sk);
	err = economy_lag_transfer(current, -amount, SCHED_LAG_NEED_CREDIT,
				   NULL, &applied);
	if (err) {
		economy_count_refusal(err, true, ino, amount);
		goto unlock;
	}
	WRITE_ONCE(acct->balance, acct->balance - applied);
	*paid = -applied;
	trace_economy_pay(ino, -applied, acct->balance);
	economy_book_payment(-applied);
unlock:
	spin_unlock(&acct->lock);
	return err;
}

/**
 * economy_withdraw - current withdraws from the account of @sk
 * @sk: the socket current read @nr_skbs from
 * @nr_skbs: skbs consumed
 * @amount: ns to withdraw; 0 asks the policy for the share of @nr_skbs
 * @withdrawn: out: what was actually withdrawn
 *
 * What the lag bound does not let current take stays in the account.
 * Nothing is withdrawn on another CPU than the payments', nor by a task
 * in a task group.
 *
 * Return: 0 or the error of sched_lag_transfer().
 */
int economy_withdraw(struct sock *sk, unsigned int nr_skbs, s64 amount,
		     s64 *withdrawn)
{
	struct unix_economy *acct = &unix_sk(sk)->economy;
	unsigned long ino = economy_ino(sk);
	s64 applied = 0;
	int err = 0;

	*withdrawn = 0;
	/*
	 * Most reads find nothing to withdraw (the payment was refused, or
	 * an earlier read took it): say so without the lock. A payment
	 * racing with this read stays for the next one.
	 */
	if (!READ_ONCE(acct->balance)) {
		economy_count(ECONOMY_WITHDRAW_EMPTY, 1);
		return 0;
	}
	spin_lock(&acct->lock);
	economy_account_claim(acct);
	if (economy_account_elsewhere(acct))
		goto unlock;
	if (!economy_lag_group_ok(current)) {
		economy_count(ECONOMY_WITHDRAW_GROUP, 1);
		trace_economy_refuse(ino, "group", amount);
		goto unlock;
	}
	if (!amount)
		amount = economy_withdrawal_of(acct, sk, nr_skbs);
	amount = min(amount, acct->balance);
	if (amount <= 0) {
		economy_count(ECONOMY_WITHDRAW_EMPTY, 1);
		goto unlock;
	}
	err = economy_lag_transfer(current, amount, 0, NULL, &applied);
	if (err) {
		economy_count_refusal(err, false, ino, amount);
		goto unlock;
	}
	WRITE_ONCE(acct->balance, acct->balance - applied);
	*withdrawn = applied;
	trace_economy_withdraw(ino, applied, acct->balance);
	economy_book_withdrawal(applied, amount);
unlock:
	spin_unlock(&acct->lock);
	return err;
}

/**
 * economy_account_read - the balance and price of @sk's account
 * @sk: an AF_UNIX socket
 * @balance: out: ns held
 * @price: out: the account's current price
 */
void economy_account_read(struct sock *sk, s64 *balance, s64 *price)
{
	struct unix_economy *acct = &unix_sk(sk)->economy;

	spin_lock(&acct->lock);
	economy_account_claim(acct);
	*balance = acct->balance;
	*price = acct->price;
	spin_unlock(&acct->lock);
}

/**
 * economy_account_destroy - the balance of a dying socket expires
 * @sk: the socket being freed
 *
 * Runs from the socket destructor, possibly in softirq: no lock is taken,
 * as no other reference to @sk remains.
 */
void economy_account_destroy(struct sock *sk)
{
	struct unix_economy *acct = &unix_sk(sk)->economy;

	if (!economy_account_ours(acct, NULL) || !acct->balance)
		return;
	economy_book_expiry(acct->balance);
	WRITE_ONCE(acct->balance, 0);
}

/**
 * economy_expire_all - write off every live balance
 *
 * Called when the hooks are out and no explicit transfer runs: the
 * balances stay in their sockets as stale numbers that the next
 * generation will not honour.
 *
 * Return: the ns written off.
 */
static s64 economy_expire_all(void)
{
	s64 left = economy_stat(ECONOMY_OUTSTANDING_NS);

	economy_count(ECONOMY_OUTSTANDING_NS, -left);
	economy_count(ECONOMY_EXPIRED_NS, left);
	return left;
}

/*
 * Unique per load and per switch-off: older balances read as stale. Odd,
 * and past every CPU's generation of the one before (economy_account_gen()).
 */
static void economy_new_generation(void)
{
	u64 gen = max(ktime_get_boottime_ns(),
		      economy_generation + 2 * (u64)nr_cpu_ids);

	WRITE_ONCE(economy_generation, gen | 1);
}

/**
 * economy_accounts_close - write off every live balance, start a generation
 *
 * Called when the hooks are out: the balances stay in their sockets as
 * stale numbers that the next generation will not honour.
 *
 * Return: the ns written off.
 */
s64 economy_accounts_close(void)
{
	s64 left = economy_expire_all();

	economy_new_generation();
	return left;
}

/**
 * economy_accounts_init - the first generation, before any hook is in
 */
void economy_accounts_init(void)
{
	economy_new_generation();
}
