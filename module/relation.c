// SPDX-License-Identifier: GPL-2.0
/*
 * The blocking relation: whom a task about to sleep on a channel waits
 * for. Nothing is guessed and nothing is kept here: the kernel names, for
 * each channel, the task at its other end (the last reader of a socket,
 * pipe or tty; a pipe's last writer), and a sleep's direction says
 * whether the sleeper waits for it. Donation belongs to a request that
 * awaits its reply, or to room that a reader of one's own user is
 * obliged to make, and to nothing else:
 *
 *   room    a writer waiting for room in a full channel waits for the
 *           channel's reader if that reader is of its own user. A reader
 *           of another user may stop reading on purpose: it would collect
 *           the weight of every writer blocked on it.
 *   reply   a reader of an AF_UNIX socket waits for the task reading the
 *           other end only while a request of its own is outstanding: its
 *           end sent a message and has not read since (the kernel's
 *           awaiting bit), and it is the client (it called connect())
 *           or of the same user; or, within one user, it read the first
 *           part of the reply and that task has since run less than
 *           kernel.sched_economy_reply_us. An idle client listening for
 *           events, a subscriber, a server waiting for requests gives
 *           nothing. A server of another user gets it only with
 *           kernel.sched_economy_cross_user set (off by default).
 *   data    a pipe's or a tty's reader waits for the task at the other
 *           end if that task is of its own user: a daemon idle on its
 *           FIFO waits for none of the users who write to it.
 *   poll    poll(), select() and epoll_wait(): on each file polled, for
 *           room as a writer does, for data as a reader does (an AF_UNIX
 *           socket's, a pipe's, an eventfd's: its last writer, of one's
 *           own user). epoll_wait() names one file, the one the sleeper
 *           handled last (the kernel keeps it as events are delivered and
 *           items added, changed or removed: nothing is walked per
 *           sleep).
 *   lock    a waiter on a PI futex waits for its owner, of its own user.
 *
 * These rules are the core's: no policy can widen them.
 */
#include <linux/cred.h>
#include <linux/eventfd.h>
#include <linux/file.h>
#include <linux/net.h>
#include <linux/pipe_fs_i.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/economy.h>
#include <linux/sched/task.h>
#include <linux/tty.h>
#include <net/af_unix.h>
#include <net/sock.h>

#include "economy.h"

/*
 * The task at a channel's end, if it is not current and has not begun to
 * exit. The end keeps only a task_struct reference (sched_economy_note()),
 * so the task it names may have exited long ago while the channel lives
 * on: nothing is given to it. No reference is taken: a task an end named
 * is freed a grace period after its last reference goes, whoever drops
 * it (sched_economy_free_later()), so its flags may be read here; one
 * seen without PF_EXITING keeps its own reference until the section ends
 * (delayed_put_task_struct() is queued only after PF_EXITING is set).
 * economy_target()'s caller holds rcu_read_lock() throughout and takes a
 * reference only for a donation, after the questions that turn most
 * sleeps down (economy_contended()): on SMP every sleep is asked them.
 */
static bool economy_may_name(struct task_struct *t)
{
	return t != current && !(READ_ONCE(t->flags) & PF_EXITING);
}

static struct task_struct *economy_end_task(struct sched_economy_end *end)
{
	struct task_struct *t = rcu_dereference(end->task);

	return t && economy_may_name(t) ? t : NULL;
}

/**
 * economy_contended - whether weight given to @t would count now
 * @t: the task current is about to wait for
 *
 * When every other runnable task of @t's CPU was woken from a wait on a
 * channel and is still at the I/O it waited for (a ping-pong alone on
 * its CPU, writers woken by their reader, the reader woken by their
 * data, even if preempted since), there is nothing to reorder, and
 * nothing moves: the kernel counts such tasks
 * (sched_economy_contenders()).
 *
 * Return: true if weight given to @t would count.
 */
bool economy_contended(struct task_struct *t)
{
	return sched_economy_contenders(t) > 0;
}

