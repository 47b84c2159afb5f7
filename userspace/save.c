// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl save: the namespace's whole configuration as a file that -f
 * applies: a flush, the settings, the enabled interfaces and the rules in
 * handle order, quoted for a shell as list quotes them. Applied to an
 * empty namespace, it gives back what was saved (handles are numbered
 * afresh); applied to a running one, it replaces the rules and settings
 * in one transaction and enables the interfaces (those enabled and not in
 * the file stay enabled). Counters and connections are not saved.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "mmbctl.h"
#include "print.h"
#include "rule.h"

/* The configuration is built here and written only once all of it is read. */
static FILE *out;

static int save_settings_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;
	struct attrs m, s;

	attrs_parse(nlh, &m);
	if (!m.tb[MMB_A_SETTINGS])
		return MNL_CB_OK;
	attrs_nested(m.tb[MMB_A_SETTINGS], &s);
	fprintf(out, "set conn-max %u tcp-loose %s", attr_u32(s.tb[MMB_SET_A_CONN_MAX]),
	       s.tb[MMB_SET_A_TCP_LOOSE] && mnl_attr_get_u8(s.tb[MMB_SET_A_TCP_LOOSE]) ?
	       "on" : "off");
	if (s.tb[MMB_SET_A_RP_FILTER])
		fprintf(out, " rp-filter %s", mnl_attr_get_u8(s.tb[MMB_SET_A_RP_FILTER]) ?
			"on" : "off");
	fprintf(out, "\n");
	if (!s.tb[MMB_SET_A_TIMEOUTS])
		return MNL_CB_OK;
	fprintf(out, "set");
	mnl_attr_for_each_nested(a, s.tb[MMB_SET_A_TIMEOUTS]) {
		const char *name = conn_state_setting(mnl_attr_get_type(a) - 1);

		if (name)
			fprintf(out, " timeout %s %u", name, attr_u32(a));
	}
	if (s.tb[MMB_SET_A_TCP_UNACK])
		fprintf(out, " timeout %s %u", conn_state_setting(CONN_TIMEOUT_UNACK),
			attr_u32(s.tb[MMB_SET_A_TCP_UNACK]));
	fprintf(out, "\n");
	*(bool *)data = true;
	return MNL_CB_OK;
}

/*
 * The enabled names and patterns (the messages without a device), whether
 * a device has them or not: a name is what is enabled. Devices enabled
 * as devices, by an index (no mmbctl does), are not saved.
 */
static int save_dev_cb(const struct nlmsghdr *nlh, void *data)
{
	char quoted[64];
	struct attrs a;

	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_IFINDEX] && a.tb[MMB_A_ENABLED] &&
	    !mnl_attr_validate(a.tb[MMB_A_ENABLED], MNL_TYPE_NUL_STRING)) {
		words_quote(mnl_attr_get_str(a.tb[MMB_A_ENABLED]), quoted, sizeof(quoted));
		fprintf(out, "enable %s\n", quoted);
	}
	return MNL_CB_OK;
}

static int save_rule_cb(const struct nlmsghdr *nlh, void *data)
{
	char text[URULE_TEXT_MAX], quoted[2 * URULE_TEXT_MAX], comment[2 * MMB_COMMENT_MAX + 16];
	char log[URULE_LOG_MAX];
	struct urule *r = data;
	struct attrs a, stats;
	uint32_t handle;

	attrs_parse(nlh, &a);
	if (!a.tb[MMB_A_RULE] || urule_decode(a.tb[MMB_A_RULE], r, &handle, &stats))
		return MNL_CB_OK;
	urule_format(r, text, sizeof(text));
	words_quote(text, quoted, sizeof(quoted));
	urule_comment(r, comment, sizeof(comment));
	urule_log(r, log, sizeof(log));
	fprintf(out, "%s %s%s%s\n", r->stateful ? "add-stateful" : "add", quoted, log, comment);
	return MNL_CB_OK;
}

/* One request of the save: a dump, or (@dump false) a single answer. */
static int save_part(uint8_t cmd, bool dump, mmb_nl_data_cb cb, void *data)
{
	struct mmb_nl_err err;
	struct mmb_req *req;
	int ret = EXIT_OK;

	req = mmb_req_new(cmd, dump ? NLM_F_DUMP : NLM_F_ACK);
	if (!req)
		return err_sys("allocating a request", ENOMEM);
	if (dump ? mmb_nl_dump(req, cb, data, &err) : mmb_nl_talk(req, cb, data, &err))
		ret = err_kernel(&err);
	mmb_req_free(req);
	return ret;
}

int do_save(int argc, char **argv)
{
	bool settings = false;
	struct urule *r;
	size_t len = 0;
	char *buf = NULL;
	int ret;

	if (argc > 1)
		return err_word(AT(argv + 1), "unexpected word (save > FILE writes a file)");
	if (print_is_json())
		return err_word(0, "save writes -f syntax; -j list and -j show give JSON");
	r = calloc(1, sizeof(*r));
	out = open_memstream(&buf, &len);
	if (!r || !out) {
		free(r);
		return err_sys("allocating the configuration", ENOMEM);
	}
	fprintf(out, "# mmb configuration, written by \"mmbctl save\"; \"mmbctl -f FILE\" applies it\n"
		"flush\n");
	ret = save_part(MMB_CMD_SETTINGS_GET, false, save_settings_cb, &settings);
	if (!ret && !settings && !mmb_nl_dry)
		ret = err_sys("reading the settings", EPROTO);
	if (!ret)
		ret = save_part(MMB_CMD_DEV_GET, true, save_dev_cb, NULL);
	if (!ret)
		ret = save_part(MMB_CMD_RULE_GET, true, save_rule_cb, r);
	free(r);
	if (fclose(out) && !ret)
		ret = err_sys("allocating the configuration", ENOMEM);
	if (!ret && (fwrite(buf, 1, len, stdout) != len || fflush(stdout)))
		ret = err_sys("writing the configuration", errno ?: EIO);
	free(buf);
	return ret;
}
