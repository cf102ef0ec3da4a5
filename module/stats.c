// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/sched_economy: the books and the refusal counters.
 *
 * residue_ns is paid - withdrawn - expired - outstanding and must read 0
 * whenever no transfer is in flight; per CPU, lag withdrawn there never
 * exceeds lag paid there under "lend". Others than root see only the
 * switch, the policy and whether the hooks are in.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/proc_fs.h>
#include <linux/user_namespace.h>
#include <linux/seq_file.h>

#include "economy.h"
#include "economy_policy.h"

DEFINE_PER_CPU(struct economy_stats, economy_stats);

/**
 * economy_stat - one counter of the books, summed over all CPUs
 * @c: the counter
 *
 * Counters that move together (paid and outstanding) are read one after
 * the other: exact only when no transfer is in flight, as before.
 *
 * Return: its value.
 */
s64 economy_stat(enum economy_counter c)
{
	s64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(economy_stats.v[c], cpu);
	return sum;
}

static const char * const economy_counter_names[ECONOMY_NR_COUNTERS] = {
	[ECONOMY_PAID_NS]		= "paid_ns",
	[ECONOMY_WITHDRAWN_NS]		= "withdrawn_ns",
	[ECONOMY_EXPIRED_NS]		= "expired_ns",
	[ECONOMY_OUTSTANDING_NS]	= "outstanding_ns",
	[ECONOMY_PAYMENTS]		= "payments",
	[ECONOMY_WITHDRAWALS]		= "withdrawals",
	[ECONOMY_EXPIRIES]		= "expiries",
	[ECONOMY_PAY_NO_CREDIT]		= "pay_refused_no_credit",
	[ECONOMY_PAY_OVER_LIMIT]	= "pay_refused_over_limit",
	[ECONOMY_PAY_ALONE]		= "pay_refused_alone",
	[ECONOMY_PAY_INELIGIBLE]	= "pay_refused_ineligible",
	[ECONOMY_PAY_ELSEWHERE]		= "pay_refused_elsewhere",
	[ECONOMY_PAY_GROUP]		= "pay_refused_group",
	[ECONOMY_WITHDRAW_EMPTY]	= "withdraw_empty",
	[ECONOMY_WITHDRAW_ALONE]	= "withdraw_refused_alone",
	[ECONOMY_WITHDRAW_GROUP]	= "withdraw_refused_group",
	[ECONOMY_WITHDRAW_INELIGIBLE]	= "withdraw_refused_ineligible",
	[ECONOMY_WITHDRAW_CLAMPED]	= "withdraw_clamped",
	[ECONOMY_YIELD_TOS]		= "yield_tos",
	[ECONOMY_YIELD_MOVED_NS]	= "yield_moved_ns",
	[ECONOMY_YIELD_LOST_NS]		= "yield_lost_ns",
	[ECONOMY_DONATIONS]		= "donations",
	[ECONOMY_DONATED_WEIGHT]	= "donated_weight",
	[ECONOMY_RETURNED_WEIGHT]	= "returned_weight",
	[ECONOMY_DONATE_NO_TARGET]	= "donate_no_target",
	[ECONOMY_DONATE_OTHER_USER]	= "donate_refused_other_user",
	[ECONOMY_DONATE_UNCONTENDED]	= "donate_skipped_uncontended",
	[ECONOMY_DONATE_CYCLE]		= "donate_skipped_cycle",
	[ECONOMY_DONATE_DECLINED]	= "donate_declined_policy",
	[ECONOMY_GROUP_GIFTS]		= "group_gifts",
	[ECONOMY_GROUP_WEIGHT]		= "group_given_weight",
	[ECONOMY_GROUP_RETURNED]	= "group_returned_weight",
	[ECONOMY_GROUP_LIMITED]		= "group_refused_limited",
	[ECONOMY_GROUP_REFUSED_DATA]	= "group_refused_data",
	[ECONOMY_DONATE_NO_REQUEST]	= "donate_no_request",
	[ECONOMY_CHAIN_CUTS]		= "chain_cuts",
	[ECONOMY_GROUP_CARRIED]		= "group_carried_weight",
	[ECONOMY_NAMED_EPOLL]		= "named_epoll",
	[ECONOMY_NAMED_EVENTFD]		= "named_eventfd",
	[ECONOMY_NAMED_LOCK]		= "named_lock",
	[ECONOMY_REPLY_REST]		= "reply_rest",
	[ECONOMY_RQ_LOCKS]		= "rq_locks",
	[ECONOMY_RQ_LOCKS_REMOTE]	= "rq_locks_remote",
};

