// SPDX-License-Identifier: GPL-2.0
/*
 * Every error of /dev/sched_economy (module/dev.c), as root and as uid
 * 65534, with the economy on and off: the right errno, and no state
 * change (the books of /proc/sched_economy and the balances of the
 * caller's sockets are byte-for-byte the same afterwards).
 *
 * The fixture is set up as root (targets, knobs), then the test drops to
 * the variant's uid before it opens the device (mode 0666).
 */
#include "econ_test.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include "kselftest_harness.h"
#include "sched_economy.h"

#define NOBODY		65534
#define NO_ERROR	0	/* not an error in this setting: skipped */

enum target {
	T_NONE,
	T_SELF,
	T_REAPED,	/* a pid that no longer exists */
	T_NEGATIVE,
	T_FIFO,		/* a SCHED_FIFO task of root */
	T_ROOT,		/* a fair task of root */
	T_SAME_UID,	/* a fair task of the caller's uid */
};

enum sock_kind {
	S_NONE,
	S_PAIR,		/* one end of a connected stream socketpair */
	S_UNCONNECTED,	/* an unconnected AF_UNIX datagram socket */
	S_BADFD,	/* -1 */
	S_CLOSEDFD,	/* a number that is not an open fd */
	S_PIPE,
	S_NETLINK,	/* a socket, but not AF_UNIX */
};

enum { ON, OFF };
enum { ROOT, USER };

struct err_case {
	const char *name;
	unsigned long cmd;
	enum target target;
	enum sock_kind sock;
	unsigned int flags;
	long long amount;	/* LLONG_MAX: the limit + 1 */
	bool bad_pointer;
	int want[2][2];		/* [ROOT/USER][ON/OFF] */
};

#define ALL(e)		{ { e, e }, { e, e } }
/* Valid requests: only "off" refuses them. */
#define VALID		{ { NO_ERROR, EOPNOTSUPP }, { NO_ERROR, EOPNOTSUPP } }

