// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_input: bad input for a bounded time, while flooders trade.
 *
 * Random and boundary writes to every /proc/sys/kernel/sched_economy*
 * knob, and random ioctls on /dev/sched_economy: random command numbers
 * in and around the 0xEC magic, the real commands with wrong sizes and
 * directions, random argument bytes (fds, pids, flags, amounts) and bad
 * pointers. Checks:
 *  - after every write the knob holds a valid value; a refused write left
 *    it unchanged; at the end each knob holds the value read back after
 *    back after an accepted write;
 *  - no splat (the runner scans the console; run on the debug kernel);
 *  - once the traffic stops the books balance: residue_ns 0, and the
 *    unload line of rmmod says residue 0.
 *
 *	fuzz_input [seconds [seed]]
 */
#include "economy_util.h"

#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>

#define NKNOBS	7

struct knob {
	const char *name;
	long long min, max;	/* numeric knobs */
	const char *const *names; /* sched_economy_policy */
	char first[64];
	char last[64];		/* read back after our latest write */
	long changes;
	long ok, refused;
};

/* The policy names the module offers (econ_policies()), NULL-terminated. */
static char policy_names[256];
static const char *policies[17];

static struct knob knobs[NKNOBS] = {
	{ .name = "sched_economy", .min = 0, .max = 1 },
	{ .name = "sched_economy_price_ns", .min = 1000, .max = 1000000000 },
	{ .name = "sched_economy_limit_ns", .min = 1000, .max = 1000000000 },
	{ .name = "sched_economy_target_qlen", .min = 1, .max = 1024 },
	{ .name = "sched_economy_policy", .names = policies },
	{ .name = "sched_economy_lend_pct", .min = 1, .max = 100 },
	{ .name = "sched_economy_groups", .min = 0, .max = 1 },
};

static const char * const boundary[] = {
	"0", "1", "-1", "2", "999", "1000", "1001", "1024", "1025",
	"100000", "2000000", "1000000000", "1000000001", "2147483647",
	"2147483648", "4294967295", "4294967296", "-4294967295",
	"9223372036854775807", "9223372036854775808",
	"18446744073709551615", "18446744073709551616",
	"99999999999999999999999999", "-0", "+1", "0x3e8", "0X10", "010",
	"1e3", "1.5", " 5", "5 ", "5\n", "\n5", "5 6", "5\t6", "\t", "\n", " ",
	"", "abc", "5abc", "--1", "0x", "queue", "fixed", "seed", "queue\n",
	" fixed", "seed ", "QUEUE", "queuex", "que", "queue fixed",
	"fixed\nseed", "seedfixedqueue", "queuequeuequeuequeue",
};

static unsigned long long rnd(void)
{
	return ((unsigned long long)random() << 33) ^
	       ((unsigned long long)random() << 11) ^ random();
}

