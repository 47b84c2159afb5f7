/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmbctl: rules in userspace. The words of a command are parsed into a
 * struct urule, which is sent to the kernel, or printed back as words.
 */
#ifndef MMBCTL_RULE_H
#define MMBCTL_RULE_H

#include <stdint.h>
#include <stdio.h>

#include "../uapi/linux/mmb.h"

#define URULE_MAX_MATCHES 32
#define URULE_MAX_TARGETS 16

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
	uint8_t value[16];
	int argi;
	int fargi;
	int vargi;
};

struct urule {
	int nm, nt;
	struct umatch m[URULE_MAX_MATCHES];
	struct utarget t[URULE_MAX_TARGETS];
};

/* Field names and values: fields.c */
int field_lookup(const char *name);
int field_is_opt(int field);
const char *field_name(int field);
int field_bits(int field);
int field_flags(int field);
/* 1 for a dotted quad (as inet_pton(AF_INET) reads it), else 0. */
int ipv4_parse(const char *s, uint8_t *out);
/* 0, or -1 with a message in @err. */
int value_parse(int field, const char *s, uint8_t *value, int *vlen, int *plen,
		char *err, size_t errlen);
void value_format(int field, const uint8_t *value, int vlen, int plen,
		  char *buf, size_t len);
const char *op_name(int op);

/* 0, or an exit code after printing an error at the offending word. */
int urule_parse(int argc, char **argv, int argi0, struct urule *r);
void urule_format(const struct urule *r, char *buf, size_t len);

struct mmb_req;
void urule_put(struct mmb_req *req, const struct urule *r);
int handle_put(struct mmb_req *req, int argc, char **argv);

#endif /* MMBCTL_RULE_H */
