// SPDX-License-Identifier: GPL-2.0
/*
 * mmb: log. A rule with "log" logs each packet it matches and counts (the
 * rule's other targets apply as ever), in softirq under RCU, at either
 * hook (classify.c):
 *
 *   mmb_log_admit()   the rule's token bucket (bucket.c): mmb_log_rate a
 *                     second, burst mmb_log_burst; a packet over it is
 *                     counted in its namespace's log-suppressed, no more
 *   mmb_log_format()  the line, field by field as the kernel's netfilter
 *                     logger (nf_log_syslog) writes it with nft's default
 *                     flags, so that what reads those reads this
 *   printk            at the rule's level, from the initial namespace
 *                     only unless log_all_netns (as nf_log_all_netns)
 *   MMB_CMD_LOG       the same record, with its fields as attributes, to
 *                     the namespace's "log" multicast group, only if it
 *                     has listeners
 *
 * Only an admitted packet costs an allocation (GFP_ATOMIC, its line);
 * the others cost the bucket's atomics.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/genetlink.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "log.h"
#include "mmb.h"
#include "nl.h"
#include "rule.h"

/*
 * 5 lines a second per rule, 10 at once: a flood costs a rule's log a line
 * every 200 ms, a scan or a brute force is still seen (fail2ban counts
 * attempts over minutes), and a hundred log rules under attack write 500
 * lines a second at most, the kernel's own printk budget's order.
 */
unsigned int mmb_log_rate = 5;
module_param_named(log_rate, mmb_log_rate, uint, 0644);
MODULE_PARM_DESC(log_rate, "Lines a second each log rule writes at most (0: no limit)");
unsigned int mmb_log_burst = 10;
module_param_named(log_burst, mmb_log_burst, uint, 0644);
MODULE_PARM_DESC(log_burst, "Lines each log rule writes in a burst");
bool mmb_log_all_netns;
module_param_named(log_all_netns, mmb_log_all_netns, bool, 0644);
MODULE_PARM_DESC(log_all_netns,
		 "Log rules of every namespace write to the kernel log, not the initial one's only (as net.netfilter.nf_log_all_netns)");

int mmb_log_net_init(struct mmb_log_net *ln)
{
	ln->suppressed = alloc_percpu(u64);
	return ln->suppressed ? 0 : -ENOMEM;
}

void mmb_log_net_exit(struct mmb_log_net *ln)
{
	free_percpu(ln->suppressed);
}

u64 mmb_log_suppressed(const struct mmb_log_net *ln)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(*per_cpu_ptr(ln->suppressed, cpu));
	return n;
}

/*
 * MMB_RULE_A_LOG: a prefix and a level; what a logged packet's record
 * carries besides is the kernel's to say. The prefix's length and bytes
 * are checked by mmb_log_nl_parse(), which says what is wrong.
 */
/* Not const: 6.1's policy points at them without const. */
static struct netlink_range_validation mmb_log_per_range = { .min = 1, .max = 86400 };
static struct netlink_range_validation mmb_log_burst_range = {
	.min = 1, .max = MMB_LOG_BURST_MAX,
};

