// SPDX-License-Identifier: GPL-2.0
/*
 * Donation: a task that sleeps waiting for another gives that task load
 * weight for as long as it sleeps.
 *
 * The kernel announces each sleep at a point where the task waits on a
 * channel (wait_begin, wait_end); relation.c names the task it waits for.
 * The active policy says how much of its own weight the sleeper gives
 * (its donation op; lend: all of it, times lend_pct); the core clamps
 * that to the sleeper's own weight and does the rest.
 *
 * The weight given is what the policy gives of the sleeper's own plus
 * what it holds from the tasks that wait for it, so chains
 * follow the relation (bash -> xterm -> Xvfb): a task that donates passes
 * on, to the task it waits for, every later change in what it holds, up
 * to ECONOMY_MAX_HOPS tasks down the chain; a task further down that
 * donates in turn takes its whole gift back there, so that no gift keeps
 * weight its donors' donors no longer give (the chain is cut, and each
 * cut ends a gift, so a change walks at most ECONOMY_MAX_HOPS tasks per
 * gift it ends). So a task holds at most the
 * weights of the tasks blocked on it, directly or through a chain, and
 * the kernel clamps its effective weight at nice -20's. A task that holds
 * less than its own weight runs at twice what it holds (the bill, see
 * economy_adjustment()): it works for lighter tasks at their weight.
 * Nothing is given to a task whose CPU runs nothing else but tasks woken
 * from a wait and still at its I/O (economy_contended()), and a wait that
 * would close a cycle (two tasks reading from each other) gives nothing.
 * A donation ends as its donor is woken (the woken hook, called by
 * try_to_wake_up() in the waker's context), so a donor waiting to run
 * again competes with its own weight only; its record keeps naming the
 * recipient, with nothing given, until it runs (wait_end), so that the
 * recipient's wait for it right after the reply that woke it is a cycle
 * (except for a PI futex waiter: a woken record waits for nobody there,
 * see economy_closes_cycle()).
 * A wait whose wakeup came before its sleep ends at wait_end.
 *
 * Between groups (cgroups with the cpu controller, autogroups) a task's
 * weight counts in its own group only; what counts between groups is the
 * weight of their entities. So a sleeper in another group than the task
 * it waits for moves, through the kernel (sched_economy_group_give()),
 * its part of its side of their lowest common ancestor to the other side,
 * and gives the recipient that part, as weight in its own cfs_rq (see
 * economy_group_give()). The sleeper's weight crosses as it runs, with
 * what it holds from its own waiters; a later gain in that is not passed
 * across, and a later loss ends the gift (economy_flow()). A sleeper in
 * a group under cpu.max gives nothing across groups. Across groups the part is the
 * kernel's whatever the policy's donation (the policy says whether, not
 * how much). kernel.sched_economy_groups 0 turns this off: weight then
 * moves inside the recipient's cfs_rq only, as if every task were in one
 * group.
 *
 * The state is the sleeper's struct sched_economy_donation (task_struct)
 * and the channels' ends (their own structs): nothing is allocated, no
 * table is kept, nothing is walked per message. Each record's lock
 * guards its task's record and the weight donated to that task, so that
 * the weight a record has passed on is exactly what its recipient got
 * from it; one lock is held at a time, and inside it the rq lock of
 * sched_economy_reweight(). Wakeups come from any context, interrupts
 * included, so the record locks are taken with interrupts off.
 */
#include <linux/sched.h>
#include <linux/sched/economy.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "economy.h"
#include "economy_policy.h"
#include "trace.h"

/* How far a change in what a task holds is passed down its chain. */
#define ECONOMY_MAX_HOPS	4

/*
 * The weight @t runs with, above its own: what it holds from its waiters,
 * less the part of its own weight that exceeds it. A server works at the
 * weight of those who wait for it and at most its own, as a proxy runs on
 * its donor's context: a thread serving a nice-10 client that waits for
 * its reply serves it at nice 10's weight, twice over, not at its own
 * nice 0 (the bill). Nobody waiting, nothing changes. Called under @t's
 * record lock.
 */
