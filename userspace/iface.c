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

static int dev_set(int argc, char **argv, uint8_t cmd)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	struct nlattr *attr;
	int ret;

	if (argc < 2)
		return err_word(AT(argv + argc), "missing IFACE");
	if (argc > 2)
		return err_word(AT(argv + 2), "unexpected word after IFACE");
	if (!argv[1][0] || strlen(argv[1]) >= IFNAMSIZ)
		return err_word(AT(argv + 1), "not a valid interface name");

	req = mmb_req_new(cmd, NLM_F_ACK);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	attr = mnl_nlmsg_get_payload_tail(req->nlh);
	mnl_attr_put_strz(req->nlh, MMB_A_IFNAME, argv[1]);
	mmb_req_token(req, attr, AT(argv + 1));
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

static int stats_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (type <= MMB_STATS_A_MAX && type != MMB_STATS_A_PAD &&
	    mnl_attr_validate(attr, MNL_TYPE_U64) == 0)
		tb[type] = attr;
	return MNL_CB_OK;
}

static int dev_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (type <= MMB_A_MAX)
		tb[type] = attr;
	return MNL_CB_OK;
}

static uint64_t get_u64(const struct nlattr *attr)
{
	return attr ? mnl_attr_get_u64(attr) : 0;
}

static int dev_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MMB_A_MAX + 1] = {};
	const struct nlattr *st[MMB_STATS_A_MAX + 1] = {};

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), dev_attr_cb, tb);
	if (!tb[MMB_A_IFINDEX] || !tb[MMB_A_IFNAME])
		return MNL_CB_OK;
	if (tb[MMB_A_DEV_STATS])
		mnl_attr_parse_nested(tb[MMB_A_DEV_STATS], stats_attr_cb, st);

	print_open_object(NULL);
	print_u64("ifindex", "%llu: ", mnl_attr_get_u32(tb[MMB_A_IFINDEX]));
	print_string("ifname", "%s:", mnl_attr_get_str(tb[MMB_A_IFNAME]));
	print_open_object("stats");
	print_u64("packets", " packets %llu", get_u64(st[MMB_STATS_A_PACKETS]));
	print_u64("bytes", " bytes %llu", get_u64(st[MMB_STATS_A_BYTES]));
	print_u64("dropped", " dropped %llu", get_u64(st[MMB_STATS_A_DROPPED]));
	print_close_object();
	print_close_object();
	print_text("\n");
	return MNL_CB_OK;
}

int do_show_interfaces(int argc, char **argv)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	int ret = EXIT_OK;

	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word");
	req = mmb_req_new(MMB_CMD_DEV_GET, NLM_F_DUMP);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	print_open_array(NULL);
	if (mmb_nl_talk(req, dev_show_cb, NULL, &err))
		ret = err_kernel(&err);
	print_close_array();
	print_finish();
	mmb_req_free(req);
	return ret;
}
