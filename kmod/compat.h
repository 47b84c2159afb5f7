/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: compatibility shims between the supported kernels (6.1 and later).
 *
 * The module is written against the newest API; every difference of an
 * older kernel is bridged here and nowhere else. Shims are selected by
 * feature probes run in Kbuild (MMB_COMPAT_* defines), never by version
 * numbers, so distribution backports are honoured.
 */
#ifndef _MMB_COMPAT_H
#define _MMB_COMPAT_H

/* 6.12 moved the unaligned accessors to <linux/unaligned.h>. */
#ifdef MMB_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* 6.5 added SLAB_NO_MERGE; before, a cache may share slabs with another. */
#include <linux/slab.h>
#ifndef SLAB_NO_MERGE
#define SLAB_NO_MERGE 0
#endif

#endif /* _MMB_COMPAT_H */
