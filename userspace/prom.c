// SPDX-License-Identifier: GPL-2.0
/*
 * mmbctl -P show stats: the printer's keys as Prometheus metrics, in the
 * text exposition format for node_exporter's textfile collector.
 *
 * The commands print through print.h as for -j; in this mode the printer
 * hands each number to prom_sample() with its path of JSON keys ("drops.
 * rule", "stats.packets") and the scope it was printed in (the namespace's
 * sums, one interface, one rule). The table below names the metric of each
 * path; a path it lacks is not exported. Samples are kept and written at
 * the end, each metric once with its HELP and TYPE lines, as the format
 * wants a metric's samples together.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

struct metric {
	const char *path;	/* JSON keys; a trailing ".*": any key, as the label */
	const char *name;	/* after mmb_ and the scope's prefix */
	const char *label;	/* the label the key (or @value) goes in, or NULL */
	const char *value;	/* the label's value; NULL: the path's last key */
	const char *help;
	bool gauge;
};

/* The counters of one hook, or their sums: "show interfaces", "show stats". */
#define HOOK_METRICS(p)							\
	{ p "packets", "packets_total", NULL, NULL, "Packets the hook saw", false },	\
	{ p "bytes", "bytes_total", NULL, NULL, "Bytes the hook saw", false },	\
	{ p "dropped", "dropped_packets_total", NULL, NULL, "Packets mmb dropped", false },  \
	{ p "drops.*", "drops_total", "reason", NULL, "Packets mmb dropped, by cause", false },  \
	{ p "rewritten", "rewritten_packets_total", NULL, NULL,		\
	  "Packets passed on rewritten", false },					\
	{ p "not_ip", "unjudged_packets_total", "reason", "not_ip",		\
	  "Packets passed on without a verdict: not IP, or an IP header mmb cannot read", false }, \
	{ p "malformed", "unjudged_packets_total", "reason", "malformed", NULL, false }, \
	{ p "offloaded", "offloaded_packets_total", NULL, NULL,		\
	  "Packets the fast path sent on (offloaded connections)", false }

static const struct metric global[] = {
	{ "interfaces", "interfaces", NULL, NULL, "Interfaces mmb is enabled on", true },
	HOOK_METRICS(""),
	{ "flow_cache.hits", "flow_cache_lookups_total", "result", "hit",
	  "Flow cache lookups of the current rules", false },
	{ "flow_cache.misses", "flow_cache_lookups_total", "result", "miss", NULL, false },
	{ "log_suppressed", "log_suppressed_packets_total", NULL, NULL,
	  "Packets log rules matched and did not log, over their rate", false },
	{ "connections.count", "connections", NULL, NULL, "Connections in the table", true },
	{ "connections.stats.*", "connection_events_total", "event", NULL,
	  "Connection table events (created, ended, expired, evicted, refused and more)", false },
	{}
}, interface[] = {
	HOOK_METRICS("stats."),
	{}
}, rule[] = {
	{ "stats.packets", "packets_total", NULL, NULL, "Packets a rule matched", false },
	{ "stats.bytes", "bytes_total", NULL, NULL, "Bytes of the packets a rule matched", false },
	{ "stats.nofit", "nofit_total", NULL, NULL,
	  "TCP options a rule's add or mod could not fit into a segment", false },
	{ "stats.evicted", "limit_evicted_total", NULL, NULL,
	  "Idle keys a rule's meter evicted for new ones", false },
	{ "stats.full", "limit_full_total", NULL, NULL,
	  "Keys a rule's meter found no slot for (beyond their rate)", false },
	{}
};

static const struct scope {
	const char *name;	/* print_prom_scope()'s word */
	const char *prefix;	/* of the metrics' names */
	const char *label;	/* each element's label, or NULL */
	const char *label_key;	/* the key whose value it is */
	const struct metric *metrics;
} scopes[] = {
	{ "global", "mmb_", NULL, NULL, global },
	{ "interface", "mmb_interface_", "interface", "ifname", interface },
	{ "rule", "mmb_rule_", "rule", "handle", rule },
};

#define NSCOPES (sizeof(scopes) / sizeof(scopes[0]))

struct sample {
	char name[64];
	const char *help;
	bool gauge;
	char labels[160];
	unsigned long long value;
	unsigned int order;
};

