// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: per-CPU packet counters of devices and rules.
 */
#include "mmb.h"

void mmb_stats_read(struct mmb_pcpu_stats __percpu *pcpu, struct mmb_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		const struct mmb_pcpu_stats *s = per_cpu_ptr(pcpu, cpu);
		u64 packets, bytes;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			packets = u64_stats_read(&s->packets);
			bytes = u64_stats_read(&s->bytes);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		st->packets += packets;
		st->bytes += bytes;
	}
}
