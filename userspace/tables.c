// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl show tables: the classifier's hash tables, one per set of
 * matched fields, with their sizes and hits.
 */
#include <stdio.h>

#include "mmbctl.h"
#include "print.h"
#include "rule.h"

static int table_cb(const struct nlmsghdr *nlh, void *data)
{
	struct attrs a, ta, fa;
	const struct nlattr *n;
	char buf[64];
	uint32_t prio;

	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_TABLE])
		return MNL_CB_OK;
	attrs_nested(a.tb[MMB_A_TABLE], &ta);
	if (!ta.tb[MMB_TABLE_A_INDEX])
		return MNL_CB_OK;
	print_open_object(NULL);
	print_u64("index", "table %llu:", attr_u32(ta.tb[MMB_TABLE_A_INDEX]));
	print_open_array("fields");
	buf[0] = '\0';
	if (ta.tb[MMB_TABLE_A_FIELDS]) {
		mnl_attr_for_each_nested(n, ta.tb[MMB_TABLE_A_FIELDS]) {
			int field, plen;

			attrs_nested(n, &fa);
			if (!fa.tb[MMB_MATCH_A_FIELD])
				continue;
			field = mnl_attr_get_u16(fa.tb[MMB_MATCH_A_FIELD]);
			if (field > MMB_FIELD_MAX)
				continue;
			plen = fa.tb[MMB_MATCH_A_PREFIX] ?
			       mnl_attr_get_u8(fa.tb[MMB_MATCH_A_PREFIX]) : field_bits(field);
			if (plen != field_bits(field))
				snprintf(buf, sizeof(buf), "%s/%d", field_name(field), plen);
			else
				snprintf(buf, sizeof(buf), "%s", field_name(field));
			print_element(" %s", buf);
		}
	}
	if (!buf[0])
		print_text(" (protocol only)");
	print_close_array();
	print_u64("entries", "  entries %llu", attr_u32(ta.tb[MMB_TABLE_A_ENTRIES]));
	print_u64("rules", " rules %llu", attr_u32(ta.tb[MMB_TABLE_A_RULES]));
	print_u64("hits", " hits %llu", attr_u64(ta.tb[MMB_TABLE_A_HITS]));
	print_u64("buckets", " buckets %llu", attr_u32(ta.tb[MMB_TABLE_A_BUCKETS]));
	print_u64("chain_max", " chain-max %llu", attr_u32(ta.tb[MMB_TABLE_A_CHAIN_MAX]));
	/* The highest priority of its rules (a bound), in text when not 0. */
	prio = attr_u32(ta.tb[MMB_TABLE_A_PRIORITY]);
	print_u64("priority", prio ? " priority %llu" : NULL, prio);
	print_close_object();
	print_text("\n");
	return MNL_CB_OK;
}

int do_show_tables(int argc, char **argv)
{
	return cmd_dump(argc, argv, MMB_CMD_TABLE_GET, table_cb, NULL);
}
