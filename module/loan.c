// SPDX-License-Identifier: GPL-2.0
/*
 * Loans: the weight of a task that waits goes to the peers it waits for.
 *
 * The currency of the default policy, "lend". Lag, the currency of the
 * 2007 prototype, fails twice on EEVDF: a client that ran until it blocked
 * has none to pay with, and lag is relative to one runqueue, so lag moved
 * between CPUs is made from nothing. Load weight is a rate that every task
 * has, and a unit of it is worth on another CPU what it was worth at home.
 *
 * Two tasks are peers while data flows between them: one wrote to a
 * channel (an AF_UNIX socket, a pipe, a pty) that the other read from,
 * within the last lease_ms. A task that sleeps while it has peers that are
 * runnable is waiting for them, as far as anyone can tell: a client for
 * its server's reply, a server for its clients' requests, a writer for
 * room in a full pipe. Its weight then goes to those peers, split evenly,
 * and comes back as soon as it runs again. So a coalition of tasks that
 * work for each other is served as if all its members were runnable, and
 * never more: the weight it uses is its own, of members that cannot use it
 * themselves. Lending a sleeper's weight to a peer on another CPU gives
 * that CPU's other tasks exactly the competition that the sleeper would
 * have given them had it run there.
 *
 * A sweeper (an hrtimer in softirq) looks at every task with peers once a
 * tick; a task seen doing I/O is running, and takes its weight back at
 * once. (Every millisecond was tried: no better on real X, and on two
 * vCPUs its lock traffic halved the X-like server's request rate.) The lender's own
 * weight is left alone while it sleeps, where nobody counts it anyway: a
 * task woken with its weight gone would be placed with a deadline hundreds
 * of slices away. Until its loan is called back a woken lender counts
 * twice, so the CPU time it ran meanwhile is taken from its lag when the
 * loan ends: a lender that runs before its weight is back pays for it.
 *
 * The books: lent = returned + held, where held is the weight out on loan
 * now, the sum of the peers' economy_weight. Pipes and ttys also carry lag
 * in an account per channel, booked as the sockets' are (account.c): paid
 * = withdrawn + expired + outstanding.
 *
 * Lock order: economy_loan_lock -> pi_lock -> rq lock (inside
 * sched_economy_reweight() and sched_lag_transfer()). The sweeper runs in
 * softirq, everything else in process context: the lock is taken with
 * bottom halves off.
 */
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/economy.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>

#include "arith.h"
#include "economy.h"
#include "trace.h"

/* The kernel clamps an effective weight to at least this (WEIGHT_IDLEPRIO). */
#define ECONOMY_WEIGHT_MIN	3
/* A bill covers this much of the server's CPU time after a read. */
#define ECONOMY_BILL_NS		(10 * NSEC_PER_MSEC)
/* A sleeper lends to at most this many peers at once. */
#define ECONOMY_MAX_BORROWERS	8

/**
 * struct economy_party - a task with peers
 * @node: in economy_parties, hashed by @task
 * @all: on economy_party_list
 * @ends: its ends of links (struct economy_end.node)
 * @nr_ends: how many
 * @task: the task (reference held)
 * @refs: links, channels and lenders that name this party
 * @to: the parties it lends to now (a reference each)
 * @nr_to: how many
 * @share: the weight each of @to holds from it
 * @lent: weight lent now, the sum of @share
 * @held: the weight it holds now, from the parties that lend to it
 * @lent_at: @task's sum_exec_runtime when it lent
 * @billed: weight taken from @task while it serves a lighter client
 * @billed_at: @task's sum_exec_runtime at the read that renewed the bill
 * @lent_total: weight-loans made so far, for the ledger
 * @held_total: weight-loans received so far, for the ledger
 */
struct economy_party {
	struct hlist_node	node;
	struct list_head	all;
	struct list_head	ends;
	int			nr_ends;
	struct task_struct	*task;
	int			refs;
	struct economy_party	*to[ECONOMY_MAX_BORROWERS];
	int			nr_to;
	int			share[ECONOMY_MAX_BORROWERS];
	int			lent;
	int			held;
	int			billed;
	u64			billed_at;
	u64			lent_at;
	u64			lent_total;
	u64			held_total;
};

/**
 * struct economy_end - one direction of a link
 * @node: in @self's ends
 * @self: the party that lends through this end
 * @peer: the party at the other end
 * @link: the link this end belongs to
 * @io_at: jiffies of @self's last read or write through the link, 0 if none
 */
struct economy_end {
	struct list_head	node;
	struct economy_link	*link;
	struct economy_party	*self;
	struct economy_party	*peer;
	unsigned long		io_at;
};

