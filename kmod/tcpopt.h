/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmb: all mmb knows of TCP options (tcpopt.c): walking a list, finding an
 * option, putting the named ones into the header image, matching them,
 * compiling matches into masks, locating one for an in-place rewrite, and
 * rebuilding a list for strip, add and mods that change a length.
 */
#ifndef _MMB_TCPOPT_H
#define _MMB_TCPOPT_H

#include <net/tcp.h>

#include "pkt.h"

struct mmb_match;
struct mmb_match_spec;
struct mmb_rule_err;
struct mmb_target_spec;
struct mmb_verdict;

/*
 * The length of the TCP option at @i of the @n bytes of options @o: 1 for
 * a NOP, 0 where the list ends (end of list, or a malformed option). The
 * one reading of option lists, for the parser and the rules' slow path.
 */
static inline unsigned int mmb_tcp_opt_len(const u8 *o, unsigned int i, unsigned int n)
{
	if (i >= n || o[i] == TCPOPT_EOL)
		return 0;
	if (o[i] == TCPOPT_NOP)
		return 1;
	if (i + 1 >= n || o[i + 1] < 2 || i + o[i + 1] > n)
		return 0;
	return o[i + 1];
}

/* The bit of a TCP option field at MMB_IMG_OPTS. */
static inline u8 mmb_opt_bit(unsigned int field)
{
	return BIT(field - MMB_FIELD_TCP_OPT_MSS);
}

/* By option kind, the bit of its field (0: no field of its own). */
extern u8 mmb_opt_kind_bits[256];
void __init mmb_tcpopt_init(void);

/* The image's TCP option bytes (see pkt.h), as the parser fills them. */
void mmb_tcpopt_image(const struct sk_buff *skb, struct mmb_pkt *pkt);
int mmb_tcpopt_find(const struct sk_buff *skb, const struct mmb_pkt *pkt, u8 kind,
		    u8 *buf, const u8 **data, unsigned int *off);
bool mmb_tcpopt_match(const struct mmb_match *m, const u8 *value,
		      const struct mmb_field_info *f, const struct mmb_pkt *pkt,
		      const struct sk_buff *skb);
int mmb_tcpopt_check(const struct mmb_field_info *f, const struct mmb_match_spec *m,
		     unsigned int index, struct mmb_rule_err *err);
unsigned int mmb_tcpopt_compile(const struct mmb_match *m, const u8 *value,
				u8 *off, u8 *mb, u8 *vb);
bool mmb_tcpopt_locate(const struct sk_buff *skb, const struct mmb_pkt *pkt,
		       struct mmb_field_info *f);
int mmb_tcpopt_check_target(const struct mmb_target_spec *t, unsigned int i,
			    struct mmb_rule_err *err);
int mmb_tcpopt_rewrite(struct sk_buff *skb, struct mmb_pkt *pkt, const struct mmb_verdict *v,
		       int *delta);

#endif /* _MMB_TCPOPT_H */
