/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of sched_economy: every transfer and every refusal, under
 * /sys/kernel/tracing/events/sched_economy/.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched_economy

#if !defined(_SCHED_ECONOMY_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SCHED_ECONOMY_TRACE_H

#include <linux/sched.h>
#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(economy_transfer,
	TP_PROTO(unsigned long ino, s64 amount, s64 balance),
	TP_ARGS(ino, amount, balance),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__array(char, comm, TASK_COMM_LEN)
		__field(unsigned long, ino)
		__field(s64, amount)
		__field(s64, balance)
	),
	TP_fast_assign(
		__entry->pid = current->pid;
		memcpy(__entry->comm, current->comm, TASK_COMM_LEN);
		__entry->ino = ino;
		__entry->amount = amount;
		__entry->balance = balance;
	),
	TP_printk("pid=%d comm=%s ino=%lu amount=%lld balance=%lld",
		  __entry->pid, __entry->comm, __entry->ino,
		  __entry->amount, __entry->balance)
);

/* current paid @amount into the account of socket @ino. */
DEFINE_EVENT(economy_transfer, economy_pay,
	TP_PROTO(unsigned long ino, s64 amount, s64 balance),
	TP_ARGS(ino, amount, balance));

/* current withdrew @amount from the account of socket @ino. */
DEFINE_EVENT(economy_transfer, economy_withdraw,
	TP_PROTO(unsigned long ino, s64 amount, s64 balance),
	TP_ARGS(ino, amount, balance));

TRACE_EVENT(economy_refuse,
	TP_PROTO(unsigned long ino, const char *reason, s64 amount),
	TP_ARGS(ino, reason, amount),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__array(char, comm, TASK_COMM_LEN)
		__field(unsigned long, ino)
		__string(reason, reason)
		__field(s64, amount)
	),
	TP_fast_assign(
		__entry->pid = current->pid;
		memcpy(__entry->comm, current->comm, TASK_COMM_LEN);
		__entry->ino = ino;
		__assign_str(reason);
		__entry->amount = amount;
	),
	TP_printk("pid=%d comm=%s ino=%lu reason=%s amount=%lld",
		  __entry->pid, __entry->comm, __entry->ino,
		  __get_str(reason), __entry->amount)
);

TRACE_EVENT(economy_yield_to,
	TP_PROTO(pid_t target, s64 moved),
	TP_ARGS(target, moved),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__array(char, comm, TASK_COMM_LEN)
		__field(pid_t, target)
		__field(s64, moved)
	),
	TP_fast_assign(
		__entry->pid = current->pid;
		memcpy(__entry->comm, current->comm, TASK_COMM_LEN);
		__entry->target = target;
		__entry->moved = moved;
	),
	TP_printk("pid=%d comm=%s target=%d moved=%lld",
		  __entry->pid, __entry->comm, __entry->target, __entry->moved)
);

/* @donor went to sleep waiting for @to and gave it @weight. */
TRACE_EVENT(economy_donate,
	TP_PROTO(pid_t donor, pid_t to, int weight),
	TP_ARGS(donor, to, weight),
	TP_STRUCT__entry(
		__field(pid_t, donor)
		__field(pid_t, to)
		__field(int, weight)
	),
	TP_fast_assign(
		__entry->donor = donor;
		__entry->to = to;
		__entry->weight = weight;
	),
	TP_printk("donor=%d to=%d weight=%d",
		  __entry->donor, __entry->to, __entry->weight)
);

/* The @weight that @donor gave @to came home. */
TRACE_EVENT(economy_take_back,
	TP_PROTO(pid_t donor, pid_t to, int weight),
	TP_ARGS(donor, to, weight),
	TP_STRUCT__entry(
		__field(pid_t, donor)
		__field(pid_t, to)
		__field(int, weight)
	),
	TP_fast_assign(
		__entry->donor = donor;
		__entry->to = to;
		__entry->weight = weight;
	),
	TP_printk("donor=%d to=%d weight=%d",
		  __entry->donor, __entry->to, __entry->weight)
);

#endif /* _SCHED_ECONOMY_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