/**
 * struct economy_link - two peers
 * @lru: on economy_links, least recently renewed first
 * @node: in economy_link_hash, hashed by the pair
 * @end: the two directions; end[0].self wrote first (the client)
 * @renewed: jiffies of the last data that flowed between them
 * @data: data flowed through a channel between them
 * @woke: how many sweeps saw end[i].self wake the other (wakeup.c), up to 2
 */
struct economy_link {
	struct list_head	lru;
	struct hlist_node	node;
	struct economy_end	end[2];
	unsigned long		renewed;
	bool			data;
	u8			woke[2];
};

/*
 * Whether @end->self, asleep, may lend to @end->peer. Data makes peers
 * both ways; wakeups only make the wakee wait for the waker, and only
 * when they recur (seen by two sweeps): a client woken whenever its server
 * made room waits for that server, but neither a parent that woke its
 * children once, to start them, and then sleeps waits for them, nor do
 * the tasks that the last one to reach a start barrier woke wait for it.
 */
static bool economy_end_lends(const struct economy_end *end)
{
	const struct economy_link *link = end->link;

	return link->data || link->woke[link->end[0].self == end->peer ? 0 : 1] >= 2;
}

/* A link that no sleeper may lend over yet: one wakeup, waiting for more. */
static bool economy_link_pending(const struct economy_link *link)
{
	return !link->data && max(link->woke[0], link->woke[1]) < 2;
}

/**
 * struct economy_chan - who wrote to a channel last
 * @lru: on economy_chans, least recently renewed first
 * @node: in economy_chan_hash, hashed by @chan
 * @chan: the socket, pipe or tty: an identity, never dereferenced
 * @writer: the party that wrote last
 * @link: the link of @writer with the last reader, if any
 * @renewed: jiffies of that write, or of a later read of what it wrote
 * @written: jiffies of that write
 * @cpu: the CPU @balance was paid on (of the last write while empty)
 * @balance: lag paid in on @cpu, not yet withdrawn (pipes, ttys); a write
 *	from another CPU pays nothing while there is any
 * @price: what a write pays, steered by who waits for whom
 */
struct economy_chan {
	struct list_head	lru;
	struct hlist_node	node;
	const void		*chan;
	struct economy_party	*writer;
	struct economy_link	*link;
	unsigned long		renewed;
	unsigned long		written;
	int			cpu;
	s64			balance;
	s64			price;
};

static DEFINE_SPINLOCK(economy_loan_lock);
static DEFINE_HASHTABLE(economy_parties, 8);
static LIST_HEAD(economy_party_list);
static DEFINE_HASHTABLE(economy_link_hash, 8);
static LIST_HEAD(economy_links);
static DEFINE_HASHTABLE(economy_chan_hash, 8);
static LIST_HEAD(economy_chans);
static bool economy_loans_closed;
/* The ledger of the parties forgotten so far, so that it sums to the books. */
static u64 economy_departed_lent, economy_departed_held;

/*
 * Most I/O repeats what the same task did on the same channel a moment
 * ago, and a repeat within the same tick changes nothing in the books:
 * the renewals carry the same jiffies, the writer and the link are the
 * same. A small per-CPU table remembers such I/O, valid while the tick
 * and economy_books_gen are unchanged; economy_books_changed() bumps
 * the generation under the loan lock wherever a repeat would no longer
 * be a no-op (a loan made or called back, a party, link or channel
 * made or freed, a channel's writer, reader or CPU changed). A bill is
 * then renewed once a tick, not at every read. Only a task with a party
 * is remembered, and its party holds a reference to it: its address is
 * not reused before economy_party_free() bumps the generation.
 */
struct economy_io_memo {
	const struct task_struct	*task;
	const void			*chan;
	unsigned long			tick;
	unsigned long			gen;
	bool				wrote;
};

#define ECONOMY_MEMO_BITS	6
static DEFINE_PER_CPU(struct economy_io_memo,
		      economy_io_memos[1 << ECONOMY_MEMO_BITS]);
static unsigned long economy_books_gen;

static void economy_books_changed(void)
{
	WRITE_ONCE(economy_books_gen, economy_books_gen + 1);
}

static struct economy_io_memo *economy_io_memo(const void *chan, bool wrote)
{
	unsigned long key = (unsigned long)current ^ (unsigned long)chan;

	key = hash_long(key ^ wrote, ECONOMY_MEMO_BITS);
	return this_cpu_ptr(&economy_io_memos[key]);
}

