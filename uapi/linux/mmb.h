/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * mmb: a middlebox and firewall on the netdev rx_handler hook.
 *
 * Generic netlink interface
 * =========================
 *
 * Family name MMB_GENL_NAME ("mmb"), version MMB_GENL_VERSION. The family is
 * visible in every network namespace; all state (enabled interfaces, rules,
 * connections) belongs to the namespace of the requesting socket.
 *
 * Every command, dumps included, requires CAP_NET_ADMIN in the user
 * namespace that owns the network namespace. Attributes are validated
 * strictly: unknown attributes, wrong lengths and values out of range are
 * refused with an extended ACK that names the attribute.
 *
 * MMB_CMD_DEV_ENABLE
 *	Enable mmb on the devices of a name, or of a pattern, MMB_A_IFNAME:
 *	1 to IFNAMSIZ - 1 bytes, no '/', ':' or white space; a pattern ends
 *	in '*' (a '*' anywhere else is refused) and stands for every name
 *	that begins with what is before it ("ppp*"; "*" alone: every
 *	device). The namespace remembers it: every device of the name that
 *	exists is attached now, and one that appears later (created, renamed
 *	to it, moved into the namespace) is attached as it is registered or
 *	renamed, before it can pass a packet. A device that cannot be
 *	attached then (another rx_handler took it) is counted in
 *	MMB_A_ATTACH_FAILED and logged. MMB_A_IFINDEX (an older mmbctl) is
 *	still taken: the name of that device is remembered. Any device that
 *	hands IP packets to the stack will do: Ethernet, veth, a VLAN, and
 *	devices without a link-layer header (tun, WireGuard, IP tunnels).
 *	Errors (nothing is remembered):
 *	EINVAL   not a valid name or pattern; or a device of the name never
 *	         sees its packets at ingress: loopback, or a VRF device
 *	         (its packets arrive on its member devices) -- a pattern
 *	         passes over those;
 *	ENODEV   no device of that MMB_A_IFINDEX;
 *	EEXIST   the name or pattern is enabled already;
 *	ENOSPC   the namespace has MMB_ENABLED_MAX names and patterns
 *	         enabled (a pattern stands for many);
 *	EBUSY    a device of the name already has an rx_handler (bridge,
 *	         bond, team, macvlan, ipvlan, Open vSwitch port, ...).
 *
 * MMB_CMD_DEV_DISABLE
 *	Forget a name or pattern given to MMB_CMD_DEV_ENABLE, exactly as
 *	given, and detach the devices no other enabled name or pattern
 *	covers. With MMB_A_IFINDEX: the name of that device. ENOENT if it
 *	is not enabled.
 *
 * MMB_CMD_DEV_GET (dump only)
 *	One message per attached device:
 *	  MMB_A_IFINDEX     u32
 *	  MMB_A_IFNAME      string
 *	  MMB_A_ENABLED     string: the name or pattern that enabled it
 *	  MMB_A_DEV_STATS   nest of enum mmb_stats_attr, summed over CPUs
 *	then one per enabled name or pattern, in the order they were given:
 *	  MMB_A_ENABLED       string
 *	  MMB_A_ATTACHED      u32: devices it attached (0: waiting)
 *	  MMB_A_ATTACH_FAILED u32: devices of the name that appeared and
 *	                      could not be attached
 *
 * Rules
 * -----
 * A rule is a list of matches, all of which must hold, a list of
 * targets and a priority (MMB_RULE_A_PRIORITY, default 0; higher wins).
 * A packet's verdict is that of the rules it matches of the highest
 * priority among those that accept or drop it: among equal priorities
 * accept beats drop. Rules of lower priority than that verdict do not
 * apply at all (as the rules of an nftables chain after the one that
 * decided); the rewrites of the others, of the verdict's priority and
 * above, are applied by descending priority, then ascending handle.
 * Rules apply to every enabled device of the namespace.
 * docs/priorities.md has the whole of it, connections included.
 *
 * MMB_CMD_RULE_ADD
 *	MMB_A_RULE: nest of enum mmb_rule_attr with MMB_RULE_A_MATCHES (at
 *	least one; MMB_FIELD_ALL matches every packet) and MMB_RULE_A_TARGETS
 *	(at least one); optionally MMB_RULE_A_COMMENT, text kept with the rule
 *	(UTF-8 without a control character: no byte below 0x20, nor 0x7f, nor
 *	U+0080 to U+009F; nothing after its NUL). The new rule's handle is returned in a
 *	MMB_CMD_RULE_ADD message before the acknowledgment.
 *
 * MMB_CMD_RULE_DEL
 *	MMB_A_RULE with MMB_RULE_A_HANDLE. ENOENT if there is no such rule.
 *
 * MMB_CMD_RULE_FLUSH
 *	Removes every rule of the namespace.
 *
 * MMB_CMD_RULE_BATCH
 *	MMB_A_OP, repeated: the operations, in order, each a nest of enum
 *	mmb_batch_attr: MMB_BATCH_A_CMD (MMB_CMD_RULE_ADD, _DEL, _FLUSH,
 *	MMB_CMD_DEV_ENABLE or MMB_CMD_SET) and, for add and del,
 *	MMB_BATCH_A_RULE as for those commands; for enable, MMB_BATCH_A_IFNAME;
 *	for set, MMB_BATCH_A_SETTINGS as MMB_A_SETTINGS of MMB_CMD_SET. (An
 *	attribute holds at most 64 KiB; a message can be larger.) All apply as
 *	one transaction: packets see the rules from before or from after,
 *	never between; if one operation fails, none applies, and the extended
 *	ACK names the attribute at fault. With MMB_A_CHECK, the batch is
 *	checked and its commit prepared as if it were to apply (rules built,
 *	devices looked up and prepared), then thrown away: nothing changes,
 *	and the answer is the one the batch would have had. Rules the batch leaves in place keep
 *	their handles and counters. Rule operations apply in order; the
 *	devices are enabled and the settings set when the new rules are in
 *	place, so a device's first packets meet them. Enabling a device mmb
 *	is already enabled on is not an error in a batch (the batch says what
 *	is to be enabled after it): a saved configuration can be applied
 *	again.
 *
 * MMB_CMD_TABLE_GET (dump only)
 *	One MMB_A_TABLE per distinct mask (per-mask hash table), in lookup
 *	order: the fields that make up the mask (with prefix lengths), its
 *	entries (distinct keys), rules, the packets its rules matched, and
 *	the highest priority of its rules (a bound: it may be higher than
 *	theirs after deletes). Tables are looked up from the highest priority
 *	down, and the lookup stops before a table whose priority is below
 *	a verdict found.
 *
 * MMB_CMD_RULE_GET (dump only)
 *	One MMB_A_RULE per rule in handle order, with MMB_RULE_A_HANDLE, the
 *	matches and targets as they were given, MMB_RULE_A_COMMENT if it has
 *	one, and MMB_RULE_A_STATS (packets and bytes of the packets the rule
 *	matched).
 *
 * MMB_CMD_RULE_RESET
 *	Zeroes the counters (MMB_RULE_A_STATS, and MMB_STATS_A_NOFIT) of every
 *	rule, or, with MMB_A_RULE holding MMB_RULE_A_HANDLE, of that rule
 *	(ENOENT if there is none). Packets counted while it runs are kept or
 *	zeroed, never lost half-way; nothing else changes.
 *
 * MMB_CMD_STATS_GET
 *	Answers with one MMB_CMD_STATS_GET message: MMB_A_STATS, the counters
 *	of every enabled device of the namespace summed (as MMB_A_DEV_STATS),
 *	with MMB_STATS_A_CACHE_HITS and _MISSES of the flow cache of the
 *	current rules (none: absent), MMB_STATS_A_LIMIT_EVICTED and _FULL of
 *	their meters summed (no rule with a meter: absent),
 *	MMB_STATS_A_LOG_SUPPRESSED, and MMB_A_DEVICES, how many devices.
 *
 * MMB_CMD_TRACE
 *	Runs one packet through the namespace's rules and connection table as
 *	the hook would, and answers what happened, changing nothing: no
 *	counter, connection or cache entry. MMB_A_TRACE (enum
 *	mmb_trace_attr) holds the packet: MMB_TRACE_A_PACKET, its bytes from
 *	the IP header on; or MMB_TRACE_A_FAMILY, MMB_TRACE_A_PROTO and
 *	MMB_TRACE_A_FIELDS, values of fields (matches with == and a value)
 *	written into a packet mmb makes: from 192.0.2.1 (2001:db8::1) to
 *	192.0.2.2 (2001:db8::2), TTL 64, no payload; TCP a SYN from port 1024
 *	to 80 with window 64240, UDP from 1024 to 53, an ICMP or ICMPv6 echo
 *	request of identifier 1. MMB_TRACE_A_IFINDEX names the device it
 *	arrives on, which "in" rules match by its name (default: none, which
 *	no "in" matches). The answer, an
 *	MMB_CMD_TRACE message, holds MMB_A_TRACE with the packet traced,
 *	the parse, each rule that applies and how, the verdict, and the
 *	packet after rewriting if it was; and MMB_A_CONN, the connection it
 *	belongs to, if any. A new connection's NAT (its mapping is chosen as
 *	it starts) is not in the packet after rewriting.
 *
 * A match is (field, operator, value[, prefix length]). The value is the
 * field's value in network byte order, right-aligned in the width of
 * mmb_field_size(): 1, 2, 4 or 16 bytes. It must fit the field's bits;
 * addresses take a prefix length (operators == and != only). Byte-string
 * fields (payloads) take 1 to MMB_PAYLOAD_MAX bytes compared at the start
 * of the payload, with == or !=. Fields of IPv4 (ip-*) or IPv6 (ip6-*)
 * restrict a rule to that family; fields of an L4 protocol restrict it to
 * packets of that protocol that carry the whole L4 header (not later
 * fragments). Target fields restrict the rule the same way.
 *
 * MMB_FIELD_IN (== or !=) takes the name of the device a packet arrives
 * on, MMB_FIELD_OUT that of the device it leaves by, MMB_MATCH_A_IFNAME,
 * with no value: a name, no pattern, as for MMB_CMD_DEV_ENABLE. The
 * device need not exist: the rule matches once a device of that name is
 * enabled. (A 4-byte MMB_MATCH_A_VALUE, an ifindex, is taken as the name
 * of that device now.) Dumps give the name.
 */
