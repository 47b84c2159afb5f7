/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmbctl: shared declarations of the command modules.
 */
#ifndef MMBCTL_H
#define MMBCTL_H

#include "nl.h"

/* Exit codes scripts can rely on. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* the kernel or the system refused */
	EXIT_USAGE = 2,		/* malformed command line or file */
};

/* The words of the command being run, for errors that point at one. */
struct words {
	int n;
	char **w;
	const char *file;	/* NULL on the command line */
	unsigned int line;
	int err_argi;		/* the word the last error was about */
};

extern struct words cur;
/*
 * What line @line of the file being applied came from, named for errors
 * instead of the line (mmbctl import: the nft rule), or NULL.
 */
extern const char *(*err_origin)(unsigned int line);

/* Index in cur.w of a word pointer of the command being run. */
#define AT(p) ((int)((p) - cur.w))

/* A message's attributes by type; every mmb attribute enum stays below 24. */
#define ATTRS_MAX 24

struct attrs {
	const struct nlattr *tb[ATTRS_MAX];
};

void attrs_parse(const struct nlmsghdr *nlh, struct attrs *a);
void attrs_nested(const struct nlattr *nest, struct attrs *a);
uint64_t attr_u64(const struct nlattr *a);
uint32_t attr_u32(const struct nlattr *a);
int cmd_dump(int argc, char **argv, uint8_t cmd, mmb_nl_data_cb cb, void *data);
int cmd_ask(uint8_t cmd, mmb_nl_data_cb cb, void *data);

int err_word(int argi, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int err_kernel(const struct mmb_nl_err *err);
int err_sys(const char *what, int error);

int ifname_put(struct mmb_req *req, int argc, char **argv, uint16_t type);
int settings_encode(struct mmb_req *req, int argc, char **argv);
int do_save(int argc, char **argv);
int do_enable(int argc, char **argv);
int do_disable(int argc, char **argv);
int do_show_interfaces(int argc, char **argv);
void print_dev_counts(const struct attrs *st);
int do_show_stats(int argc, char **argv);
/* The printers of one answer (tests/prom_test.c feeds them fixed ones). */
int show_stats_cb(const struct nlmsghdr *nlh, void *data);
int show_conns_cb(const struct nlmsghdr *nlh, void *data);
int show_dev_cb(const struct nlmsghdr *nlh, void *data);
int list_rule_cb(const struct nlmsghdr *nlh, void *data);
void print_conn_counters(const struct nlattr *nest);
int do_trace(int argc, char **argv);

/* -s: counters in the text of list (JSON always has them). */
extern bool opt_stats;
extern bool opt_check;
int do_add(int argc, char **argv);
int do_del(int argc, char **argv);
int do_flush(int argc, char **argv);
int do_reset(int argc, char **argv);
int do_list(int argc, char **argv);
int do_batch(const char *file);
int batch_text(const char *name, char *text, size_t len);
int do_import(int argc, char **argv);
int do_script(const char *file, int (*run)(int argc, char **argv));

/* Words as a shell reads and quotes them (words.c). */
int words_split(char *p, char *end, char ***w, int *cap, char **bad);
int words_refused(const char *file, unsigned int line, const char *bad);
void words_quote(const char *words, char *buf, size_t len);
int do_show_tables(int argc, char **argv);
int do_show_connections(int argc, char **argv);
int do_flush_connections(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_monitor_log(int argc, char **argv);
void print_conn(const char *key, const struct nlattr *conn, const char *const *event);
int do_set(int argc, char **argv);
int do_show_settings(int argc, char **argv);

/*
 * Connection states by their words in "set timeout" (conns.c), and one
 * timeout that is no state's: an established TCP connection's while no
 * reply was seen (MMB_SET_A_TCP_UNACK).
 */
#define CONN_TIMEOUT_UNACK	__MMB_CONN_STATE_MAX
int conn_state_lookup(const char *w);
const char *conn_state_setting(int state);

#endif /* MMBCTL_H */
