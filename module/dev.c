// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sched_economy: explicit transfers (uapi/sched_economy.h).
 *
 * While /proc/sys/kernel/sched_economy is 0 no credit moves, explicitly
 * or not: the moving ioctls fail with -EOPNOTSUPP and change nothing; the
 * read-only ones still answer. An open file pins the module, so rmmod
 * fails until it is closed (delete_module(2) says -EWOULDBLOCK: "in use").
 */
#include <linux/cred.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/net.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/economy.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>
#include <net/af_unix.h>
#include <net/sock.h>

#include "economy.h"
#include "economy_policy.h"
#include "trace.h"
#include "uapi/sched_economy.h"

/*
 * The rule of sched_setattr(2): the same user, or CAP_SYS_NICE, asked
 * only when the cheap test fails so that audit logs no noise. (The LSM
 * hook, security_task_setscheduler(), is not exported to modules.)
 */
static bool economy_may_give_to(struct task_struct *p)
{
	const struct cred *cred = current_cred(), *tcred;
	bool ok;

	rcu_read_lock();
	tcred = __task_cred(p);
	ok = uid_eq(cred->euid, tcred->euid) || uid_eq(cred->euid, tcred->uid);
	rcu_read_unlock();
	return ok || capable(CAP_SYS_NICE);
}

/*
 * Half of the caller's positive credit goes to @p. The target is credited
 * first, so that its lag bound decides what moves; the caller is then
 * debited by exactly that, which cannot fail while it keeps company on its
 * runqueue. Should it be left alone in between, the credit is taken back
 * from the target, and whatever even that misses is counted as lost.
 *
 * Only on the caller's own CPU: lag is relative to one runqueue, so credit
 * moved to another CPU would be made from nothing there, taken from that
 * CPU's other tasks (a caller looping on CPU 0 gave its busy task on CPU 1
 * 66.1 % of that CPU against two other users' 17.0 % each,
 * tests/yield_to.c cross_cpu_bound), and the resched IPI of yield_to() at
 * syscall rate would be a weapon against them. Across CPUs it is a plain
 * yield that moves nothing. So is it between task groups: a task group has
 * a cfs_rq of its own on each CPU (review F15). (A target that migrates
 * between the check and the transfer may still get one transfer's worth,
 * bounded by its lag bound.)
 */
static int economy_yield_to(struct sched_economy_yield_to *arg)
{
	s64 lag = 0, debit = 0, credit = 0, back = 0, unused;
	struct task_struct *p;
	bool here;
	int err;

	if (arg->flags)
		return -EINVAL;
	rcu_read_lock();
	p = get_pid_task(find_vpid(arg->pid), PIDTYPE_PID);
	rcu_read_unlock();
	if (!p)
		return -ESRCH;
	err = -EINVAL;
	if (p == current || !economy_fair_policy(p) ||
	    !economy_fair_policy(current))
		goto out;
	err = -EPERM;
	if (!economy_may_give_to(p))
		goto out;
	/*
	 * One read-side section from the check of economy_enabled to the
	 * last transfer: economy_stop() waits for it, so no credit moves
	 * after the economy went off; and it keeps the cfs_rq that
	 * sched_lag_transfer() peeks at for @p alive should @p move to
	 * another group that is then destroyed.
	 */
	rcu_read_lock();
	err = -EOPNOTSUPP;
	if (!READ_ONCE(economy_enabled)) {
		rcu_read_unlock();
		goto out;
	}
	here = economy_lag_shared(p);
	err = sched_lag_transfer(current, 0, 0, &lag, &unused);
	if (!err && here && lag / 2 > 0 &&
	    !economy_lag_transfer(p, lag / 2, 0, NULL, &credit) && credit &&
	    (economy_lag_transfer(current, -credit, 0, NULL, &debit) ||
	     debit != -credit))
		economy_lag_transfer(p, -(credit + debit), 0, NULL, &back);
	rcu_read_unlock();
	economy_count(ECONOMY_YIELD_TOS, 1);
	economy_count(ECONOMY_YIELD_MOVED_NS, credit + back);
	economy_count(ECONOMY_YIELD_LOST_NS, credit + back + debit);
	arg->moved_ns = credit + back;
	/* Global pids, as the tracepoint records current->pid. */
	trace_economy_yield_to(task_pid_nr(p), arg->moved_ns);
	yield_to(p, here);
	err = 0;
out:
	put_task_struct(p);
	return err;
}

/*
 * A socket of another family is a socket: -EAFNOSUPPORT, as socket(2)
 * says for a family it does not support; -ENOTSOCK is for other files.
 */
static struct socket *economy_unix_socket(int fd, int *err)
{
	struct socket *sock = sockfd_lookup(fd, err);

	if (sock && sock->sk->sk_family != AF_UNIX) {
		sockfd_put(sock);
		*err = -EAFNOSUPPORT;
		return NULL;
	}
	return sock;
}