/* Whether current's I/O on @chan repeats one that changed nothing. */
static bool economy_io_repeats(const void *chan, bool wrote)
{
	unsigned long tick = jiffies;
	struct economy_io_memo *m;
	bool hit;

	preempt_disable();
	m = economy_io_memo(chan, wrote);
	hit = m->task == current && m->chan == chan && m->wrote == wrote &&
	      m->tick == tick && m->gen == READ_ONCE(economy_books_gen);
	preempt_enable();
	return hit;
}

static void economy_io_remember(const void *chan, bool wrote)
{
	struct economy_io_memo *m = economy_io_memo(chan, wrote);

	lockdep_assert_held(&economy_loan_lock);
	m->task = current;
	m->chan = chan;
	m->wrote = wrote;
	m->tick = jiffies;
	m->gen = economy_books_gen;
}

/* How often the sweeper looks (a tick): sleeps shorter than that lend nothing. */
#define ECONOMY_SAMPLE_NS	TICK_NSEC
static struct hrtimer economy_sweeper;

static void economy_sweeper_arm(void)
{
	if (!hrtimer_active(&economy_sweeper))
		hrtimer_start(&economy_sweeper, ns_to_ktime(ECONOMY_SAMPLE_NS),
			      HRTIMER_MODE_REL_SOFT);
}

/**
 * economy_sweeper_kick - make sure a sweep comes, for wakeups noted
 *
 * Context: any; wakeup.c calls it from inside try_to_wake_up().
 */
void economy_sweeper_kick(void)
{
	if (!READ_ONCE(economy_loans_closed))
		economy_sweeper_arm();
}

static unsigned long economy_lease(void)
{
	return max(msecs_to_jiffies(READ_ONCE(economy_lease_ms)), 1UL);
}

static bool economy_expired(unsigned long renewed)
{
	return time_after_eq(jiffies, renewed + economy_lease());
}

/*
 * An exiting task keeps what it has: its load leaves its runqueue at
 * exit, and a reweight after that would put it back in the averages.
 */
static void economy_reweight(struct task_struct *p, int delta)
{
	if (!(READ_ONCE(p->flags) & PF_EXITING))
		sched_economy_reweight(p, delta);
}

/* ------------------------------------------------------------ parties */

static struct economy_party *economy_party_find(struct task_struct *p)
{
	struct economy_party *party;

	hash_for_each_possible(economy_parties, party, node, (unsigned long)p)
		if (party->task == p)
			return party;
	return NULL;
}

static struct economy_party *economy_party_get(struct task_struct *p)
{
	struct economy_party *party = economy_party_find(p);

	if (party)
		return party;
	party = kzalloc(sizeof(*party), GFP_NOWAIT | __GFP_NOWARN);
	if (!party)
		return NULL;
	party->task = get_task_struct(p);
	INIT_LIST_HEAD(&party->ends);
	hash_add(economy_parties, &party->node, (unsigned long)p);
	list_add_tail(&party->all, &economy_party_list);
	economy_count(ECONOMY_PARTIES, 1);
	economy_books_changed();
	return party;
}

static void economy_party_put(struct economy_party *party)
{
	party->refs--;
}

/*
 * Own weight: what its nice level gives it, without what it holds; in the
 * units of the nice table (nice 0 is 1024), as the kernel's
 * scale_load_down() would give it.
 */
static int economy_own_weight(struct task_struct *p)
{
	unsigned long w = READ_ONCE(p->se.load.weight);

	if (IS_ENABLED(CONFIG_64BIT))
		w >>= SCHED_FIXEDPOINT_SHIFT;
	return w - READ_ONCE(p->economy_weight);
}

/* @party's holdings change by @delta, and with them its weight. */
static void economy_hold(struct economy_party *party, int delta)
{
	party->held += delta;
	economy_reweight(party->task, delta);
}

/*
 * @party serves @client alone, whose request it just read: it runs at its
 * own weight or at the client's, whichever is lower, so that a server
 * thread works for a nice 10 client as that client would have worked
 * itself (resource containers, QNX's adaptive partitions: the server's
 * time is billed to the client it serves). Only ever weight taken away,
 * never added: a nice -10 client does not make its server a nice -10
 * task. A server of several clients (X, D-Bus) is never billed: billed to
 * a light client it would make the others wait behind that client's work
 * (priority inversion), and it is served by their loans anyway. Only a
 * client of the server's own user bills it, as only that user may lower
 * the server's priority (sched_setattr(2)'s rule): another user's nice 19
 * message cannot slow a reader down. A bill lasts while requests keep
 * coming, renewed by each read; the sweeper ends it once the server has
 * run ECONOMY_BILL_NS since the last read, or is seen asleep.
 * @client NULL: the bill ends.
 */
static void economy_bill(struct economy_party *party,
			 struct economy_party *client)
{
	int cut = 0;