const struct nla_policy mmb_log_policy[MMB_LOG_A_MAX + 1] = {
	[MMB_LOG_A_PREFIX]	= { .type = NLA_NUL_STRING, .len = 255 },
	[MMB_LOG_A_LEVEL]	= NLA_POLICY_MAX(NLA_U8, 7),
	[MMB_LOG_A_HANDLE]	= { .type = NLA_REJECT },
	[MMB_LOG_A_TEXT]	= { .type = NLA_REJECT },
	[MMB_LOG_A_IN]		= { .type = NLA_REJECT },
	[MMB_LOG_A_OUT]		= { .type = NLA_REJECT },
	[MMB_LOG_A_MAC]		= { .type = NLA_REJECT },
	[MMB_LOG_A_FAMILY]	= { .type = NLA_REJECT },
	[MMB_LOG_A_SADDR]	= { .type = NLA_REJECT },
	[MMB_LOG_A_DADDR]	= { .type = NLA_REJECT },
	[MMB_LOG_A_LEN]		= { .type = NLA_REJECT },
	[MMB_LOG_A_PROTO]	= { .type = NLA_REJECT },
	[MMB_LOG_A_SPORT]	= { .type = NLA_REJECT },
	[MMB_LOG_A_DPORT]	= { .type = NLA_REJECT },
	[MMB_LOG_A_ICMP_TYPE]	= { .type = NLA_REJECT },
	[MMB_LOG_A_ICMP_CODE]	= { .type = NLA_REJECT },
	[MMB_LOG_A_RATE]	= NLA_POLICY_MIN(NLA_U32, 1),
	[MMB_LOG_A_PER]		= NLA_POLICY_FULL_RANGE(NLA_U32, &mmb_log_per_range),
	[MMB_LOG_A_BURST]	= NLA_POLICY_FULL_RANGE(NLA_U32, &mmb_log_burst_range),
};

/*
 * A rule's MMB_RULE_A_LOG (validated by mmb_log_policy) into @spec: a
 * prefix of 1 to MMB_LOG_PREFIX_MAX bytes, none a control character (it
 * goes into a log line verbatim), and a level.
 */
int mmb_log_nl_parse(const struct nlattr *attr, struct mmb_rule_spec *spec,
		     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[MMB_LOG_A_MAX + 1];
	const struct nlattr *p;
	unsigned int i, len;
	const char *c;
	int err;

	err = mmb_nla_nested(tb, MMB_LOG_A_MAX, attr, extack);
	if (err)
		return err;
	spec->log = true;
	spec->log_plen = 0;
	spec->log_prefix[0] = '\0';
	spec->log_level = tb[MMB_LOG_A_LEVEL] ? nla_get_u8(tb[MMB_LOG_A_LEVEL]) :
						MMB_LOG_LEVEL_DEFAULT;
	spec->log_rate = tb[MMB_LOG_A_RATE] ? nla_get_u32(tb[MMB_LOG_A_RATE]) : 0;
	spec->log_per = tb[MMB_LOG_A_PER] ? nla_get_u32(tb[MMB_LOG_A_PER]) : 1;
	spec->log_burst = tb[MMB_LOG_A_BURST] ? nla_get_u32(tb[MMB_LOG_A_BURST]) : 0;
	if (tb[MMB_LOG_A_PER] && !tb[MMB_LOG_A_RATE]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MMB_LOG_A_PER], "a rate's period needs a rate");
		return -EINVAL;
	}
	p = tb[MMB_LOG_A_PREFIX];
	if (!p)
		return 0;
	c = nla_data(p);
	len = strnlen(c, nla_len(p));
	if (!len || len > MMB_LOG_PREFIX_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, p, "a log prefix is 1 to 64 bytes");
		return -EINVAL;
	}
	for (i = 0; i < len; i++)
		/* Not iscntrl(): the kernel's takes UTF-8's continuation bytes for controls. */
		if ((u8)c[i] < 0x20 || c[i] == 0x7f) {
			NL_SET_ERR_MSG_ATTR(extack, p,
					    "a log prefix holds no control character (newline, tab, ...)");
			return -EINVAL;
		}
	memcpy(spec->log_prefix, c, len);
	spec->log_prefix[len] = '\0';
	spec->log_plen = len;
	return 0;
}

