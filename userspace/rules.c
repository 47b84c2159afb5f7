// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl add|add-stateful|del|flush|list: the rule commands. The words
 * are read by lang.c and turned into attributes by rule_nl.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "mmbctl.h"
#include "print.h"
#include "rule.h"

static int handle_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == MMB_RULE_A_HANDLE &&
	    mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		*(uint32_t *)data = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int added_cb(const struct nlmsghdr *nlh, void *data)
{
	struct attrs a;

	attrs_parse(nlh, &a);
	if (a.tb[MMB_A_RULE])
		mnl_attr_parse_nested(a.tb[MMB_A_RULE], handle_cb, data);
	return MNL_CB_OK;
}

int do_add(int argc, char **argv)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	uint32_t handle = 0;
	struct urule *r;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return err_sys("allocating a rule", ENOMEM);
	r->stateful = !strcmp(argv[0], "add-stateful");
	ret = urule_parse(argc, argv, 1, r);
	if (ret)
		goto out;
	req = mmb_req_new(MMB_CMD_RULE_ADD, NLM_F_ACK);
	if (!req) {
		ret = err_sys("allocating a request", ENOMEM);
		goto out;
	}
	urule_put(req, r);
	if (mmb_nl_talk(req, added_cb, &handle, &err)) {
		ret = err_kernel(&err);
	} else if (print_is_json()) {
		print_open_object(NULL);
		print_u64("handle", NULL, handle);
		print_close_object();
		print_finish();
	}
	mmb_req_free(req);
out:
	free(r);
	return ret;
}

/* "del HANDLE": 0 and the handle put in @req, or an exit code. */
int handle_put(struct mmb_req *req, int argc, char **argv)
{
	struct nlattr *rule, *a;
	unsigned long h;
	char *end;

	if (argc < 2)
		return err_word(AT(argv + argc), "missing HANDLE");
	if (argc > 2)
		return err_word(AT(argv + 2), "unexpected word after HANDLE");
	errno = 0;
	h = strtoul(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || !h || h > UINT32_MAX || argv[1][0] == '-')
		return err_word(AT(argv + 1), "HANDLE is a number from \"mmbctl list\"");
	rule = mnl_attr_nest_start(req->nlh, MMB_A_RULE);
	a = mnl_nlmsg_get_payload_tail(req->nlh);
	mnl_attr_put_u32(req->nlh, MMB_RULE_A_HANDLE, h);
	mmb_req_token(req, a, AT(argv + 1));
	mnl_attr_nest_end(req->nlh, rule);
	return 0;
}

static int handle_req(int argc, char **argv, uint8_t cmd)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	int ret;

	req = mmb_req_new(cmd, NLM_F_ACK);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	ret = handle_put(req, argc, argv);
	if (!ret)
		ret = mmb_nl_talk(req, NULL, NULL, &err) ? err_kernel(&err) : EXIT_OK;
	mmb_req_free(req);
	return ret;
}

int do_del(int argc, char **argv)
{
	return handle_req(argc, argv, MMB_CMD_RULE_DEL);
}

/* reset counters [HANDLE]: every rule's, or one's */
int do_reset(int argc, char **argv)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	int ret;

	if (argc < 2 || strcmp(argv[1], "counters"))
		return err_word(AT(argv + 1), "reset what? reset counters [ HANDLE ]");
	req = mmb_req_new(MMB_CMD_RULE_RESET, NLM_F_ACK);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	ret = argc > 2 ? handle_put(req, argc - 1, argv + 1) : EXIT_OK;
	if (!ret)
		ret = mmb_nl_talk(req, NULL, NULL, &err) ? err_kernel(&err) : EXIT_OK;
	mmb_req_free(req);
	return ret;
}

int do_flush(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "connections"))
		return do_flush_connections(argc - 1, argv + 1);
	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word (flush, or flush connections)");
	return cmd_ask(MMB_CMD_RULE_FLUSH, NULL, NULL);
}

/* --- list ---------------------------------------------------------------- */