static int economy_adjustment(struct task_struct *t)
{
	struct sched_economy_donation *d = &t->economy_donation;
	int own = sched_economy_own_weight(t);
	int adj, cap;

	if (d->held <= 0)
		return 0;
	adj = d->held - max(own - d->held, 0);
	/*
	 * Across users no waiter lowers a task below its own weight: one
	 * user may renice its own tasks down, not another's.
	 */
	if (READ_ONCE(economy_cross_user))
		adj = max(adj, 0);
	/*
	 * Nor does it raise one beyond hold_max nice-0 tasks' weight (or its
	 * own, if heavier): the rest of what it holds is counted, and passed
	 * on if it waits in turn, but not run with.
	 */
	cap = max_t(int, READ_ONCE(economy_hold_max) * ECONOMY_NICE0_WEIGHT,
		    own) - own;
	return min(adj, cap);
}

/*
 * The weight books (donated = returned + the records' sum) count every
 * change of a record: its donation, its return, and what passes through
 * it down a chain.
 */
static void economy_count_gift(int delta)
{
	if (delta > 0)
		economy_count(ECONOMY_DONATED_WEIGHT, delta);
	else
		economy_count(ECONOMY_RETURNED_WEIGHT, -delta);
}

/*
 * Each of the kernel's primitives that donation calls takes one rq lock,
 * @cpu's: counted, and counted again when it is another CPU's (review F7:
 * the remote locks per donation are what SMP pays for it). @cpu is read
 * without the lock: a task that migrates meanwhile is counted where it was.
 */
static void economy_count_rq_lock(int cpu)
{
	economy_count(ECONOMY_RQ_LOCKS, 1);
	if (cpu != raw_smp_processor_id())
		economy_count(ECONOMY_RQ_LOCKS_REMOTE, 1);
}

static void economy_reweight(struct task_struct *p, int delta)
{
	economy_count_rq_lock(task_cpu(p));
	sched_economy_reweight(p, delta);
}

/*
 * Undo a gift of @p's taken out of its record. The kernel gives b back at
 * once, but @p's own groups count the load away until their next update:
 * a wakeup enqueued @p (and its groups, with their shares) before its
 * woken hook got here, and a task that runs for less than a tick is
 * never updated again before it sleeps. So its groups would stay shrunk
 * for as long as it is runnable, and whoever shares them with it (busy
 * loops beside a client's scope) would take what it no longer gives.
 * A reweight by nothing brings @p's group entities up to date.
 */
static void economy_group_take(struct task_struct *p,
			       struct sched_economy_group_gift *gift)
{
	bool home = gift->home;

	if (!gift->weight)
		return;
	economy_count(ECONOMY_GROUP_RETURNED, gift->weight);
	economy_count_rq_lock(gift->cpu);
	sched_economy_group_take(gift);
	if (home)
		economy_reweight(p, 0);
}

/*
 * Where a change of weight given across groups sits: on the entity of
 * @at on @cpu (a group gift's @to), @weight of it. A gift of a task that
 * waits for its recipient across groups in turn may carry it on
 * (sched_economy_group_carry()).
 */
struct economy_placement {
	struct task_group *at;
	int cpu;
	int weight;
};

static void economy_place(struct economy_placement *pl,
			  const struct sched_economy_group_gift *gift, int sign)
{
	pl->at = gift->to;
	pl->cpu = gift->cpu;
	pl->weight = sign * (gift->weight + gift->carried);
}

/* sched_economy_group_carry() locks @pl's CPU when @gift carries from there. */
static int economy_group_carry(struct sched_economy_group_gift *gift,
			       const struct economy_placement *pl)
{
	if (gift->weight && gift->from && gift->from == pl->at &&
	    gift->cpu == pl->cpu)
		economy_count_rq_lock(pl->cpu);
	return sched_economy_group_carry(gift, pl->at, pl->cpu, pl->weight);
}