static int economy_xfer(struct sched_economy_xfer *arg, bool pay)
{
	struct economy_policy_ops *ops;
	struct sock *sk, *peer = NULL;
	struct socket *sock;
	int err;

	if (arg->flags & ~SCHED_ECONOMY_PEER || (!pay && arg->flags) ||
	    arg->amount_ns < 0 || arg->amount_ns > READ_ONCE(economy_limit_ns))
		return -EINVAL;
	sock = economy_unix_socket(arg->fd, &err);
	if (!sock)
		return err;
	sk = sock->sk;
	if (arg->flags & SCHED_ECONOMY_PEER) {
		peer = unix_peer_get(sk);
		err = -ENOTCONN;
		if (!peer)
			goto out;
		sk = peer;
	}
	/*
	 * economy_stop() waits for this read-side section before it writes
	 * the balances off: no payment lands after the economy went off.
	 */
	rcu_read_lock();
	/* Lag moves only under a policy that trades it ("lend" does not). */
	err = -EOPNOTSUPP;
	ops = economy_ops();
	if (!READ_ONCE(economy_enabled) || !ops ||
	    (!ops->may_pay && !ops->may_withdraw))
		goto unlock;
	/* Explicit calls obey the policy's rule of who pays and who takes. */
	err = -EPERM;
	if (pay ? !ops->may_pay || !ops->may_pay(sk) :
		  !ops->may_withdraw || !ops->may_withdraw(sk))
		goto unlock;
	if (pay)
		err = economy_pay(sk, arg->amount_ns, &arg->moved_ns);
	else
		err = economy_withdraw(sk, 1, arg->amount_ns, &arg->moved_ns);
unlock:
	rcu_read_unlock();
out:
	if (peer)
		sock_put(peer);
	sockfd_put(sock);
	return err;
}

static int economy_account_info(struct sched_economy_account *arg)
{
	struct socket *sock;
	int err;

	if (arg->flags)
		return -EINVAL;
	sock = economy_unix_socket(arg->fd, &err);
	if (!sock)
		return err;
	economy_account_read(sock->sk, &arg->balance_ns, &arg->price_ns);
	sockfd_put(sock);
	return 0;
}

static long economy_ioctl(struct file *file, unsigned int cmd,
			  unsigned long uarg)
{
	void __user *argp = (void __user *)uarg;
	union {
		struct sched_economy_yield_to yield;
		struct sched_economy_xfer xfer;
		struct sched_economy_account acct;
		s64 credit;
	} arg;
	s64 unused;
	int err;

	switch (cmd) {
	case SCHED_ECONOMY_IOC_YIELD_TO:
	case SCHED_ECONOMY_IOC_PAY:
	case SCHED_ECONOMY_IOC_WITHDRAW:
		/*
		 * Credit that moved cannot be put back: a result buffer that
		 * cannot be written fails here, before anything moves. One
		 * that another thread unmaps between here and the copy-out
		 * below still gets -EFAULT after the move; the books count
		 * what moved either way, only the caller's report is lost.
		 */
		if (copy_from_user(&arg, argp, _IOC_SIZE(cmd)) ||
		    copy_to_user(argp, &arg, _IOC_SIZE(cmd)))
			return -EFAULT;
		break;
	case SCHED_ECONOMY_IOC_ACCOUNT:
		if (copy_from_user(&arg, argp, _IOC_SIZE(cmd)))
			return -EFAULT;
		break;
	case SCHED_ECONOMY_IOC_CREDIT:
		break;
	default:
		return -ENOTTY;
	}

	switch (cmd) {
	case SCHED_ECONOMY_IOC_YIELD_TO:
		err = economy_yield_to(&arg.yield);
		break;
	case SCHED_ECONOMY_IOC_PAY:
		err = economy_xfer(&arg.xfer, true);
		break;
	case SCHED_ECONOMY_IOC_WITHDRAW:
		err = economy_xfer(&arg.xfer, false);
		break;
	case SCHED_ECONOMY_IOC_ACCOUNT:
		err = economy_account_info(&arg.acct);
		break;
	default:
		err = sched_lag_transfer(current, 0, 0, &arg.credit, &unused);
		/* Alone on its runqueue, a task's credit is 0 by definition. */
		if (err == -ENOENT)
			err = 0;
		break;
	}
	if (err)
		return err;
	if (copy_to_user(argp, &arg, _IOC_SIZE(cmd)))
		return -EFAULT;
	return 0;
}

static const struct file_operations economy_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= economy_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice economy_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "sched_economy",
	.fops	= &economy_fops,
	.mode	= 0666,
};

int economy_dev_register(void)
{
	return misc_register(&economy_misc);
}

void economy_dev_unregister(void)
{
	misc_deregister(&economy_misc);
}
