/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmbctl: rules in userspace. The words of a command are parsed into a
 * struct urule, which is sent to the kernel, or printed back as words.
 */
#ifndef MMBCTL_RULE_H
#define MMBCTL_RULE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../uapi/linux/mmb.h"

#define URULE_MAX_MATCHES 32
#define URULE_MAX_TARGETS 16
#define TARGET_VALUE_MAX 38	/* bytes of a target's value (the kernel's) */

struct umatch {
	int field;
	int op;
	int plen;		/* prefix length; the field's bits if none */
	int vlen;
	uint8_t value[MMB_PAYLOAD_MAX];	/* vlen 0: an option's presence */
	int kind;		/* of tcp-opt; 0: any option */
	int argi;		/* word of the field, for errors */
	int vargi;		/* word of the value, or argi */
};

struct utarget {
	int type;
	int field;
	int plen;
	int vlen;
	uint32_t rate;
	int kind;		/* of tcp-opt in strip, add, mod; 0: none */
	bool invert;		/* strip ! OPTION */
	uint8_t value[TARGET_VALUE_MAX];
	int argi;
	int fargi;
	int vargi;
	int reject;		/* reject's answer, enum mmb_reject */
};

/* limit [over] RATE/UNIT [burst N] [per FIELD[/PREFIX] [size N]] (limit.c); rate 0: none */
struct ulimit {
	uint32_t rate, unit, burst, size;	/* size 0: no meter */
	int per, plen;				/* per -1: no meter */
	bool over, has_burst;
	int argi, rate_argi, burst_argi, per_argi, size_argi;
};

/* ct count [over] N [per FIELD[/PREFIX]] [size N] (ctcount.c) */
struct uctcount {
	bool set;
	bool over;
	uint32_t limit;
	int per;		/* enum mmb_field; 0: one key */
	int plen;		/* 0: the whole address */
	uint32_t size;		/* 0: the default */
	int argi, limit_argi, per_argi, size_argi;	/* words, for errors */
};

struct urule {
	int nm, nt;
	bool stateful;		/* add-stateful */
	uint32_t prio;		/* priority N; 0 if not given */
	uint32_t conn_prio;	/* conn-priority N (stateful); prio if not given */
	bool has_conn_prio;
	int prio_argi;		/* word of the value, for errors; 0: none */
	int conn_prio_argi;
	char comment[MMB_COMMENT_MAX + 1];	/* comment TEXT; "" if none */
	int comment_argi;
	struct umatch m[URULE_MAX_MATCHES];
	struct utarget t[URULE_MAX_TARGETS];
	struct ulimit limit;	/* among the matches */
	struct uctcount cc;
	bool log;		/* log [prefix TEXT] [level LEVEL] (log.c) */
	int log_level;
	char log_prefix[MMB_LOG_PREFIX_MAX + 1];	/* "" if none */
	int log_argi, log_prefix_argi, log_level_argi;
	bool offload;		/* offload: the fast path (add-stateful, accept) */
	int offload_argi;
	uint32_t log_rate, log_per, log_burst;	/* rate N/UNIT, burst N; 0: the module's */
	int log_rate_argi, log_burst_argi;
};

/* An option kind: decimal, 0xHEX or xHEX; -1 if @w is none (lang.c). */
int opt_kind(const char *w);

/* Field names and values: fields.c */
int field_lookup(const char *name);
int field_is_opt(int field);
const char *field_name(int field);
int field_bits(int field);
int field_flags(int field);
/* 1 for a dotted quad (as inet_pton(AF_INET) reads it), else 0. */
int ipv4_parse(const char *s, uint8_t *out);
/* What is wrong with an interface name (or, with @pattern, a pattern); NULL if nothing. */
const char *ifname_invalid(const char *s, bool pattern);
/* 0, or -1 with a message in @err. */
int value_parse(int field, const char *s, uint8_t *value, int *vlen, int *plen,
		char *err, size_t errlen);
