// SPDX-License-Identifier: GPL-2.0
/*
 * sched_economy_example: an economy policy in a module of its own, to
 * copy (docs/writing-a-policy.md).
 *
 * "example": a task sleeping for another gives it share_pct % of its own
 * weight, and messages move no lag. Which task a sleeper waits for, that
 * it gives only while it sleeps, the bound on what it gives and the books
 * are the core's: this file only says how much.
 *
 *   echo example > /proc/sys/kernel/sched_economy_policy
 *   echo 30 > /sys/module/sched_economy_example/parameters/share_pct
 */
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "economy_policy.h"

static unsigned int share_pct = 50;
module_param(share_pct, uint, 0644);
MODULE_PARM_DESC(share_pct, "percent of its own weight a sleeper gives (0-100)");

/*
 * @w names the sleeper's own weight, the task it waits for, and the
 * channel and direction of the wait. Whatever this returns, the core
 * clamps it to 0..@w->own; 0 gives nothing.
 */
static int example_donation(const struct economy_wait *w)
{
	return w->own * (int)min(READ_ONCE(share_pct), 100U) / 100;
}

static struct economy_policy_ops example_ops = {
	.donation	= example_donation,
	.owner		= THIS_MODULE,
	.name		= "example",
};

static int __init example_init(void)
{
	return economy_register_policy(&example_ops);
}

static void __exit example_exit(void)
{
	economy_unregister_policy(&example_ops);
}

module_init(example_init);
module_exit(example_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sched_economy policy \"example\": give a share of one's weight");
MODULE_AUTHOR("sched-economy developers");