#ifndef _UAPI_LINUX_MMB_H
#define _UAPI_LINUX_MMB_H

#define MMB_GENL_NAME		"mmb"
#define MMB_GENL_VERSION	1

enum mmb_cmd {
	MMB_CMD_UNSPEC,
	MMB_CMD_DEV_ENABLE,
	MMB_CMD_DEV_DISABLE,
	MMB_CMD_DEV_GET,
	MMB_CMD_RULE_ADD,
	MMB_CMD_RULE_DEL,
	MMB_CMD_RULE_FLUSH,
	MMB_CMD_RULE_GET,
	MMB_CMD_RULE_BATCH,
	MMB_CMD_TABLE_GET,
	MMB_CMD_CONN_GET,
	MMB_CMD_CONN_FLUSH,
	MMB_CMD_SET,
	MMB_CMD_SETTINGS_GET,
	MMB_CMD_CONN_NEW,	/* events only, as the next two */
	MMB_CMD_CONN_UPDATE,
	MMB_CMD_CONN_DESTROY,
	MMB_CMD_STATS_GET,
	MMB_CMD_TRACE,
	MMB_CMD_RULE_RESET,
	MMB_CMD_LOG,		/* events only: a packet a log rule logged (MMB_A_LOG) */
	__MMB_CMD_MAX
};

#define MMB_CMD_MAX (__MMB_CMD_MAX - 1)

enum mmb_attr {
	MMB_A_UNSPEC,
	MMB_A_PAD,
	MMB_A_IFINDEX,		/* u32 */
	MMB_A_IFNAME,		/* NUL-terminated string, < IFNAMSIZ */
	MMB_A_DEV_STATS,	/* nest of enum mmb_stats_attr */
	MMB_A_RULE,		/* nest of enum mmb_rule_attr */
	MMB_A_OP,		/* nest of enum mmb_batch_attr, repeated */
	MMB_A_TABLE,		/* nest of enum mmb_table_attr */
	MMB_A_CONN,		/* nest of enum mmb_conn_attr */
	MMB_A_SETTINGS,		/* nest of enum mmb_set_attr */
	MMB_A_STATS,		/* nest of enum mmb_stats_attr: the namespace's */
	MMB_A_DEVICES,		/* u32: enabled devices */
	MMB_A_TRACE,		/* nest of enum mmb_trace_attr */
	MMB_A_CHECK,		/* flag, of MMB_CMD_RULE_BATCH: check, apply nothing */
	MMB_A_ENABLED,		/* string: an enabled name or pattern */
	MMB_A_ATTACHED,		/* u32 */
	MMB_A_ATTACH_FAILED,	/* u32 */
	MMB_A_LOG,		/* nest of enum mmb_log_attr, of MMB_CMD_LOG */
	__MMB_A_MAX
};

#define MMB_A_MAX (__MMB_A_MAX - 1)

/* The multicast group of connection events (MMB_CMD_CONN_NEW, ...). */
#define MMB_GENL_MCGRP_EVENTS	"events"
/* The multicast group of logged packets (MMB_CMD_LOG; docs/log.md). */
#define MMB_GENL_MCGRP_LOG	"log"

