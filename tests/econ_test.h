/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the sched_economy tests: the module, the knobs, the
 * books of /proc/sched_economy, busy loops.
 */
#ifndef _ECON_TEST_H
#define _ECON_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ECON_MODULE	"/modules/sched_economy.ko"
#define ECON_BOOKS	"/proc/sched_economy"
#define ECON_SYSCTL	"/proc/sys/kernel/"

/* Load the module unless it is loaded; 0 or -1. */
static inline int econ_load_module(void)
{
	if (!access(ECON_BOOKS, F_OK))
		return 0;
	return system("insmod " ECON_MODULE) == 0 ? 0 : -1;
}

/* Write @val to the file at @path (a sysctl, a cgroup file); 0 or -1. */
static inline int econ_write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(val, f) < 0;
	ret |= fclose(f) != 0;
	return ret ? -1 : 0;
}

static inline int econ_write_knob(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), ECON_SYSCTL "%s", name);
	return econ_write_file(path, val);
}

/* The number a file starts with, or -1. */
static inline long long econ_read_number(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* A file's first line, without its newline, into @buf; its length or -1. */
static inline int econ_read_file(const char *path, char *buf, int size)
{
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -1;
	if (!fgets(buf, size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return n;
}

/*
 * The policies the module offers now, sched_economy_available_policies:
 * their names into @names (at most @max, pointing into @buf).
 * Return: how many, or -1 if the list cannot be read or is empty.
 */
static inline int econ_policies(char *buf, int size, const char **names,
				int max)
{
	char *save = NULL, *p;
	int n = 0;

	if (econ_read_file(ECON_SYSCTL "sched_economy_available_policies",
			   buf, size) <= 0)
		return -1;
	for (p = strtok_r(buf, " ", &save); p && n < max;
	     p = strtok_r(NULL, " ", &save))
		names[n++] = p;
	return n ? n : -1;
}

static inline long long econ_read_knob(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), ECON_SYSCTL "%s", name);
	return econ_read_number(path);
}

/* The module's last "unloaded:" line of the kernel log, or "(none)". */
static inline void econ_unload_line(char *line, int size)
{
	FILE *f = popen("dmesg | grep 'sched_economy: unloaded:'", "r");

	if (!f || !fgets(line, size, f))
		snprintf(line, size, "(none)\n");
	if (f)
		pclose(f);
}

/* The whole text of the books, for "nothing changed" comparisons. */
static inline int econ_books_text(char *buf, size_t size)
{
	FILE *f = fopen(ECON_BOOKS, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

/*
 * The number of the last line of @path whose key is @key, each line
 * scanned with @fmt ("%127s" then the number); @missing if there is none.
 */
static inline long long econ_file_key(const char *path, const char *fmt,
				      const char *key, long long missing)
{
	char line[256], k[128];
	long long v, ret = missing;
	FILE *f = fopen(path, "r");

	if (!f)
		return ret;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, k, &v) == 2 && !strcmp(k, key))
			ret = v;
	fclose(f);
	return ret;
}

/* One counter of the books; LLONG_MIN if absent. */
static inline long long econ_book(const char *key)
{
	return econ_file_key(ECON_BOOKS, "%127s %lld", key, LLONG_MIN);
}

/* The CPU time of @pid in ns: the first field of /proc/PID/schedstat. */
static inline long long econ_cpu_ns(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	return econ_read_number(path);
}

static inline int econ_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the @n (at most 64) values of @v, which stay as they are. */
static inline double econ_median(const double *v, int n)
{
	double s[64];

	if (n > 64)
		n = 64;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), econ_cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * For a test that runs with or without with_module.sh: load the module
 * unless it is loaded (*@loaded says whether this did). Return: 0, 4 to
 * skip (no module, no switch), 1 if it cannot be loaded.
 */
static inline int econ_need_module(int *loaded)
{
	*loaded = 0;
	if (access(ECON_BOOKS, F_OK)) {
		if (access(ECON_MODULE, F_OK)) {
			printf("# SKIP: %s missing\n", ECON_MODULE);
			return 4;
		}
		if (econ_load_module()) {
			printf("not ok: insmod %s\n", ECON_MODULE);
			return 1;
		}
		*loaded = 1;
	}
	if (econ_read_knob("sched_economy") < 0) {
		printf("# SKIP: no " ECON_SYSCTL "sched_economy\n");
		return 4;
	}
	return 0;
}

static inline int econ_pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

/* A busy loop pinned to @cpu, as @uid (-1: the caller's), that dies with its parent. */
static inline pid_t econ_busy_loop_as(int cpu, uid_t uid)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	econ_pin(0, cpu);
	if (uid != (uid_t)-1 && (setgid(uid) || setuid(uid)))
		_exit(111);
	for (;;)
		__asm__ __volatile__("" ::: "memory");
}

static inline pid_t econ_busy_loop(int cpu)
{
	return econ_busy_loop_as(cpu, -1);
}

/* devtmpfs has /dev/ptmx, which needs devpts at /dev/pts; 0 or -1. */
static inline int econ_mount_devpts(void)
{
	char line[256];
	FILE *f = fopen("/proc/mounts", "r");
	int found = 0;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, " /dev/pts devpts "))
			found = 1;
	if (f)
		fclose(f);
	if (found)
		return 0;
	mkdir("/dev/pts", 0755);
	return mount("devpts", "/dev/pts", "devpts", 0,
		     "newinstance,ptmxmode=0666,mode=0620");
}

static inline void econ_kill(pid_t *pids, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

/* A field of /proc/PID/sched, as printed, or -1. */
static inline long long econ_sched_field(pid_t pid, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	return econ_file_key(path, "%127s : %lld", key, -1);
}

/*
 * se.load.weight in units where nice 0 is 1024: a 64-bit kernel (the
 * tests are built for the guest's) scales it by 1024, small weights
 * (SCHED_IDLE's 3, nice 19's 15) included.
 */
static inline long long econ_task_weight(pid_t pid)
{
	long long w = econ_sched_field(pid, "se.load.weight");

	return w > 0 && sizeof(long) == 8 ? w >> 10 : w;
}

static inline void econ_msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline long long econ_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif /* _ECON_TEST_H */