	if (client && READ_ONCE(economy_bill_on) &&
	    economy_fair_policy(party->task) &&
	    uid_eq(task_euid(party->task), task_euid(client->task)))
		cut = max(economy_own_weight(party->task) -
			  economy_own_weight(client->task), 0);
	party->billed_at = READ_ONCE(party->task->se.sum_exec_runtime);
	if (cut == party->billed)
		return;
	economy_reweight(party->task, party->billed - cut);
	economy_count(ECONOMY_BILLED, cut - party->billed);
	economy_count(ECONOMY_BILLS, 1);
	party->billed = cut;
}

/*
 * What the lender ran while its weight was lent, it counted twice: it pays
 * that back from its lag, to its runqueue-mates. A lender that went back
 * to sleep in between (not queued) cannot pay; that is counted.
 */
static void economy_repay_overlap(struct economy_party *party)
{
	s64 ran = READ_ONCE(party->task->se.sum_exec_runtime) - party->lent_at;
	s64 applied = 0;

	if (ran <= 0)
		return;
	if (!(READ_ONCE(party->task->flags) & PF_EXITING))
		sched_lag_transfer(party->task, -ran, 0, NULL, &applied);
	economy_count(ECONOMY_LOAN_OVERLAP_NS, ran);
	economy_count(ECONOMY_LOAN_REPAID_NS, -applied);
}

/* Every loan of @party ends: the weight comes home. */
static void economy_take_back(struct economy_party *party)
{
	int i;

	lockdep_assert_held(&economy_loan_lock);
	if (!party->nr_to)
		return;
	for (i = 0; i < party->nr_to; i++) {
		economy_hold(party->to[i], -party->share[i]);
		economy_party_put(party->to[i]);
	}
	party->nr_to = 0;
	economy_books_changed();
	economy_repay_overlap(party);
	trace_economy_loan_end(party->task->pid, party->lent);
	economy_count(ECONOMY_LOAN_RETURNED, party->lent);
	economy_count(ECONOMY_LOAN_HELD, -party->lent);
	party->lent = 0;
}

/*
 * Runnable: queued, and not a sleeper that DELAY_DEQUEUE keeps queued
 * until its negative lag is served.
 */
static bool economy_runnable(struct task_struct *p)
{
	return READ_ONCE(p->on_rq) && !READ_ONCE(p->se.sched_delayed) &&
	       !(READ_ONCE(p->flags) & PF_EXITING);
}

/*
 * A task asleep that read or wrote through a link lately may be waiting
 * for the other end: a writer blocked on a full pty or pipe writes nothing
 * while its reader drains it, and an xterm behind busy loops reads its pty
 * once every second or two. Such a link, and the channel of such a write,
 * outlive their lease while that task sleeps, up to ECONOMY_WAIT_LEASES
 * leases after its I/O: long enough for a starved reader, not so long that
 * an idle client lends to its server for good. (Its last I/O alone would
 * not do: a filter, tr or an xterm, blocks writing what it read.)
 */
#define ECONOMY_WAIT_LEASES	8

static bool economy_still_waits(struct economy_party *party,
				unsigned long io_at)
{
	return party && io_at && !economy_runnable(party->task) &&
	       time_before(jiffies, io_at +
			   ECONOMY_WAIT_LEASES * economy_lease());
}

/* @party's end of @link. */
static struct economy_end *economy_end_of(struct economy_link *link,
					  struct economy_party *party)
{
	return &link->end[link->end[0].self == party ? 0 : 1];
}

/* Adds @p to the @nr borrowers in @to, once; false when full. */
static bool economy_add_borrower(struct economy_party **to, int *nr,
				 struct economy_party *p)
{
	int i;

	for (i = 0; i < *nr; i++)
		if (to[i] == p)
			return true;
	if (*nr == ECONOMY_MAX_BORROWERS)
		return false;
	to[(*nr)++] = p;
	return true;
}

/*
 * Whom a sleeping @party waits for: its runnable peers; if none is
 * runnable, the runnable peers of its peers (a chain: a writer blocked on
 * a pty whose reader is blocked on the X server lends to the X server).
 */
static int economy_borrowers(struct economy_party *party,
			     struct economy_party **to)
{
	struct economy_end *end, *far;
	int nr = 0;

	list_for_each_entry(end, &party->ends, node)
		if (economy_end_lends(end) &&
		    economy_runnable(end->peer->task) &&
		    !economy_add_borrower(to, &nr, end->peer))
			return nr;
	if (nr)
		return nr;
	list_for_each_entry(end, &party->ends, node) {
		if (!economy_end_lends(end))
			continue;
		list_for_each_entry(far, &end->peer->ends, node)
			if (far->peer != party &&
			    economy_end_lends(far) &&
			    economy_runnable(far->peer->task) &&
			    !economy_add_borrower(to, &nr, far->peer))
				return nr;
	}
	return nr;
}