/* MMB_RULE_A_LOG of a rule's dump: its words as given (the level always). */
int mmb_log_nl_put(struct sk_buff *skb, const struct mmb_log *l)
{
	struct nlattr *nest = nla_nest_start(skb, MMB_RULE_A_LOG);

	if (!nest || (l->plen && nla_put_string(skb, MMB_LOG_A_PREFIX, l->prefix)) ||
	    nla_put_u8(skb, MMB_LOG_A_LEVEL, l->level) ||
	    (l->rate && (nla_put_u32(skb, MMB_LOG_A_RATE, l->rate) ||
			 nla_put_u32(skb, MMB_LOG_A_PER, l->per))) ||
	    (l->burst && nla_put_u32(skb, MMB_LOG_A_BURST, l->burst)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* A rule's log, its bucket full: of its own rate and burst, or (0) the module's. */
struct mmb_log *mmb_log_new_rate(const char *prefix, unsigned int plen, u8 level, u32 rate,
				 u32 per, u32 burst)
{
	struct mmb_log *l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);

	if (!l)
		return NULL;
	l->level = level;
	l->plen = plen;
	memcpy(l->prefix, prefix, plen);
	l->rate = rate;
	l->per = rate ? per : 0;
	l->burst = burst;
	mmb_tokens_init(&l->bucket, burst ?: READ_ONCE(mmb_log_burst));
	return l;
}

struct mmb_log *mmb_log_new(const char *prefix, unsigned int plen, u8 level)
{
	return mmb_log_new_rate(prefix, plen, level, 0, 0, 0);
}

/* The same words (or neither logs); their buckets aside. */
bool mmb_log_same(const struct mmb_log *a, const struct mmb_log *b)
{
	if (!a || !b)
		return a == b;
	return a->level == b->level && a->plen == b->plen &&
	       !memcmp(a->prefix, b->prefix, a->plen) && a->rate == b->rate && a->per == b->per &&
	       a->burst == b->burst;
}

/* May @l log a packet now? If not, its namespace counts one suppressed. */
bool mmb_log_admit(struct mmb_log *l, struct mmb_log_net *ln)
{
	unsigned int burst = l->burst ?: READ_ONCE(mmb_log_burst);

	if (l->rate ? mmb_tokens_take_per(&l->bucket, l->rate, l->per, burst) :
		      mmb_tokens_take(&l->bucket, READ_ONCE(mmb_log_rate), burst))
		return true;
	this_cpu_inc(*ln->suppressed);
	return false;
}

/* The line being written: what does not fit is cut, as the netfilter logger does. */
struct mmb_logbuf {
	char *p;
	size_t size;
	size_t len;
};

static __printf(2, 3) void mmb_lb_add(struct mmb_logbuf *b, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	b->len += vscnprintf(b->p + b->len, b->size - b->len, fmt, args);
	va_end(args);
}

/* TCP's fields at @off; false if its header is not all there. */
static bool mmb_log_tcp(struct mmb_logbuf *b, const struct sk_buff *skb, unsigned int off,
			bool later, struct mmb_log_rec *rec)
{
	struct tcphdr _th;
	const struct tcphdr *th;

	mmb_lb_add(b, "PROTO=TCP ");
	if (later)
		return true;
	th = skb_header_pointer(skb, off, sizeof(_th), &_th);
	if (!th) {
		mmb_lb_add(b, "INCOMPLETE [%u bytes] ", skb->len - off);
		return false;
	}
	mmb_lb_add(b, "SPT=%u DPT=%u WINDOW=%u RES=0x%02x ", ntohs(th->source), ntohs(th->dest),
		   ntohs(th->window),
		   (u8)(ntohl(tcp_flag_word(th) & TCP_RESERVED_BITS) >> 22));
	if (rec) {
		rec->ports = true;
		rec->sport = ntohs(th->source);
		rec->dport = ntohs(th->dest);
	}
	mmb_lb_add(b, "%s%s%s%s%s%s%s%s", th->cwr ? "CWR " : "", th->ece ? "ECE " : "",
		   th->urg ? "URG " : "", th->ack ? "ACK " : "", th->psh ? "PSH " : "",
		   th->rst ? "RST " : "", th->syn ? "SYN " : "", th->fin ? "FIN " : "");
	mmb_lb_add(b, "URGP=%u ", ntohs(th->urg_ptr));
	return true;
}

/* UDP's and UDP-Lite's fields at @off; false if its header is not all there. */
static bool mmb_log_udp(struct mmb_logbuf *b, const struct sk_buff *skb, unsigned int off,
			u8 proto, bool later, struct mmb_log_rec *rec)
{
	struct udphdr _uh;
	const struct udphdr *uh;

	mmb_lb_add(b, proto == IPPROTO_UDP ? "PROTO=UDP " : "PROTO=UDPLITE ");
	if (later)
		return true;
	uh = skb_header_pointer(skb, off, sizeof(_uh), &_uh);
	if (!uh) {
		mmb_lb_add(b, "INCOMPLETE [%u bytes] ", skb->len - off);
		return false;
	}
	mmb_lb_add(b, "SPT=%u DPT=%u LEN=%u ", ntohs(uh->source), ntohs(uh->dest),
		   ntohs(uh->len));
	if (rec) {
		rec->ports = true;
		rec->sport = ntohs(uh->source);
		rec->dport = ntohs(uh->dest);
	}
	return true;
}

/* The bytes an ICMP message of @type needs to be read whole (as nf_log_syslog). */
static unsigned int mmb_icmp_need(u8 type)
{
	switch (type) {
	case ICMP_ECHOREPLY:
	case ICMP_ECHO:
		return 4;
	case ICMP_DEST_UNREACH:
	case ICMP_SOURCE_QUENCH:
	case ICMP_REDIRECT:
	case ICMP_TIME_EXCEEDED:
	case ICMP_PARAMETERPROB:
		return 8 + sizeof(struct iphdr);
	case ICMP_TIMESTAMP:
	case ICMP_TIMESTAMPREPLY:
		return 20;
	case ICMP_ADDRESS:
	case ICMP_ADDRESSREPLY:
		return 12;
	}
	return 0;
}

static void mmb_log_ip4(struct mmb_logbuf *b, const struct sk_buff *skb, unsigned int off,
			struct mmb_log_rec *rec);

/* ICMP's fields at @off, an error's quoted packet once (not in a quote). */
static void mmb_log_icmp(struct mmb_logbuf *b, const struct sk_buff *skb, unsigned int off,
			 bool quoted, struct mmb_log_rec *rec)
{
	struct icmphdr _ih;
	const struct icmphdr *ih;

	ih = skb_header_pointer(skb, off, sizeof(_ih), &_ih);
	if (!ih) {
		mmb_lb_add(b, "INCOMPLETE [%u bytes] ", skb->len - off);
		return;
	}
	mmb_lb_add(b, "TYPE=%u CODE=%u ", ih->type, ih->code);
	if (rec) {
		rec->icmp = true;
		rec->type = ih->type;
		rec->code = ih->code;
	}
	if (skb->len - off < mmb_icmp_need(ih->type)) {
		mmb_lb_add(b, "INCOMPLETE [%u bytes] ", skb->len - off);
		return;
	}
	switch (ih->type) {
	case ICMP_ECHOREPLY:
	case ICMP_ECHO:
		mmb_lb_add(b, "ID=%u SEQ=%u ", ntohs(ih->un.echo.id), ntohs(ih->un.echo.sequence));
		return;
	case ICMP_PARAMETERPROB:
		mmb_lb_add(b, "PARAMETER=%u ", ntohl(ih->un.gateway) >> 24);
		return;
	case ICMP_REDIRECT:
		mmb_lb_add(b, "GATEWAY=%pI4 ", &ih->un.gateway);
		fallthrough;
	case ICMP_DEST_UNREACH:
	case ICMP_SOURCE_QUENCH:
	case ICMP_TIME_EXCEEDED:
		if (!quoted) {
			mmb_lb_add(b, "[");
			mmb_log_ip4(b, skb, off + sizeof(_ih), NULL);
			mmb_lb_add(b, "] ");
		}
		if (ih->type == ICMP_DEST_UNREACH && ih->code == ICMP_FRAG_NEEDED)
			mmb_lb_add(b, "MTU=%u ", ntohs(ih->un.frag.mtu));
	}
}

/* An IP length: a GSO packet's header may say 0 (BIG TCP). */
static unsigned int mmb_log_iplen(const struct sk_buff *skb, unsigned int off,
				  unsigned int said, unsigned int hlen)
{
	if (!said && skb_is_gso(skb) && skb->len > off)
		return skb->len - off;
	return said + hlen;
}

/*
 * The IPv4 packet at @off: the outer one (@rec set) or the one an ICMP
 * error quotes (@rec NULL).
 */
static void mmb_log_ip4(struct mmb_logbuf *b, const struct sk_buff *skb, unsigned int off,
			struct mmb_log_rec *rec)
{
	struct iphdr _iph;
	const struct iphdr *ih;
	unsigned int l4, frag;
	bool later;

	ih = skb_header_pointer(skb, off, sizeof(_iph), &_iph);
	if (!ih) {
		mmb_lb_add(b, "TRUNCATED");
		return;
	}
	frag = ntohs(ih->frag_off);
	later = frag & IP_OFFSET;
	l4 = off + ih->ihl * 4;
	mmb_lb_add(b, "SRC=%pI4 DST=%pI4 ", &ih->saddr, &ih->daddr);
	mmb_lb_add(b, "LEN=%u TOS=0x%02X PREC=0x%02X TTL=%u ID=%u ",
		   mmb_log_iplen(skb, off, ntohs(ih->tot_len), 0), ih->tos & IPTOS_TOS_MASK,
		   ih->tos & IPTOS_PREC_MASK, ih->ttl, ntohs(ih->id));
	mmb_lb_add(b, "%s%s%s", frag & IP_CE ? "CE " : "", frag & IP_DF ? "DF " : "",
		   frag & IP_MF ? "MF " : "");
	if (later)
		mmb_lb_add(b, "FRAG:%u ", frag & IP_OFFSET);
	if (rec) {
		rec->family = 4;
		rec->proto = ih->protocol;
		rec->len = mmb_log_iplen(skb, off, ntohs(ih->tot_len), 0);
		rec->saddr.a4 = ih->saddr;
		rec->daddr.a4 = ih->daddr;
	}
	switch (ih->protocol) {
	case IPPROTO_TCP:
		if (!mmb_log_tcp(b, skb, l4, later, rec))
			return;
		break;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		if (!mmb_log_udp(b, skb, l4, ih->protocol, later, rec))
			return;
		break;
	case IPPROTO_ICMP:
		mmb_lb_add(b, "PROTO=ICMP ");
		if (!later)
			mmb_log_icmp(b, skb, l4, !rec, rec);
		break;
	case IPPROTO_AH:
	case IPPROTO_ESP: {
		struct ip_esp_hdr _eh;
		const struct ip_esp_hdr *eh;
		unsigned int spi = ih->protocol == IPPROTO_AH ? 4 : 0;

		/* An AH fragment says nothing; an ESP one its protocol. */
		if (later && ih->protocol == IPPROTO_AH)
			break;
		mmb_lb_add(b, ih->protocol == IPPROTO_AH ? "PROTO=AH " : "PROTO=ESP ");
		if (later)
			break;
		eh = skb_header_pointer(skb, l4 + spi, sizeof(_eh), &_eh);
		if (!eh) {
			mmb_lb_add(b, "INCOMPLETE [%u bytes] ", skb->len - l4);
			break;
		}
		mmb_lb_add(b, "SPI=0x%x ", ntohl(eh->spi));
		break;
	}
	default:
		mmb_lb_add(b, "PROTO=%u ", ih->protocol);
	}
	if (rec && skb->mark)
		mmb_lb_add(b, "MARK=0x%x ", skb->mark);
}

static void mmb_log_ip6(struct mmb_logbuf *b, const struct sk_buff *skb, unsigned int off,
			struct mmb_log_rec *rec);

/* ICMPv6's fields at @off, an error's quoted packet once; false if its header is not there. */
static bool mmb_log_icmp6(struct mmb_logbuf *b, const struct sk_buff *skb, unsigned int off,
			  bool quoted, struct mmb_log_rec *rec)
{
	struct icmp6hdr _ih;
	const struct icmp6hdr *ih;

	ih = skb_header_pointer(skb, off, sizeof(_ih), &_ih);
	if (!ih) {
		mmb_lb_add(b, "INCOMPLETE [%u bytes] ", skb->len - off);
		return false;
	}
	mmb_lb_add(b, "TYPE=%u CODE=%u ", ih->icmp6_type, ih->icmp6_code);
	if (rec) {
		rec->icmp = true;
		rec->type = ih->icmp6_type;
		rec->code = ih->icmp6_code;
	}
	switch (ih->icmp6_type) {
	case ICMPV6_ECHO_REQUEST:
	case ICMPV6_ECHO_REPLY:
		mmb_lb_add(b, "ID=%u SEQ=%u ", ntohs(ih->icmp6_identifier),
			   ntohs(ih->icmp6_sequence));
		break;
	case ICMPV6_PARAMPROB:
		mmb_lb_add(b, "POINTER=%08x ", ntohl(ih->icmp6_pointer));
		fallthrough;
	case ICMPV6_DEST_UNREACH:
	case ICMPV6_PKT_TOOBIG:
	case ICMPV6_TIME_EXCEED:
		if (!quoted) {
			mmb_lb_add(b, "[");
			mmb_log_ip6(b, skb, off + sizeof(_ih), NULL);
			mmb_lb_add(b, "] ");
		}
		if (ih->icmp6_type == ICMPV6_PKT_TOOBIG)
			mmb_lb_add(b, "MTU=%u ", ntohl(ih->icmp6_mtu));
	}
	return true;
}

/*
 * The IPv6 packet at @off, its extension headers walked as the netfilter
 * logger walks them (without the IP options flag: a fragment header alone
 * says something); the outer one (@rec set) or a quoted one.
 */
static void mmb_log_ip6(struct mmb_logbuf *b, const struct sk_buff *skb, unsigned int off,
			struct mmb_log_rec *rec)
{
	struct ipv6hdr _ih;
	const struct ipv6hdr *ih;
	unsigned int ptr, len;
	bool later = false;
	u32 word;
	u8 next;

	ih = skb_header_pointer(skb, off, sizeof(_ih), &_ih);
	if (!ih) {
		mmb_lb_add(b, "TRUNCATED");
		return;
	}
	word = ntohl(*(const __be32 *)ih);
	len = mmb_log_iplen(skb, off, ntohs(ih->payload_len), sizeof(*ih));
	mmb_lb_add(b, "SRC=%pI6 DST=%pI6 ", &ih->saddr, &ih->daddr);
	mmb_lb_add(b, "LEN=%u TC=%u HOPLIMIT=%u FLOWLBL=%u ", len, (word & 0x0ff00000) >> 20,
		   ih->hop_limit, word & 0x000fffff);
	ptr = off + sizeof(*ih);
	next = ih->nexthdr;
	if (rec) {
		rec->family = 6;
		rec->len = len;
		rec->saddr.a6 = ih->saddr;
		rec->daddr.a6 = ih->daddr;
	}
	for (;;) {
		struct ipv6_opt_hdr _hdr;
		const struct ipv6_opt_hdr *hp;
		unsigned int hlen;

		if (rec)	/* the last header reached, where the walk may stop */
			rec->proto = next;
		if (next != NEXTHDR_HOP && next != NEXTHDR_ROUTING && next != NEXTHDR_DEST &&
		    next != NEXTHDR_FRAGMENT && next != NEXTHDR_AUTH && next != NEXTHDR_ESP)
			break;
		if (next == NEXTHDR_ESP)
			return;		/* encrypted: nothing more to read */
		hp = skb_header_pointer(skb, ptr, sizeof(_hdr), &_hdr);
		if (!hp) {
			mmb_lb_add(b, "TRUNCATED");
			return;
		}
		if (next == NEXTHDR_FRAGMENT) {
			struct frag_hdr _fh;
			const struct frag_hdr *fh;

			mmb_lb_add(b, "FRAG:");
			fh = skb_header_pointer(skb, ptr, sizeof(_fh), &_fh);
			if (!fh) {
				mmb_lb_add(b, "TRUNCATED ");
				return;
			}
			mmb_lb_add(b, "%u %sID:%08x ", ntohs(fh->frag_off) & 0xFFF8,
				   fh->frag_off & htons(0x0001) ? "INCOMPLETE " : "",
				   ntohl(fh->identification));
			if (ntohs(fh->frag_off) & 0xFFF8)
				later = true;
			hlen = 8;
		} else if (next == NEXTHDR_AUTH) {
			hlen = ipv6_authlen(hp);
		} else {
			if (later)
				return;
			hlen = ipv6_optlen(hp);
		}
		next = hp->nexthdr;
		ptr += hlen;
	}
	switch (next) {
	case IPPROTO_TCP:
		if (!mmb_log_tcp(b, skb, ptr, later, rec))
			return;
		break;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		if (!mmb_log_udp(b, skb, ptr, next, later, rec))
			return;
		break;
	case IPPROTO_ICMPV6:
		mmb_lb_add(b, "PROTO=ICMPv6 ");
		if (!later && !mmb_log_icmp6(b, skb, ptr, !rec, rec))
			return;
		break;
	default:
		mmb_lb_add(b, "PROTO=%u ", next);
	}
	if (rec && skb->mark)
		mmb_lb_add(b, "MARK=0x%x ", skb->mark);
}

/*
 * The line of the packet at skb->data, as the netfilter logger writes it
 * (nf_log_syslog.c, nft's default flags), without its level and newline:
 * @prefix, IN= and OUT= (@in and @out, "" for none), MAC= (if @in, of
 * @maclen bytes at @mac, for a device that has a link header), then the
 * IPv4 or IPv6 packet's fields. Its length; @rec gets what it read.
 */
int mmb_log_format(char *buf, size_t size, const struct sk_buff *skb, const char *prefix,
		   const char *in, const char *out, const u8 *mac, unsigned int maclen,
		   struct mmb_log_rec *rec)
{
	struct mmb_logbuf b = { .p = buf, .size = size };
	unsigned int i;
	u8 ver = 0;

	memset(rec, 0, sizeof(*rec));
	if (!size)
		return 0;
	buf[0] = '\0';
	mmb_lb_add(&b, "%sIN=%s OUT=%s ", prefix, in ?: "", out ?: "");
	if (in) {
		mmb_lb_add(&b, "MAC=");
		for (i = 0; mac && i < maclen; i++)
			mmb_lb_add(&b, i ? ":%02x" : "%02x", mac[i]);
		mmb_lb_add(&b, " ");
	}
	if (skb_copy_bits(skb, 0, &ver, 1) < 0 || (ver >> 4 != 4 && ver >> 4 != 6))
		mmb_lb_add(&b, "TRUNCATED");
	else if (ver >> 4 == 4)
		mmb_log_ip4(&b, skb, 0, rec);
	else
		mmb_log_ip6(&b, skb, 0, rec);
	return b.len;
}

/*
 * The line at syslog level @level: vprintk_emit() takes the level apart,
 * as the netfilter logger's KERN_SOH and a digit say it.
 */
static __printf(2, 3) void mmb_log_print(int level, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vprintk_emit(0, level, NULL, fmt, args);
	va_end(args);
}

/* MMB_CMD_LOG of @line to @net's listeners. */
static void mmb_log_send(struct net *net, const struct mmb_rule *rule, const char *line,
			 const char *in, const char *out, const u8 *mac, unsigned int maclen,
			 const struct mmb_log_rec *rec)
{
	unsigned int alen = rec->family == 4 ? 4 : 16;
	const struct mmb_log *l = rule->log;
	struct sk_buff *skb;
	struct nlattr *nest;
	void *hdr;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &mmb_genl_family, 0, MMB_CMD_LOG);
	if (!hdr)
		goto err;
	nest = nla_nest_start(skb, MMB_A_LOG);
	if (!nest ||
	    nla_put_u32(skb, MMB_LOG_A_HANDLE, rule->handle) ||
	    (l->plen && nla_put_string(skb, MMB_LOG_A_PREFIX, l->prefix)) ||
	    nla_put_u8(skb, MMB_LOG_A_LEVEL, l->level) ||
	    nla_put_string(skb, MMB_LOG_A_TEXT, line) ||
	    (in && nla_put_string(skb, MMB_LOG_A_IN, in)) ||
	    (out && nla_put_string(skb, MMB_LOG_A_OUT, out)) ||
	    (maclen && nla_put(skb, MMB_LOG_A_MAC, maclen, mac)))
		goto err;
	if (rec->family &&
	    (nla_put_u8(skb, MMB_LOG_A_FAMILY, rec->family) ||
	     nla_put(skb, MMB_LOG_A_SADDR, alen, &rec->saddr) ||
	     nla_put(skb, MMB_LOG_A_DADDR, alen, &rec->daddr) ||
	     nla_put_u32(skb, MMB_LOG_A_LEN, rec->len) ||
	     nla_put_u8(skb, MMB_LOG_A_PROTO, rec->proto)))
		goto err;
	if (rec->ports && (nla_put_u16(skb, MMB_LOG_A_SPORT, rec->sport) ||
			   nla_put_u16(skb, MMB_LOG_A_DPORT, rec->dport)))
		goto err;
	if (rec->icmp && (nla_put_u8(skb, MMB_LOG_A_ICMP_TYPE, rec->type) ||
			  nla_put_u8(skb, MMB_LOG_A_ICMP_CODE, rec->code)))
		goto err;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&mmb_genl_family, net, skb, 0, MMB_MCGRP_LOG, GFP_ATOMIC);
	return;
err:
	nlmsg_free(skb);
}

