// SPDX-License-Identifier: GPL-2.0
/*
 * The ledger of weight: what the donors' records say now, for the books
 * of /proc/sched_economy and the lines of /proc/sched_economy_tasks.
 * It only reads: each record under its own lock, or as one word.
 */
#include <linux/sched.h>
#include <linux/sched/economy.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>

#include "economy.h"

/**
 * economy_donations_held - the weight that sleepers have given away now
 *
 * Return: the sum of the donors' records.
 */
s64 economy_donations_held(void)
{
	struct task_struct *g, *p;
	s64 held = 0;

	rcu_read_lock();
	for_each_process_thread(g, p)
		held += READ_ONCE(p->economy_donation.weight);
	rcu_read_unlock();
	return held;
}

/**
 * economy_donations_received - the weight that recipients hold now
 *
 * Every change of a record is made to its recipient too, so this equals
 * economy_donations_held() whenever no donation is under way (and no
 * recipient that still holds weight has exited).
 *
 * Return: the sum of what every task holds.
 */
s64 economy_donations_received(void)
{
	struct task_struct *g, *p;
	s64 held = 0;

	rcu_read_lock();
	for_each_process_thread(g, p)
		held += READ_ONCE(p->economy_donation.held);
	rcu_read_unlock();
	return held;
}

/**
 * economy_group_gifts_held - the weight moved between group entities now
 *
 * Return: the sum of the donors' group gifts.
 */
s64 economy_group_gifts_held(void)
{
	struct task_struct *g, *p;
	s64 held = 0;

	rcu_read_lock();
	for_each_process_thread(g, p)
		held += READ_ONCE(p->economy_donation.group.weight);
	rcu_read_unlock();
	return held;
}

/**
 * economy_ledger_show - a line per task that donates or holds weight now
 * @m: the seq_file of /proc/sched_economy_tasks
 *
 * pid, comm, own weight, the pid it donates to and how much, the weight
 * it holds from its donors, and the weight it runs with above its own.
 */
void economy_ledger_show(struct seq_file *m)
{
	struct task_struct *g, *p;

	seq_puts(m, "pid comm own_weight donates_to donated held adjustment\n");
	rcu_read_lock();
	for_each_process_thread(g, p) {
		struct sched_economy_donation *d = &p->economy_donation;
		struct task_struct *to;
		int held;
		int donated;

		raw_spin_lock_irq(&d->lock);
		to = d->to;
		donated = d->weight;
		held = d->held;
		if (to || held)
			seq_printf(m, "%d %s %d %d %d %d %d\n", task_pid_nr(p),
				   p->comm, sched_economy_own_weight(p),
				   to ? task_pid_nr(to) : 0, donated, held,
				   READ_ONCE(p->se.economy_weight));
		raw_spin_unlock_irq(&d->lock);
	}
	rcu_read_unlock();
}