/*
 * Whether each of @to is alone on its runqueue, where weight buys nothing
 * (a ping-pong on one CPU): a sweep a tick later lends if company came.
 */
static bool economy_all_alone(struct economy_party **to, int nr)
{
	s64 applied;
	int i;

	for (i = 0; i < nr; i++)
		if (sched_lag_transfer(to[i]->task, 0, 0, NULL, &applied) !=
		    -ENOENT)
			return false;
	return true;
}

/*
 * @party sleeps: its weight goes to those it waits for, evenly, but no
 * borrower gets more from one lender than its own weight: a nice 19
 * client of a nice 0 server, or a SCHED_IDLE one, can at most double what
 * it has through the server's idle time, and the borrower of a nice -10
 * lender is not made a nice -10 task. Nothing changes while the same ones
 * already have it.
 */
static void economy_lend_out(struct economy_party *party)
{
	struct economy_party *to[ECONOMY_MAX_BORROWERS];
	int i, nr, own, share;

	lockdep_assert_held(&economy_loan_lock);
	nr = economy_borrowers(party, to);
	if (nr && nr == party->nr_to &&
	    !memcmp(to, party->to, nr * sizeof(*to)))
		return;
	economy_take_back(party);
	if (!nr || !economy_fair_policy(party->task) ||
	    economy_all_alone(to, nr))
		return;
	own = economy_own_weight(party->task);
	own = min(own * (int)READ_ONCE(economy_lend_pct) / 100,
		  own - ECONOMY_WEIGHT_MIN);
	share = own / nr;
	if (share <= 0)
		return;
	party->lent = 0;
	for (i = 0; i < nr; i++) {
		party->to[i] = to[i];
		party->share[i] = min(share, economy_own_weight(to[i]->task));
		party->lent += party->share[i];
		to[i]->refs++;
		to[i]->held_total += party->share[i];
		economy_hold(to[i], party->share[i]);
	}
	party->nr_to = nr;
	economy_books_changed();
	party->lent_at = READ_ONCE(party->task->se.sum_exec_runtime);
	party->lent_total += party->lent;
	trace_economy_lend(party->task->pid, nr, party->lent);
	economy_count(ECONOMY_LOANS, 1);
	economy_count(ECONOMY_LOAN_LENT, party->lent);
	economy_count(ECONOMY_LOAN_HELD, party->lent);
}

/* ------------------------------------------------------------ links */

static void economy_link_renew(struct economy_link *link)
{
	link->renewed = jiffies;
	list_move_tail(&link->lru, &economy_links);
}

/* A link going away is forgotten by the channels that named it. */
static void economy_chans_forget(struct economy_link *link)
{
	struct economy_chan *c;

	list_for_each_entry(c, &economy_chans, lru)
		if (c->link == link)
			c->link = NULL;
}

static unsigned long economy_pair_key(struct economy_party *a,
				      struct economy_party *b)
{
	return (unsigned long)a ^ (unsigned long)b;
}

static struct economy_link *economy_link_get(struct economy_party *a,
					     struct economy_party *b)
{
	struct economy_link *link;
	int i;

	hash_for_each_possible(economy_link_hash, link, node,
			       economy_pair_key(a, b))
		if ((link->end[0].self == a && link->end[0].peer == b) ||
		    (link->end[0].self == b && link->end[0].peer == a))
			return link;
	link = kzalloc(sizeof(*link), GFP_NOWAIT | __GFP_NOWARN);
	if (!link)
		return NULL;
	for (i = 0; i < 2; i++) {
		link->end[i].link = link;
		link->end[i].self = i ? b : a;
		link->end[i].peer = i ? a : b;
		link->end[i].self->refs++;
		link->end[i].self->nr_ends++;
		list_add_tail(&link->end[i].node, &link->end[i].self->ends);
	}
	hash_add(economy_link_hash, &link->node, economy_pair_key(a, b));
	list_add_tail(&link->lru, &economy_links);
	economy_count(ECONOMY_LINKS, 1);
	economy_books_changed();
	return link;
}

static void economy_link_free(struct economy_link *link)
{
	int i;

	/* A loan that counted this link is redone without it. */
	for (i = 0; i < 2; i++)
		economy_take_back(link->end[i].self);
	for (i = 0; i < 2; i++) {
		list_del(&link->end[i].node);
		link->end[i].self->nr_ends--;
		economy_party_put(link->end[i].self);
	}
	economy_chans_forget(link);
	hash_del(&link->node);
	list_del(&link->lru);
	economy_count(ECONOMY_LINKS, -1);
	economy_books_changed();
	kfree(link);
}