/*
 * Give @delta of weight to @t and pass it down the chain of the tasks
 * that @t, if it sleeps donating, waits for; @pl says where the change
 * sits between groups, if it came with a group gift (NULL otherwise). At
 * each task, under its record's lock: what it holds changes, its weight
 * follows, and if it donates, its record grows by what the next task
 * down will get. Changes commute, so a take-back racing with a give
 * leaves every task with what its donors hold out; a task's weight is
 * set from what it holds, so a renice meanwhile leaves nothing behind.
 *
 * A chain is cut where a change stops: at the hop limit, a gift would
 * keep weight its donor's donors took back (or never gave). A gift
 * across groups was made of what @t weighed as it slept, with what it
 * held: a loss of that, and it would keep weight that no waiter gives,
 * unless it is weight that the gift carries (a group gift placed on the
 * entity @t ran alone in), which goes back the way it came; a gain is
 * carried if it sits on that entity, and not passed otherwise (the part
 * is the kernel's).
 */
static void economy_flow(struct task_struct *t, int delta,
			 const struct economy_placement *placement)
{
	struct economy_placement pl = { NULL, 0, 0 };
	struct sched_economy_group_gift gift;
	unsigned long flags;
	int hops;

	if (placement && placement->at)
		pl = *placement;
	get_task_struct(t);
	for (hops = 0; t; hops++) {
		struct sched_economy_donation *d = &t->economy_donation;
		struct task_struct *next = NULL;
		bool cut = false;
		int change, moved = 0;

		gift.weight = 0;
		raw_spin_lock_irqsave(&d->lock, flags);
		d->held += delta;
		change = economy_adjustment(t) - t->se.economy_weight;
		if (change)
			economy_reweight(t, change);
		if (d->to && !d->woken && d->weight > 0) {
			if (hops + 1 >= ECONOMY_MAX_HOPS)
				cut = true;
			else if (d->group.weight && pl.at)
				moved = economy_group_carry(&d->group, &pl);
			if (!moved && d->group.weight && delta < 0)
				cut = true;
			if (cut || moved || !d->group.weight) {
				next = d->to;
				get_task_struct(next);
			}
		}
		if (next && cut) {
			/* The gift goes whole; a record at 0 passes nothing on. */
			gift = d->group;
			memset(&d->group, 0, sizeof(d->group));
			delta = -d->weight;
			d->weight = 0;
			economy_count_gift(delta);
			hops = -1;
			economy_count(ECONOMY_CHAIN_CUTS, 1);
			pl.at = NULL;
			if (gift.weight)
				economy_place(&pl, &gift, -1);
		} else if (next && moved) {
			/* Carried: it sits on the next group entity down. */
			d->weight += moved;
			economy_count_gift(moved);
			if (moved > 0)
				economy_count(ECONOMY_GROUP_CARRIED, moved);
			delta = moved;
			pl.at = d->group.to;
			pl.cpu = d->group.cpu;
			pl.weight = moved;
		} else if (next) {
			/* In one group: any placement stays where it was. */
			d->weight += delta;
			economy_count_gift(delta);
		}
		raw_spin_unlock_irqrestore(&d->lock, flags);
		economy_group_take(t, &gift);
		put_task_struct(t);
		t = next;
	}
}

/*
 * Whether the chain of donations from @to leads back to current: then the
 * wait closes a cycle (two tasks reading from each other, a ping-pong),
 * and what current gave would come back to it through the tasks it waits
 * for, growing at every turn. Such a wait donates nothing. One record
 * lock at a time; a cycle closed by two CPUs at once is bounded by
 * ECONOMY_MAX_HOPS and ends with its first wakeup.
 *
 * A woken link gives nothing and names its recipient only so that a
 * server's wait for the next request, right after the reply that woke its
 * client, is not taken for a wait for that client. A @lock waiter knows
 * better: a woken task in the chain left its wait (for a PI futex's
 * owner, it was handed the lock) and waits for nobody until it sleeps
 * again, so the chain ends there. Two tasks
 * taking turns at a PI futex give to each other in turn, each while it
 * waits, as two threads at a kernel mutex would under proxy execution.
 */
static bool economy_closes_cycle(struct task_struct *to, bool lock)
{
	struct task_struct *t = to, *next;
	unsigned long flags;
	int hops;

	if (!READ_ONCE(to->economy_donation.to))
		return false;
	get_task_struct(t);
	for (hops = 0; hops < ECONOMY_MAX_HOPS; hops++) {
		raw_spin_lock_irqsave(&t->economy_donation.lock, flags);
		next = t->economy_donation.to;
		if (lock && t->economy_donation.woken)
			next = NULL;
		if (next)
			get_task_struct(next);
		raw_spin_unlock_irqrestore(&t->economy_donation.lock, flags);
		put_task_struct(t);
		if (!next)
			return false;
		if (next == current) {
			put_task_struct(next);
			return true;
		}
		t = next;
	}
	put_task_struct(t);
	return false;
}