static const struct err_case cases[] = {
	{ "yield_to flags", SCHED_ECONOMY_IOC_YIELD_TO, T_SAME_UID, .flags = 1,
	  .want = ALL(EINVAL) },
	{ "yield_to reaped pid", SCHED_ECONOMY_IOC_YIELD_TO, T_REAPED,
	  .want = ALL(ESRCH) },
	{ "yield_to pid -1", SCHED_ECONOMY_IOC_YIELD_TO, T_NEGATIVE,
	  .want = ALL(ESRCH) },
	{ "yield_to self", SCHED_ECONOMY_IOC_YIELD_TO, T_SELF,
	  .want = ALL(EINVAL) },
	{ "yield_to SCHED_FIFO", SCHED_ECONOMY_IOC_YIELD_TO, T_FIFO,
	  .want = ALL(EINVAL) },
	{ "yield_to other uid", SCHED_ECONOMY_IOC_YIELD_TO, T_ROOT,
	  .want = { { NO_ERROR, EOPNOTSUPP }, { EPERM, EPERM } } },
	{ "yield_to same uid", SCHED_ECONOMY_IOC_YIELD_TO, T_SAME_UID,
	  .want = VALID },
	{ "yield_to bad pointer", SCHED_ECONOMY_IOC_YIELD_TO, T_SAME_UID,
	  .bad_pointer = true, .want = ALL(EFAULT) },

	{ "pay fd -1", SCHED_ECONOMY_IOC_PAY, .sock = S_BADFD,
	  .want = ALL(EBADF) },
	{ "pay closed fd", SCHED_ECONOMY_IOC_PAY, .sock = S_CLOSEDFD,
	  .want = ALL(EBADF) },
	{ "pay pipe", SCHED_ECONOMY_IOC_PAY, .sock = S_PIPE,
	  .want = ALL(ENOTSOCK) },
	{ "pay netlink socket", SCHED_ECONOMY_IOC_PAY, .sock = S_NETLINK,
	  .want = ALL(EAFNOSUPPORT) },
	{ "pay unknown flag", SCHED_ECONOMY_IOC_PAY, .sock = S_PAIR,
	  .flags = 2, .want = ALL(EINVAL) },
	{ "pay negative", SCHED_ECONOMY_IOC_PAY, .sock = S_PAIR,
	  .amount = -1, .want = ALL(EINVAL) },
	{ "pay over limit", SCHED_ECONOMY_IOC_PAY, .sock = S_PAIR,
	  .amount = LLONG_MAX, .want = ALL(EINVAL) },
	{ "pay peer unconnected", SCHED_ECONOMY_IOC_PAY, .sock = S_UNCONNECTED,
	  .flags = SCHED_ECONOMY_PEER, .want = ALL(ENOTCONN) },
	{ "pay bad pointer", SCHED_ECONOMY_IOC_PAY, .sock = S_PAIR,
	  .bad_pointer = true, .want = ALL(EFAULT) },
	{ "pay valid", SCHED_ECONOMY_IOC_PAY, .sock = S_PAIR, .want = VALID },
	{ "pay peer valid", SCHED_ECONOMY_IOC_PAY, .sock = S_PAIR,
	  .flags = SCHED_ECONOMY_PEER, .want = VALID },

	{ "withdraw fd -1", SCHED_ECONOMY_IOC_WITHDRAW, .sock = S_BADFD,
	  .want = ALL(EBADF) },
	{ "withdraw pipe", SCHED_ECONOMY_IOC_WITHDRAW, .sock = S_PIPE,
	  .want = ALL(ENOTSOCK) },
	{ "withdraw netlink socket", SCHED_ECONOMY_IOC_WITHDRAW,
	  .sock = S_NETLINK, .want = ALL(EAFNOSUPPORT) },
	{ "withdraw peer flag", SCHED_ECONOMY_IOC_WITHDRAW, .sock = S_PAIR,
	  .flags = SCHED_ECONOMY_PEER, .want = ALL(EINVAL) },
	{ "withdraw negative", SCHED_ECONOMY_IOC_WITHDRAW, .sock = S_PAIR,
	  .amount = -5, .want = ALL(EINVAL) },
	{ "withdraw over limit", SCHED_ECONOMY_IOC_WITHDRAW, .sock = S_PAIR,
	  .amount = LLONG_MAX, .want = ALL(EINVAL) },
	{ "withdraw valid", SCHED_ECONOMY_IOC_WITHDRAW, .sock = S_PAIR,
	  .want = VALID },

	{ "account flags", SCHED_ECONOMY_IOC_ACCOUNT, .sock = S_PAIR,
	  .flags = 1, .want = ALL(EINVAL) },
	{ "account fd -1", SCHED_ECONOMY_IOC_ACCOUNT, .sock = S_BADFD,
	  .want = ALL(EBADF) },
	{ "account pipe", SCHED_ECONOMY_IOC_ACCOUNT, .sock = S_PIPE,
	  .want = ALL(ENOTSOCK) },
	{ "account netlink socket", SCHED_ECONOMY_IOC_ACCOUNT,
	  .sock = S_NETLINK, .want = ALL(EAFNOSUPPORT) },
	{ "account bad pointer", SCHED_ECONOMY_IOC_ACCOUNT, .sock = S_PAIR,
	  .bad_pointer = true, .want = ALL(EFAULT) },
	{ "credit bad pointer", SCHED_ECONOMY_IOC_CREDIT, .bad_pointer = true,
	  .want = ALL(EFAULT) },

	{ "unknown ioctl nr", _IOWR(SCHED_ECONOMY_IOC_MAGIC, 0x50, __s64),
	  .want = ALL(ENOTTY) },
	{ "unknown ioctl magic", _IOWR('T', 0x41, struct sched_economy_xfer),
	  .want = ALL(ENOTTY) },
	{ "pay ioctl with wrong size", _IOWR(SCHED_ECONOMY_IOC_MAGIC, 0x41, __s64),
	  .want = ALL(ENOTTY) },
};

FIXTURE(api) {
	pid_t fifo, root_task, same_uid, reaped;
	int pair[2], unconnected, pipe[2], netlink, closed;
	int dev, life[2], books;
	void *bad;
};