/* ------------------------------------------------------------ channels */

static struct economy_chan *economy_chan_get(const void *chan)
{
	struct economy_chan *c;

	hash_for_each_possible(economy_chan_hash, c, node, (unsigned long)chan)
		if (c->chan == chan)
			return c;
	c = kzalloc(sizeof(*c), GFP_NOWAIT | __GFP_NOWARN);
	if (!c)
		return NULL;
	c->chan = chan;
	c->price = READ_ONCE(economy_price_ns);
	hash_add(economy_chan_hash, &c->node, (unsigned long)chan);
	list_add_tail(&c->lru, &economy_chans);
	economy_books_changed();
	return c;
}

static void economy_chan_free(struct economy_chan *c)
{
	/* What it holds is written off with it. */
	if (c->balance)
		economy_book_expiry(c->balance);
	if (c->writer)
		economy_party_put(c->writer);
	hash_del(&c->node);
	list_del(&c->lru);
	kfree(c);
	economy_books_changed();
}

/* ------------------------------------------------------------ events */

/*
 * Pipes and ttys carry lag as sockets do (account.c), in an account kept
 * with the channel: a write pays the channel's price from the writer's
 * positive lag, a read on the CPU of the payments withdraws the balance.
 * Lag is relative to one runqueue, so the balance is only ever worth
 * something on the CPU it was paid on: a write from another CPU (a second
 * writer, or the same one moved) pays nothing while there is any, and an
 * empty account follows its writer.
 * No queue length is known here, so the price is steered by who waits:
 * a reader that finds its writer asleep (blocked on a full channel, as
 * far as anyone can tell) raises it, a writer that finds its reader
 * asleep (starved of data) lowers it. Like the loans' bookkeeping, a
 * payment or withdrawal comes at most once a tick per task and channel
 * (economy_io_repeats()): money follows the flow, not every message.
 */
/*
 * Asleep, or seen asleep by the last sweep and not back since: a pipe
 * reader wakes a writer blocked on a full pipe at every read, room or not.
 */
static bool economy_waits(struct economy_party *party)
{
	return party->nr_to || !economy_runnable(party->task);
}

static void economy_chan_steer(struct economy_chan *c, bool up)
{
	c->price = economy_adapt_price(c->price, up ? 2 : 0, 1,
				       READ_ONCE(economy_limit_ns));
}

static void economy_chan_pay(struct economy_chan *c)
{
	s64 limit = READ_ONCE(economy_limit_ns);
	s64 applied = 0;
	int err;

	/* As economy_adapt_price() bounds it, also after limit_ns fell. */
	c->price = min(c->price, economy_price_max(limit));
	if (c->balance >= limit) {
		economy_count(ECONOMY_PAY_OVER_LIMIT, 1);
		return;
	}
	err = economy_lag_transfer(current, -c->price, SCHED_LAG_NEED_CREDIT,
				   NULL, &applied);
	if (err) {
		economy_count_refusal(err, true, 0, c->price);
		return;
	}
	c->balance -= applied;
	economy_book_payment(-applied);
}

static void economy_chan_withdraw(struct economy_chan *c)
{
	s64 applied = 0;
	int err;

	if (c->balance <= 0) {
		economy_count(ECONOMY_WITHDRAW_EMPTY, 1);
		return;
	}
	err = economy_lag_transfer(current, c->balance, 0, NULL, &applied);
	if (err) {
		economy_count_refusal(err, false, 0, c->balance);
		return;
	}
	economy_book_withdrawal(applied, c->balance);
	c->balance -= applied;
}

/**
 * economy_io - current wrote to or read from @chan
 * @chan: the channel's identity
 * @wrote: true for a write
 * @lag: a pipe or a tty: lag moves through the channel's own account
 *	(a socket has its account in the socket, account.c)
 *
 * A read of what another task wrote makes the two peers. Either way
 * current is running, so whatever it lent comes home. With @lag, a write
 * pays into the channel's account and a read on the CPU of the payments
 * withdraws it.
 *
 * Context: process context; takes the loan lock with bottom halves off,
 * and under it pi_lock and the rq lock of current (lag).
 */
