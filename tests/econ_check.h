/* SPDX-License-Identifier: GPL-2.0 */
/*
 * econ_check.h: a check that reports a figure against its bar, and the
 * books' residues after a step; for tests that print "# ok" lines and end
 * with one "ok:" or fail.
 */
#ifndef _ECON_CHECK_H
#define _ECON_CHECK_H

#include "econ_test.h"

static int econ_failures;

static inline void econ_check(int ok, const char *what, long long got,
			      long long bar)
{
	printf("%s: %s (%lld, bar %lld)\n", ok ? "# ok" : "not ok", what, got,
	       bar);
	if (!ok)
		econ_failures++;
}

/* Donated = returned + the records; what tasks and groups hold = theirs. */
static inline void econ_check_books(const char *when)
{
	static const char *const residues[] = { "weight_residue",
		"received_residue", "group_weight_residue" };
	char what[96];

	for (int i = 0; i < 3; i++) {
		snprintf(what, sizeof(what), "%s: %s 0", when, residues[i]);
		econ_check(econ_book(residues[i]) == 0, what,
			   econ_book(residues[i]), 0);
	}
}

#endif /* _ECON_CHECK_H */
