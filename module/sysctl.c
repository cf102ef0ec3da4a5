// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/sys/kernel/sched_economy*: the switch and the knobs.
 *
 * Mode 0644 is the only permission check a sysctl has; the bounds make
 * the proc handlers reject bad values with -EINVAL, leaving the old ones.
 */
#include <linux/errno.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/sysctl.h>

#include "arith.h"
#include "economy.h"
#include "economy_policy.h"

#define ECONOMY_LIMIT_MAX_NS	1000000000U
/* The list of policies' names: room for 16 of them. */
#define ECONOMY_AVAILABLE_MAX	(16 * ECONOMY_POLICY_NAME_MAX)

/*
 * Read on every message: __read_mostly keeps them off the cache lines of
 * what every message writes.
 */
int economy_enabled __read_mostly;
/* The 2007 prototype's price; the queue policy starts from it. */
unsigned int economy_price_ns __read_mostly = 100000;
unsigned int economy_limit_ns __read_mostly = 2000000;
unsigned int economy_target_qlen __read_mostly = 4;
unsigned int economy_lend_pct __read_mostly = 100;
int economy_groups __read_mostly = 1;
/*
 * Whether a client waiting for its reply gives to a server of another
 * user. Off: the core cannot see that what a shared server receives is
 * spent on the requests of the users who gave it.
 */
int economy_cross_user __read_mostly;
/*
 * The most a task may weigh with what waiters give it, in nice-0 tasks'
 * weights: what 16 runnable tasks of one user would weigh, spread over 16
 * entities, is not concentrated beyond that in one (review F10: 90
 * sleepers would otherwise give a reader nice -20's weight, and the
 * latency of a task 87 times as heavy, without CAP_SYS_NICE).
 */
unsigned int economy_hold_max __read_mostly = 87;
/*
 * How much of its server's CPU time, in us, a request may still wait for
 * past the first part of its reply, within one user (relation.c): a
 * Wayland client waits a frame of its compositor's work past the
 * acknowledgment of its commit. A wait that begins inside it gives for
 * as long as it lasts; a later one, nothing until the client sends again.
 */
unsigned int economy_reply_us __read_mostly = 20000;

static unsigned int economy_price_min = ECONOMY_PRICE_MIN_NS;
static unsigned int economy_limit_max = ECONOMY_LIMIT_MAX_NS;
static unsigned int economy_qlen_max = 1024;
static unsigned int economy_pct_max = 100;
/* nice -20's weight, 88761, is 86.7 nice-0 tasks: the kernel clamps there. */
static unsigned int economy_hold_limit = 87;
static unsigned int economy_reply_us_max = 1000000;

/* Serialises the writes of price and limit, which are checked together. */
static DEFINE_MUTEX(economy_knob_lock);

/*
 * One payment must fit in an account: a price above the limit would make
 * accounts overshoot the most they may hold, and under "fixed" and "seed"
 * (which charge price_ns as it is) a price above the payers' lag bound,
 * max(2 * slice, TICK_NSEC) of positive lag, refuses every payment with
 * no word said. So price_ns <= limit_ns, in either order of writes:
 * -EINVAL, the old value stays.
 */
static int economy_price_limit_handler(const struct ctl_table *table,
				       int write, void *buffer, size_t *lenp,
				       loff_t *ppos)
{
	unsigned int *knob = table->data, val;
	struct ctl_table tmp = *table;
	bool bad;
	int ret;

	tmp.data = &val;
	mutex_lock(&economy_knob_lock);
	val = READ_ONCE(*knob);
	ret = proc_douintvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (!ret && write) {
		bad = knob == &economy_price_ns ?
		      val > READ_ONCE(economy_limit_ns) :
		      val < READ_ONCE(economy_price_ns);
		if (bad)
			ret = -EINVAL;
		else
			WRITE_ONCE(*knob, val);
	}
	mutex_unlock(&economy_knob_lock);
	return ret;
}

/* Serialises switching the economy on and off. */
static DEFINE_MUTEX(economy_switch_lock);

/*
 * The hooks follow the switch: registered (static key on) only while the
 * economy is on, so that off costs what no module costs.
 */