static void print_rule_json(const struct urule *r)
{
	char v[160];
	int i;

	print_open_array("matches");
	for (i = 0; i < r->nm; i++) {
		const struct umatch *m = &r->m[i];

		print_open_object(NULL);
		print_string("field", NULL, field_name(m->field));
		print_string("op", NULL, op_name(m->op));
		if (m->kind)
			print_u64("kind", NULL, m->kind);
		if (m->field != MMB_FIELD_ALL && m->vlen) {
			value_format(m->field, m->value, m->vlen, m->plen, v, sizeof(v));
			print_string("value", NULL, v);
		}
		print_close_object();
	}
	print_close_array();
	if (r->limit.rate)
		limit_json(&r->limit);
	ctcount_json(r);
	print_open_array("targets");
	for (i = 0; i < r->nt; i++) {
		const struct target_kind *k = target_by_type(r->t[i].type);

		print_open_object(NULL);
		print_string("target", NULL, k ? k->name : "?");
		if (k && k->json)
			k->json(&r->t[i]);
		print_close_object();
	}
	print_close_array();
}

int list_rule_cb(const struct nlmsghdr *nlh, void *data)
{
	struct urule *r = data;
	struct attrs a, stats;
	uint32_t handle;
	char text[URULE_TEXT_MAX], quoted[2 * URULE_TEXT_MAX], comment[2 * MMB_COMMENT_MAX + 16];
	char log[URULE_LOG_MAX];

	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_RULE] || urule_decode(a.tb[MMB_A_RULE], r, &handle, &stats))
		return MNL_CB_OK;
	urule_format(r, text, sizeof(text));
	/* Text to paste into a shell ('<'); JSON the words as they are. */
	words_quote(text, quoted, sizeof(quoted));
	urule_comment(r, comment, sizeof(comment));
	print_open_object(NULL);
	print_u64("handle", NULL, handle);
	print_string("rule", NULL, text);
	print_string(NULL, r->stateful ? "add-stateful %s" : "add %s", quoted);
	urule_log(r, log, sizeof(log));
	print_string(NULL, "%s", log);
	urule_log_json(r);
	print_string(NULL, "%s", comment);
	if (r->comment[0])
		print_string("comment", NULL, r->comment);
	print_bool("stateful", NULL, r->stateful);
	print_u64("priority", NULL, r->prio);
	if (r->stateful) {
		print_u64("conn_priority", NULL, r->conn_prio);
		print_bool("offload", NULL, r->offload);
	}
	print_u64(NULL, " # handle %llu", handle);
	/* Counters: in JSON always, in text with -s. */
	print_open_object("stats");
	print_u64("packets", opt_stats ? " packets %llu" : NULL,
		  attr_u64(stats.tb[MMB_STATS_A_PACKETS]));
	print_u64("bytes", opt_stats ? " bytes %llu" : NULL,
		  attr_u64(stats.tb[MMB_STATS_A_BYTES]));
	if (stats.tb[MMB_STATS_A_NOFIT])	/* a rule that adds TCP options */
		print_u64("nofit", opt_stats ? " nofit %llu" : NULL,
			  attr_u64(stats.tb[MMB_STATS_A_NOFIT]));
	if (stats.tb[MMB_STATS_A_LIMIT_EVICTED]) {	/* a meter's */
		print_u64("evicted", opt_stats ? " evicted %llu" : NULL,
			  attr_u64(stats.tb[MMB_STATS_A_LIMIT_EVICTED]));
		print_u64("full", opt_stats ? " full %llu" : NULL,
			  attr_u64(stats.tb[MMB_STATS_A_LIMIT_FULL]));
	}
	print_close_object();
	print_rule_json(r);
	print_close_object();
	print_text("\n");
	return MNL_CB_OK;
}

int do_list(int argc, char **argv)
{
	struct urule *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return err_sys("allocating a rule", ENOMEM);
	ret = cmd_dump(argc, argv, MMB_CMD_RULE_GET, list_rule_cb, r);
	free(r);
	return ret;
}