/*
 * Log @skb, which @rule matched and counted, arriving (its device, IN=)
 * or, @out, leaving (OUT=), its network header at skb->data; within the
 * rule's rate.
 */
void mmb_log_packet(const struct mmb_rule *rule, const struct sk_buff *skb, bool out)
{
	const struct net_device *dev = skb->dev, *in = NULL;
	const char *iname, *oname;
	const u8 *mac = NULL;
	struct mmb_log_rec rec;
	unsigned int maclen = 0;
	bool kern, listen;
	struct mmb_net *mn;
	struct net *net;
	char *line;

	if (!dev)
		return;
	net = dev_net(dev);
	mn = mmb_pernet(net);
	if (!mmb_log_admit(rule->log, &mn->log))
		return;
	kern = net_eq(net, &init_net) || READ_ONCE(mmb_log_all_netns);
	listen = genl_has_listeners(&mmb_genl_family, net, MMB_MCGRP_LOG);
	if (!kern && !listen)
		return;
	line = kmalloc(MMB_LOG_LINE, GFP_ATOMIC);
	if (!line)
		return;
	/*
	 * Leaving, a forwarded packet has the device it arrived on as its
	 * IN=, as in nft's postrouting; the host's own has none. (Its link
	 * header is the one it leaves with by now: the arriving one is gone.)
	 */
	if (out && skb->skb_iif)
		in = dev_get_by_index_rcu(net, skb->skb_iif);
	else if (!out)
		in = dev;
	iname = in ? in->name : NULL;
	oname = out ? dev->name : NULL;
	/* As the netfilter logger: MAC= with IN=, a device's link header, as it is long. */
	if (in && dev->hard_header_len && skb_mac_header_was_set(skb) &&
	    skb_mac_header_len(skb) >= dev->hard_header_len) {
		mac = skb_mac_header(skb);
		maclen = dev->hard_header_len;
	}
	mmb_log_format(line, MMB_LOG_LINE, skb, rule->log->prefix, iname, oname, mac, maclen,
		       &rec);
	if (kern)
		mmb_log_print(rule->log->level, "%s\n", line);
	if (listen)
		mmb_log_send(net, rule, line, iname, oname, mac, maclen, &rec);
	kfree(line);
}
