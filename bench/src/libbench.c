// SPDX-License-Identifier: GPL-2.0
/*
 * libbench: clocks, calibrated CPU burning, poll() and CPU hotplug for
 * xbench and wbench.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static uint64_t spin_chunk = 1000;

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t bench_thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void bench_spin(uint64_t n)
{
	volatile uint64_t x = 0;

	while (n--)
		x++;
}

void bench_burn(uint64_t ns)
{
	uint64_t end = bench_thread_ns() + ns;

	while (bench_thread_ns() < end)
		bench_spin(spin_chunk);
}

int bench_poll(struct pollfd *pfd, int n, int timeout_ms)
{
	int r;

	do
		r = poll(pfd, n, timeout_ms);
	while (r < 0 && errno == EINTR);
	return r;
}

void bench_calibrate(void)
{
	uint64_t t0, dt, n = 1000;

	for (;;) {
		t0 = bench_thread_ns();
		bench_spin(n);
		dt = bench_thread_ns() - t0;
		if (dt > 2000000 || n > (1ULL << 40))
			break;
		n *= 2;
	}
	spin_chunk = n * 5000 / (dt ? dt : 1);
	if (!spin_chunk)
		spin_chunk = 1;
}

uint64_t bench_spin_chunk(void)
{
	return spin_chunk;
}

void bench_sleep_until(double t)
{
	struct timespec ts;
	double dt = t - bench_now();

	if (dt <= 0)
		return;
	ts.tv_sec = (time_t)dt;
	ts.tv_nsec = (long)((dt - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int bench_keys_offline;

void bench_keys_cpus(int on)
{
	char path[64];
	int cpu, fd, err;

	if (!bench_keys_offline)
		return;
	for (cpu = 1; ; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
		fd = open(path, O_WRONLY);
		if (fd < 0 && errno == ENOENT)
			return;
		err = fd < 0 || write(fd, on ? "1" : "0", 1) < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		if (err) {
			fprintf(stderr, "%s: write %d to %s: %s\n",
				program_invocation_short_name, on, path, strerror(err));
			exit(1);
		}
	}
}