/*
 * Counters of what the hook saw on one device. Its drops by cause, each
 * also visible to drop monitors (the kfree_skb tracepoint, dropwatch) with
 * the kernel's drop reason given:
 *   RULE      a rule's drop target                       NETFILTER_DROP
 *   FRAGMENT  a fragment that lacks or overlaps an L4
 *             header (RFC 1858, 3128, 7112)              IP_INHDR
 *   HEADER    an IPv6 header chain longer than mmb walks IP_INHDR
 *   NOMEM     no memory to copy or write the packet,
 *             or to track its new connection             NOMEM
 *   CONN      the connection table is full: the first
 *             packet of a new connection                 NETFILTER_DROP
 *   UNMAPPED  a fragment other than the first, while
 *             there are stateful rules, whose first
 *             fragment mmb did not see pass (frag.c);
 *             or a copy of a connection's first packet
 *             leaving while another CPU judges it
 *             leaving (it would leave unmapped)          IP_INHDR
 * And of the packets passed on: REWRITTEN, those rewritten; while there
 * are rules, NOT_IP (neither IPv4 nor IPv6: not judged) and MALFORMED (an
 * IP header mmb cannot read: not judged, the stack drops it).
 */
enum mmb_stats_attr {
	MMB_STATS_A_UNSPEC,
	MMB_STATS_A_PAD,
	MMB_STATS_A_PACKETS,	/* u64: wire packets (GRO segments counted) */
	MMB_STATS_A_BYTES,	/* u64: bytes from the L3 header on */
	MMB_STATS_A_DROPPED,	/* u64: packets of those mmb dropped, in all */
	MMB_STATS_A_DROP_RULE,		/* u64: packets dropped, by cause */
	MMB_STATS_A_DROP_FRAGMENT,	/* u64 */
	MMB_STATS_A_DROP_HEADER,	/* u64 */
	MMB_STATS_A_DROP_NOMEM,		/* u64 */
	MMB_STATS_A_DROP_CONN,		/* u64 */
	MMB_STATS_A_NOFIT,	/* u64, of a rule: TCP options it could not add (no room) */
	MMB_STATS_A_REWRITTEN,	/* u64 */
	MMB_STATS_A_NOT_IP,	/* u64 */
	MMB_STATS_A_MALFORMED,	/* u64 */
	MMB_STATS_A_CACHE_HITS,	/* u64, of MMB_A_STATS: flow cache lookups that hit */
	MMB_STATS_A_CACHE_MISSES, /* u64 */
	MMB_STATS_A_DROP_UNMAPPED,	/* u64, of the drops by cause (below CONN's) */
	MMB_STATS_A_LIMIT_EVICTED,	/* u64, of a meter: idle keys evicted */
	MMB_STATS_A_LIMIT_FULL,	/* u64, of a meter: keys that found no slot */
	/* u64, of MMB_A_STATS: packets a log rule did not log, over its rate */
	MMB_STATS_A_LOG_SUPPRESSED,
	/* u64: packets the fast path sent on itself (docs/offload.md) */
	MMB_STATS_A_OFFLOADED,
	__MMB_STATS_A_MAX
};

#define MMB_STATS_A_MAX (__MMB_STATS_A_MAX - 1)

enum mmb_rule_attr {
	MMB_RULE_A_UNSPEC,
	MMB_RULE_A_PAD,
	MMB_RULE_A_HANDLE,	/* u32 */
	MMB_RULE_A_MATCHES,	/* nest of nests of enum mmb_match_attr */
	MMB_RULE_A_TARGETS,	/* nest of nests of enum mmb_target_attr */
	MMB_RULE_A_STATS,	/* nest of enum mmb_stats_attr */
	MMB_RULE_A_STATEFUL,	/* flag: its matches create connections */
	MMB_RULE_A_PRIORITY,	/* u32: higher wins; absent: 0 */
	MMB_RULE_A_CONN_PRIORITY, /* u32, stateful rules: its connections'; absent: PRIORITY */
	MMB_RULE_A_COMMENT,	/* string: 1 to MMB_COMMENT_MAX bytes of printable UTF-8 */
	MMB_RULE_A_LIMIT,	/* nest of enum mmb_limit_attr: a rate limit or meter */
	MMB_RULE_A_CTCOUNT,	/* nest of enum mmb_ctcount_attr: a per-key connection cap */
	/*
	 * nest of enum mmb_log_attr (PREFIX, LEVEL): log each packet the
	 * rule matches (and counts), as the kernel's netfilter logger does,
	 * within the rule's rate (docs/log.md); the rule's other targets
	 * apply. With it, MMB_RULE_A_TARGETS may hold a lone
	 * MMB_TARGET_COUNT: a rule that only logs.
	 */
	MMB_RULE_A_LOG,
	/*
	 * flag, stateful accepting rules: its connections take the fast path
	 * once established both ways (docs/offload.md)
	 */
	MMB_RULE_A_OFFLOAD,
	__MMB_RULE_A_MAX
};

#define MMB_RULE_A_MAX (__MMB_RULE_A_MAX - 1)

/*
 * MMB_RULE_A_LIMIT: the rule applies to the packets its matches select
 * that are within RATE packets per UNIT, with bursts of BURST (a token
 * bucket, nft's "limit rate"); with MMB_LIMIT_A_OVER, to those beyond it
 * ("limit rate over"). The bucket is asked only once every other match of
 * the rule holds, and a packet beyond the rate takes no token. With
 * MMB_LIMIT_A_PER, a meter: one bucket per value of that field (its first
 * MMB_LIMIT_A_PREFIX bits), in a table of MMB_LIMIT_A_SIZE keys made with
 * the rule; a key whose bucket is full again is idle and its slot may be
 * given to another, and a key that finds no slot is beyond its rate.
 * A packet that lacks the field (of the other family, without that L4
 * header) is one the rule does not match. Stateless rules only.
 * docs/limit.md has the whole of it.
 */
enum mmb_limit_attr {
	MMB_LIMIT_A_UNSPEC,
	MMB_LIMIT_A_RATE,	/* u32: packets per unit, 1 to MMB_LIMIT_RATE_MAX */
	MMB_LIMIT_A_UNIT,	/* u32: the unit, seconds: 1, 60, 3600 or 86400 */
	MMB_LIMIT_A_BURST,	/* u32: 1 to MMB_LIMIT_BURST_MAX; absent: 5 */
	MMB_LIMIT_A_OVER,	/* flag: the packets beyond the rate */
	MMB_LIMIT_A_PER,	/* u16, enum mmb_field: a meter's key */
	MMB_LIMIT_A_PREFIX,	/* u8: of the key, the bits kept; absent: all */
	MMB_LIMIT_A_SIZE,	/* u32: a meter's keys, 1 to MMB_LIMIT_SIZE_MAX */
	__MMB_LIMIT_A_MAX
};