/* Under rcu_read_lock(), as task_uid() reads them, in one section. */
static bool economy_same_user(struct task_struct *a, struct task_struct *b)
{
	return uid_eq(__task_cred(a)->uid, __task_cred(b)->uid);
}

/*
 * The task reading @sk's peer (see economy_end_task()). A stream or seqpacket
 * socket's peer is set once, as it connects, and let go only as @sk itself
 * is released; the sleeper holds @sk, so the peer needs no lock and no
 * reference of its own. A datagram socket's peer changes with connect().
 */
static struct task_struct *economy_peer_reader(struct sock *sk)
{
	struct task_struct *t;
	struct sock *peer;

	if (sk->sk_type != SOCK_DGRAM) {
		peer = READ_ONCE(unix_peer(sk));
		return peer ? economy_end_task(&unix_sk(peer)->economy.reader) :
			      NULL;
	}
	peer = unix_peer_get(sk);
	if (!peer)
		return NULL;
	t = economy_end_task(&unix_sk(peer)->economy.reader);
	sock_put(peer);
	return t;
}

/* Room waits only for a reader of one's own user. */
static struct task_struct *economy_own_user(struct task_struct *t)
{
	if (t && !economy_same_user(current, t)) {
		economy_count(ECONOMY_DONATE_OTHER_USER, 1);
		t = NULL;
	}
	return t;
}

/*
 * Whether current, reading AF_UNIX socket @sk, still waits for the rest
 * of a reply whose first part it read: @t, its server and of its own
 * user, has run less than kernel.sched_economy_reply_us since current
 * first waited past that part. A reply may come in parts: a Wayland
 * compositor acknowledges a commit at once and answers it when it has
 * painted the frame. The server's CPU time, not the clock's, measures
 * the rest, so that a starved server still finishes inside it. The
 * budget says which waits may begin to give, not how long one lasts:
 * a client that goes idle right after a reply gives while it sleeps, as
 * one whose request got no reply does. That stays within one user:
 * across users a prompt answer must end the request, or every client
 * idle after its last reply would give a shared server its weight.
 *
 * @e->reply_from is written here and, as 0 at the first read after a
 * send, by af_unix, with no lock in common: compare-and-exchange, so that
 * no stamp outlives its expiry or overwrites a reply just begun.
 */
static bool economy_reply_rest(struct sock *sk, struct task_struct *t)
{
	struct unix_economy *e = &unix_sk(sk)->economy;
	u64 from = READ_ONCE(e->reply_from), ran;
	u64 rest = READ_ONCE(economy_reply_us) * NSEC_PER_USEC;

	if (from == U64_MAX || !rest || !economy_same_user(current, t))
		return false;
	/* + 1: 0 is af_unix's "the reply began"; a tick stale is no matter */
	ran = data_race(t->se.sum_exec_runtime) + 1;
	if (!from && try_cmpxchg64(&e->reply_from, &from, ran))
		from = ran;
	if (from == U64_MAX)
		return false;
	/* a server that changed since the stamp most likely wraps: it ends */
	if (from && ran - from < rest)
		return true;
	if (from)
		try_cmpxchg64(&e->reply_from, &from, U64_MAX);
	return false;
}

/*
 * The task a sleeper on AF_UNIX socket @sk waits for (no reference).
 * Whether the wait may give across groups (*@cross, below): a wait for
 * room, or a client's for its server's reply.
 */
