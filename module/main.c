// SPDX-License-Identifier: GPL-2.0
/*
 * sched_economy: Ingo Molnar's 2007 "scheduler economy" on EEVDF.
 *
 * A task that sleeps waiting for another (a client for its server's
 * reply, a writer for room that a reader will make) donates its load
 * weight to that task while it sleeps (donate.c), or, under the older
 * policies, tasks pay CPU credit (EEVDF lag) into an account on the
 * receiving AF_UNIX socket for the reader to withdraw (account.c). A
 * server working for many clients then runs with the share of its
 * clients.
 */
#include <linux/module.h>

#include "economy.h"

/* The tracepoints of trace.h are defined here, once for the module. */
#define CREATE_TRACE_POINTS
#include "trace.h"

static int __init economy_init(void)
{
	int ret;

	/*
	 * The hooks go in when the economy is switched on (sysctl.c): until
	 * then the static key stays off.
	 */
	economy_accounts_init();
	ret = economy_builtin_register();
	if (ret)
		return ret;
	ret = economy_policy_start(economy_default_policy());
	if (ret)
		goto err_policy;
	ret = economy_stats_init();
	if (ret)
		goto err_stats;
	ret = economy_sysctl_register();
	if (ret)
		goto err_sysctl;
	ret = economy_dev_register();
	if (ret)
		goto err_dev;
	pr_info("loaded, generation %llu\n", economy_generation);
	return 0;

err_dev:
	economy_sysctl_unregister();
	/* A write to the sysctl meanwhile may have switched it on. */
	economy_stop();
err_sysctl:
	economy_stats_exit();
err_stats:
	economy_policy_stop();
err_policy:
	economy_builtin_unregister();
	return ret;
}

static void __exit economy_exit(void)
{
	s64 left;

	/* Waits for running sysctl writes: nobody switches it on again. */
	economy_sysctl_unregister();
	/* Waits for running hooks: no transfer is in flight after this. */
	left = economy_stop();
	economy_dev_unregister();
	economy_stats_exit();
	economy_policy_stop();
	economy_builtin_unregister();
	pr_info("unloaded: paid %lld withdrawn %lld expired %lld (%lld at unload) residue %lld\n",
		economy_stat(ECONOMY_PAID_NS),
		economy_stat(ECONOMY_WITHDRAWN_NS),
		economy_stat(ECONOMY_EXPIRED_NS), left,
		economy_stat(ECONOMY_PAID_NS) -
		economy_stat(ECONOMY_WITHDRAWN_NS) -
		economy_stat(ECONOMY_EXPIRED_NS) -
		economy_stat(ECONOMY_OUTSTANDING_NS));
}

module_init(economy_init);
module_exit(economy_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Scheduler economy: trade CPU credit over AF_UNIX sockets");
MODULE_AUTHOR("sched-economy developers");
