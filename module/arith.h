/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The account arithmetic of sched_economy, free of locks and of the
 * scheduler so that KUnit can test it on its own.
 */
#ifndef _SCHED_ECONOMY_ARITH_H
#define _SCHED_ECONOMY_ARITH_H

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/types.h>

#define ECONOMY_PRICE_MIN_NS	1000
/*
 * sched_lag_transfer() reports the lag its vruntime shift really moved,
 * rounded in the fixed point of virtual time: within this of the request
 * (about w/1024 + 1 ns at nice 0), what moved is booked as the request.
 */
#define ECONOMY_ROUND_NS	2

/**
 * economy_snap - book a transfer within rounding of the request as the request
 * @applied: what sched_lag_transfer() reported
 * @want: what was asked
 *
 * Return: @want if @applied is within %ECONOMY_ROUND_NS of it, else @applied.
 */
static inline s64 economy_snap(s64 applied, s64 want)
{
	return abs(applied - want) <= ECONOMY_ROUND_NS ? want : applied;
}

/**
 * economy_price_max - the most a message may cost
 * @limit: the accounts' limit
 *
 * Return: @limit / 4, and never below %ECONOMY_PRICE_MIN_NS.
 */
static inline s64 economy_price_max(s64 limit)
{
	return max_t(s64, limit / 4, ECONOMY_PRICE_MIN_NS);
}

/**
 * economy_adapt_price - steer a price by the reader's queue and balance
 * @price: the current price
 * @qlen: skbs waiting on the receive queue, the new one included
 * @target: the queue length to hold
 * @limit: the account's limit
 *
 * A queue longer than @target means the reader cannot keep up and needs
 * more credit; a shorter one means it is running out of work and will
 * soon sleep, where credit above the lag bound is lost. Steps of 1/32 let
 * the price settle over a few hundred messages instead of chasing single
 * bursts. The balance is no input: steering on it as well trapped the
 * price at its minimum while a full account drained at that price.
 *
 * Return: the new price, within [%ECONOMY_PRICE_MIN_NS, @limit / 4].
 */
static inline s64 economy_adapt_price(s64 price, u32 qlen, u32 target,
				      s64 limit)
{
	if (qlen > target)
		price += price / 32 + 1;
	else if (qlen < target)
		price -= price / 32 + 1;
	return clamp_t(s64, price, ECONOMY_PRICE_MIN_NS,
		       economy_price_max(limit));
}

/**
 * economy_share - the part of a balance owed to @nr of @nr + @left messages
 * @balance: what the account holds
 * @nr: messages just consumed
 * @left: messages still queued
 *
 * Money follows messages: each queued message carries an equal part of
 * the balance, and the last one takes the rest, so nothing is stranded.
 *
 * Return: the share, rounded up, at most @balance.
 */
static inline s64 economy_share(s64 balance, u32 nr, u32 left)
{
	if (balance <= 0 || !nr)
		return 0;
	if (!left)
		return balance;
	return min_t(s64, balance,
		     div64_u64((u64)balance * nr + nr + left - 1, nr + left));
}

/**
 * economy_messages_worth - @nr messages at @price, as far as @balance goes
 * @balance: what the account holds
 * @nr: messages just consumed
 * @price: the price of one
 *
 * Return: the amount, never more than @balance.
 */
static inline s64 economy_messages_worth(s64 balance, u32 nr, s64 price)
{
	if (balance <= 0)
		return 0;
	return min_t(s64, balance, (s64)nr * price);
}

#endif /* _SCHED_ECONOMY_ARITH_H */
