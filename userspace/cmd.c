// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: what every command shares: collecting a message's attributes,
 * and a dump printed as one list.
 */
#include <errno.h>
#include <string.h>
#include <linux/genetlink.h>

#include "mmbctl.h"
#include "print.h"

static int attrs_cb(const struct nlattr *attr, void *data)
{
	struct attrs *a = data;
	unsigned int type = mnl_attr_get_type(attr);

	if (type < ATTRS_MAX)
		a->tb[type] = attr;
	return MNL_CB_OK;
}

/* The attributes of a generic netlink message, by type. */
void attrs_parse(const struct nlmsghdr *nlh, struct attrs *a)
{
	memset(a, 0, sizeof(*a));
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attrs_cb, a);
}

/* The attributes in a nest, by type. */
void attrs_nested(const struct nlattr *nest, struct attrs *a)
{
	memset(a, 0, sizeof(*a));
	mnl_attr_parse_nested(nest, attrs_cb, a);
}

uint64_t attr_u64(const struct nlattr *a)
{
	return a && !mnl_attr_validate(a, MNL_TYPE_U64) ? mnl_attr_get_u64(a) : 0;
}

uint32_t attr_u32(const struct nlattr *a)
{
	return a && !mnl_attr_validate(a, MNL_TYPE_U32) ? mnl_attr_get_u32(a) : 0;
}

/*
 * A request of @cmd without attributes, its answers to @cb (if any): an
 * exit code, after printing the kernel's error if it refused.
 */
int cmd_ask(uint8_t cmd, mmb_nl_data_cb cb, void *data)
{
	struct mmb_nl_err err;
	struct mmb_req *req = mmb_req_new(cmd, NLM_F_ACK);
	int ret;

	if (!req)
		return err_sys("allocating a request", ENOMEM);
	ret = mmb_nl_talk(req, cb, data, &err) ? err_kernel(&err) : EXIT_OK;
	mmb_req_free(req);
	return ret;
}

/*
 * "show OBJECT" and "list": dump @cmd and print each answer with @cb, as
 * one list (a JSON array with -j). argv[0] is the command's word.
 */
int cmd_dump(int argc, char **argv, uint8_t cmd, mmb_nl_data_cb cb, void *data)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	int ret = EXIT_OK;

	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word");
	req = mmb_req_new(cmd, NLM_F_DUMP);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	print_open_array(NULL);
	if (mmb_nl_dump(req, cb, data, &err))
		ret = err_kernel(&err);
	print_close_array();
	print_finish();
	mmb_req_free(req);
	return ret;
}
