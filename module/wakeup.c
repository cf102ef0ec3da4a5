// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeups: a task that wakes another is data flowing between them.
 *
 * Sockets, pipes and ttys call the economy's hooks, but a client may as
 * well wake its worker through a futex or an eventfd, which have none.
 * Every such channel ends in try_to_wake_up(), and its sched_waking
 * tracepoint runs in the waker's context: a task that wakes another from
 * process context makes the two peers, as a write read by the other would
 * (Linus, 2007: "any extra points it had could be given to whoever it
 * woke up last"). Wakeups from interrupts (timers, I/O) name no waker and
 * are left alone, as are kernel threads and exiting tasks.
 *
 * The probe runs under the wakee's pi_lock, inside the scheduler, where
 * the loan lock (which nests outside pi_lock and the rq lock) cannot be
 * taken: it only notes the pair, with a reference to each task, in a small
 * per-CPU table, once per pair, and the sweeper turns the pairs into links
 * on its next pass, a tick at most later. A full table drops the wakeup
 * (wakeups_dropped); a pair that keeps waking is noted again after the
 * next pass, and a link lives for lease_ms.
 *
 * The tracepoint is found by name among the kernel's (sched_waking has no
 * exported register function) and is attached only while the economy is
 * on, so that a module loaded with the economy off costs wakeups nothing.
 */
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "economy.h"

/* Distinct waker-wakee pairs a CPU notes between two sweeps. */
#define ECONOMY_WAKE_PAIRS	32

struct economy_wake_pair {
	struct task_struct	*waker;
	struct task_struct	*wakee;
};

/**
 * struct economy_wake_table - the pairs a CPU saw since the last sweep
 * @lock: the probe (irqs off, under a pi_lock) against the sweeper
 * @nr: pairs in @pair
 * @pair: waker and wakee, a task reference each
 */
struct economy_wake_table {
	raw_spinlock_t			lock;
	int				nr;
	struct economy_wake_pair	pair[ECONOMY_WAKE_PAIRS];
};

static DEFINE_PER_CPU(struct economy_wake_table, economy_wake_tables);
static struct tracepoint *economy_waking_tp;

/*
 * Whether @t already holds the pair, read without its lock: only this
 * CPU's probe fills @t, with irqs off, and a sweep only empties it, after
 * taking the pairs it held.
 */
static bool economy_wake_noted(const struct economy_wake_table *t,
			       const struct task_struct *waker,
			       const struct task_struct *wakee)
{
	int i, nr = READ_ONCE(t->nr);

	for (i = 0; i < nr; i++)
		if (t->pair[i].waker == waker && t->pair[i].wakee == wakee)
			return true;
	return false;
}

static void economy_waking(void *data, struct task_struct *p)
{
	struct task_struct *waker = current;
	struct economy_wake_table *t;
	unsigned long flags;

	if (!in_task() || p == waker ||
	    ((waker->flags | p->flags) & (PF_KTHREAD | PF_EXITING)) ||
	    !READ_ONCE(economy_wakeups_on) || !economy_lends())
		return;
	t = this_cpu_ptr(&economy_wake_tables);
	/* Most wakeups repeat a pair: spare them the lock. */
	if (economy_wake_noted(t, waker, p))
		goto kick;
	raw_spin_lock_irqsave(&t->lock, flags);
	if (t->nr == ECONOMY_WAKE_PAIRS) {
		economy_count(ECONOMY_WAKEUPS_DROPPED, 1);
		goto unlock;
	}
	t->pair[t->nr].waker = get_task_struct(waker);
	t->pair[t->nr].wakee = get_task_struct(p);
	WRITE_ONCE(t->nr, t->nr + 1);
	economy_count(ECONOMY_WAKEUPS, 1);
unlock:
	raw_spin_unlock_irqrestore(&t->lock, flags);
kick:
	/*
	 * Also for a pair already noted: a pair added while a sweep ran
	 * found the timer active, and that sweep may have been the last.
	 */
	economy_sweeper_kick();
}

/**
 * economy_wakeups_drain - hand every noted pair to @link, and forget them
 * @link: called for each pair, waker first; NULL only drops them
 *
 * Context: any context that may take a raw spinlock and put a task
 * reference; the sweeper calls it under the loan lock.
 */
void economy_wakeups_drain(void (*link)(struct task_struct *waker,
					struct task_struct *wakee))
{
	struct economy_wake_pair pair[ECONOMY_WAKE_PAIRS];
	struct economy_wake_table *t;
	unsigned long flags;
	int cpu, i, nr;

	for_each_possible_cpu(cpu) {
		t = per_cpu_ptr(&economy_wake_tables, cpu);
		if (!READ_ONCE(t->nr))
			continue;
		raw_spin_lock_irqsave(&t->lock, flags);
		nr = t->nr;
		memcpy(pair, t->pair, nr * sizeof(*pair));
		WRITE_ONCE(t->nr, 0);
		raw_spin_unlock_irqrestore(&t->lock, flags);
		for (i = 0; i < nr; i++) {
			if (link)
				link(pair[i].waker, pair[i].wakee);
			put_task_struct(pair[i].waker);
			put_task_struct(pair[i].wakee);
		}
	}
}

static void economy_find_waking(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_waking"))
		economy_waking_tp = tp;
}

/**
 * economy_wakeups_start - attach to sched_waking
 *
 * Context: process context, under the sysctl's lock.
 * Return: 0, -ENOENT if the kernel has no sched_waking tracepoint, or the
 * error of tracepoint_probe_register().
 */
int economy_wakeups_start(void)
{
	int ret;

	if (economy_waking_tp)
		return 0;
	for_each_kernel_tracepoint(economy_find_waking, NULL);
	if (!economy_waking_tp)
		return -ENOENT;
	ret = tracepoint_probe_register(economy_waking_tp, economy_waking,
					NULL);
	if (ret)
		economy_waking_tp = NULL;
	return ret;
}

/**
 * economy_wakeups_stop - detach, wait for running probes, drop the pairs
 *
 * Context: process context, under the sysctl's lock, or at unload.
 */
void economy_wakeups_stop(void)
{
	if (!economy_waking_tp)
		return;
	tracepoint_probe_unregister(economy_waking_tp, economy_waking, NULL);
	tracepoint_synchronize_unregister();
	economy_waking_tp = NULL;
	economy_wakeups_drain(NULL);
}

/**
 * economy_wakeups_init - the per-CPU tables, before the probe is attached
 */
void economy_wakeups_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu_ptr(&economy_wake_tables,
						cpu)->lock);
}