FIXTURE_VARIANT(api) {
	int uid;
	int state;	/* ON / OFF */
};

FIXTURE_VARIANT_ADD(api, root_on) { .uid = 0, .state = ON };
FIXTURE_VARIANT_ADD(api, root_off) { .uid = 0, .state = OFF };
FIXTURE_VARIANT_ADD(api, nobody_on) { .uid = NOBODY, .state = ON };
FIXTURE_VARIANT_ADD(api, nobody_off) { .uid = NOBODY, .state = OFF };

/*
 * A task that sleeps until the test closes the write end of @life (by
 * exiting): PR_SET_PDEATHSIG would not reach a root sleeper from a test
 * that dropped to nobody, as the signal is subject to kill(2)'s rule.
 */
static pid_t sleeper(int life[2])
{
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	close(life[1]);
	while (read(life[0], &c, 1) > 0)
		;
	_exit(0);
}

static void drop_to(struct __test_metadata *_metadata, int uid)
{
	ASSERT_EQ(0, setgroups(0, NULL));
	ASSERT_EQ(0, setresgid(uid, uid, uid));
	ASSERT_EQ(0, setresuid(uid, uid, uid));
}

FIXTURE_SETUP(api)
{
	struct sched_param sp = { .sched_priority = 1 };
	pid_t pid;

	ASSERT_EQ(0u, getuid()) TH_LOG("run me as root; I drop privileges myself");
	ASSERT_EQ(0, econ_load_module());
	/* The lag ioctls are refused under "lend": test them under "queue". */
	ASSERT_EQ(0, econ_write_knob("sched_economy_policy", "queue"));
	ASSERT_EQ(0, econ_write_knob("sched_economy",
				     variant->state == ON ? "1" : "0"));

	ASSERT_EQ(0, pipe2(self->life, O_CLOEXEC));
	self->fifo = sleeper(self->life);
	ASSERT_LT(0, self->fifo);
	ASSERT_EQ(0, sched_setscheduler(self->fifo, SCHED_FIFO, &sp));
	self->root_task = sleeper(self->life);
	ASSERT_LT(0, self->root_task);
	pid = fork();
	if (!pid)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	self->reaped = pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, self->pair));
	self->unconnected = socket(AF_UNIX, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->unconnected);
	ASSERT_EQ(0, pipe2(self->pipe, 0));
	self->netlink = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	ASSERT_LE(0, self->netlink) TH_LOG("AF_NETLINK: %s", strerror(errno));
	/* High enough that nothing opened later takes it. */
	self->closed = 4000;
	ASSERT_EQ(-1, fcntl(self->closed, F_GETFD));
	self->bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->bad);

	/* Opened as root: the counters are shown to root's file only. */
	self->books = open(ECON_BOOKS, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->books);
	if (variant->uid)
		drop_to(_metadata, variant->uid);
	self->same_uid = sleeper(self->life);
	ASSERT_LT(0, self->same_uid);
	self->dev = open(SCHED_ECONOMY_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->dev) TH_LOG("open: %s", strerror(errno));
}

FIXTURE_TEARDOWN(api)
{
	/* The sleepers exit when the last write end of life[] closes. */
	close(self->dev);
	close(self->books);
}

static int case_fd(FIXTURE_DATA(api) *self, enum sock_kind s)
{
	switch (s) {
	case S_PAIR:		return self->pair[0];
	case S_UNCONNECTED:	return self->unconnected;
	case S_BADFD:		return -1;
	case S_CLOSEDFD:	return self->closed;
	case S_PIPE:		return self->pipe[0];
	case S_NETLINK:		return self->netlink;
	default:		return -1;
	}
}

static pid_t case_pid(FIXTURE_DATA(api) *self, enum target t)
{
	switch (t) {
	case T_SELF:		return getpid();
	case T_REAPED:		return self->reaped;
	case T_NEGATIVE:	return -1;
	case T_FIFO:		return self->fifo;
	case T_ROOT:		return self->root_task;
	case T_SAME_UID:	return self->same_uid;
	default:		return 0;
	}
}