static struct task_struct *economy_unix_target(struct sock *sk, int wait,
					       bool *cross)
{
	struct task_struct *t;

	*cross = wait != SCHED_ECONOMY_DATA ||
		 READ_ONCE(unix_sk(sk)->economy.connector);
	/* unix_wait_for_peer(): @sk is the receiver whose queue is full. */
	if (wait == SCHED_ECONOMY_ROOM)
		return economy_own_user(economy_end_task(&unix_sk(sk)->economy.reader));
	if (wait == SCHED_ECONOMY_SNDBUF)
		return economy_own_user(economy_peer_reader(sk));
	/* A request of its own outstanding: its end sent since it last read. */
	if (!READ_ONCE(unix_sk(sk)->economy.awaiting)) {
		/* the common idle wait looks nothing up */
		t = READ_ONCE(unix_sk(sk)->economy.reply_from) != U64_MAX ?
		    economy_peer_reader(sk) : NULL;
		if (t && economy_reply_rest(sk, t)) {
			economy_count(ECONOMY_REPLY_REST, 1);
			return t;
		}
		economy_count(ECONOMY_DONATE_NO_REQUEST, 1);
		return NULL;
	}
	t = economy_peer_reader(sk);
	if (t && !economy_same_user(current, t) &&
	    (!READ_ONCE(economy_cross_user) ||
	     !READ_ONCE(unix_sk(sk)->economy.connector))) {
		economy_count(ECONOMY_DONATE_OTHER_USER, 1);
		t = NULL;
	}
	return t;
}

static struct task_struct *economy_pipe_target(struct pipe_inode_info *pipe,
					       int wait, bool *cross)
{
	*cross = wait == SCHED_ECONOMY_ROOM;
	if (wait == SCHED_ECONOMY_ROOM)
		return economy_own_user(economy_end_task(&pipe->economy_reader));
	return economy_own_user(economy_end_task(&pipe->economy_writer));
}

/*
 * A pty's data goes to the other end's reader, and its input comes from
 * the task that reads the other end (a terminal emulator). A tty without
 * a link has no task at its other end.
 */
static struct task_struct *economy_tty_target(struct tty_struct *tty,
					      int wait, bool *cross)
{
	struct task_struct *t;

	*cross = wait == SCHED_ECONOMY_ROOM;
	if (!tty->link)
		return NULL;
	t = economy_end_task(&tty->link->economy_reader);
	return economy_own_user(t);
}

/* As unix_writable(): the test poll() makes for EPOLLOUT. */
static bool economy_unix_writable(struct sock *sk)
{
	return (refcount_read(&sk->sk_wmem_alloc) << 2) <=
	       READ_ONCE(sk->sk_sndbuf);
}

static bool economy_pipe_full(struct pipe_inode_info *pipe)
{
	return pipe_full(READ_ONCE(pipe->head), READ_ONCE(pipe->tail),
			 READ_ONCE(pipe->max_usage));
}

/*
 * Whether @sk is a server's end of a connection: its peer connect()ed. An
 * event loop that polls it (Xorg's, a broker's) with a reply of its own
 * just sent waits for the next request, not for a reply, and gives
 * nothing: the item it handled last is most often such an end.
 */
static bool economy_accepted(struct sock *sk)
{
	struct sock *peer;

	if (sk->sk_type == SOCK_DGRAM)
		return false;
	peer = READ_ONCE(unix_peer(sk));
	return peer && READ_ONCE(unix_sk(peer)->economy.connector);
}

/*
 * A file polled for @events (poll(), select(), epoll_wait()) names whom
 * a read or a write of it would wait for: an AF_UNIX socket, a pipe or
 * FIFO, an eventfd. A wait for room only where there is none: an
 * edge-triggered EPOLLOUT sleeps with room to spare.
 */