#define MMB_LIMIT_A_MAX (__MMB_LIMIT_A_MAX - 1)
#define MMB_LIMIT_RATE_MAX	1000000000	/* per unit */
#define MMB_LIMIT_BURST_MAX	1000000
#define MMB_LIMIT_BURST_DEFAULT	5		/* as nft's and iptables' */
#define MMB_LIMIT_SIZE_DEFAULT	65535		/* as nft's sets */
#define MMB_LIMIT_SIZE_MAX	4194304		/* 32 bytes a key: 128 MiB */

/*
 * MMB_RULE_A_CTCOUNT (docs/conncount.md): the rule matches a packet only
 * while the live connections of the connection table that its matched
 * first packets started, counted per key (the packet's PER field under
 * PREFIX; without PER one count for the rule), are at most LIMIT (with the
 * packet's own if it starts one) or, with OVER, more than LIMIT.
 */
enum mmb_ctcount_attr {
	MMB_CTCOUNT_A_UNSPEC,
	MMB_CTCOUNT_A_LIMIT,	/* u32, required: 1 to MMB_CTCOUNT_LIMIT_MAX; 0 with OVER */
	MMB_CTCOUNT_A_OVER,	/* flag: more than LIMIT */
	MMB_CTCOUNT_A_PER,	/* u16, enum mmb_field: an address field; absent: one key */
	MMB_CTCOUNT_A_PREFIX,	/* u8: of PER's address, the bits kept (default all) */
	MMB_CTCOUNT_A_SIZE,	/* u32: keys at most, 1 to MMB_CTCOUNT_SIZE_MAX (with PER) */
	__MMB_CTCOUNT_A_MAX
};

#define MMB_CTCOUNT_A_MAX (__MMB_CTCOUNT_A_MAX - 1)
#define MMB_CTCOUNT_LIMIT_MAX	0xffffff
#define MMB_CTCOUNT_SIZE_DEFAULT	4096
#define MMB_CTCOUNT_SIZE_MAX	1048576

enum mmb_table_attr {
	MMB_TABLE_A_UNSPEC,
	MMB_TABLE_A_PAD,
	MMB_TABLE_A_INDEX,	/* u32: position in lookup order */
	MMB_TABLE_A_FIELDS,	/* nest of nests of enum mmb_match_attr (FIELD, PREFIX) */
	MMB_TABLE_A_ENTRIES,	/* u32 */
	MMB_TABLE_A_RULES,	/* u32 */
	MMB_TABLE_A_HITS,	/* u64: packets matched by its rules */
	MMB_TABLE_A_BUCKETS,	/* u32: hash buckets */
	MMB_TABLE_A_CHAIN_MAX,	/* u32: most entries in one bucket */
	MMB_TABLE_A_PRIORITY,	/* u32: at least the highest of its rules' */
	__MMB_TABLE_A_MAX
};

#define MMB_TABLE_A_MAX (__MMB_TABLE_A_MAX - 1)

enum mmb_batch_attr {
	MMB_BATCH_A_UNSPEC,
	MMB_BATCH_A_CMD,	/* u8: MMB_CMD_RULE_ADD, _DEL, _FLUSH, _DEV_ENABLE, _SET */
	MMB_BATCH_A_RULE,	/* nest of enum mmb_rule_attr */
	MMB_BATCH_A_IFNAME,	/* NUL-terminated string, < IFNAMSIZ */
	MMB_BATCH_A_SETTINGS,	/* nest of enum mmb_set_attr */
	__MMB_BATCH_A_MAX
};

#define MMB_BATCH_A_MAX (__MMB_BATCH_A_MAX - 1)

enum mmb_match_attr {
	MMB_MATCH_A_UNSPEC,
	MMB_MATCH_A_FIELD,	/* u16, enum mmb_field */
	MMB_MATCH_A_OP,		/* u8, enum mmb_op; default MMB_OP_EQ */
	MMB_MATCH_A_VALUE,	/* binary, see above; absent for MMB_FIELD_ALL */
	MMB_MATCH_A_PREFIX,	/* u8, prefix length of an address */
	MMB_MATCH_A_KIND,	/* u8, option kind of MMB_FIELD_TCP_OPT (2..255) */
	MMB_MATCH_A_IFNAME,	/* string, of MMB_FIELD_IN, _OUT: an interface's name */
	MMB_MATCH_A_MASK,	/* be32, of MMB_FIELD_META_MARK: the bits compared */
	__MMB_MATCH_A_MAX
};

#define MMB_MATCH_A_MAX (__MMB_MATCH_A_MAX - 1)

enum mmb_op {
	MMB_OP_EQ,
	MMB_OP_NE,
	MMB_OP_LT,
	MMB_OP_GT,
	MMB_OP_LE,
	MMB_OP_GE,
	__MMB_OP_MAX
};

#define MMB_OP_MAX (__MMB_OP_MAX - 1)

enum mmb_target_attr {
	MMB_TARGET_A_UNSPEC,
	MMB_TARGET_A_TYPE,	/* u8, enum mmb_target_type */
	MMB_TARGET_A_FIELD,	/* u16, for MMB_TARGET_MOD, _MAP and _SHUFFLE */
	/*
	 * binary: for MMB_TARGET_MOD and _MAP, as for matches; for a
	 * MMB_TARGET_SHUFFLE of a port, optionally the range: two be16, the
	 * first and the last port (1 to 65535; default 1024 to 65535)
	 */
	MMB_TARGET_A_VALUE,
	MMB_TARGET_A_RATE,	/* u32, drop probability in millionths */
	MMB_TARGET_A_PREFIX,	/* u8: of an address's value, the bits set */
	MMB_TARGET_A_KIND,	/* u8: option kind of MMB_FIELD_TCP_OPT (2..255) */
	MMB_TARGET_A_INVERT,	/* flag: MMB_TARGET_STRIP of all but this option */
	MMB_TARGET_A_MASK,	/* be32, of a MMB_TARGET_MOD of MMB_FIELD_META_MARK */
	MMB_TARGET_A_REJECT,	/* u8, enum mmb_reject: MMB_TARGET_REJECT's answer */
	__MMB_TARGET_A_MAX
};

#define MMB_TARGET_A_MAX (__MMB_TARGET_A_MAX - 1)

