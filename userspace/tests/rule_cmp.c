// SPDX-License-Identifier: GPL-2.0
/*
 * Rules compared, and carried to attributes and back (rule_cmp.h).
 */
#include <string.h>
#include <linux/genetlink.h>

#include "mmbctl.h"
#include "rule_cmp.h"

int urule_same(const struct urule *a, const struct urule *b)
{
	int i;

	if (a->nm != b->nm || a->nt != b->nt || a->stateful != b->stateful ||
	    a->offload != b->offload ||
	    a->prio != b->prio || a->conn_prio != b->conn_prio || strcmp(a->comment, b->comment))
		return 0;
	if (a->limit.rate != b->limit.rate || (a->limit.rate &&
	    (a->limit.unit != b->limit.unit || a->limit.burst != b->limit.burst ||
	     a->limit.over != b->limit.over || a->limit.size != b->limit.size ||
	     (a->limit.size && (a->limit.per != b->limit.per || a->limit.plen != b->limit.plen)))))
		return 0;
	if (a->cc.set != b->cc.set || a->cc.over != b->cc.over || a->cc.limit != b->cc.limit ||
	    a->cc.per != b->cc.per || a->cc.plen != b->cc.plen || a->cc.size != b->cc.size)
		return 0;
	if (a->log != b->log || (a->log && (a->log_level != b->log_level ||
					    strcmp(a->log_prefix, b->log_prefix) ||
					    a->log_rate != b->log_rate || a->log_per != b->log_per ||
					    a->log_burst != b->log_burst)))
		return 0;
	for (i = 0; i < a->nm; i++)
		if (a->m[i].field != b->m[i].field || a->m[i].op != b->m[i].op ||
		    a->m[i].plen != b->m[i].plen || a->m[i].vlen != b->m[i].vlen ||
		    a->m[i].kind != b->m[i].kind ||
		    memcmp(a->m[i].value, b->m[i].value, a->m[i].vlen))
			return 0;
	for (i = 0; i < a->nt; i++)
		if (a->t[i].type != b->t[i].type || a->t[i].field != b->t[i].field ||
		    a->t[i].rate != b->t[i].rate || a->t[i].vlen != b->t[i].vlen ||
		    a->t[i].kind != b->t[i].kind || a->t[i].invert != b->t[i].invert ||
		    a->t[i].reject != b->t[i].reject ||
		    memcmp(a->t[i].value, b->t[i].value, a->t[i].vlen))
			return 0;
	return 1;
}

int urule_wire(const struct urule *a, struct urule *b)
{
	struct mmb_req *req = mmb_req_new(MMB_CMD_RULE_ADD, NLM_F_ACK);
	struct mmb_req *ans = mmb_req_new(MMB_CMD_RULE_GET, 0);
	const struct nlattr *put, *attr;
	struct nlattr *nest;
	uint32_t handle = 0;
	struct attrs st;
	int ret = -1;

	if (!req || !ans)
		goto out;
	urule_put(req, a);
	put = mnl_nlmsg_get_payload_offset(req->nlh, GENL_HDRLEN);
	nest = mnl_attr_nest_start(ans->nlh, MMB_A_RULE);
	mnl_attr_put_u32(ans->nlh, MMB_RULE_A_HANDLE, 7);
	mnl_attr_for_each_nested(attr, put)
		mnl_attr_put(ans->nlh, mnl_attr_get_type(attr), mnl_attr_get_payload_len(attr),
			     mnl_attr_get_payload(attr));
	mnl_attr_nest_end(ans->nlh, nest);
	memset(b, 0, sizeof(*b));
	if (!urule_decode(nest, b, &handle, &st) && handle == 7)
		ret = 0;
out:
	mmb_req_free(req);
	mmb_req_free(ans);
	return ret;
}
