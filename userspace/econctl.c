// SPDX-License-Identifier: GPL-2.0
/*
 * econctl: the operator's tool for the scheduler economy.
 *
 * Reads and sets the knobs under /proc/sys/kernel/sched_economy*, shows the
 * books of /proc/sched_economy and drives the explicit transfers of
 * /dev/sched_economy. Exit status: 0 ok, 1 failure, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libsched_economy.h"

#define SYSCTL_DIR	"/proc/sys/kernel/"
#define BOOKS		"/proc/sched_economy"
#define LEDGER		"/proc/sched_economy_tasks"
#define LEDGER_MAX	4096

/* The bounds of module/sysctl.c and module/arith.h. */
#define PRICE_MIN_NS	1000ULL
#define LIMIT_MAX_NS	1000000000ULL
#define QLEN_MAX	1024ULL

enum { EXIT_USAGE = 2 };

static const char help_fmt[] =
"Usage: %1$s [-h] COMMAND [ARGS]\n"
"\n"
"Control the scheduler economy (sched_economy.ko).\n"
"\n"
"Commands:\n"
"  status                 switch, policy, knobs and the books\n"
"  on | off               turn the economy on or off\n"
"  set KEY=VALUE...       set knobs; all are checked before any is written:\n"
"                           price=NS   price of a message (fixed, seed;\n"
"                                      queue starts from it), %2$llu..%3$llu\n"
"                           limit=NS   most an account may hold, %2$llu..%3$llu\n"
"                           target=N   queue policy's target queue length, 1..%4$llu\n"
"                           policy=NAME one of the module's policies\n"
"                                      (sched_economy_available_policies)\n"
"  stats [-w] [-i SEC] [-n COUNT]\n"
"                         the books on one line; with -w (--watch) one\n"
"                         line of deltas every SEC seconds (default 1),\n"
"                         COUNT lines (-i or -n imply -w; Ctrl-C stops)\n"
"  yield-to PID           yield the CPU to thread PID with half of\n"
"                         this process's credit\n"
"  credit                 this process's credit (ns of nice-0 service)\n"
"  tasks                  the ledger of the lend policy: each task that\n"
"                         donates its weight or holds donated weight now,\n"
"                         with its own weight, the task it donates to, the\n"
"                         weight it donated and the weight it holds (and\n"
"                         the weight it runs with above its own, where the\n"
"                         module shows it), most first; then the sums\n"
"                         against the books' held_weight\n"
"                         (root: the ledger is mode 0400)\n"
"  top [-i SEC] [-n COUNT]\n"
"                         the ledger live: every SEC seconds (default 1)\n"
"                         the tasks that donate and hold most now, COUNT\n"
"                         times (Ctrl-C stops)\n"
"\n"
"  -h, --help             this help\n"
"\n"
"Exit status: 0 ok, 1 failure, 2 bad usage.\n";

static const char *prog = "econctl";

static int usage(FILE *f, int status)
{
	fprintf(f, help_fmt, prog, PRICE_MIN_NS, LIMIT_MAX_NS, QLEN_MAX);
	return status;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return EXIT_USAGE;
}

/* ------------------------------------------------------------ proc files */

static int read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		goto err;
	n = fread(buf, 1, size - 1, f);
	if (ferror(f)) {
		fclose(f);
		goto err;
	}
	fclose(f);
	buf[n] = '\0';
	return 0;
err:
	fprintf(stderr, "%s: %s: %s%s\n", prog, path, strerror(errno),
		errno == ENOENT ? " (is sched_economy.ko loaded?)" : "");
	return -1;
}

static int read_knob(const char *name, char *buf, size_t size)
{
	char path[128];

	snprintf(path, sizeof(path), SYSCTL_DIR "%s", name);
	if (read_file(path, buf, size))
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_knob(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), SYSCTL_DIR "%s", name);
	f = fopen(path, "w");
	if (!f)
		goto err;
	if (fputs(val, f) == EOF || fflush(f) == EOF) {
		int saved = errno;

		fclose(f);
		errno = saved;
		goto err;
	}
	if (fclose(f) == EOF)
		goto err;
	return 0;