enum mmb_target_type {
	MMB_TARGET_DROP,	/* with MMB_TARGET_A_RATE < 1000000: randomly */
	MMB_TARGET_ACCEPT,
	MMB_TARGET_MOD,		/* set a header field */
	/*
	 * Stateful rules only (a MMB_TARGET_MOD of an address or port in a
	 * stateful rule is the same): map an address (or its prefix) or a
	 * port for the connection; replies get the inverse mapping.
	 */
	MMB_TARGET_MAP,
	/*
	 * Stateful rules only: a random value per connection. Ports: one
	 * from the range no live connection's tuple uses; tcp-seq-num and
	 * tcp-ack-num: an offset to the sequence numbers of the original and
	 * the reply direction (acknowledgments and SACK blocks follow);
	 * ip-id: an offset, ip6-flow-label: a label, original direction.
	 */
	MMB_TARGET_SHUFFLE,
	/*
	 * TCP options, on every segment (see "TCP option lists" below).
	 * STRIP: remove the option of MMB_TARGET_A_FIELD (MMB_FIELD_TCP_OPT
	 * with MMB_TARGET_A_KIND: that kind; without a kind: all options);
	 * with MMB_TARGET_A_INVERT, every option but those the rule's
	 * inverted strips name. ADD: append the option, MMB_TARGET_A_VALUE
	 * its data, unless the segment has one of its kind.
	 */
	MMB_TARGET_STRIP,
	MMB_TARGET_ADD,
	/*
	 * (MMB_TARGET_MOD of MMB_FIELD_TCP_OPT_MSS to 0, in a leaving rule
	 * only, lowers the MSS of a segment to what the route it leaves by
	 * takes: its MTU less the IP and TCP headers, as nft's "tcp option
	 * maxseg size set rt mtu" with the clamping check.)
	 *
	 * Stateful leaving rules only (MMB_FIELD_OUT or MMB_FIELD_LEAVING):
	 * a new connection's source address is mapped to the primary address
	 * of the device its first packet leaves by, for that destination (as
	 * nft's masquerade); its port is kept unless another connection has
	 * it. No field, no value. Its connections end when that address is
	 * removed from the host.
	 */
	MMB_TARGET_MASQUERADE,
	/*
	 * No verdict, no rewrite: the rule only counts the packets it matches
	 * (nft's bare "counter"), which go on to the rules below it as if it
	 * did not match. A rule's only target; stateless rules only.
	 */
	MMB_TARGET_COUNT,
	/*
	 * A drop (counted as one) that answers: a TCP RST, or an ICMP or
	 * ICMPv6 destination unreachable quoting the packet, as
	 * MMB_TARGET_A_REJECT says (default MMB_REJECT_DEFAULT). A rule's
	 * only target; not in a stateful rule. Never in answer to an ICMP
	 * error, a RST, a fragment other than the first, a packet to a
	 * multicast or broadcast address or from an address no answer can
	 * go to, or one whose checksum is wrong; at most the module's
	 * reject_rate answers a second per namespace (burst reject_burst),
	 * and ICMP errors also within the kernel's ICMP rate limits.
	 * docs/reject.md has the whole of it.
	 */
	MMB_TARGET_REJECT,
	__MMB_TARGET_MAX
};

/* MMB_TARGET_A_REJECT: the answer of MMB_TARGET_REJECT. */
enum mmb_reject {
	MMB_REJECT_DEFAULT,	/* TCP: a RST; else as MMB_REJECT_PORT_UNREACH */
	MMB_REJECT_TCP_RESET,	/* a RST; for TCP rules only */
	MMB_REJECT_PORT_UNREACH,	/* ICMP port unreachable, ICMPv6 port unreachable */
	MMB_REJECT_HOST_UNREACH,	/* ICMP host unreachable, ICMPv6 address unreachable */
	MMB_REJECT_NET_UNREACH,	/* ICMP net unreachable, ICMPv6 no route */
	/* ICMP communication administratively prohibited, ICMPv6 the same */
	MMB_REJECT_ADMIN_PROHIBITED,
	__MMB_REJECT_MAX
};

#define MMB_REJECT_MAX (__MMB_REJECT_MAX - 1)

#define MMB_TARGET_MAX (__MMB_TARGET_MAX - 1)
#define MMB_RATE_ALWAYS		1000000
#define MMB_PAYLOAD_MAX		64
#define MMB_COMMENT_MAX		128	/* bytes of MMB_RULE_A_COMMENT, without its NUL */
#define MMB_ENABLED_MAX		4096	/* names and patterns enabled per namespace */

