// SPDX-License-Identifier: GPL-2.0
/*
 * conservation: paid = withdrawn + expired + outstanding, exactly, under
 * contention: many processes on many sockets of all three types, implicit
 * and explicit transfers, readers that exit mid-stream, on every vCPU.
 * Outstanding is checked against the sum of the balances of the sockets
 * still open, and must move into expired, to the ns, when they close.
 *
 *	conservation [pairs [messages [min_transactions]]]
 */
#include "economy_util.h"

#include <sys/socket.h>

#define MSG	16

static const int types[] = { SOCK_STREAM, SOCK_SEQPACKET, SOCK_DGRAM };

static void writer(int fd, int n)
{
	struct sched_economy_xfer x = { .fd = fd, .flags = SCHED_ECONOMY_PEER };
	char buf[MSG] = "conservation";
	int i;

	for (i = 0; i < n; i++) {
		if (send(fd, buf, MSG, MSG_NOSIGNAL) != MSG)
			_exit(0);
		if (i % 64 == 0)
			ioctl(economy_dev(), SCHED_ECONOMY_IOC_PAY, &x);
	}
	_exit(0);
}

static void reader(int fd, int n, int quit_early)
{
	struct sched_economy_xfer x = { .fd = fd };
	long want = (long)n * MSG, got = 0, r;
	char buf[4 * MSG];
	int i = 0;

	if (quit_early)
		want /= 2;
	while (got < want) {
		r = recv(fd, buf, sizeof(buf) < (size_t)(want - got) ?
			 sizeof(buf) : (size_t)(want - got), 0);
		if (r <= 0)
			_exit(1);
		got += r;
		if (++i % 64 == 0)
			ioctl(economy_dev(), SCHED_ECONOMY_IOC_WITHDRAW, &x);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 32;
	int n = argc > 2 ? atoi(argv[2]) : 15000;
	long long min_moves = argc > 3 ? atoll(argv[3]) : 100000;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, fail = 0, status;
	long long held = 0, paid, moved, b;
	int (*sv)[2] = calloc(pairs, sizeof(*sv));
	pid_t *kids = calloc(2 * pairs, sizeof(*kids));
	pid_t hogs[16];

	if (economy_dev() < 0 || sysctl_write("sched_economy_policy", "queue") ||
	    sysctl_write("sched_economy", "1")) {
		perror("sched_economy");
		return 1;
	}
	/* Busy loops on every CPU, so that there is credit to trade. */
	for (i = 0; i < ncpu && i < 16; i++)
		start_hogs(&hogs[i], 1, i);

	for (i = 0; i < pairs; i++) {
		int type = types[i % 3], quit_early = i % 4 == 3;

		if (socketpair(AF_UNIX, type, 0, sv[i]))
			return 1;
		kids[2 * i] = fork();
		if (!kids[2 * i]) {
			close(sv[i][1]);
			writer(sv[i][0], n);
		}
		kids[2 * i + 1] = fork();
		if (!kids[2 * i + 1]) {
			close(sv[i][0]);
			reader(sv[i][1], n, quit_early);
		}
		if (quit_early) {
			/* Only the children hold these: they die mid-stream. */
			close(sv[i][0]);
			close(sv[i][1]);
			sv[i][0] = sv[i][1] = -1;
		}
	}
	for (i = 0; i < 2 * pairs; i++)
		if (waitpid(kids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fail = 1;
	stop_hogs(hogs, ncpu < 16 ? ncpu : 16);
	/*
	 * Every child is gone, so nothing moves; the economy stays on until
	 * the sockets are closed, as switching it off writes balances off.
	 */
	usleep(200000);

	for (i = 0; i < pairs; i++) {
		if (sv[i][0] < 0)
			continue;
		b = balance(sv[i][0]) + balance(sv[i][1]);
		held += b;
	}
	paid = econ_book("paid_ns");
	moved = econ_book("payments") + econ_book("withdrawals");
	printf("# transactions %lld (payments %lld, withdrawals %lld), refusals: no credit %lld, over limit %lld, alone %lld\n",
	       moved, econ_book("payments"), econ_book("withdrawals"),
	       econ_book("pay_refused_no_credit"), econ_book("pay_refused_over_limit"),
	       econ_book("pay_refused_alone"));
	printf("# paid %lld = withdrawn %lld + expired %lld + outstanding %lld; residue %lld; open sockets hold %lld\n",
	       paid, econ_book("withdrawn_ns"), econ_book("expired_ns"),
	       econ_book("outstanding_ns"), econ_book("residue_ns"), held);
	if (fail)
		printf("not ok: a reader failed\n");
	if (econ_book("residue_ns") || econ_book("outstanding_ns") != held) {
		printf("not ok: books before close\n");
		fail = 1;
	}

	b = econ_book("expired_ns");
	for (i = 0; i < pairs; i++) {
		if (sv[i][0] < 0)
			continue;
		close(sv[i][0]);
		close(sv[i][1]);
	}
	usleep(200000);
	printf("# after close: expired +%lld, outstanding %lld, residue %lld\n",
	       econ_book("expired_ns") - b, econ_book("outstanding_ns"),
	       econ_book("residue_ns"));
	if (econ_book("residue_ns") || econ_book("outstanding_ns") ||
	    econ_book("expired_ns") - b != held) {
		printf("not ok: books after close\n");
		fail = 1;
	}
	sysctl_write("sched_economy", "0");
	if (econ_book("residue_ns") || econ_book("outstanding_ns")) {
		printf("not ok: books after switching off\n");
		fail = 1;
	}
	if (moved < min_moves) {
		printf("not ok: only %lld transactions\n", moved);
		fail = 1;
	}
	if (!paid) {
		printf("not ok: nothing was paid\n");
		fail = 1;
	}
	return fail;
}
