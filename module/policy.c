// SPDX-License-Identifier: GPL-2.0
/*
 * The policy registry: policies register by name, built in or from their
 * own modules, and one of them is active.
 *
 * The active policy is read under RCU by the hooks. A switch publishes
 * the new ops, waits for the hooks that still use the old ones, then
 * releases the old policy and its module; a policy module is pinned
 * while it is active, so it cannot leave under a hook. Built-in policies
 * have no owner: the core pins nothing of itself.
 */
#include <linux/ctype.h>
#include <linux/export.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/string.h>

#include "economy.h"
#include "economy_policy.h"

static LIST_HEAD(economy_policy_list);
/* Serialises registration and switches; hooks only read under RCU. */
static DEFINE_MUTEX(economy_policy_lock);
struct economy_policy_ops __rcu *economy_active_ops;

static struct economy_policy_ops *economy_policy_find(const char *name)
{
	struct economy_policy_ops *ops;

	lockdep_assert_held(&economy_policy_lock);
	list_for_each_entry(ops, &economy_policy_list, list)
		if (!strcmp(ops->name, name))
			return ops;
	return NULL;
}

/* 1 to 15 of [a-z0-9_]: what a module name and a sysctl write can carry. */
static bool economy_policy_name_ok(const char *name)
{
	size_t i, len = strnlen(name, ECONOMY_POLICY_NAME_MAX);

	if (!len || len == ECONOMY_POLICY_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!islower(name[i]) && !isdigit(name[i]) && name[i] != '_')
			return false;
	return true;
}

static int economy_policy_add(struct economy_policy_ops *ops)
{
	int ret = 0;

	if (!economy_policy_name_ok(ops->name))
		return -EINVAL;
	mutex_lock(&economy_policy_lock);
	if (economy_policy_find(ops->name))
		ret = -EEXIST;
	else
		list_add_tail_rcu(&ops->list, &economy_policy_list);
	mutex_unlock(&economy_policy_lock);
	if (!ret)
		pr_info("policy %s registered\n", ops->name);
	return ret;
}

/**
 * economy_register_policy - make a policy of a module available by name
 * @ops: the policy; its name and owner (THIS_MODULE) set, the rest
 *	optional. Register last in the module's init: a policy can be
 *	switched to as soon as it is registered, and its module is pinned
 *	only once its init has returned.
 *
 * Context: process context.
 * Return: 0, -EINVAL for a bad name or no owner, -EEXIST if the name is
 * taken.
 */
int economy_register_policy(struct economy_policy_ops *ops)
{
	/* Without an owner nothing would pin the module while active. */
	if (!ops->owner)
		return -EINVAL;
	return economy_policy_add(ops);
}
EXPORT_SYMBOL_GPL(economy_register_policy);

/**
 * economy_register_builtin - make a built-in policy available by name
 * @ops: a policy of the core itself, with no owner
 *
 * Return: as economy_register_policy().
 */
int economy_register_builtin(struct economy_policy_ops *ops)
{
	return economy_policy_add(ops);
}

/**
 * economy_unregister_policy - take a policy off the list
 * @ops: a registered policy that is not active (an active policy's
 *	module is pinned, so its exit cannot run)
 *
 * Context: process context.
 */
void economy_unregister_policy(struct economy_policy_ops *ops)
{
	mutex_lock(&economy_policy_lock);
	WARN_ON_ONCE(rcu_access_pointer(economy_active_ops) == ops);
	list_del_rcu(&ops->list);
	mutex_unlock(&economy_policy_lock);
	/* A reader of the list (the available names) may still be on it. */
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(economy_unregister_policy);

/* Make @ops the active policy. Called under economy_policy_lock. */
static int economy_policy_activate(struct economy_policy_ops *ops)
{
	struct economy_policy_ops *old;
	int ret;

	old = rcu_dereference_protected(economy_active_ops,
					lockdep_is_held(&economy_policy_lock));
	if (old == ops)
		return 0;
	/* A module still in its init may yet fail it and be freed. */
	if (ops && ops->owner && READ_ONCE(ops->owner->state) != MODULE_STATE_LIVE)
		return -EBUSY;
	if (ops && !try_module_get(ops->owner))
		return -ENOENT;
	if (ops && ops->init) {
		ret = ops->init();
		if (ret) {
			module_put(ops->owner);
			return ret;
		}
	}
	rcu_assign_pointer(economy_active_ops, ops);
	/* No hook uses the old policy after this. */
	synchronize_rcu();
	if (old && old->release)
		old->release();
	if (old)
		module_put(old->owner);
	return 0;
}

/**
 * economy_policy_set - switch to the policy of that name
 * @name: its name; a name not registered is asked of request_module()
 *	as sched_economy_<name>
 *
 * Context: process context.
 * Return: 0, -EINVAL for a bad name, -ENOENT if there is no such policy,
 * or the error of its init.
 */
int economy_policy_set(const char *name)
{
	struct economy_policy_ops *ops;
	int ret;

	if (!economy_policy_name_ok(name))
		return -EINVAL;
	mutex_lock(&economy_policy_lock);
	ops = economy_policy_find(name);
	if (!ops) {
		mutex_unlock(&economy_policy_lock);
		request_module("sched_economy_%s", name);
		mutex_lock(&economy_policy_lock);
		ops = economy_policy_find(name);
	}
	ret = ops ? economy_policy_activate(ops) : -ENOENT;
	mutex_unlock(&economy_policy_lock);
	return ret;
}

/**
 * economy_policy_name - the active policy's name
 * @buf: where to copy it, %ECONOMY_POLICY_NAME_MAX bytes
 */
void economy_policy_name(char *buf)
{
	struct economy_policy_ops *ops;

	rcu_read_lock();
	ops = rcu_dereference(economy_active_ops);
	strscpy(buf, ops ? ops->name : "", ECONOMY_POLICY_NAME_MAX);
	rcu_read_unlock();
}

/**
 * economy_policy_list_names - the registered policies' names
 * @buf: where to write them, space-separated, in order of registration
 * @size: its size
 */
void economy_policy_list_names(char *buf, size_t size)
{
	struct economy_policy_ops *ops;

	buf[0] = '\0';
	rcu_read_lock();
	list_for_each_entry_rcu(ops, &economy_policy_list, list) {
		if (buf[0])
			strlcat(buf, " ", size);
		strlcat(buf, ops->name, size);
	}
	rcu_read_unlock();
}

/**
 * economy_policy_start - make the first policy active, at load
 * @ops: a registered policy
 *
 * Return: 0 or the error of its init.
 */
int economy_policy_start(struct economy_policy_ops *ops)
{
	int ret;

	mutex_lock(&economy_policy_lock);
	ret = economy_policy_activate(ops);
	mutex_unlock(&economy_policy_lock);
	return ret;
}

/**
 * economy_policy_stop - no policy is active any more, at unload
 *
 * Context: after the hooks and every other reader are gone. A policy
 * module, which holds the core, is gone too, so the active policy is a
 * built-in one, which can then be unregistered.
 */
void economy_policy_stop(void)
{
	mutex_lock(&economy_policy_lock);
	economy_policy_activate(NULL);
	mutex_unlock(&economy_policy_lock);
}