/*
 * Between groups, what counts is the groups' entities: the kernel moves
 * current's part of its side of their common ancestor to @to's side
 * (sched_economy_group_give()), and that part, not current's weight in
 * its own cfs_rq, is what @to gets, converted by the kernel into weight
 * in @to's cfs_rq that is worth the part at the common ancestor: a task
 * among many in its group gives what it stands for there, tasks waiting
 * from groups of different cpu.weight give in proportion to them, and
 * inside @to's group the part goes to @to, not to its siblings. Under
 * current's record lock, so that the gift is in the record before a
 * wakeup can take it back.
 *
 * Return: what @to gets, current's part at the common ancestor as weight
 * in @to's cfs_rq; 0 if @to is in current's group;
 * < 0 if current may give nothing (its group has a cpu.max, has given all
 * of its shares, or is going away).
 */
static int economy_group_give(struct task_struct *to,
			      struct sched_economy_group_gift *gift)
{
	int ret;

	if (!READ_ONCE(economy_groups))
		return 0;
	/*
	 * One group: nothing to move, and the kernel would take @to's rq
	 * lock only to find so. The read is racy, and so would the kernel's
	 * answer be by the time the weight flows: @to may change groups
	 * then as well as now, and takes what it holds with it either way.
	 * Without CONFIG_SMP the kernel refuses every group gift: there a
	 * donation in one group now goes ahead, where the refusal came
	 * before the kernel looked at the groups and stopped it too.
	 */
	if (economy_same_task_group(to, current))
		return 0;
	if (IS_ENABLED(CONFIG_SMP))
		economy_count_rq_lock(task_cpu(to));
	ret = sched_economy_group_give(to, gift);
	if (ret == -EDQUOT)
		economy_count(ECONOMY_GROUP_LIMITED, 1);
	if (ret <= 0)
		return ret;
	economy_count(ECONOMY_GROUP_GIFTS, 1);
	economy_count(ECONOMY_GROUP_WEIGHT, gift->weight);
	economy_count(ECONOMY_GROUP_CARRIED, gift->carried);
	return ret;
}

/*
 * Current, about to sleep waiting for @to, gives it @own of its weight.
 * The reference to @to is the caller's and goes with the call.
 */
static void economy_donate(struct task_struct *to, int own, bool cross,
			   bool lock)
{
	struct sched_economy_donation *d = &current->economy_donation;
	struct economy_placement pl;
	unsigned long flags;
	int weight, part;

	if (economy_closes_cycle(to, lock)) {
		economy_count(ECONOMY_DONATE_CYCLE, 1);
		put_task_struct(to);
		return;
	}
	raw_spin_lock_irqsave(&d->lock, flags);
	/* What the tasks waiting for current gave it goes on with it. */
	weight = own + max(d->held, 0);
	part = 0;
	if (!d->to && weight > 0) {
		/*
		 * Whether the weight stays in one cfs_rq hierarchy level, as
		 * without groups: a hint, sched_economy_group_give() decides
		 * under the rq lock.
		 */
		if (!cross && READ_ONCE(economy_groups) &&
		    !economy_same_task_group(to, current)) {
			economy_count(ECONOMY_GROUP_REFUSED_DATA, 1);
			part = -EXDEV;
		} else {
			part = economy_group_give(to, &d->group);
		}
	}
	if (d->to || weight <= 0 || part < 0) {
		raw_spin_unlock_irqrestore(&d->lock, flags);
		put_task_struct(to);
		return;
	}
	if (part)
		weight = part;
	/*
	 * The record has the reference economy_wait_give() took; this one
	 * covers the flow, which a take-back of the record by a policy
	 * switch may overtake.
	 */
	get_task_struct(to);
	WRITE_ONCE(d->to, to);
	d->weight = weight;
	WRITE_ONCE(d->woken, false);
	economy_place(&pl, &d->group, 1);
	raw_spin_unlock_irqrestore(&d->lock, flags);

	economy_flow(to, weight, &pl);
	economy_count(ECONOMY_DONATIONS, 1);
	economy_count(ECONOMY_DONATED_WEIGHT, weight);
	trace_economy_donate(current->pid, to->pid, weight);
	put_task_struct(to);
}