static struct task_struct *economy_file_target(struct file *file,
					       __poll_t events, bool *cross)
{
	struct socket *sock = sock_from_file(file);
	struct sched_economy_end *end;
	struct pipe_inode_info *pipe;

	*cross = false;
	if (sock) {
		struct sock *sk = sock->sk;

		if (!sk || sk->sk_family != AF_UNIX)
			return NULL;
		if ((events & EPOLLOUT) && !economy_unix_writable(sk))
			return economy_unix_target(sk, SCHED_ECONOMY_SNDBUF,
						   cross);
		if (!(events & EPOLLIN))
			return NULL;
		if (economy_accepted(sk)) {
			economy_count(ECONOMY_DONATE_NO_REQUEST, 1);
			return NULL;
		}
		return economy_unix_target(sk, SCHED_ECONOMY_DATA, cross);
	}
	pipe = get_pipe_info(file, false);
	if (pipe) {
		if ((events & EPOLLOUT) && (file->f_mode & FMODE_WRITE) &&
		    economy_pipe_full(pipe))
			return economy_pipe_target(pipe, SCHED_ECONOMY_ROOM,
						   cross);
		if ((events & EPOLLIN) && (file->f_mode & FMODE_READ))
			return economy_pipe_target(pipe, SCHED_ECONOMY_DATA,
						   cross);
		return NULL;
	}
	end = eventfd_economy_writer(file);
	if (end && (events & EPOLLIN))
		return economy_own_user(economy_end_task(end));
	return NULL;
}

/*
 * poll() and select(): the first file among those polled (its inline
 * entries, where the files of a few descriptors are) that names a task
 * to wait for.
 */
static struct task_struct *economy_poll_target(struct poll_wqueues *pwq,
					       bool *cross)
{
	struct task_struct *t = NULL;
	int i, n = min_t(int, pwq->inline_index, N_INLINE_POLL_ENTRIES);

	*cross = false;
	for (i = 0; i < n && !t; i++) {
		struct poll_table_entry *e = &pwq->inline_entries[i];

		t = economy_file_target(e->filp, e->key, cross);
	}
	return t;
}

/*
 * A PI futex's owner, held by the kernel for the call. The owner of a
 * lock shared with another user could stop and collect its waiters'
 * weight, as a stalled reader would: only one's own user's.
 */
static struct task_struct *economy_owner_target(struct task_struct *t)
{
	if (!economy_may_name(t))
		return NULL;
	return economy_own_user(t);
}

/**
 * economy_target - the task current, about to sleep on @chan, waits for
 * @type: enum sched_economy_chan
 * @chan: the channel
 * @wait: enum sched_economy_wait (the events polled for an epoll item)
 * @cross: set to whether the wait may give across task groups
 *
 * A wait may give across groups if it is a writer's for room, a client's
 * for its server's reply, or a lock waiter's. A reader waiting for data
 * as a server does (a pipe's or a tty's reader, an eventfd's, a socket
 * that did not connect()) waits for whoever writes next: in its own group
 * it gives as before, but it does not lend its group's share to the
 * groups of the users that write to it (a service's slice to a user's,
 * and everything that runs there).
 *
 * Context: under rcu_read_lock(), held until the task is let go of.
 * Return: the task, without a reference (economy_end_task()), or NULL if
 * it waits for nobody in particular (or for a task whose weight would
 * not count).
 */
struct task_struct *economy_target(int type, const void *chan, int wait,
				   bool *cross)
{
	*cross = false;
	switch (type) {
	case SCHED_ECONOMY_SOCK: {
		struct sock *sk = (struct sock *)chan;

		if (sk->sk_family != AF_UNIX)
			return NULL;
		return economy_unix_target(sk, wait, cross);
	}
	case SCHED_ECONOMY_PIPE:
		return economy_pipe_target((struct pipe_inode_info *)chan, wait,
					   cross);
	case SCHED_ECONOMY_TTY:
		return economy_tty_target((struct tty_struct *)chan, wait,
					  cross);
	case SCHED_ECONOMY_POLL:
		return economy_poll_target((struct poll_wqueues *)chan, cross);
	case SCHED_ECONOMY_EPOLL:
		return economy_file_target((struct file *)chan,
					   (__force __poll_t)wait,
					   cross);
	case SCHED_ECONOMY_EVENTFD:
		return economy_own_user(economy_end_task((struct sched_economy_end *)chan));
	case SCHED_ECONOMY_TASK:
		*cross = true;
		return economy_owner_target((struct task_struct *)chan);
	}
	return NULL;
}
