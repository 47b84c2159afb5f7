// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl enable|disable IFACE, mmbctl show interfaces.
 */
#include <errno.h>
#include <string.h>
#include <net/if.h>
#include <linux/genetlink.h>

#include "../uapi/linux/mmb.h"
#include "mmbctl.h"
#include "print.h"
#include "rule.h"

/* "enable IFACE" (or disable) as the name attribute @type in @req; 0 or an exit code. */
int ifname_put(struct mmb_req *req, int argc, char **argv, uint16_t type)
{
	struct nlattr *attr;
	const char *why;

	if (argc < 2)
		return err_word(AT(argv + argc), "missing IFACE");
	if (argc > 2)
		return err_word(AT(argv + 2), "unexpected word after IFACE");
	why = ifname_invalid(argv[1], true);
	if (why)
		return err_word(AT(argv + 1), "not a valid interface name or pattern: %s", why);
	attr = mnl_nlmsg_get_payload_tail(req->nlh);
	mnl_attr_put_strz(req->nlh, type, argv[1]);
	mmb_req_token(req, attr, AT(argv + 1));
	return 0;
}

static int dev_set(int argc, char **argv, uint8_t cmd)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	int ret;

	req = mmb_req_new(cmd, NLM_F_ACK);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	ret = ifname_put(req, argc, argv, MMB_A_IFNAME);
	if (!ret)
		ret = mmb_nl_talk(req, NULL, NULL, &err) ? err_kernel(&err) : EXIT_OK;
	mmb_req_free(req);
	return ret;
}

int do_enable(int argc, char **argv)
{
	return dev_set(argc, argv, MMB_CMD_DEV_ENABLE);
}

int do_disable(int argc, char **argv)
{
	return dev_set(argc, argv, MMB_CMD_DEV_DISABLE);
}

/*
 * The counters a device's hook keeps (MMB_A_DEV_STATS), or their sums over
 * the namespace's devices (MMB_A_STATS): one line of text.
 */
void print_dev_counts(const struct attrs *st)
{
	print_u64("packets", " packets %llu", attr_u64(st->tb[MMB_STATS_A_PACKETS]));
	print_u64("bytes", " bytes %llu", attr_u64(st->tb[MMB_STATS_A_BYTES]));
	print_u64("dropped", " dropped %llu", attr_u64(st->tb[MMB_STATS_A_DROPPED]));
	print_open_object("drops");
	print_u64("rule", " rule %llu", attr_u64(st->tb[MMB_STATS_A_DROP_RULE]));
	print_u64("fragment", " fragment %llu", attr_u64(st->tb[MMB_STATS_A_DROP_FRAGMENT]));
	print_u64("header", " header %llu", attr_u64(st->tb[MMB_STATS_A_DROP_HEADER]));
	print_u64("nomem", " nomem %llu", attr_u64(st->tb[MMB_STATS_A_DROP_NOMEM]));
	print_u64("conn", " conn %llu", attr_u64(st->tb[MMB_STATS_A_DROP_CONN]));
	print_u64("unmapped", " unmapped %llu", attr_u64(st->tb[MMB_STATS_A_DROP_UNMAPPED]));
	print_close_object();
	print_u64("rewritten", " rewritten %llu", attr_u64(st->tb[MMB_STATS_A_REWRITTEN]));
	print_u64("not_ip", " not-ip %llu", attr_u64(st->tb[MMB_STATS_A_NOT_IP]));
	print_u64("malformed", " malformed %llu", attr_u64(st->tb[MMB_STATS_A_MALFORMED]));
	print_u64("offloaded", " offloaded %llu", attr_u64(st->tb[MMB_STATS_A_OFFLOADED]));
}

/* An enabled name or pattern: how many devices it attached, how many it could not. */
static void enabled_show(const struct attrs *a)
{
	uint32_t n = attr_u32(a->tb[MMB_A_ATTACHED]), failed = attr_u32(a->tb[MMB_A_ATTACH_FAILED]);

	print_open_object(NULL);
	print_string("enabled", "enabled %s:", mnl_attr_get_str(a->tb[MMB_A_ENABLED]));
	if (!n)
		print_text(" waiting");
	print_u64("attached", n ? " attached %llu" : NULL, n);
	print_u64("failed", failed ? " failed %llu" : NULL, failed);
	print_close_object();
	print_text("\n");
}

/*
 * A device ("3: eth0: packets ...", "7: ppp0 (ppp*): packets ..." when a
 * pattern enabled it); then, after the devices, each enabled name.
 */
int show_dev_cb(const struct nlmsghdr *nlh, void *data)
{
	struct attrs a, st = {};
	const char *ifname, *by = NULL;

	attrs_parse(nlh, &a);
	if (a.tb[MMB_A_ENABLED] && mnl_attr_validate(a.tb[MMB_A_ENABLED], MNL_TYPE_NUL_STRING))
		return MNL_CB_OK;
	if (a.tb[MMB_A_ENABLED])
		by = mnl_attr_get_str(a.tb[MMB_A_ENABLED]);
	if (!a.tb[MMB_A_IFINDEX]) {
		if (by)
			enabled_show(&a);
		return MNL_CB_OK;
	}
	if (!a.tb[MMB_A_IFNAME] || mnl_attr_validate(a.tb[MMB_A_IFNAME], MNL_TYPE_NUL_STRING))
		return MNL_CB_OK;
	if (a.tb[MMB_A_DEV_STATS])
		attrs_nested(a.tb[MMB_A_DEV_STATS], &st);
	ifname = mnl_attr_get_str(a.tb[MMB_A_IFNAME]);

	print_open_object(NULL);
	print_u64("ifindex", "%llu: ", attr_u32(a.tb[MMB_A_IFINDEX]));
	print_string("ifname", "%s", ifname);
	/* Enabled by a pattern, or as a device (by an index): said. */
	if (by && strcmp(by, ifname))
		print_string("enabled", " (%s)", by);
	else if (by)
		print_string("enabled", NULL, by);
	print_text(":");
	print_open_object("stats");
	print_dev_counts(&st);
	print_close_object();
	print_close_object();
	print_text("\n");
	return MNL_CB_OK;
}

int do_show_interfaces(int argc, char **argv)
{
	return cmd_dump(argc, argv, MMB_CMD_DEV_GET, show_dev_cb, NULL);
}