/*
 * Before the kernel takes @gift back from @to's side: a gift further down
 * that carried it gives it back first, so that no entity is left below
 * what it was given.
 */
static void economy_return(struct task_struct *p, struct task_struct *to,
			   int weight,
			   const struct sched_economy_group_gift *gift)
{
	struct economy_placement pl;

	if (!weight)
		return;
	economy_place(&pl, gift, -1);
	economy_flow(to, -weight, &pl);
	economy_count(ECONOMY_RETURNED_WEIGHT, weight);
	trace_economy_take_back(p->pid, to->pid, weight);
}

/**
 * economy_take_back - end @p's donation, if it has one
 * @p: the donor; current, or any task while the hooks are out
 */
static void economy_take_back(struct task_struct *p)
{
	struct sched_economy_donation *d = &p->economy_donation;
	struct sched_economy_group_gift gift;
	struct task_struct *to;
	unsigned long flags;
	bool woken;
	int weight;

	raw_spin_lock_irqsave(&d->lock, flags);
	to = d->to;
	weight = d->weight;
	woken = d->woken;
	gift = d->group;
	memset(&d->group, 0, sizeof(d->group));
	WRITE_ONCE(d->to, NULL);
	d->weight = 0;
	WRITE_ONCE(d->woken, false);
	raw_spin_unlock_irqrestore(&d->lock, flags);
	if (to && !woken)
		economy_return(p, to, weight, &gift);
	economy_group_take(p, &gift);
	if (to)
		put_task_struct(to);
}

/**
 * economy_give_back - @p was woken: its weight comes back, its link stays
 * @p: the donor
 *
 * The record keeps naming the recipient, marked woken, until @p runs
 * (wait_end) or sleeps again: so the recipient's next wait for @p, the
 * reply that woke it followed by a wait for the next request, is seen as
 * the cycle it is (economy_closes_cycle()) and gives nothing back; a lock
 * waiter's walk ends at a woken record instead.
 */
static void economy_give_back(struct task_struct *p)
{
	struct sched_economy_donation *d = &p->economy_donation;
	struct sched_economy_group_gift gift;
	struct task_struct *to;
	unsigned long flags;
	int weight;

	raw_spin_lock_irqsave(&d->lock, flags);
	to = d->to;
	weight = d->weight;
	if (!to || d->woken) {
		raw_spin_unlock_irqrestore(&d->lock, flags);
		return;
	}
	d->weight = 0;
	WRITE_ONCE(d->woken, true);
	gift = d->group;
	memset(&d->group, 0, sizeof(d->group));
	get_task_struct(to);
	raw_spin_unlock_irqrestore(&d->lock, flags);
	economy_return(p, to, weight, &gift);
	economy_group_take(p, &gift);
	put_task_struct(to);
}

/*
 * The economy stops and every donation was taken back: @p holds nothing
 * and weighs its own, whatever a lost take-back would have left behind,
 * so that nothing carries over to the next load.
 */
static void economy_settle(struct task_struct *p)
{
	struct sched_economy_donation *d = &p->economy_donation;
	unsigned long flags;

	raw_spin_lock_irqsave(&d->lock, flags);
	d->held = 0;
	if (p->se.economy_weight)
		economy_reweight(p, -p->se.economy_weight);
	raw_spin_unlock_irqrestore(&d->lock, flags);
}

/* The newer blocking points, counted as they name a task. */
static void economy_count_named(int type)
{
	if (type == SCHED_ECONOMY_EPOLL)
		economy_count(ECONOMY_NAMED_EPOLL, 1);
	else if (type == SCHED_ECONOMY_EVENTFD)
		economy_count(ECONOMY_NAMED_EVENTFD, 1);
	else if (type == SCHED_ECONOMY_TASK)
		economy_count(ECONOMY_NAMED_LOCK, 1);
}