/* The fields rules match and rewrite; see mmb_fields.h for their names. */
enum mmb_field {
	MMB_FIELD_ALL,
	MMB_FIELD_IN,
	MMB_FIELD_NET_PROTO,
	MMB_FIELD_IP_VER,
	MMB_FIELD_IP_IHL,
	MMB_FIELD_IP_DSCP,
	MMB_FIELD_IP_ECN,
	MMB_FIELD_IP_LEN,
	MMB_FIELD_IP_ID,
	MMB_FIELD_IP_FLAGS,
	MMB_FIELD_IP_RES,
	MMB_FIELD_IP_DF,
	MMB_FIELD_IP_MF,
	MMB_FIELD_IP_FRAG_OFFSET,
	MMB_FIELD_IP_TTL,
	MMB_FIELD_IP_PROTO,
	MMB_FIELD_IP_CHECKSUM,
	MMB_FIELD_IP_SADDR,
	MMB_FIELD_IP_DADDR,
	MMB_FIELD_IP_PAYLOAD,
	MMB_FIELD_IP6_VER,
	MMB_FIELD_IP6_TRAFFIC_CLASS,
	MMB_FIELD_IP6_DSCP,
	MMB_FIELD_IP6_ECN,
	MMB_FIELD_IP6_FLOW_LABEL,
	MMB_FIELD_IP6_LEN,
	MMB_FIELD_IP6_NEXT,
	MMB_FIELD_IP6_HOP_LIMIT,
	MMB_FIELD_IP6_SADDR,
	MMB_FIELD_IP6_DADDR,
	MMB_FIELD_IP6_PAYLOAD,
	MMB_FIELD_ICMP_TYPE,
	MMB_FIELD_ICMP_CODE,
	MMB_FIELD_ICMP_CHECKSUM,
	MMB_FIELD_ICMP_PAYLOAD,
	MMB_FIELD_ICMP6_TYPE,
	MMB_FIELD_ICMP6_CODE,
	MMB_FIELD_ICMP6_CHECKSUM,
	MMB_FIELD_ICMP6_PAYLOAD,
	MMB_FIELD_UDP_SPORT,
	MMB_FIELD_UDP_DPORT,
	MMB_FIELD_UDP_LEN,
	MMB_FIELD_UDP_CHECKSUM,
	MMB_FIELD_UDP_PAYLOAD,
	MMB_FIELD_TCP_SPORT,
	MMB_FIELD_TCP_DPORT,
	MMB_FIELD_TCP_SEQ_NUM,
	MMB_FIELD_TCP_ACK_NUM,
	MMB_FIELD_TCP_OFFSET,
	MMB_FIELD_TCP_RESERVED,
	MMB_FIELD_TCP_FLAGS,
	MMB_FIELD_TCP_CWR,
	MMB_FIELD_TCP_ECE,
	MMB_FIELD_TCP_URG,
	MMB_FIELD_TCP_ACK,
	MMB_FIELD_TCP_PUSH,
	MMB_FIELD_TCP_RST,
	MMB_FIELD_TCP_SYN,
	MMB_FIELD_TCP_FIN,
	MMB_FIELD_TCP_WIN,
	MMB_FIELD_TCP_CHECKSUM,
	MMB_FIELD_TCP_URG_PTR,
	MMB_FIELD_TCP_PAYLOAD,
	/*
	 * TCP options, found by walking the option list (the first of a kind
	 * counts). Without MMB_MATCH_A_VALUE a match tests presence (==) or
	 * absence (!=). With a value the option must be there: tcp-opt-mss and
	 * -wscale compare as numbers, with any operator; the others take ==
	 * or != and compare the option's data as a byte string that starts
	 * with the value. MMB_FIELD_TCP_OPT names its kind in MMB_MATCH_A_KIND;
	 * without a kind it only tests for any option at all. MMB_TARGET_MOD
	 * of tcp-opt-mss or tcp-opt-wscale rewrites the value in place; of
	 * another option (a kind for MMB_FIELD_TCP_OPT), it replaces the
	 * option's data, which may change its length.
	 *
	 * TCP option lists: a rule's option targets apply in the order mod,
	 * strip, add; the rules' in rule order, after every in-place rewrite.
	 * The list is rebuilt only if they change it: without NOPs, padded to
	 * a multiple of 4 bytes with end-of-list bytes, the payload moved, the
	 * data offset, IP lengths and checksums updated, a GSO packet's
	 * gso_size lowered by what its header grew. At most 40 bytes: an
	 * option that does not fit is not added and counted in the rule's
	 * MMB_STATS_A_NOFIT. A malformed list is left alone.
	 */
	MMB_FIELD_TCP_OPT_MSS,
	MMB_FIELD_TCP_OPT_WSCALE,
	MMB_FIELD_TCP_OPT_SACKP,
	MMB_FIELD_TCP_OPT_SACK,
	MMB_FIELD_TCP_OPT_TIMESTAMP,
	MMB_FIELD_TCP_OPT_FAST_OPEN,
	MMB_FIELD_TCP_OPT_MPTCP,
	MMB_FIELD_TCP_OPT,
	/*
	 * Which way a rule judges. A rule judges arriving packets (mmb's
	 * rx_handler, before the stack) unless it has MMB_FIELD_LEAVING == 1
	 * or a match on MMB_FIELD_OUT: then it judges leaving packets (the
	 * netdev egress hook of the device they leave by, after routing).
	 * MMB_FIELD_OUT is that device's name, as MMB_FIELD_IN is the
	 * arriving one's; a leaving rule cannot match MMB_FIELD_IN.
	 */
	MMB_FIELD_OUT,
	MMB_FIELD_LEAVING,
	/*
	 * The packet's mark (skb->mark), not a header's: what "ip rule fwmark",
	 * tc's fw filter and qdiscs read. A match's value (be32) is compared
	 * with the mark ANDed with MMB_MATCH_A_MASK (default all ones; not 0,
	 * and the value has no bit outside it), any operator. MMB_TARGET_MOD
	 * sets it as iptables' MARK --set-xmark does: mark = (mark & ~MASK) ^
	 * VALUE, MMB_TARGET_A_MASK default all ones (mark = VALUE). An arriving
	 * packet is marked before the stack routes it (mmb's rx_handler runs
	 * first): its mark steers "ip rule fwmark"; a leaving one before its
	 * qdisc.
	 */
	MMB_FIELD_META_MARK,
	/*
	 * The L4 protocol of either family: IPv4's protocol, or the header
	 * after IPv6's extension headers (MMB_FIELD_IP6_NEXT is the first
	 * header's); nft's "meta l4proto".
	 */
	MMB_FIELD_L4_PROTO,
	__MMB_FIELD_MAX
};

#define MMB_FIELD_MAX (__MMB_FIELD_MAX - 1)

/*
 * A field that describes the packet's structure (lengths, protocols,
 * offsets, fragmentation, checksums): MMB_TARGET_MOD refuses it, since a
 * rewrite would corrupt the packet or its GSO metadata. See mmb_fields.h.
 */
#define MMB_FIELD_F_NO_MOD	0x01

/* Bytes of a field's value in MMB_MATCH_A_VALUE / MMB_TARGET_A_VALUE. */
static inline unsigned int mmb_field_size(unsigned int bits)
{
	return bits > 32 ? 16 : bits > 16 ? 4 : bits > 8 ? 2 : 1;
}

enum mmb_trace_attr {
	MMB_TRACE_A_UNSPEC,
	MMB_TRACE_A_IFINDEX,	/* u32: the device it arrives on */
	MMB_TRACE_A_PACKET,	/* binary: the IP packet (answer: as traced) */
	MMB_TRACE_A_FAMILY,	/* u8: 4 or 6, of the packet mmb makes */
	MMB_TRACE_A_PROTO,	/* u8: its IP protocol */
	MMB_TRACE_A_FIELDS,	/* nest of nests of enum mmb_match_attr */
	MMB_TRACE_A_PARSE,	/* u8, answers: enum mmb_trace_parse */
	MMB_TRACE_A_RULES,	/* nest of nests of enum mmb_trace_rule_attr */
	MMB_TRACE_A_VERDICT,	/* u8, answers: enum mmb_trace_verdict */
	MMB_TRACE_A_CONN_DIR,	/* u8, answers: 0 original, 1 reply direction */
	MMB_TRACE_A_RELATED,	/* flag, answers: an ICMP error about MMB_A_CONN */
	MMB_TRACE_A_CONN_NEW,	/* flag, answers: a connection would start */
	MMB_TRACE_A_RESULT,	/* binary, answers: the packet after rewriting */
	/* flag, answers: one would start, but the reverse-path check refuses it */
	MMB_TRACE_A_CONN_SPOOFED,
	/*
	 * u8, answers: the verdict is a rule's reject; what it would send
	 * (enum mmb_reject, never MMB_REJECT_DEFAULT), or MMB_REJECT_DEFAULT
	 * for no answer (the packet is one never answered)
	 */
	MMB_TRACE_A_REJECT,
	/* u8, answers: a packet of an offloaded connection: enum mmb_fast */
	MMB_TRACE_A_FAST,
	__MMB_TRACE_A_MAX
};

/*
 * MMB_TRACE_A_FAST: why a packet of an offloaded connection goes back to
 * the normal path, or MMB_FAST_OK: it would take the fast path
 * (docs/offload.md).
 */
