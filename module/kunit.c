// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the account arithmetic (arith.h), which needs neither the
 * scheduler nor sockets, and of the policy registry (policy.c) of the
 * loaded core.
 */
#include <kunit/test.h>

#include "arith.h"
#include "economy_policy.h"

static void economy_price_rises_with_a_long_queue(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, economy_adapt_price(100000, 10, 4, 2000000),
			100000 + 100000 / 32 + 1);
}

static void economy_price_falls_with_a_short_queue(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, economy_adapt_price(100000, 1, 4, 2000000),
			100000 - 100000 / 32 - 1);
}

static void economy_price_holds_at_target(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, economy_adapt_price(54321, 4, 4, 2000000),
			54321);
}

static void economy_price_stays_in_bounds(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, economy_adapt_price(499999, 100, 4, 2000000),
			500000);
	KUNIT_EXPECT_EQ(test, economy_adapt_price(ECONOMY_PRICE_MIN_NS, 0, 4,
						  2000000),
			ECONOMY_PRICE_MIN_NS);
	/* A limit below the minimum price must not invert the clamp. */
	KUNIT_EXPECT_EQ(test, economy_adapt_price(5000, 100, 4, 10),
			ECONOMY_PRICE_MIN_NS);
}

static void economy_price_converges_to_a_step(struct kunit *test)
{
	s64 price = 100000;
	int i;

	for (i = 0; i < 1000; i++)
		price = economy_adapt_price(price, 0, 4, 2000000);
	KUNIT_EXPECT_EQ(test, price, ECONOMY_PRICE_MIN_NS);
	for (i = 0; i < 1000; i++)
		price = economy_adapt_price(price, 50, 4, 2000000);
	KUNIT_EXPECT_EQ(test, price, 500000);
}

static void economy_share_splits_over_the_queue(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, economy_share(1000, 1, 3), 250);
	KUNIT_EXPECT_EQ(test, economy_share(1000, 2, 2), 500);
	/* Rounded up, so small balances still drain. */
	KUNIT_EXPECT_EQ(test, economy_share(1, 1, 9), 1);
	KUNIT_EXPECT_EQ(test, economy_share(10, 1, 2), 4);
}

static void economy_share_last_message_takes_the_rest(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, economy_share(12345, 1, 0), 12345);
}

static void economy_share_of_nothing_is_nothing(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, economy_share(0, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, economy_share(-5, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, economy_share(100, 0, 3), 0);
}

static void economy_share_drains_exactly(struct kunit *test)
{
	s64 balance = 1000003, taken = 0, s;
	u32 left;

	for (left = 6; left-- > 0; ) {
		s = economy_share(balance, 1, left);
		KUNIT_EXPECT_GE(test, s, 0);
		balance -= s;
		taken += s;
	}
	KUNIT_EXPECT_EQ(test, balance, 0);
	KUNIT_EXPECT_EQ(test, taken, 1000003);
}

static void economy_fixed_withdrawal_is_bounded(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, economy_messages_worth(1000000, 3, 100000),
			300000);
	KUNIT_EXPECT_EQ(test, economy_messages_worth(150000, 3, 100000),
			150000);
	KUNIT_EXPECT_EQ(test, economy_messages_worth(0, 3, 100000), 0);
	KUNIT_EXPECT_EQ(test, economy_messages_worth(-1, 3, 100000), 0);
}

static struct kunit_case economy_arith_cases[] = {
	KUNIT_CASE(economy_price_rises_with_a_long_queue),
	KUNIT_CASE(economy_price_falls_with_a_short_queue),
	KUNIT_CASE(economy_price_holds_at_target),
	KUNIT_CASE(economy_price_stays_in_bounds),
	KUNIT_CASE(economy_price_converges_to_a_step),
	KUNIT_CASE(economy_share_splits_over_the_queue),
	KUNIT_CASE(economy_share_last_message_takes_the_rest),
	KUNIT_CASE(economy_share_of_nothing_is_nothing),
	KUNIT_CASE(economy_share_drains_exactly),
	KUNIT_CASE(economy_fixed_withdrawal_is_bounded),
	{}
};

static struct kunit_suite economy_arith_suite = {
	.name = "sched_economy_arith",
	.test_cases = economy_arith_cases,
};

static void economy_policy_names_are_checked(struct kunit *test)
{
	static const char * const bad[] = {
		"", "Lend", "a-b", "a b", "abcdefghijklmnop",
	};
	static struct economy_policy_ops ops = { .owner = THIS_MODULE };
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		strscpy_pad(ops.name, bad[i], sizeof(ops.name));
		if (strlen(bad[i]) >= sizeof(ops.name))
			memset(ops.name, 'a', sizeof(ops.name));
		KUNIT_EXPECT_EQ_MSG(test, economy_register_policy(&ops),
				    -EINVAL, "name '%s'", bad[i]);
	}
	/* A policy without an owner would not be pinned while active. */
	strscpy_pad(ops.name, "kunit_owner", sizeof(ops.name));
	ops.owner = NULL;
	KUNIT_EXPECT_EQ(test, economy_register_policy(&ops), -EINVAL);
	ops.owner = THIS_MODULE;
}

/*
 * Static, owned by this module: while one is registered, a switch to it
 * is refused (-EBUSY: this module is still in its init), never left to
 * point at a stack.
 */
static struct economy_policy_ops economy_kunit_a = {
	.name = "kunit_a", .owner = THIS_MODULE,
};

static struct economy_policy_ops economy_kunit_b = {
	.name = "kunit_a", .owner = THIS_MODULE,
};

static struct economy_policy_ops economy_kunit_lend = {
	.name = "lend", .owner = THIS_MODULE,
};

static void economy_policy_names_are_unique(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, economy_register_policy(&economy_kunit_a), 0);
	KUNIT_EXPECT_EQ(test, economy_register_policy(&economy_kunit_b),
			-EEXIST);
	KUNIT_EXPECT_EQ(test, economy_register_policy(&economy_kunit_lend),
			-EEXIST);
	economy_unregister_policy(&economy_kunit_a);
	/* Gone from the list: the name is free again. */
	KUNIT_EXPECT_EQ(test, economy_register_policy(&economy_kunit_b), 0);
	economy_unregister_policy(&economy_kunit_b);
}

static struct kunit_case economy_policy_cases[] = {
	KUNIT_CASE(economy_policy_names_are_checked),
	KUNIT_CASE(economy_policy_names_are_unique),
	{}
};

static struct kunit_suite economy_policy_suite = {
	.name = "sched_economy_policy",
	.test_cases = economy_policy_cases,
};

kunit_test_suites(&economy_arith_suite, &economy_policy_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of sched_economy's account arithmetic and policy registry");