/*
 * Current, about to sleep on @chan, may give: to whom it waits for, what
 * the policy says. On one CPU, the kernel does not report a sleep whose
 * weight would count for no task there (sched_economy_contenders()).
 */
static void economy_wait_give(int type, const void *chan, int wait)
{
	struct economy_policy_ops *ops;
	struct economy_wait w = {
		.chan	= chan,
		.type	= type,
		.wait	= wait,
	};
	bool cross;
	int own;

	/* A switch of policy waits for this section before it settles. */
	rcu_read_lock();
	ops = economy_ops();
	if (!ops || !ops->donation)
		goto unlock;
	w.to = economy_target(type, chan, wait, &cross);
	if (!w.to) {
		economy_count(ECONOMY_DONATE_NO_TARGET, 1);
		goto unlock;
	}
	economy_count_named(type);
	/*
	 * Asked first, as it answers for most sleeps on SMP, where the
	 * kernel reports every one: the policy is an indirect call.
	 */
	if (!economy_contended(w.to)) {
		economy_count(ECONOMY_DONATE_UNCONTENDED, 1);
		goto unlock;
	}
	w.own = sched_economy_own_weight(current);
	/* The policy says how much; never more than the sleeper's own. */
	own = clamp(ops->donation(&w), 0, w.own);
	if (!own) {
		economy_count(ECONOMY_DONATE_DECLINED, 1);
		goto unlock;
	}
	/*
	 * The record's reference, taken for a donation only. @w.to was seen
	 * without PF_EXITING in this section: its own reference outlives it
	 * (relation.c, economy_end_task()).
	 */
	economy_donate(get_task_struct(w.to), own, cross,
		       type == SCHED_ECONOMY_TASK);
unlock:
	rcu_read_unlock();
}

/**
 * economy_wait_begin - the wait_begin hook: donate to whom current waits for
 * @type: enum sched_economy_chan
 * @chan: the channel
 * @wait: enum sched_economy_wait
 */
void economy_wait_begin(int type, const void *chan, int wait)
{
	struct sched_economy_donation *d = &current->economy_donation;

	if (!READ_ONCE(economy_enabled) || !economy_fair_policy(current))
		return;
	/*
	 * A wait that sleeps again announces it again (a pipe's): still
	 * giving, nothing changes; woken and given back, the link goes.
	 */
	if (READ_ONCE(d->to)) {
		if (!READ_ONCE(d->woken))
			return;
		economy_take_back(current);
	}
	economy_wait_give(type, chan, wait);
}

/**
 * economy_wait_end - the wait_end hook: current runs again, with its weight
 *
 * Its wakeup ended the donation, unless the wakeup came before the sleep.
 */
void economy_wait_end(void)
{
	if (READ_ONCE(current->economy_donation.to))
		economy_take_back(current);
}

/**
 * economy_woken - the woken hook: @p, a donor, was woken and takes back
 * @p: the donor
 *
 * @p may already run again, and even sleep on a later wait, before its
 * waker gets here: that wait then loses its donation, never gains one.
 */
void economy_woken(struct task_struct *p)
{
	economy_give_back(p);
}

/**
 * economy_donations_end_all - every sleeper takes its weight back
 * @settle: set every task's books to nothing after: only with the hooks
 *	out, as no take-back can then land after the settling
 *
 * For when the hooks are out or the policy no longer lends: a task asleep
 * since then will not report its wakeup. With the hooks in (a switch to
 * a policy that gives nothing), take-backs running meanwhile commute with
 * these, and the books stay exact without settling.
 *
 * Context: process context.
 */
void economy_donations_end_all(bool settle)
{
	struct task_struct *g, *p;

	rcu_read_lock();
	for_each_process_thread(g, p)
		if (READ_ONCE(p->economy_donation.to))
			economy_take_back(p);
	if (!settle)
		goto out;
	/* Nobody holds anything now: no weight is left changed. */
	for_each_process_thread(g, p)
		if (READ_ONCE(p->se.economy_weight) ||
		    READ_ONCE(p->economy_donation.held))
			economy_settle(p);
out:
	rcu_read_unlock();
}