enum mmb_fast {
	MMB_FAST_OK,
	MMB_FAST_NOT_FORWARD,	/* not a plain packet to forward: not for this host's
				 * MAC, a socket assigned (tproxy), a tag, a route
				 * already, shared
				 */
	MMB_FAST_HEADER,	/* IPv4 options, IPv6 extension headers, a fragment,
				 * a bad IPv4 header checksum, padding, LRO
				 */
	MMB_FAST_TCP_FLAGS,	/* SYN, FIN or RST: the state changes */
	MMB_FAST_TTL,		/* TTL or hop limit 1 or 0: time exceeded */
	MMB_FAST_FORWARDING,	/* forwarding is off on the way in */
	MMB_FAST_XFRM,		/* IPsec: policies, or a packet that was decrypted */
	MMB_FAST_ROUTE,		/* no route to forward on: local, broadcast, an
				 * error, a redirect back out, a tunnel (lwt)
				 */
	MMB_FAST_DEV_DOWN,	/* the way out is not up, or has no carrier */
	MMB_FAST_MTU,		/* larger than the route's MTU: frag-needed, PTB */
	MMB_FAST_NEIGH,		/* the next hop's neighbour is not reachable */
	MMB_FAST_ROOM,		/* not given since the fast path copies such a head */
	MMB_FAST_UNCACHED,	/* no route cached yet (a trace: the next packet looks
				 * it up), or another CPU is looking it up
				 */
	MMB_FAST_IIF,		/* it came in on another device than its direction's
				 * route was looked up for
				 */
};

#define MMB_TRACE_A_MAX (__MMB_TRACE_A_MAX - 1)

enum mmb_trace_parse {
	MMB_TRACE_PARSED,	/* judged by the rules */
	MMB_TRACE_MALFORMED,	/* passed on, not judged */
	MMB_TRACE_BAD_FRAGMENT,	/* dropped: a fragment hiding or overlapping L4 */
	MMB_TRACE_LONG_CHAIN,	/* dropped: an IPv6 header chain too long */
};

enum mmb_trace_verdict {
	MMB_TRACE_PASS,		/* to the stack, no rule accepted or dropped it */
	MMB_TRACE_ACCEPT,
	MMB_TRACE_DROP,
	MMB_TRACE_DROP_RANDOM,	/* dropped by chance: by a rule's drop PERCENT */
};

enum mmb_trace_rule_attr {
	MMB_TRACE_RULE_A_UNSPEC,
	MMB_TRACE_RULE_A_HANDLE,	/* u32 */
	MMB_TRACE_RULE_A_HOW,		/* u8: enum mmb_trace_how */
	MMB_TRACE_RULE_A_CTCOUNT,	/* u32: of a ct count rule, what the packet's key holds */
	/* flag: the rule would log the packet (its rate aside; a trace logs nothing) */
	MMB_TRACE_RULE_A_LOG,
	__MMB_TRACE_RULE_A_MAX
};

#define MMB_TRACE_RULE_A_MAX (__MMB_TRACE_RULE_A_MAX - 1)

enum mmb_trace_how {
	MMB_TRACE_MATCHED,	/* a stateless rule it matches */
	MMB_TRACE_STATEFUL,	/* a stateful rule it matches: applies, kept by a new connection */
	MMB_TRACE_IGNORED,	/* a stateful rule, not applied: a known connection's packet */
	MMB_TRACE_CONN,		/* a rule of its connection */
	MMB_TRACE_CUT,		/* a rule it matches, cut off by a verdict of higher priority */
	/* its matches hold, but its limit (MMB_RULE_A_LIMIT) says no: it does not apply */
	MMB_TRACE_LIMITED,
	MMB_TRACE_CTCOUNT,	/* its other matches hold, its ct count does not: not applied */
};

/*
 * Connections
 * -----------
 * A rule added with MMB_RULE_A_STATEFUL creates a connection when a packet
 * of no known connection matches it: TCP, UDP, or an ICMP or ICMPv6 echo
 * (keyed by its identifier). Every later packet of the connection, in
 * either direction, gets the verdict and targets of the stateful rules its
 * first packet matched (at most MMB_CONN_RULES: a packet that matches
 * more starts none and is dropped, counted in MMB_CONN_STATS_A_MANY_RULES),
 * together with the stateless rules it matches itself; stateful rules do
 * not apply again to packets of a known connection. ICMP errors quoting a
 * packet of a connection get its accept and drop ("related"). A
 * connection whose rules map or shuffle addresses or ports (NAT) has a
 * reply tuple other than its original one inverted: replies carry it and
 * are rewritten back, and an ICMP error quoting a mapped packet is
 * translated (its destination and the quoted header). Deleting a
 * stateful rule, or a batch that removes it, ends its connections; a
 * flush of the rules ends all.
 *
 * MMB_CMD_CONN_GET (dump only)
 *	One MMB_A_CONN per connection (enum mmb_conn_attr).
 *
 * MMB_CMD_CONN_FLUSH
 *	Ends every connection of the namespace.
 *
 * MMB_CMD_SET
 *	MMB_A_SETTINGS with any of MMB_SET_A_CONN_MAX, MMB_SET_A_TCP_LOOSE,
 *	MMB_SET_A_RP_FILTER, MMB_SET_A_TIMEOUTS and MMB_SET_A_TCP_UNACK; all
 *	are checked before any applies.
 *
 * MMB_CMD_SETTINGS_GET
 *	Answers with one MMB_CMD_SETTINGS_GET message: MMB_A_SETTINGS with
 *	every setting and the connection table's counters.
 *
 * MMB_CMD_CONN_NEW, MMB_CMD_CONN_UPDATE, MMB_CMD_CONN_DESTROY
 *	Sent to the MMB_GENL_MCGRP_EVENTS group (joining it needs
 *	CAP_NET_ADMIN) when a connection is created, changes state, or ends;
 *	MMB_A_CONN as in dumps.
 */
#define MMB_CONN_RULES		4
#define MMB_CONN_MAX_LIMIT	4194304		/* the largest conn-max */
#define MMB_TIMEOUT_MAX		1000000		/* seconds */

enum mmb_conn_state {
	MMB_CONN_TCP_SYN_SENT,
	MMB_CONN_TCP_SYN_RECV,
	MMB_CONN_TCP_ESTABLISHED,
	MMB_CONN_TCP_FIN_WAIT,
	MMB_CONN_TCP_CLOSE_WAIT,
	MMB_CONN_TCP_LAST_ACK,
	MMB_CONN_TCP_TIME_WAIT,
	MMB_CONN_TCP_CLOSE,
	MMB_CONN_TCP_SYN_SENT2,	/* both sides sent a SYN (simultaneous open) */
	MMB_CONN_UDP_UNREPLIED,
	MMB_CONN_UDP_REPLIED,
	MMB_CONN_ICMP,
	__MMB_CONN_STATE_MAX
};

#define MMB_CONN_STATE_MAX (__MMB_CONN_STATE_MAX - 1)