/* What must not change: the books and the balances of our sockets. */
struct state {
	char books[4096];
	struct sched_economy_account acct[3];
};

static int snapshot(FIXTURE_DATA(api) *self, struct state *st)
{
	int fds[3] = { self->pair[0], self->pair[1], self->unconnected };
	ssize_t n;
	int i;

	memset(st, 0, sizeof(*st));
	n = pread(self->books, st->books, sizeof(st->books) - 1, 0);
	if (n <= 0)
		return -1;
	for (i = 0; i < 3; i++) {
		st->acct[i].fd = fds[i];
		if (ioctl(self->dev, SCHED_ECONOMY_IOC_ACCOUNT, &st->acct[i]))
			return -1;
	}
	return 0;
}

static int run_case(FIXTURE_DATA(api) *self, const struct err_case *c)
{
	union {
		struct sched_economy_yield_to y;
		struct sched_economy_xfer x;
		struct sched_economy_account a;
		__s64 credit;
	} arg;
	long long amount = c->amount;

	memset(&arg, 0, sizeof(arg));
	if (amount == LLONG_MAX)
		amount = econ_read_knob("sched_economy_limit_ns") + 1;
	switch (c->cmd) {
	case SCHED_ECONOMY_IOC_YIELD_TO:
		arg.y.pid = case_pid(self, c->target);
		arg.y.flags = c->flags;
		break;
	case SCHED_ECONOMY_IOC_PAY:
	case SCHED_ECONOMY_IOC_WITHDRAW:
		arg.x.fd = case_fd(self, c->sock);
		arg.x.flags = c->flags;
		arg.x.amount_ns = amount;
		break;
	case SCHED_ECONOMY_IOC_ACCOUNT:
		arg.a.fd = case_fd(self, c->sock);
		arg.a.flags = c->flags;
		break;
	}
	errno = 0;
	if (ioctl(self->dev, c->cmd, c->bad_pointer ? self->bad : (void *)&arg))
		return errno;
	return 0;
}

TEST_F(api, errors)
{
	int who = variant->uid ? USER : ROOT;
	int failed = 0, checked = 0;
	struct state before, after;
	size_t i;

	TH_LOG("uid %d, economy %s", getuid(), variant->state == ON ? "on" : "off");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct err_case *c = &cases[i];
		int want = c->want[who][variant->state];
		int got;

		if (want == NO_ERROR)
			continue;
		ASSERT_EQ(0, snapshot(self, &before));
		got = run_case(self, c);
		ASSERT_EQ(0, snapshot(self, &after));
		checked++;
		if (got != want) {
			failed++;
			TH_LOG("FAIL %-26s errno %d (%s), want %d (%s)", c->name,
			       got, strerror(got), want, strerror(want));
		} else if (memcmp(&before, &after, sizeof(before))) {
			failed++;
			TH_LOG("FAIL %-26s %s: state changed:\n%s---\n%s", c->name,
			       strerror(got), before.books, after.books);
		} else {
			TH_LOG("ok   %-26s %s", c->name, strerror(got));
		}
	}
	TH_LOG("%d of %d cases as expected", checked - failed, checked);
	EXPECT_EQ(0, failed);
}

/* The read-only ioctls answer whatever the switch says. */
TEST_F(api, readonly_works)
{
	struct sched_economy_account a = { .fd = self->pair[0] };
	__s64 credit = LLONG_MIN;

	EXPECT_EQ(0, ioctl(self->dev, SCHED_ECONOMY_IOC_CREDIT, &credit));
	EXPECT_NE(LLONG_MIN, credit);
	EXPECT_EQ(0, ioctl(self->dev, SCHED_ECONOMY_IOC_ACCOUNT, &a));
	EXPECT_EQ(0, a.balance_ns);
	EXPECT_LT(0, a.price_ns);
	TH_LOG("credit %lld ns, fresh account: balance %lld price %lld",
	       (long long)credit, (long long)a.balance_ns, (long long)a.price_ns);
}

TEST_HARNESS_MAIN