void value_format(int field, const uint8_t *value, int vlen, int plen,
		  char *buf, size_t len);
const char *op_name(int op);
/* One line of "help fields": name, width, values (fields.c). */
void field_help(int field, char *buf, size_t len);

struct attrs;
struct nlattr;
struct mmb_req;

/*
 * A target of the language, described once (targets.c). A target with no
 * parse is a word the kernel does not know yet: refused as unsupported.
 */
struct target_kind {
	const char *name;
	int type;			/* MMB_TARGET_*, or -1 */
	/* Reads the words from argv[*pi], the target's own, up to the next. */
	int (*parse)(int argc, char **argv, int *pi, struct utarget *t);
	/* Puts the attributes beyond MMB_TARGET_A_TYPE; may be NULL. */
	void (*encode)(struct mmb_req *req, const struct utarget *t);
	/* Reads them back from a dump: 0, or -1 if they make no sense. */
	int (*decode)(const struct attrs *ta, struct utarget *t);
	void (*format)(const struct utarget *t, char *buf, size_t len);
	/* Prints the members of its JSON object beyond "target"; may be NULL. */
	void (*json)(const struct utarget *t);
};

extern const struct target_kind target_kinds[];
const struct target_kind *target_by_name(const char *w);
bool target_follows(const char *w);
const struct target_kind *target_by_type(int type);
const char *target_names(void);
/* The word of reject's answer @reject (enum mmb_reject), or NULL. */
const char *reject_name(int reject);

/* Words to a rule and back: lang.c. */
/*
 * 0, or an exit code after printing an error at the offending word. The
 * caller sets r->stateful first.
 */
int urule_parse(int argc, char **argv, int argi0, struct urule *r);
void urule_format(const struct urule *r, char *buf, size_t len);
/* log.c: a rule's log words, MMB_RULE_A_LOG, and "monitor log". */
int urule_parse_log(int argc, char **argv, int *pi, struct urule *r);
void urule_put_log(struct mmb_req *req, const struct urule *r);
int urule_decode_log(const struct nlattr *attr, struct urule *r);
/*
 * Bytes of urule_format()'s words at most (32 matches of a 64-byte payload
 * in hex, 16 targets), and of urule_log()'s: " log", a prefix quoted (each
 * byte escaped at worst), the rest.
 */
#define URULE_TEXT_MAX 8192
#define URULE_LOG_MAX (2 * MMB_LOG_PREFIX_MAX + 128)
/* ' log prefix "TEXT" level LEVEL' as a shell reads it back, or "" if it does not log. */
void urule_log(const struct urule *r, char *buf, size_t len);
void urule_log_json(const struct urule *r);
const char *log_level_name(int level);
/* ' comment "TEXT"' as a shell reads it back, or "" if the rule has none. */
void urule_comment(const struct urule *r, char *buf, size_t len);

/* A rule to attributes and back: rule_nl.c. */
void urule_put(struct mmb_req *req, const struct urule *r);

/* ct count: ctcount.c */
int ctcount_parse(int argc, char **argv, int *pi, struct urule *r);
void ctcount_put(struct mmb_req *req, const struct urule *r);
int ctcount_decode(const struct nlattr *attr, struct urule *r);
void ctcount_format(const struct urule *r, char *buf, size_t len);
void ctcount_json(const struct urule *r);
int urule_decode(const struct nlattr *attr, struct urule *r, uint32_t *handle,
		 struct attrs *stats);

/* A rule's limit: limit.c */
int limit_parse(int argc, char **argv, int *pi, struct urule *r);
int limit_check(const struct urule *r, int family, int l4);
void limit_put(struct mmb_req *req, const struct urule *r);
int limit_decode(const struct nlattr *attr, struct urule *r);
void limit_format(const struct ulimit *l, char *buf, size_t len);
void limit_json(const struct ulimit *l);

/* rules.c */
int handle_put(struct mmb_req *req, int argc, char **argv);

#endif /* MMBCTL_RULE_H */
