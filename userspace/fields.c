// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl: field names, and values as words: numbers, names of protocols and
 * ECN codepoints, addresses with prefixes, interfaces, hex byte strings.
 * Every value is checked against its field's width; nothing is truncated.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../uapi/linux/mmb_fields.h"
#include "nl.h"
#include "rule.h"

static const char *const op_names[] = {
	[MMB_OP_EQ] = "==", [MMB_OP_NE] = "!=", [MMB_OP_LT] = "<",
	[MMB_OP_GT] = ">", [MMB_OP_LE] = "<=", [MMB_OP_GE] = ">=",
};

const char *op_name(int op)
{
	return op >= 0 && op <= MMB_OP_MAX ? op_names[op] : "?";
}

/*
 * Field names in an open-addressing table built on first use: a lookup
 * (run for every word of a rule, values included) costs one hash of the
 * word's length and its first and last eight bytes, and at most a compare
 * or two; a word that is no field mostly finds an empty slot.
 */
#define FIELD_SLOTS 256		/* a power of two, > 2 * __MMB_FIELD_MAX */
#define FIELD_NAME_MAX 24	/* longer than any field name */

static uint32_t name_hash(const char *s, size_t len)
{
	uint64_t head = 0, tail = 0;

	if (len >= 8) {
		memcpy(&head, s, 8);
		memcpy(&tail, s + len - 8, 8);
	} else {
		memcpy(&head, s, len);
	}
	head = (head ^ len) * 0x9e3779b97f4a7c15ull;
	tail = (tail ^ head) * 0xff51afd7ed558ccdull;
	return (head ^ tail) >> 40;
}

int field_lookup(const char *name)
{
	static short slot[FIELD_SLOTS];	/* field + 1; 0: empty */
	static unsigned char slen[__MMB_FIELD_MAX];
	static bool built;
	size_t len;
	uint32_t i;

	if (!built) {
		int f;

		for (f = 0; f < __MMB_FIELD_MAX; f++) {
			slen[f] = strlen(mmb_field_names[f].name);
			for (i = name_hash(mmb_field_names[f].name, slen[f]);
			     slot[i % FIELD_SLOTS]; i++)
				;
			slot[i % FIELD_SLOTS] = f + 1;
		}
		built = true;
	}
	len = strnlen(name, FIELD_NAME_MAX);
	if (len == FIELD_NAME_MAX)
		return -1;
	for (i = name_hash(name, len); slot[i % FIELD_SLOTS]; i++) {
		int f = slot[i % FIELD_SLOTS] - 1;

		if (slen[f] == len && !memcmp(mmb_field_names[f].name, name, len))
			return f;
	}
	return -1;
}

/* TCP options: a bare one tests presence. */
int field_is_opt(int field)
{
	return field >= MMB_FIELD_TCP_OPT_MSS && field <= MMB_FIELD_TCP_OPT;
}

const char *field_name(int field)
{
	return mmb_field_names[field].name;
}

int field_bits(int field)
{
	return mmb_field_names[field].bits;
}

int field_flags(int field)
{
	return mmb_field_names[field].flags;
}

static const struct {
	const char *name;
	unsigned int value;
} protos[] = {
	{ "icmp", 1 }, { "tcp", 6 }, { "udp", 17 }, { "icmp6", 58 },
}, ecns[] = {
	{ "not-ect", 0 }, { "ect1", 1 }, { "ect0", 2 }, { "ce", 3 },
}, net_protos[] = {
	{ "ip4", 0x0800 }, { "ip6", 0x86dd },
};

#define NAMED(tbl, s, v) named(tbl, sizeof(tbl) / sizeof(tbl[0]), s, v)

static int named(const void *tbl, size_t n, const char *s, unsigned int *v)
{
	const typeof(protos[0]) *t = tbl;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(t[i].name, s)) {
			*v = t[i].value;
			return 0;
		}
	}
	return -1;
}

static const char *name_of(const void *tbl, size_t n, unsigned int v)
{
	const typeof(protos[0]) *t = tbl;
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].value == v)
			return t[i].name;
	return NULL;
}

#define NAME_OF(tbl, v) name_of(tbl, sizeof(tbl) / sizeof(tbl[0]), v)

static int is_proto_field(int f)
{
	return f == MMB_FIELD_IP_PROTO || f == MMB_FIELD_IP6_NEXT || f == MMB_FIELD_L4_PROTO;
}

static int is_ecn_field(int f)
{
	return f == MMB_FIELD_IP_ECN || f == MMB_FIELD_IP6_ECN;
}

static int is_addr_field(int f)
{
	return f == MMB_FIELD_IP_SADDR || f == MMB_FIELD_IP_DADDR ||
	       f == MMB_FIELD_IP6_SADDR || f == MMB_FIELD_IP6_DADDR;
}