static int economy_stats_show(struct seq_file *m, void *v)
{
	char name[ECONOMY_POLICY_NAME_MAX];
	s64 val[ECONOMY_NR_COUNTERS];
	s64 held, received;
	int cpu, i;

	seq_printf(m, "enabled %d\n", READ_ONCE(economy_enabled));
	/* Whether the hooks (and their static key) are in. */
	seq_printf(m, "hooks %d\n", READ_ONCE(economy_hooks_on));
	economy_policy_name(name);
	seq_printf(m, "policy %s\n", name);
	/*
	 * The counters move with every message on every socket: polled,
	 * they would show another user's keystrokes over an X or Wayland
	 * socket. Only an opener with CAP_SYS_ADMIN sees them.
	 */
	if (!file_ns_capable(m->file, &init_user_ns, CAP_SYS_ADMIN))
		return 0;
	for (i = 0; i < ECONOMY_NR_COUNTERS; i++)
		val[i] = economy_stat(i);
	seq_printf(m, "generation %llu\n", economy_generation);
	for (i = 0; i < ECONOMY_NR_COUNTERS; i++)
		seq_printf(m, "%s %lld\n", economy_counter_names[i], val[i]);
	seq_printf(m, "residue_ns %lld\n",
		   val[ECONOMY_PAID_NS] - val[ECONOMY_WITHDRAWN_NS] -
		   val[ECONOMY_EXPIRED_NS] - val[ECONOMY_OUTSTANDING_NS]);
	/*
	 * donated = returned + held: the weight books, held counted from the
	 * donors' records, not from the counters.
	 */
	held = economy_donations_held();
	seq_printf(m, "held_weight %lld\nweight_residue %lld\n", held,
		   val[ECONOMY_DONATED_WEIGHT] - val[ECONOMY_RETURNED_WEIGHT] -
		   held);
	/* And per recipient: what the tasks hold is what the records give. */
	received = economy_donations_received();
	seq_printf(m, "received_weight %lld\nreceived_residue %lld\n",
		   received, received - held);
	/* The same books for weight moved between group entities. */
	held = economy_group_gifts_held();
	seq_printf(m, "group_held_weight %lld\ngroup_weight_residue %lld\n",
		   held, val[ECONOMY_GROUP_WEIGHT] -
		   val[ECONOMY_GROUP_RETURNED] - held);
	/*
	 * Lag by the CPU it moved on: each transfer is counted where it ran.
	 * Lag is withdrawn only where it was paid, so on every CPU
	 * withdrawn <= paid since load.
	 */
	for_each_possible_cpu(cpu)
		seq_printf(m, "cpu%d_paid_ns %lld\ncpu%d_withdrawn_ns %lld\n",
			   cpu, per_cpu(economy_stats.v[ECONOMY_PAID_NS], cpu),
			   cpu,
			   per_cpu(economy_stats.v[ECONOMY_WITHDRAWN_NS], cpu));
	return 0;
}

static int economy_ledger_open_show(struct seq_file *m, void *v)
{
	economy_ledger_show(m);
	return 0;
}

int economy_stats_init(void)
{
	if (!proc_create_single("sched_economy", 0444, NULL,
				economy_stats_show))
		return -ENOMEM;
	/* Who talks to whom is nobody else's business. */
	if (!proc_create_single("sched_economy_tasks", 0400, NULL,
				economy_ledger_open_show)) {
		remove_proc_entry("sched_economy", NULL);
		return -ENOMEM;
	}
	return 0;
}

void economy_stats_exit(void)
{
	remove_proc_entry("sched_economy_tasks", NULL);
	remove_proc_entry("sched_economy", NULL);
}