static int economy_enabled_handler(const struct ctl_table *table, int write,
				   void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table tmp = *table;
	int ret, on;

	tmp.data = &on;
	mutex_lock(&economy_switch_lock);
	on = READ_ONCE(economy_enabled);
	ret = proc_dointvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (ret || !write || on == READ_ONCE(economy_enabled))
		goto unlock;
	if (on)
		ret = economy_start();
	else
		economy_stop();
unlock:
	mutex_unlock(&economy_switch_lock);
	return ret;
}

/*
 * A switch of policy: by name, as tcp_congestion_control; a name not
 * registered is asked of request_module(). Weight donated under the old
 * policy goes home if the new one donates nothing: a sleeper takes it
 * back at its wakeup, but may sleep for long.
 */
static int economy_policy_handler(const struct ctl_table *table, int write,
				  void *buffer, size_t *lenp, loff_t *ppos)
{
	/* Room for a name too long, which proc_dostring() would cut short. */
	char name[4 * ECONOMY_POLICY_NAME_MAX];
	struct ctl_table tmp = {
		.data	= name,
		.maxlen	= sizeof(name),
	};
	int ret;

	economy_policy_name(name);
	ret = proc_dostring(&tmp, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	mutex_lock(&economy_switch_lock);
	ret = economy_policy_set(strim(name));
	if (!ret) {
		economy_hooks_follow_policy();
		if (!economy_policy_lends())
			economy_donations_end_all(false);
	}
	mutex_unlock(&economy_switch_lock);
	return ret;
}

/* The names sched_economy_policy takes, as tcp_available_congestion_control. */
static int economy_available_handler(const struct ctl_table *table, int write,
				     void *buffer, size_t *lenp, loff_t *ppos)
{
	char names[ECONOMY_AVAILABLE_MAX];
	struct ctl_table tmp = {
		.data	= names,
		.maxlen	= sizeof(names),
	};

	economy_policy_list_names(names, sizeof(names));
	return proc_dostring(&tmp, write, buffer, lenp, ppos);
}

static struct ctl_table economy_sysctls[] = {
	{
		.procname	= "sched_economy",
		.data		= &economy_enabled,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= economy_enabled_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "sched_economy_price_ns",
		.data		= &economy_price_ns,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= economy_price_limit_handler,
		.extra1		= &economy_price_min,
		.extra2		= &economy_limit_max,
	},
	{
		.procname	= "sched_economy_limit_ns",
		.data		= &economy_limit_ns,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= economy_price_limit_handler,
		.extra1		= &economy_price_min,
		.extra2		= &economy_limit_max,
	},
	{
		.procname	= "sched_economy_target_qlen",
		.data		= &economy_target_qlen,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &economy_qlen_max,
	},
	{
		.procname	= "sched_economy_policy",
		.maxlen		= ECONOMY_POLICY_NAME_MAX,
		.mode		= 0644,
		.proc_handler	= economy_policy_handler,
	},
	{
		.procname	= "sched_economy_available_policies",
		.maxlen		= ECONOMY_AVAILABLE_MAX,
		.mode		= 0444,
		.proc_handler	= economy_available_handler,
	},
	{
		.procname	= "sched_economy_lend_pct",
		.data		= &economy_lend_pct,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &economy_pct_max,
	},
	{
		.procname	= "sched_economy_groups",
		.data		= &economy_groups,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "sched_economy_hold_max",
		.data		= &economy_hold_max,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &economy_hold_limit,
	},
	{
		.procname	= "sched_economy_reply_us",
		.data		= &economy_reply_us,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &economy_reply_us_max,
	},
	{
		.procname	= "sched_economy_cross_user",
		.data		= &economy_cross_user,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static struct ctl_table_header *economy_sysctl_header;

int economy_sysctl_register(void)
{
	economy_sysctl_header = register_sysctl("kernel", economy_sysctls);
	/* NULL says nothing of why; a name taken or no memory both happen. */
	return economy_sysctl_header ? 0 : -ENOMEM;
}

void economy_sysctl_unregister(void)
{
	unregister_sysctl_table(economy_sysctl_header);
}