err:
	fprintf(stderr, "%s: %s: %s%s\n", prog, path, strerror(errno),
		errno == ENOENT ? " (is sched_economy.ko loaded?)" : "");
	return -1;
}

/* ------------------------------------------------------------ the books */

enum {
	B_PAID, B_WITHDRAWN, B_EXPIRED, B_OUTSTANDING, B_RESIDUE,
	B_PAYMENTS, B_WITHDRAWALS, B_REFUSED, B_YIELD_TOS, B_YIELD_MOVED,
	NR_BOOKS,
};

struct books {
	char lines[4096];
	long long v[NR_BOOKS];
};

static const char * const book_names[NR_BOOKS] = {
	[B_PAID]	= "paid_ns",
	[B_WITHDRAWN]	= "withdrawn_ns",
	[B_EXPIRED]	= "expired_ns",
	[B_OUTSTANDING]	= "outstanding_ns",
	[B_RESIDUE]	= "residue_ns",
	[B_PAYMENTS]	= "payments",
	[B_WITHDRAWALS]	= "withdrawals",
	[B_REFUSED]	= "refused",
	[B_YIELD_TOS]	= "yield_tos",
	[B_YIELD_MOVED]	= "yield_moved_ns",
};

static int read_books(struct books *b)
{
	FILE *f = fopen(BOOKS, "r");
	char line[128], key[64];
	size_t used = 0;
	long long val;
	int i;

	if (!f) {
		fprintf(stderr, "%s: %s: %s%s\n", prog, BOOKS, strerror(errno),
			errno == ENOENT ? " (is sched_economy.ko loaded?)" : "");
		return -1;
	}
	memset(b, 0, sizeof(*b));
	while (fgets(line, sizeof(line), f)) {
		if (used + strlen(line) < sizeof(b->lines)) {
			strcpy(b->lines + used, line);
			used += strlen(line);
		}
		if (sscanf(line, "%63s %lld", key, &val) != 2)
			continue;
		if (strstr(key, "_refused_"))
			b->v[B_REFUSED] += val;
		for (i = 0; i < NR_BOOKS; i++)
			if (!strcmp(key, book_names[i]))
				b->v[i] = val;
	}
	fclose(f);
	return 0;
}

/* ------------------------------------------------------------ commands */

static const char * const knob_names[] = {
	"sched_economy_policy",
	"sched_economy_price_ns",
	"sched_economy_limit_ns",
	"sched_economy_target_qlen",
};

static int cmd_status(int argc, char **argv)
{
	char val[64], key[64], *line, *save;
	struct books b;
	size_t i;

	(void)argv;
	if (argc > 1)
		return usage_error("status: unexpected argument '%s'", argv[1]);
	if (read_knob("sched_economy", val, sizeof(val)))
		return 1;
	printf("%-28s %s\n", "enabled", val);
	for (i = 0; i < sizeof(knob_names) / sizeof(knob_names[0]); i++) {
		if (read_knob(knob_names[i], val, sizeof(val)))
			return 1;
		printf("%-28s %s\n", knob_names[i] + strlen("sched_economy_"), val);
	}
	if (read_books(&b))
		return 1;
	for (line = strtok_r(b.lines, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%63s %63s", key, val) != 2 ||
		    !strcmp(key, "enabled") || !strcmp(key, "policy"))
			continue;
		printf("%-28s %s\n", key, val);
	}
	return 0;
}

static int cmd_switch(int argc, char **argv, const char *val)
{
	if (argc > 1)
		return usage_error("unexpected argument '%s'", argv[1]);
	if (write_knob("sched_economy", val))
		return 1;
	printf("sched_economy %s\n", *val == '1' ? "on" : "off");
	return 0;
}

struct setting {
	const char *key;
	const char *knob;
	unsigned long long min, max;	/* min > max: a policy name */
	const char *val;
	char old[64];
};

static bool parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

/*
 * The policies the module offers now (policy modules loaded included), as
 * /proc/sys/kernel/sched_economy_available_policies lists them.
 */