enum mmb_conn_attr {
	MMB_CONN_A_UNSPEC,
	MMB_CONN_A_PAD,
	MMB_CONN_A_FAMILY,	/* u8: 4 or 6 */
	MMB_CONN_A_PROTO,	/* u8: IPPROTO_TCP, _UDP, _ICMP or _ICMPV6 */
	MMB_CONN_A_STATE,	/* u8: enum mmb_conn_state */
	MMB_CONN_A_ORIG,	/* nest of enum mmb_tuple_attr: the first packet's */
	MMB_CONN_A_REPLY,	/* nest of enum mmb_tuple_attr: what replies carry */
	MMB_CONN_A_TIMEOUT,	/* u32: seconds until it expires */
	MMB_CONN_A_STATS_ORIG,	/* nest of enum mmb_stats_attr (packets, bytes) */
	MMB_CONN_A_STATS_REPLY,	/* nest of enum mmb_stats_attr */
	MMB_CONN_A_RULES,	/* nest of u32 handles, types 1, 2, ... */
	MMB_CONN_A_ASSURED,	/* flag: seen both ways, TCP established once */
	MMB_CONN_A_OFFLOADED,	/* flag: its packets may take the fast path */
	__MMB_CONN_A_MAX
};

#define MMB_CONN_A_MAX (__MMB_CONN_A_MAX - 1)

enum mmb_tuple_attr {
	MMB_TUPLE_A_UNSPEC,
	MMB_TUPLE_A_SADDR,	/* binary: 4 or 16 bytes */
	MMB_TUPLE_A_DADDR,	/* binary: 4 or 16 bytes */
	MMB_TUPLE_A_SPORT,	/* be16: TCP and UDP */
	MMB_TUPLE_A_DPORT,	/* be16: TCP and UDP */
	MMB_TUPLE_A_ICMP_ID,	/* be16: echo identifier */
	MMB_TUPLE_A_ICMP_TYPE,	/* u8: the echo type this direction carries */
	__MMB_TUPLE_A_MAX
};

#define MMB_TUPLE_A_MAX (__MMB_TUPLE_A_MAX - 1)

enum mmb_set_attr {
	MMB_SET_A_UNSPEC,
	MMB_SET_A_PAD,
	MMB_SET_A_CONN_MAX,	/* u32: 1 to MMB_CONN_MAX_LIMIT connections */
	MMB_SET_A_TCP_LOOSE,	/* u8: 1: TCP connections start mid-stream too */
	/* nest: u32 seconds (1 to MMB_TIMEOUT_MAX) of type state + 1 */
	MMB_SET_A_TIMEOUTS,
	MMB_SET_A_CONN_COUNT,	/* u32, answers only: connections now */
	MMB_SET_A_CONN_SIZE,	/* u32, answers only: bytes per connection */
	MMB_SET_A_CONN_STATS,	/* nest of enum mmb_conn_stats_attr, answers only */
	/* u8: 1: connections start only from packets whose source routes back
	 * through the device they came in on; replies only from elsewhere
	 */
	MMB_SET_A_RP_FILTER,
	/*
	 * u32 seconds (1 to MMB_TIMEOUT_MAX): the longest a TCP connection
	 * established without a reply seen (picked up mid-stream) lives
	 */
	MMB_SET_A_TCP_UNACK,
	__MMB_SET_A_MAX
};

#define MMB_SET_A_MAX (__MMB_SET_A_MAX - 1)

enum mmb_conn_stats_attr {
	MMB_CONN_STATS_A_UNSPEC,
	MMB_CONN_STATS_A_PAD,
	MMB_CONN_STATS_A_CREATED,	/* u64 */
	MMB_CONN_STATS_A_EVICTED,	/* u64: unassured or closing ones, for new ones */
	MMB_CONN_STATS_A_REFUSED,	/* u64: new ones, the table being full */
	MMB_CONN_STATS_A_EXPIRED,	/* u64 */
	MMB_CONN_STATS_A_ENDED,		/* u64: by flush or their rule's end */
	MMB_CONN_STATS_A_NOMEM,		/* u64: new ones, no memory */
	MMB_CONN_STATS_A_NAT_FULL,	/* u64: new ones, no free port to map to */
	MMB_CONN_STATS_A_SPOOFED,	/* u64: new ones, their source not routed back there */
	MMB_CONN_STATS_A_WRONG_IIF,	/* u64: replies on the original direction's device */
	MMB_CONN_STATS_A_MANY_RULES,	/* u64: new ones, more than MMB_CONN_RULES stateful rules */
	MMB_CONN_STATS_A_CAPPED,	/* u64: new ones, the module's conn_max_total reached */
	__MMB_CONN_STATS_A_MAX
};

#define MMB_CONN_STATS_A_MAX (__MMB_CONN_STATS_A_MAX - 1)

/*
 * A log rule's (MMB_RULE_A_LOG: PREFIX, LEVEL), and a logged packet's
 * (MMB_A_LOG of MMB_CMD_LOG, to the MMB_GENL_MCGRP_LOG group: all of
 * those present in the packet).
 */
enum mmb_log_attr {
	MMB_LOG_A_UNSPEC,
	MMB_LOG_A_PAD,
	/* string: 1 to MMB_LOG_PREFIX_MAX printable bytes, before IN= */
	MMB_LOG_A_PREFIX,
	MMB_LOG_A_LEVEL,	/* u8: syslog level 0 to 7; absent: 4 (warning) */
	MMB_LOG_A_HANDLE,	/* u32: the rule's */
	MMB_LOG_A_TEXT,		/* string: the kernel log's line, its level aside */
	MMB_LOG_A_IN,		/* string: the device it arrived on */
	MMB_LOG_A_OUT,		/* string: the device it leaves by */
	MMB_LOG_A_MAC,		/* binary: its link-layer header */
	MMB_LOG_A_FAMILY,	/* u8: 4 or 6 */
	MMB_LOG_A_SADDR,	/* binary: 4 or 16 bytes */
	MMB_LOG_A_DADDR,	/* binary */
	MMB_LOG_A_LEN,		/* u32: its IP length */
	MMB_LOG_A_PROTO,	/* u8: its L4 protocol */
	MMB_LOG_A_SPORT,	/* u16: of TCP, UDP */
	MMB_LOG_A_DPORT,	/* u16 */
	MMB_LOG_A_ICMP_TYPE,	/* u8: of ICMP, ICMPv6 */
	MMB_LOG_A_ICMP_CODE,	/* u8 */
	/*
	 * u32, a rule's own rate: lines every MMB_LOG_A_PER seconds (absent:
	 * 1), burst MMB_LOG_A_BURST (absent: the module's log_burst); absent:
	 * the module's log_rate a second
	 */
	MMB_LOG_A_RATE,
	MMB_LOG_A_PER,		/* u32: 1, 60, 3600 or 86400 seconds */
	MMB_LOG_A_BURST,	/* u32: 1 to MMB_LOG_BURST_MAX */
	__MMB_LOG_A_MAX
};

#define MMB_LOG_A_MAX (__MMB_LOG_A_MAX - 1)
#define MMB_LOG_PREFIX_MAX	64	/* bytes of MMB_LOG_A_PREFIX, without its NUL */
#define MMB_LOG_LEVEL_DEFAULT	4	/* warning, as nft's log */
#define MMB_LOG_BURST_MAX	100000

#endif /* _UAPI_LINUX_MMB_H */
