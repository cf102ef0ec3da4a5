/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the benchmarks: clocks and CPU burning calibrated on
 * the thread's own CPU time, never on wall time (TCG time is not real).
 */
#ifndef _SCHED_ECONOMY_BENCH_H
#define _SCHED_ECONOMY_BENCH_H

#include <stdint.h>

/* CLOCK_MONOTONIC in seconds. */
double bench_now(void);
/* Sleep until bench_now() reaches @t, through signals. */
void bench_sleep_until(double t);
/* This thread's CPU time in ns. */
uint64_t bench_thread_ns(void);
/* Measure how many spin iterations take about 5 us of CPU time. */
void bench_calibrate(void);
/* The spin iterations bench_calibrate() found. */
uint64_t bench_spin_chunk(void);
/* @n iterations of an empty loop: a busy loop that makes no syscall. */
void bench_spin(uint64_t n);
/* Burn @ns of this thread's CPU time, checking the clock every ~5 us. */
void bench_burn(uint64_t ns);
struct pollfd;
/* poll() @n fds (@timeout_ms as poll's, -1: none) through signals; < 0 on an error. */
int bench_poll(struct pollfd *pfd, int n, int timeout_ms);
/*
 * --keys-offline (xbench, wbench): set, bench_keys_cpus() takes CPUs 1..
 * offline (@on 0) before the economy is switched or its policy changes,
 * and brings them back (@on 1) after.  Those writes flip static keys, and
 * QEMU 7.2's multi-threaded TCG can run a vCPU through the old text of a
 * rewritten jump site (Oops: int3, docs/harness.md); an offline vCPU runs
 * nothing.  Unset, it does nothing; a failed write exits the program.
 */
extern int bench_keys_offline;
void bench_keys_cpus(int on);

#endif /* _SCHED_ECONOMY_BENCH_H */