static int available_policies(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/sched_economy_available_policies", "r");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, size, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static bool valid_policy(const char *s, const char *names)
{
	size_t n = strlen(s);
	const char *p;

	for (p = names; n && (p = strstr(p, s)); p += n)
		if ((p == names || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static int check_setting(struct setting *s, const char *val)
{
	unsigned long long v;

	if (s->val) {
		fprintf(stderr, "%s: set: %s given twice\n", prog, s->key);
		return -1;
	}
	if (s->min > s->max) {
		char names[256];

		if (available_policies(names, sizeof(names))) {
			fprintf(stderr, "%s: set: no list of policies (is sched_economy loaded?)\n",
				prog);
			return -1;
		}
		if (!valid_policy(val, names)) {
			fprintf(stderr, "%s: set: policy '%s' unknown (%s)\n",
				prog, val, names);
			return -1;
		}
	} else if (!parse_u64(val, &v) || v < s->min || v > s->max) {
		fprintf(stderr, "%s: set: %s='%s' is not an integer in %llu..%llu\n",
			prog, s->key, val, s->min, s->max);
		return -1;
	}
	s->val = val;
	return 0;
}

static int cmd_set(int argc, char **argv)
{
	struct setting set[] = {
		{ .key = "price", .knob = "sched_economy_price_ns",
		  .min = PRICE_MIN_NS, .max = LIMIT_MAX_NS },
		{ .key = "limit", .knob = "sched_economy_limit_ns",
		  .min = PRICE_MIN_NS, .max = LIMIT_MAX_NS },
		{ .key = "target", .knob = "sched_economy_target_qlen",
		  .min = 1, .max = QLEN_MAX },
		{ .key = "policy", .knob = "sched_economy_policy",
		  .min = 1, .max = 0 },
	};
	const size_t nr = sizeof(set) / sizeof(set[0]);
	size_t i, j;
	int a;

	if (argc < 2)
		return usage_error("set: %s", "KEY=VALUE expected");
	for (a = 1; a < argc; a++) {
		char *eq = strchr(argv[a], '=');

		for (i = 0; eq && i < nr; i++)
			if (strlen(set[i].key) == (size_t)(eq - argv[a]) &&
			    !strncmp(argv[a], set[i].key, eq - argv[a]))
				break;
		if (!eq || i == nr)
			return usage_error("set: '%s' is not one of price=NS, limit=NS, target=N, policy=NAME",
					   argv[a]);
		if (check_setting(&set[i], eq + 1))
			return EXIT_USAGE;
	}
	/* Remember the old values, so that a refused write can be undone. */
	for (i = 0; i < nr; i++)
		if (set[i].val && read_knob(set[i].knob, set[i].old, sizeof(set[i].old)))
			return 1;
	/*
	 * The module keeps price <= limit at every write: a limit that rises
	 * is written before the price, and a refused write is undone in
	 * reverse order.
	 */
	if (set[0].val && set[1].val &&
	    strtoull(set[1].val, NULL, 10) > strtoull(set[1].old, NULL, 10)) {
		struct setting tmp = set[0];

		set[0] = set[1];
		set[1] = tmp;
	}
	for (i = 0; i < nr; i++) {
		if (!set[i].val)
			continue;
		if (write_knob(set[i].knob, set[i].val)) {
			for (j = i; j-- > 0;)
				if (set[j].val)
					write_knob(set[j].knob, set[j].old);
			fprintf(stderr, "%s: set: nothing changed\n", prog);
			return 1;
		}
	}
	for (i = 0; i < nr; i++)
		if (set[i].val)
			printf("%s %s -> %s\n", set[i].key, set[i].old, set[i].val);
	return 0;
}

static volatile sig_atomic_t exiting;

static void sigint_handler(int sig)
{
	(void)sig;
	exiting = 1;
}

/* The -i SEC and -n COUNT of the commands that print every interval. */
struct repeat {
	double interval;		/* seconds between two prints */
	unsigned long long count;	/* prints, 0 until Ctrl-C */
	unsigned long long done;
};

/* @opt 'i' or 'n' of command @cmd; 0, or EXIT_USAGE for a bad @arg. */
static int parse_repeat(const char *cmd, int opt, const char *arg,
			struct repeat *r)
{
	char msg[96];
	char *end;

	if (opt == 'i') {
		errno = 0;
		r->interval = strtod(arg, &end);
		if (!errno && !*end && r->interval >= 0.01 && r->interval <= 3600)
			return 0;
		snprintf(msg, sizeof(msg), "%s: bad interval '%%s' (0.01..3600 s)", cmd);
	} else {
		if (parse_u64(arg, &r->count) && r->count)
			return 0;
		snprintf(msg, sizeof(msg), "%s: bad count '%%s'", cmd);
	}
	return usage_error(msg, arg);
}

/* Sleeps one interval; false once the count is done or on Ctrl-C. */
static bool repeat_next(struct repeat *r)
{
	struct timespec ts;

	if (!r->done) {
		signal(SIGINT, sigint_handler);
		signal(SIGTERM, sigint_handler);
	}
	if (exiting || (r->count && r->done >= r->count))
		return false;
	r->done++;
	ts.tv_sec = (time_t)r->interval;
	ts.tv_nsec = (long)((r->interval - ts.tv_sec) * 1e9);
	return !(nanosleep(&ts, NULL) && exiting);
}

static void print_books(const struct books *b, const struct books *prev)
{
	int i;

	for (i = 0; i < NR_BOOKS; i++) {
		long long v = b->v[i];

		/* Stocks are shown as they are, flows as deltas. */
		if (prev && i != B_OUTSTANDING && i != B_RESIDUE)
			v -= prev->v[i];
		printf("%s%*lld", i ? " " : "", (int)strlen(book_names[i]), v);
	}
	printf("\n");
	fflush(stdout);
}

static void print_header(bool watch)
{
	int i;

	if (watch)
		printf("# per interval, except outstanding_ns and residue_ns\n");
	for (i = 0; i < NR_BOOKS; i++)
		printf("%s%s", i ? " " : "", book_names[i]);
	printf("\n");
}

static int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "watch",	no_argument,		NULL, 'w' },
		{ "interval",	required_argument,	NULL, 'i' },
		{ "count",	required_argument,	NULL, 'n' },
		{ "help",	no_argument,		NULL, 'h' },
		{ }
	};
	struct repeat every = { .interval = 1 };
	struct books prev, cur;
	bool watch = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+wi:n:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			watch = true;
			break;
		case 'i':
		case 'n':
			if (parse_repeat("stats", opt, optarg, &every))
				return EXIT_USAGE;
			watch = true;
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage_error("stats: %s", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("stats: unexpected argument '%s'", argv[optind]);
	if (read_books(&prev))
		return 1;
	print_header(watch);
	if (!watch) {
		print_books(&prev, NULL);
		return 0;
	}
	while (repeat_next(&every)) {
		if (read_books(&cur))
			return 1;
		print_books(&cur, &prev);
		prev = cur;
	}
	return 0;
}

/* ------------------------------------------------------------ the ledger */

struct ledger_row {
	long long pid;
	char comm[64];
	long long own;		/* its nice level's weight */
	long long to;		/* the pid it donates to, 0 if none */
	long long donated;	/* the weight it donated */
	long long held;		/* the weight donated to it */
	long long adjust;	/* the weight it runs with above its own */
};

/*
 * The columns after pid and comm, by the names of the ledger's header:
 * own_weight donates_to donated held, and adjustment where the module
 * has it. A comm may hold spaces, so the numbers are taken from the end.
 */
enum { L_OWN, L_TO, L_DONATED, L_HELD, L_ADJUST, NR_LEDGER_COLS };

static const char * const ledger_cols[NR_LEDGER_COLS] = {
	[L_OWN]		= "own_weight",
	[L_TO]		= "donates_to",
	[L_DONATED]	= "donated",
	[L_HELD]	= "held",
	[L_ADJUST]	= "adjustment",
};

struct ledger_format {
	int nr;				/* numbers on a line */
	int col[NR_LEDGER_COLS];	/* each one's index among them, or -1 */
};

static struct ledger_format ledger_fmt;

static int split(char *line, char **tok, int max)
{
	char *save, *t;
	int n = 0;

	for (t = strtok_r(line, " \n", &save); t && n < max;
	     t = strtok_r(NULL, " \n", &save))
		tok[n++] = t;
	return n;
}

static int parse_ledger_header(char *line, struct ledger_format *fmt)
{
	char *tok[64];
	int n = split(line, tok, 64), i, j;

	if (n < 2 || strcmp(tok[0], "pid") || strcmp(tok[1], "comm"))
		return -1;
	fmt->nr = n - 2;
	for (j = 0; j < NR_LEDGER_COLS; j++) {
		fmt->col[j] = -1;
		for (i = 2; i < n; i++)
			if (!strcmp(tok[i], ledger_cols[j]))
				fmt->col[j] = i - 2;
		if (fmt->col[j] < 0 && j != L_ADJUST)
			return -1;
	}
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int parse_ledger_line(char *line, const struct ledger_format *fmt,
			     struct ledger_row *r)
{
	long long *v[NR_LEDGER_COLS] = {
		&r->own, &r->to, &r->donated, &r->held, &r->adjust,
	};
	char *tok[64];
	int n = split(line, tok, 64), i, first;

	/* A comm of no characters leaves pid and the numbers alone. */
	if (n < 1 + fmt->nr || !all_digits(tok[0]))
		return -1;
	memset(r, 0, sizeof(*r));
	r->pid = atoll(tok[0]);
	first = n - fmt->nr;
	for (i = 1; i < first; i++) {
		if (i > 1)
			strncat(r->comm, " ", sizeof(r->comm) - strlen(r->comm) - 1);
		strncat(r->comm, tok[i], sizeof(r->comm) - strlen(r->comm) - 1);
	}
	for (i = 0; i < NR_LEDGER_COLS; i++)
		if (fmt->col[i] >= 0)
			*v[i] = atoll(tok[first + fmt->col[i]]);
	return 0;
}

/* Returns the number of rows, -1 on error. */
static int read_ledger(struct ledger_row *rows)
{
	FILE *f = fopen(LEDGER, "r");
	char line[256];
	int n = 0;

	if (!f) {
		fprintf(stderr, "%s: %s: %s%s\n", prog, LEDGER, strerror(errno),
			errno == ENOENT ? " (is sched_economy.ko loaded?)" :
			errno == EACCES ? " (root only)" : "");
		return -1;
	}
	if (!fgets(line, sizeof(line), f) ||
	    parse_ledger_header(line, &ledger_fmt)) {
		fclose(f);
		fprintf(stderr, "%s: %s: a header of unknown columns\n", prog,
			LEDGER);
		return -1;
	}
	while (n < LEDGER_MAX && fgets(line, sizeof(line), f))
		if (!parse_ledger_line(line, &ledger_fmt, &rows[n]))
			n++;
	fclose(f);
	return n;
}

/* Most weight moved (held + donated) first, then by pid. */
static int by_weight(const void *a, const void *b)
{
	const struct ledger_row *x = a, *y = b;
	long long ax = x->held + x->donated, ay = y->held + y->donated;

	if (ax != ay)
		return ax < ay ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void print_ledger_header(void)
{
	printf("%7s %-16s %6s %10s %8s %8s", "PID", "COMM", "OWN",
	       "DONATES_TO", "DONATED", "HELD");
	if (ledger_fmt.col[L_ADJUST] >= 0)
		printf(" %8s", "ADJUST");
	printf("\n");
}

static void print_row(const struct ledger_row *r)
{
	char to[24];

	snprintf(to, sizeof(to), r->to ? "%lld" : "-", r->to);
	printf("%7lld %-16.16s %6lld %10s %8lld %8lld", r->pid, r->comm,
	       r->own, to, r->donated, r->held);
	if (ledger_fmt.col[L_ADJUST] >= 0)
		printf(" %8lld", r->adjust);
	printf("\n");
}

static int cmd_tasks(int argc, char **argv)
{
	static struct ledger_row rows[LEDGER_MAX];
	long long donated = 0, held = 0;
	char buf[4096], books_held[32] = "-", *p;
	int n, i;

	if (argc > 1)
		return usage_error("tasks: unexpected argument '%s'", argv[1]);
	n = read_ledger(rows);
	if (n < 0)
		return 1;
	/* The books right after the ledger, before anything is printed. */
	if (read_file(BOOKS, buf, sizeof(buf)))
		return 1;
	p = strstr(buf, "\nheld_weight ");
	if (p)
		snprintf(books_held, sizeof(books_held), "%lld",
			 atoll(p + strlen("\nheld_weight ")));
	qsort(rows, n, sizeof(rows[0]), by_weight);
	print_ledger_header();
	for (i = 0; i < n; i++) {
		print_row(&rows[i]);
		donated += rows[i].donated;
		held += rows[i].held;
	}
	/*
	 * Each donor's record is what its recipient got from it, so the
	 * columns agree with each other and with the books, which sum the
	 * donors' records: read apart from the ledger, equal when no task
	 * starts or ends a wait meanwhile.
	 */
	printf("sum: donated %lld held %lld (books held_weight %s)\n",
	       donated, held, books_held);
	return 0;
}

static int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval",	required_argument,	NULL, 'i' },
		{ "count",	required_argument,	NULL, 'n' },
		{ "help",	no_argument,		NULL, 'h' },
		{ }
	};
	static struct ledger_row rows[LEDGER_MAX];
	struct repeat every = { .interval = 1 };
	bool tty = isatty(STDOUT_FILENO);
	unsigned long long shots, shown;
	int n, i, donors, holders, opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+i:n:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
		case 'n':
			if (parse_repeat("top", opt, optarg, &every))
				return EXIT_USAGE;
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage_error("top: %s", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("top: unexpected argument '%s'", argv[optind]);
	/* A snapshot now, then one after each interval: COUNT in all. */
	shots = every.count;
	every.count = 0;
	for (shown = 0;; shown++) {
		n = read_ledger(rows);
		if (n < 0)
			return 1;
		qsort(rows, n, sizeof(rows[0]), by_weight);
		for (i = donors = holders = 0; i < n; i++) {
			donors += rows[i].to != 0;
			holders += rows[i].held != 0;
		}
		if (tty)
			printf("\033[H\033[J");
		else if (shown)
			printf("\n");
		printf("econctl top: %d tasks donate, %d hold\n", donors, holders);
		print_ledger_header();
		for (i = 0; i < n && i < 20; i++)
			print_row(&rows[i]);
		fflush(stdout);
		if ((shots && shown + 1 >= shots) || !repeat_next(&every))
			break;
	}
	return 0;
}

static int dev_error(const char *what)
{
	fprintf(stderr, "%s: %s: %s%s\n", prog, what, strerror(errno),
		errno == ENOENT ? " (" SCHED_ECONOMY_DEVICE " missing: is sched_economy.ko loaded?)" : "");
	return 1;
}

static int cmd_yield_to(int argc, char **argv)
{
	unsigned long long pid;
	long moved;

	if (argc != 2)
		return usage_error("yield-to: %s", "exactly one PID expected");
	if (!parse_u64(argv[1], &pid) || !pid || pid > INT_MAX)
		return usage_error("yield-to: bad PID '%s'", argv[1]);
	moved = sched_yield_to((pid_t)pid);
	if (moved < 0)
		return dev_error("yield-to");
	printf("yield-to %llu: moved %ld ns\n", pid, moved);
	return 0;
}

static int cmd_credit(int argc, char **argv)
{
	long long ns;

	if (argc > 1)
		return usage_error("credit: unexpected argument '%s'", argv[1]);
	if (sched_credit(&ns))
		return dev_error("credit");
	printf("credit_ns %lld\n", ns);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *cmd;
	int opt;

	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, EXIT_USAGE);
		}
	}
	if (optind >= argc)
		return usage(stderr, EXIT_USAGE);
	argc -= optind;
	argv += optind;
	cmd = argv[0];

	if (!strcmp(cmd, "status"))
		return cmd_status(argc, argv);
	if (!strcmp(cmd, "on"))
		return cmd_switch(argc, argv, "1");
	if (!strcmp(cmd, "off"))
		return cmd_switch(argc, argv, "0");
	if (!strcmp(cmd, "set"))
		return cmd_set(argc, argv);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(argc, argv);
	if (!strcmp(cmd, "yield-to"))
		return cmd_yield_to(argc, argv);
	if (!strcmp(cmd, "credit"))
		return cmd_credit(argc, argv);
	if (!strcmp(cmd, "tasks"))
		return cmd_tasks(argc, argv);
	if (!strcmp(cmd, "top"))
		return cmd_top(argc, argv);
	if (!strcmp(cmd, "help"))
		return usage(stdout, 0);
	return usage_error("unknown command '%s'", cmd);
}