void economy_io(const void *chan, bool wrote, bool lag)
{
	struct economy_party *me, *writer;
	struct economy_link *link;
	struct economy_chan *c;
	bool serves;
	int cpu;

	if (economy_io_repeats(chan, wrote))
		return;
	spin_lock_bh(&economy_loan_lock);
	/* With bottom halves off current stays on this CPU until the unlock. */
	cpu = raw_smp_processor_id();
	/* Under the lock: economy_loans_end_all() leaves no loan behind. */
	if (economy_loans_closed || !economy_lends() ||
	    current->flags & (PF_KTHREAD | PF_EXITING))
		goto unlock;
	me = economy_party_get(current);
	if (!me)
		goto unlock;
	economy_take_back(me);
	c = wrote ? economy_chan_get(chan) : NULL;
	if (c) {
		if (c->writer != me) {
			if (c->writer)
				economy_party_put(c->writer);
			c->writer = me;
			c->link = NULL;
			me->refs++;
			economy_books_changed();
		}
		/* Writing to a reader it has is data flowing, too. */
		if (c->link) {
			economy_link_renew(c->link);
			economy_end_of(c->link, me)->io_at = jiffies;
		}
		c->renewed = jiffies;
		c->written = jiffies;
		if (c->cpu != cpu && !c->balance)
			c->cpu = cpu;
		list_move_tail(&c->lru, &economy_chans);
		if (lag && c->cpu != cpu) {
			economy_count(ECONOMY_PAY_ELSEWHERE, 1);
		} else if (lag) {
			if (c->link &&
			    economy_waits(economy_end_of(c->link, me)->peer))
				economy_chan_steer(c, false);
			economy_chan_pay(c);
		}
	} else if (!wrote) {
		hash_for_each_possible(economy_chan_hash, c, node,
				       (unsigned long)chan)
			if (c->chan == chan)
				break;
		writer = c ? c->writer : NULL;
		if (writer && writer != me) {
			/*
			 * Reading what the writer left keeps the writer known:
			 * a writer blocked on a full pty or pipe writes nothing
			 * while its reader drains it, which can take longer
			 * than a lease (an xterm renders 4 KB between reads).
			 */
			c->renewed = jiffies;
			list_move_tail(&c->lru, &economy_chans);
			link = economy_link_get(writer, me);
			if (link) {
				economy_link_renew(link);
				economy_end_of(link, me)->io_at = jiffies;
				link->data = true;
				/*
				 * A reader that serves one writer, which wrote
				 * first (a thread of its own per client), works
				 * for that writer alone.
				 */
				serves = link->end[0].self == writer &&
					 me->nr_ends == 1;
				economy_bill(me, serves ? writer : NULL);
			}
			if (c->link != link)
				economy_books_changed();
			c->link = link;
			if (lag && c->cpu == cpu) {
				if (economy_waits(writer))
					economy_chan_steer(c, true);
				economy_chan_withdraw(c);
			}
		}
	}
	economy_sweeper_arm();
	economy_io_remember(chan, wrote);
unlock:
	spin_unlock_bh(&economy_loan_lock);
}

static void economy_party_free(struct economy_party *party)
{
	economy_bill(party, NULL);
	economy_departed_lent += party->lent_total;
	economy_departed_held += party->held_total;
	hash_del(&party->node);
	list_del(&party->all);
	put_task_struct(party->task);
	economy_count(ECONOMY_PARTIES, -1);
	kfree(party);
	economy_books_changed();
}

/* @waker woke @wakee: data flowed between them (wakeup.c). */
static void economy_wake_link(struct task_struct *waker,
			      struct task_struct *wakee)
{
	struct economy_party *a, *b;
	struct economy_link *link;
	int i;

	if ((READ_ONCE(waker->flags) | READ_ONCE(wakee->flags)) & PF_EXITING)
		return;
	a = economy_party_get(waker);
	b = a ? economy_party_get(wakee) : NULL;
	if (!b)
		return;
	link = economy_link_get(a, b);
	if (!link)
		return;
	economy_link_renew(link);
	i = link->end[0].self == a ? 0 : 1;
	link->woke[i] = min(link->woke[i] + 1, 2);
}

static enum hrtimer_restart economy_sweep(struct hrtimer *timer)
{
	enum hrtimer_restart again = HRTIMER_NORESTART;
	struct economy_party *party, *pnext;
	struct economy_link *link, *lnext;
	struct economy_end *end, *enext;
	struct economy_chan *c, *cnext;