static struct sample *samples;
static size_t nsamples, cap;
static const struct scope *scope = &scopes[0];
static char element_label[96];	/* the current element's label, escaped */

void print_prom_scope(const char *name)
{
	unsigned int i;

	for (i = 0; i < NSCOPES; i++)
		if (!strcmp(scopes[i].name, name))
			scope = &scopes[i];
	element_label[0] = '\0';
}

/*
 * A label value as the format quotes it: \\, \" and \n escaped; the
 * format is UTF-8, so a byte that is not becomes U+FFFD.
 */
void prom_escape(char *out, size_t len, const char *s)
{
	size_t o = 0;
	int u;

	for (; *s && o + 4 < len; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n') {
			out[o++] = '\\';
			out[o++] = *s == '\n' ? 'n' : *s;
		} else if ((unsigned char)*s < 0x80) {
			out[o++] = *s;
		} else if ((u = print_utf8_len((const unsigned char *)s)) && o + u + 1 < len) {
			memcpy(out + o, s, u);
			o += u;
			s += u - 1;
		} else if (!u) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
		} else {
			break;
		}
	}
	out[o] = '\0';
}

/* A new element of the scope's list: its label is set again. */
void prom_element(void)
{
	element_label[0] = '\0';
}

/* A string or number of an element: its label if its key says so. */
void prom_label(const char *key, const char *val)
{
	char v[64];

	if (!scope->label_key || strcmp(key, scope->label_key))
		return;
	prom_escape(v, sizeof(v), val);
	snprintf(element_label, sizeof(element_label), "%s=\"%s\"", scope->label, v);
}

static const struct metric *lookup(const char *path, const char **key)
{
	const struct metric *m;
	size_t n;

	for (m = scope->metrics; m->path; m++) {
		n = strlen(m->path);
		if (n > 2 && !strcmp(m->path + n - 2, ".*")) {
			if (!strncmp(path, m->path, n - 1) && !strchr(path + n - 1, '.')) {
				*key = path + n - 1;
				return m;
			}
		} else if (!strcmp(path, m->path)) {
			*key = NULL;
			return m;
		}
	}
	return NULL;
}

void prom_sample(const char *path, unsigned long long value)
{
	const struct metric *m, *first;
	struct sample *s;
	const char *key;
	char lv[64];

	m = lookup(path, &key);
	if (!m)
		return;
	if (scope->label_key && !element_label[0])
		return;		/* an element without its name: nothing to tell it by */
	if (nsamples == cap) {
		cap = cap ? 2 * cap : 64;
		samples = realloc(samples, cap * sizeof(*samples));
		if (!samples) {
			nsamples = cap = 0;
			return;
		}
	}
	/* Metrics sharing a name take the help of their first row. */
	for (first = scope->metrics; strcmp(first->name, m->name); first++)
		;
	s = &samples[nsamples];
	snprintf(s->name, sizeof(s->name), "%s%s", scope->prefix, m->name);
	s->help = first->help;
	s->gauge = m->gauge;
	s->value = value;
	s->order = nsamples;
	lv[0] = '\0';
	if (m->label)
		prom_escape(lv, sizeof(lv), m->value ? m->value : key);
	snprintf(s->labels, sizeof(s->labels), "%s%s%s%s%s%s", element_label,
		 element_label[0] && m->label ? "," : "", m->label ? m->label : "",
		 m->label ? "=\"" : "", lv, m->label ? "\"" : "");
	nsamples++;
}

/* By metric name, then as printed: each metric's samples together. */
static int cmp(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

void print_prom_emit(FILE *out)
{
	size_t i;

	qsort(samples, nsamples, sizeof(*samples), cmp);
	for (i = 0; i < nsamples; i++) {
		const struct sample *s = &samples[i];

		if (!i || strcmp(s->name, samples[i - 1].name))
			fprintf(out, "# HELP %s %s.\n# TYPE %s %s\n", s->name, s->help, s->name,
				s->gauge ? "gauge" : "counter");
		fprintf(out, "%s%s%s%s %llu\n", s->name, s->labels[0] ? "{" : "", s->labels,
			s->labels[0] ? "}" : "", s->value);
	}
	fflush(out);
	free(samples);
	samples = NULL;
	nsamples = cap = 0;
}