/* "/len" at the end of @s, split off; -1 if malformed. */
static int split_prefix(char *s, int max)
{
	char *slash = strchr(s, '/'), *end;
	long len;

	if (!slash)
		return max;
	*slash = '\0';
	errno = 0;
	len = strtol(slash + 1, &end, 10);
	if (errno || end == slash + 1 || *end || len < 0 || len > max)
		return -1;
	return len;
}

static int parse_hex_bytes(const char *s, uint8_t *out, int *len)
{
	size_t n = strlen(s), i, j = 0;
	char byte[3] = "";

	if (n == 0 || n > 2 * MMB_PAYLOAD_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return -1;
	/* An odd number of digits is padded with a leading 0. */
	i = 0;
	if (n % 2) {
		byte[0] = s[0];
		byte[1] = '\0';
		out[j++] = strtoul(byte, NULL, 16);
		i = 1;
	}
	for (; i < n; i += 2) {
		byte[0] = s[i];
		byte[1] = s[i + 1];
		byte[2] = '\0';
		out[j++] = strtoul(byte, NULL, 16);
	}
	*len = j;
	return 0;
}

/*
 * A dotted quad at @s, as inet_pton(AF_INET) reads one: four decimal octets
 * of one to three digits, no leading zeros. Where it ends, or NULL. A file
 * of 100k rules holds 200k addresses; libc's general parser took a tenth of
 * mmbctl -f. tests/rule_test.c compares the two on random words.
 */
static const char *ipv4_scan(const char *s, uint8_t *out)
{
	unsigned int octet, part, digits;

	for (part = 0; part < 4; part++) {
		if (part && *s++ != '.')
			return NULL;
		octet = 0;
		for (digits = 0; *s >= '0' && *s <= '9'; digits++, s++) {
			if (digits == 3 || (digits && !octet))
				return NULL;	/* too long, or a leading zero */
			octet = octet * 10 + (*s - '0');
		}
		if (!digits || octet > 255)
			return NULL;
		out[part] = octet;
	}
	return s;
}

int ipv4_parse(const char *s, uint8_t *out)
{
	s = ipv4_scan(s, out);
	return s && !*s;
}

/*
 * An address with an optional /prefix into @value and @plen. The common
 * case, a dotted quad and a short decimal prefix, is read in place; the
 * rest (IPv6, and whatever strtol reads of a prefix) from a copy.
 */
static int addr_parse(int bits, const char *word, uint8_t *value, int *plen)
{
	char s[INET6_ADDRSTRLEN + 8];
	const char *p;
	size_t len;

	if (bits == 32 && (p = ipv4_scan(word, value))) {
		if (!*p)
			return 0;
		if (*p++ == '/' && *p >= '0' && *p <= '9') {
			int v = 0;

			while (*p >= '0' && *p <= '9' && v <= bits)
				v = v * 10 + (*p++ - '0');
			if (!*p && v <= bits) {
				*plen = v;
				return 0;
			}
		}
	}
	len = strlen(word);
	if (len >= sizeof(s))
		return -1;
	memcpy(s, word, len + 1);
	*plen = split_prefix(s, bits);
	if (*plen < 0 || (bits == 32 ? ipv4_parse(s, value) :
			  inet_pton(AF_INET6, s, value)) != 1)
		return -1;
	return 0;
}

/* A plain decimal number, else strtoull's reading (0x, octal 0...). */
static unsigned long long number_parse(const char *s, char **end)
{
	unsigned long long v = 0;
	const char *p = s;

	if (*p < '1' || *p > '9')
		return strtoull(s, end, 0);
	for (; *p >= '0' && *p <= '9' && p - s < 19; p++)
		v = v * 10 + (*p - '0');
	if (*p)		/* a longer number, or not one: strtoull judges */
		return strtoull(s, end, 0);
	*end = (char *)p;
	return v;
}

/*
 * What is wrong with @s as an interface name (as the kernel would name a
 * device: 1 to 15 bytes, not "." or "..", no '/', ':' or white space) or,
 * with @pattern, as a name or a pattern (a name or nothing, then a '*');
 * NULL if nothing. The kernel checks the same (ifname.c).
 */
const char *ifname_invalid(const char *s, bool pattern)
{
	size_t len = strlen(s), i;

	if (!len)
		return "an interface name is not empty";
	if (len >= IFNAMSIZ)
		return "an interface name is at most 15 bytes";
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return "\".\" and \"..\" are not interface names";
	for (i = 0; i < len; i++) {
		if (s[i] == '/' || s[i] == ':' || isspace((unsigned char)s[i]))
			return "an interface name has no '/', ':' or white space";
		if (s[i] == '*' && (!pattern || i != len - 1))
			return pattern ? "a '*' may only end a pattern (\"ppp*\")" :
					 "a rule names one interface: no '*' pattern";
	}
	return NULL;
}

static void put_be32(uint8_t *p, unsigned long long v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/*
 * meta-mark VALUE[/MASK]: 4 bytes, or 8 with the mask after the value
 * (as netlink carries them apart: MMB_*_A_MASK).
 */
static int mark_parse(const char *s, uint8_t *value, int *vlen, char *err, size_t errlen)
{
	unsigned long long v, m;
	const char *slash = strchr(s, '/');
	char *end;

	errno = 0;
	v = number_parse(s, &end);
	if (s[0] == '+' || s[0] == '-' || errno || end == s || (*end && end != slash)) {
		snprintf(err, errlen, "\"%.64s\" is not a value of meta-mark (VALUE[/MASK])", s);
		return -1;
	}
	if (v >> 32) {
		snprintf(err, errlen, "%llu does not fit in meta-mark (32 bits)", v);
		return -1;
	}
	put_be32(value, v);
	*vlen = 4;
	if (!slash)
		return 0;
	m = number_parse(slash + 1, &end);
	if (slash[1] == '+' || slash[1] == '-' || errno || end == slash + 1 || *end || m >> 32) {
		snprintf(err, errlen, "\"%.64s\" is not a mask of meta-mark (32 bits)", slash + 1);
		return -1;
	}
	if (!m) {
		snprintf(err, errlen, "a meta-mark mask of 0 leaves no bit to match or set");
		return -1;
	}
	put_be32(value + 4, m);
	*vlen = 8;
	return 0;
}

int value_parse(int field, const char *s, uint8_t *value, int *vlen, int *plen,
		char *err, size_t errlen)
{
	int bits = field_bits(field), size = mmb_field_size(bits), i;
	unsigned long long v;
	unsigned int named_v;
	char *end;

	*plen = bits;
	if (!bits) {
		if (strncmp(s, "0x", 2) || parse_hex_bytes(s + 2, value, vlen)) {
			snprintf(err, errlen, "%s takes a hex byte string, 0x and 1 to %d bytes",
				 field_name(field), MMB_PAYLOAD_MAX);
			return -1;
		}
		return 0;
	}
	*vlen = size;
	if (is_addr_field(field)) {
		if (addr_parse(bits, s, value, plen)) {
			uint8_t other[16];
			int oplen;

			/* An address of the other family: name the field that takes it. */
			if (!addr_parse(bits == 32 ? 128 : 32, s, other, &oplen))
				snprintf(err, errlen, "%s takes an %s address: for an %s address use %s%s",
					 field_name(field), bits == 32 ? "IPv4" : "IPv6",
					 bits == 32 ? "IPv6" : "IPv4", bits == 32 ? "ip6-" : "ip-",
					 field_name(field) + (bits == 32 ? 3 : 4));
			else
				snprintf(err, errlen, "%s takes an %s address with an optional /prefix",
					 field_name(field), bits == 32 ? "IPv4" : "IPv6");
			return -1;
		}
		return 0;
	}
	if (field == MMB_FIELD_META_MARK)
		return mark_parse(s, value, vlen, err, errlen);
	if (field == MMB_FIELD_IN || field == MMB_FIELD_OUT) {
		/* A name, which need not exist yet: the kernel keeps it. */
		const char *why = ifname_invalid(s, false);

		/* "out !x", "out <=" would read back as an operator, not a name */
		if (!why && strchr("!<>=", s[0]))
			why = "an interface name in a rule does not begin with '!', '<', '>' or '='";
		if (why) {
			snprintf(err, errlen, "%s", why);
			return -1;
		}
		*vlen = strlen(s) + 1;
		memcpy(value, s, *vlen);
		return 0;
	} else if (is_proto_field(field) && !NAMED(protos, s, &named_v)) {
		v = named_v;
	} else if (is_ecn_field(field) && !NAMED(ecns, s, &named_v)) {
		v = named_v;
	} else if (field == MMB_FIELD_NET_PROTO && !NAMED(net_protos, s, &named_v)) {
		v = named_v;
	} else {
		errno = 0;
		v = number_parse(s, &end);
		if (s[0] == '+' || s[0] == '-') {
			/* mod ip-ttl +1 would set the TTL to 1: no arithmetic. */
			snprintf(err, errlen, "%s takes a value, not a sign: \"%.64s\" is no value of it",
				 field_name(field), s);
			return -1;
		}
		if (errno || end == s || *end) {
			snprintf(err, errlen, "\"%.64s\" is not a value of %s", s, field_name(field));
			return -1;
		}
	}
	if (bits < 64 && v >> bits) {
		snprintf(err, errlen, "%llu does not fit in %s (%d bit%s)", v,
			 field_name(field), bits, bits == 1 ? "" : "s");
		return -1;
	}
	for (i = size - 1; i >= 0; i--, v >>= 8)
		value[i] = v & 0xff;
	return 0;
}

void value_format(int field, const uint8_t *value, int vlen, int plen,
		  char *buf, size_t len)
{
	int bits = field_bits(field), i;
	unsigned long long v = 0;
	const char *name = NULL;

	if (!bits) {
		size_t off = snprintf(buf, len, "0x");

		for (i = 0; i < vlen && off + 3 <= len; i++)
			off += snprintf(buf + off, len - off, "%02x", value[i]);
		return;
	}
	if (is_addr_field(field)) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(bits == 32 ? AF_INET : AF_INET6, value, a, sizeof(a));
		if (plen != bits)
			snprintf(buf, len, "%s/%d", a, plen);
		else
			snprintf(buf, len, "%s", a);
		return;
	}
	if (field == MMB_FIELD_META_MARK && vlen == 8) {
		snprintf(buf, len, "0x%x/0x%x",
			 (unsigned int)value[0] << 24 | value[1] << 16 | value[2] << 8 | value[3],
			 (unsigned int)value[4] << 24 | value[5] << 16 | value[6] << 8 | value[7]);
		return;
	}
	for (i = 0; i < vlen; i++)
		v = v << 8 | value[i];
	if (field == MMB_FIELD_IN || field == MMB_FIELD_OUT) {
		snprintf(buf, len, "%.*s", vlen, (const char *)value);
		return;
	}
	if (is_proto_field(field))
		name = NAME_OF(protos, v);
	else if (field == MMB_FIELD_NET_PROTO)
		name = NAME_OF(net_protos, v);
	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%llu", v);
}

/*
 * "help fields": one line per field, for people: its width and the values
 * it takes. The first word of each line is the field's name (completion
 * reads it so).
 */
void field_help(int f, char *buf, size_t len)
{
	int bits = field_bits(f);
	char width[24], values[120];
	const char *fam = mmb_field_names[f].family == 4 ? "IPv4" :
			  mmb_field_names[f].family == 6 ? "IPv6" : "";
	bool nomod = field_flags(f) & MMB_FIELD_F_NO_MOD;

	snprintf(width, sizeof(width), bits ? "%d bit%s" : "bytes", bits, bits == 1 ? "" : "s");
	if (f == MMB_FIELD_ALL) {
		snprintf(width, sizeof(width), "-");
		snprintf(values, sizeof(values), "no value: every packet");
	} else if (f == MMB_FIELD_IN) {
		snprintf(width, sizeof(width), "-");
		snprintf(values, sizeof(values), "IFACE: the device it came in on");
	} else if (f == MMB_FIELD_OUT) {
		snprintf(width, sizeof(width), "-");
		snprintf(values, sizeof(values), "IFACE: the device it leaves by");
	} else if (field_is_opt(f)) {
		snprintf(values, sizeof(values), "bare: present (! absent); %s",
			 f == MMB_FIELD_TCP_OPT_MSS ? "NUMBER, 0-65535" :
			 f == MMB_FIELD_TCP_OPT_WSCALE ? "NUMBER, 0-255" :
			 f == MMB_FIELD_TCP_OPT ? "KIND [ 0xHEX ] (data)" : "0xHEX (data)");
		snprintf(width, sizeof(width), "option");
	} else if (!bits) {
		snprintf(values, sizeof(values), "0xHEX, 1 to %d bytes at its start", MMB_PAYLOAD_MAX);
	} else if (is_addr_field(f)) {
		snprintf(values, sizeof(values), "%s[/PREFIX]",
			 bits == 32 ? "IPv4 ADDRESS" : "IPv6 ADDRESS");
	} else if (is_proto_field(f)) {
		snprintf(values, sizeof(values), "tcp, udp, icmp, icmp6 or 0-255");
	} else if (is_ecn_field(f)) {
		snprintf(values, sizeof(values), "not-ect, ect1, ect0, ce or 0-3");
	} else if (f == MMB_FIELD_NET_PROTO) {
		snprintf(values, sizeof(values), "ip4 or ip6");
	} else if (f == MMB_FIELD_META_MARK) {
		snprintf(values, sizeof(values),
			 "VALUE[/MASK], 0-4294967295: the packet's mark (mod: (mark & ~MASK) ^ VALUE)");
	} else if (bits == 1) {
		snprintf(values, sizeof(values), "bare: set (! clear); 0 or 1");
	} else {
		snprintf(values, sizeof(values), "0-%llu", bits >= 64 ? ~0ull :
			 (1ull << bits) - 1);
	}
	snprintf(buf, len, "%-18s %-8s %s%s%s%s%s%s", field_name(f), width, values,
		 fam[0] || nomod ? " (" : "", fam, fam[0] && nomod ? ", " : "",
		 nomod ? "no mod" : "", fam[0] || nomod ? ")" : "");
}