	spin_lock_bh(&economy_loan_lock);
	economy_wakeups_drain(economy_loans_closed || !economy_lends() ?
			      NULL : economy_wake_link);
	list_for_each_entry_safe(c, cnext, &economy_chans, lru) {
		if (!economy_expired(c->renewed))
			break;
		if (economy_still_waits(c->writer, c->written)) {
			c->renewed = jiffies;
			list_move_tail(&c->lru, &economy_chans);
			continue;
		}
		economy_chan_free(c);
	}
	list_for_each_entry_safe(link, lnext, &economy_links, lru) {
		if (!economy_expired(link->renewed))
			break;
		/*
		 * A link of one wakeup waits two leases for the second: a
		 * starved server makes room for its clients seldom.
		 */
		if (economy_link_pending(link) &&
		    !economy_expired(link->renewed + economy_lease()))
			continue;
		if (economy_still_waits(link->end[0].self,
					link->end[0].io_at) ||
		    economy_still_waits(link->end[1].self,
					link->end[1].io_at)) {
			economy_link_renew(link);
			continue;
		}
		economy_link_free(link);
	}
	list_for_each_entry_safe(party, pnext, &economy_party_list, all) {
		if (READ_ONCE(party->task->flags) & PF_EXITING) {
			/* Gone: no more loans to or from it. */
			list_for_each_entry_safe(end, enext, &party->ends, node)
				economy_link_free(end->link);
		}
	}
	list_for_each_entry_safe(party, pnext, &economy_party_list, all) {
		if (!party->refs) {
			economy_take_back(party);
			economy_party_free(party);
		} else if (economy_runnable(party->task)) {
			economy_take_back(party);
			if (party->billed &&
			    READ_ONCE(party->task->se.sum_exec_runtime) -
			    party->billed_at > ECONOMY_BILL_NS)
				economy_bill(party, NULL);
		} else {
			/* Asleep: done serving, and woken at its own weight. */
			economy_bill(party, NULL);
			economy_lend_out(party);
		}
	}
	if (!list_empty(&economy_party_list) && !economy_loans_closed) {
		hrtimer_forward_now(timer, ns_to_ktime(ECONOMY_SAMPLE_NS));
		again = HRTIMER_RESTART;
	}
	spin_unlock_bh(&economy_loan_lock);
	return again;
}

/**
 * economy_loans_end_all - every loan ends, all weight goes home
 *
 * For the economy switched off, a policy change and unload; peers are
 * forgotten too.
 */
void economy_loans_end_all(void)
{
	struct economy_party *party, *pnext;
	struct economy_link *link, *lnext;
	struct economy_chan *c, *cnext;

	spin_lock_bh(&economy_loan_lock);
	list_for_each_entry_safe(c, cnext, &economy_chans, lru)
		economy_chan_free(c);
	list_for_each_entry_safe(link, lnext, &economy_links, lru)
		economy_link_free(link);
	/* All loans first: a lender names its borrowers. */
	list_for_each_entry(party, &economy_party_list, all)
		economy_take_back(party);
	list_for_each_entry_safe(party, pnext, &economy_party_list, all)
		economy_party_free(party);
	economy_books_changed();
	spin_unlock_bh(&economy_loan_lock);
}

/**
 * economy_loans_init - before the hooks are in
 */
void economy_loans_init(void)
{
	hrtimer_init(&economy_sweeper, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	economy_sweeper.function = economy_sweep;
}

/**
 * economy_loans_exit - no loan from now on, and none left
 *
 * Called once the hooks and the device are gone, so nothing lends again.
 */
void economy_loans_exit(void)
{
	spin_lock_bh(&economy_loan_lock);
	economy_loans_closed = true;
	spin_unlock_bh(&economy_loan_lock);
	hrtimer_cancel(&economy_sweeper);
	economy_loans_end_all();
}

/**
 * economy_ledger_show - a line per task with peers
 * @m: the seq_file of /proc/sched_economy_tasks
 *
 * pid, comm, own weight, weight lent now, weight held now (from its
 * lenders), peers, weight-loans made and received so far; a last line
 * "- (departed)" carries the totals of the parties forgotten since load.
 * Under the lock the columns sum to the books: lent and held to
 * held_weight, lent_total and held_total to lent_weight.
 */
void economy_ledger_show(struct seq_file *m)
{
	struct economy_party *party;
	struct economy_end *end;
	int peers;

	seq_puts(m, "pid comm own_weight lent held peers lent_total held_total\n");
	spin_lock_bh(&economy_loan_lock);
	list_for_each_entry(party, &economy_party_list, all) {
		peers = 0;
		list_for_each_entry(end, &party->ends, node)
			peers++;
		seq_printf(m, "%d %s %d %d %d %d %llu %llu\n",
			   task_pid_nr(party->task), party->task->comm,
			   economy_own_weight(party->task), party->lent,
			   party->held,
			   peers, party->lent_total, party->held_total);
	}
	seq_printf(m, "- (departed) 0 0 0 0 %llu %llu\n", economy_departed_lent,
		   economy_departed_held);
	spin_unlock_bh(&economy_loan_lock);
}
