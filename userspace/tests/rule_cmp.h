/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rules compared, and carried to attributes and back, for the parser's
 * tests (rule_test) and its fuzzer (fuzz_rule).
 */
#ifndef MMBCTL_RULE_CMP_H
#define MMBCTL_RULE_CMP_H

#include "rule.h"

/* The same matches and targets, in the same order. */
int urule_same(const struct urule *a, const struct urule *b);

/*
 * @a put into attributes, answered as the kernel answers a dump (handle
 * 7 first), decoded into @b: 0 if that decoded, with the handle.
 */
int urule_wire(const struct urule *a, struct urule *b);

#endif /* MMBCTL_RULE_CMP_H */