static int read_knob(struct knob *k, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", k->name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int valid(struct knob *k, const char *v)
{
	char *end;
	long long x;
	int i;

	if (k->names) {
		for (i = 0; k->names[i]; i++)
			if (!strcmp(v, k->names[i]))
				return 1;
		return 0;
	}
	errno = 0;
	x = strtoll(v, &end, 10);
	return !errno && *v && !*end && x >= k->min && x <= k->max;
}

/* Random contents: a boundary value, random bytes, digits, or a long run. */
static size_t make_input(char *buf, size_t cap)
{
	size_t len, i;

	switch (random() % 6) {
	case 0:
	case 1: {
		const char *b = boundary[random() % (sizeof(boundary) /
						     sizeof(*boundary))];
		len = strlen(b);
		memcpy(buf, b, len);
		return len;
	}
	case 2:
		len = random() % 64;
		for (i = 0; i < len; i++)
			buf[i] = random();
		return len;
	case 3:
		return snprintf(buf, cap, "%lld", (long long)rnd() >>
				(random() % 64));
	case 4:
		len = random() % 32;
		for (i = 0; i < len; i++)
			buf[i] = "0123456789 -+x\n\t\0abcdefq"[random() % 24];
		return len;
	default:
		len = 1 + random() % (cap - 1);
		memset(buf, '0' + random() % 10, len);
		return len;
	}
}

static int fuzz_sysctl(char *bad_page)
{
	struct knob *k = &knobs[random() % NKNOBS];
	char path[128], before[64], after[64], buf[8192];
	size_t len = make_input(buf, sizeof(buf));
	off_t off = random() % 8 ? 0 : random() % 24;
	const void *src = buf;
	ssize_t n;
	int fd;

	if (random() % 32 == 0)
		src = random() % 2 ? NULL : bad_page;
	if (read_knob(k, before, sizeof(before)))
		return 1;
	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", k->name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return 1;
	n = pwrite(fd, src, len, off);
	close(fd);
	if (read_knob(k, after, sizeof(after)))
		return 1;
	if (!valid(k, after)) {
		printf("not ok: %s holds '%s' after a write of %zu bytes at %lld\n",
		       k->name, after, len, (long long)off);
		return 1;
	}
	if (n < 0) {
		k->refused++;
		if (strcmp(before, after)) {
			printf("not ok: %s changed '%s' -> '%s' on a refused write (%s)\n",
			       k->name, before, after, strerror(errno));
			return 1;
		}
		return 0;
	}
	k->ok++;
	k->changes += !!strcmp(before, after);
	strcpy(k->last, after);
	return 0;
}

static const unsigned int real_cmds[] = {
	SCHED_ECONOMY_IOC_YIELD_TO, SCHED_ECONOMY_IOC_PAY,
	SCHED_ECONOMY_IOC_WITHDRAW, SCHED_ECONOMY_IOC_CREDIT,
	SCHED_ECONOMY_IOC_ACCOUNT,
};

/* Commands in and around the 0xEC magic; none is a generic VFS ioctl. */
static unsigned int make_cmd(void)
{
	unsigned int cmd = real_cmds[random() % 5];

	switch (random() % 8) {
	case 0:
	case 1:
	case 2:
	case 3:
		return cmd;
	case 4:	/* the right number, another size and direction */
		return _IOC(random() % 4, _IOC_TYPE(cmd), _IOC_NR(cmd),
			    random() % 2 ? random() % 64 : random() % 16384);
	case 5:	/* the magic, any number */
		return _IOC(random() % 4, 0xEC, random() % 256,
			    random() % 64);
	case 6:	/* a neighbouring magic */
		return _IOC(random() % 4, 0xE0 + random() % 32,
			    random() % 256, random() % 64);
	default: /* anything with a type byte of 0xE0-0xFF */
		return (rnd() & ~(0xffU << _IOC_TYPESHIFT)) |
		       ((0xE0U + random() % 32) << _IOC_TYPESHIFT);
	}
}

static long long pick_number(int *fds, int nfds, pid_t *pids, int npids)
{
	switch (random() % 8) {
	case 0:
		return fds[random() % nfds];
	case 1:
		return pids[random() % npids];
	case 2:
		return -1;
	case 3:
		return 0;
	case 4:
		return random() % 4096;
	case 5:
		return (long long)rnd() >> (random() % 64);
	case 6:
		return -(long long)(random() % 3000000);
	default:
		return random() % 3000000;
	}
}

static int fuzz_ioctl(int dev, char *arg, char *bad_page, char *ro_page,
		      int *fds, int nfds, pid_t *pids, int npids, long *hist)
{
	unsigned int cmd = make_cmd();
	void *p = arg;
	int r, i;

	/* Random bytes, or fields that mean something. */
	for (i = 0; i < 64; i++)
		arg[i] = random();
	if (random() % 2) {
		int32_t *w = (int32_t *)arg;
		int64_t *q = (int64_t *)arg;

		w[0] = pick_number(fds, nfds, pids, npids);
		w[1] = random() % 4 ? 0 : random() % 4 ? SCHED_ECONOMY_PEER :
		       (int)rnd();
		q[1] = pick_number(fds, nfds, pids, npids);
		q[2] = pick_number(fds, nfds, pids, npids);
	}
	switch (random() % 12) {
	case 0:
		p = NULL;
		break;
	case 1:
		p = bad_page;
		break;
	case 2:
		p = ro_page;	/* readable, not writable */
		break;
	case 3:
		p = (void *)0xffff888000000000UL;	/* the kernel's */
		break;
	case 4:
		p = bad_page - 8;	/* straddles into the hole */
		memcpy(p, arg, 8);
		break;
	}
	r = ioctl(dev, cmd, p);
	hist[r < 0 ? (errno < 255 ? errno : 255) : 0]++;
	return 0;
}

static pid_t start(const char *type, const char *how, const char *block)
{
	pid_t pid = fork();

	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execlp("flood", "flood", type, how, block, (char *)NULL);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 20;
	unsigned int seed = argc > 2 ? strtoul(argv[2], NULL, 0) :
			    (unsigned int)time(NULL) ^ getpid();
	static char argbuf[64] __attribute__((aligned(8)));
	long hist[256] = { 0 }, sysctls = 0, ioctls = 0;
	char *page, *bad_page, *ro_page, line[512] = "", now[64];
	int dev, fds[8], sv[2], i, j, fail = 0, nflood = 0;
	pid_t pids[16], flood[4];
	time_t end;

	setvbuf(stdout, NULL, _IOLBF, 0);
	srandom(seed);
	printf("# seed %u, %d s\n", seed, secs);
	system("rmmod sched_economy 2>/dev/null");
	if (system("insmod /modules/sched_economy.ko")) {
		printf("not ok: insmod\n");
		return 1;
	}
	i = econ_policies(policy_names, sizeof(policy_names), policies, 16);
	if (i < 0) {
		printf("not ok: sched_economy_available_policies\n");
		return 1;
	}
	policies[i] = NULL;
	printf("# policies:");
	for (j = 0; policies[j]; j++)
		printf(" %s", policies[j]);
	printf("\n");
	for (i = 0; i < NKNOBS; i++)
		if (read_knob(&knobs[i], knobs[i].first,
			      sizeof(knobs[i].first))) {
			printf("not ok: read %s\n", knobs[i].name);
			return 1;
		}
	for (i = 0; i < NKNOBS; i++)
		strcpy(knobs[i].last, knobs[i].first);
	sysctl_write("sched_economy", "1");
	strcpy(knobs[0].last, "1");

	/* Three pages: read-only, writable, a hole. */
	page = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	ro_page = page;
	bad_page = page + 8192;
	mprotect(ro_page, 4096, PROT_READ);
	munmap(bad_page, 4096);
	page = argbuf;

	flood[nflood++] = start("stream", "pair", "block");
	flood[nflood++] = start("seqpacket", "bound", "nonblock");
	flood[nflood++] = start("dgram", "pair", "nonblock");

	dev = open(SCHED_ECONOMY_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		printf("not ok: open %s\n", SCHED_ECONOMY_DEVICE);
		return 1;
	}
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	fds[0] = sv[0];
	fds[1] = sv[1];
	socketpair(AF_UNIX, SOCK_DGRAM, 0, fds + 2);
	fds[4] = socket(AF_UNIX, SOCK_SEQPACKET, 0);	/* unconnected */
	fds[5] = dev;					/* not a socket */
	fds[6] = socket(AF_INET, SOCK_DGRAM, 0);	/* not AF_UNIX */
	fds[7] = 9999;					/* not open */
	for (i = 0; i < nflood; i++)
		pids[i] = flood[i];
	pids[i++] = getpid();
	pids[i++] = 1;
	pids[i++] = 2;		/* kthreadd */
	pids[i++] = 0;
	pids[i++] = -1;
	pids[i++] = 4194304;
	pids[i++] = 99999;

	end = time(NULL) + secs;
	while (time(NULL) < end) {
		for (j = 0; j < 50; j++) {
			if (random() % 3 == 0) {
				sysctls++;
				fail |= fuzz_sysctl(bad_page);
			} else {
				ioctls++;
				/* Keep some credit flowing into our sockets. */
				if (j % 10 == 0)
					send(sv[0], "x", 1, MSG_DONTWAIT);
				fuzz_ioctl(dev, page, bad_page, ro_page, fds, 8,
					   pids, i, hist);
			}
		}
		if (fail)
			break;
	}

	printf("# %ld sysctl writes, %ld ioctls\n", sysctls, ioctls);
	for (i = 0; i < NKNOBS; i++) {
		struct knob *k = &knobs[i];
		int ok;

		if (read_knob(k, now, sizeof(now)))
			strcpy(now, "(unreadable)");
		ok = !strcmp(now, k->last);
		printf("# %s: %ld accepted, %ld refused, %ld changed it; now '%s' (first '%s')\n",
		       k->name, k->ok, k->refused, k->changes, now, k->first);
		if (!ok) {
			printf("not ok: %s holds '%s', last read back '%s'\n",
			       k->name, now, k->last);
			fail = 1;
		}
		if (!k->ok || !k->refused) {
			printf("not ok: %s: the fuzzer never got a write %s\n",
			       k->name, k->ok ? "refused" : "accepted");
			fail = 1;
		}
	}
	printf("# ioctl results:");
	for (i = 0; i < 256; i++)
		if (hist[i])
			printf(" %s %ld;", i ? strerrorname_np(i) : "ok",
			       hist[i]);
	printf("\n");
	if (!hist[0]) {
		printf("not ok: no ioctl succeeded\n");
		fail = 1;
	}

	/* Stop the traffic; the books must balance. */
	for (i = 0; i < nflood; i++) {
		kill(flood[i], SIGKILL);
		waitpid(flood[i], NULL, 0);
	}
	for (i = 0; i < 5; i++)
		close(fds[i]);
	close(fds[6]);
	close(dev);
	usleep(300000);
	printf("# books: paid %lld withdrawn %lld expired %lld outstanding %lld residue %lld; payments %lld withdrawals %lld yield_tos %lld\n",
	       econ_book("paid_ns"), econ_book("withdrawn_ns"), econ_book("expired_ns"),
	       econ_book("outstanding_ns"), econ_book("residue_ns"), econ_book("payments"),
	       econ_book("withdrawals"), econ_book("yield_tos"));
	if (econ_book("residue_ns")) {
		printf("not ok: residue after the traffic stopped\n");
		fail = 1;
	}
	system("dmesg -c > /dev/null");
	if (system("rmmod sched_economy")) {
		printf("not ok: rmmod\n");
		return 1;
	}
	econ_unload_line(line, sizeof(line));
	printf("# %s", line);
	if (!strstr(line, " residue 0\n")) {
		printf("not ok: unload residue\n");
		fail = 1;
	}
	if (!fail)
		printf("ok: fuzz_input, seed %u\n", seed);
	return fail;
}
