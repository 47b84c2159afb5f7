/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmbctl: the one printer. Every show/list command prints through these
 * calls; with -j they produce JSON, otherwise the text given by each format.
 * A NULL format prints nothing in text mode; a NULL key nothing in JSON.
 */
#ifndef MMBCTL_PRINT_H
#define MMBCTL_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

void print_init(FILE *f, bool json, bool pretty);
bool print_is_json(void);
void print_open_array(const char *key);
void print_close_array(void);
void print_open_object(const char *key);
void print_close_object(void);
void print_string(const char *key, const char *fmt, const char *val);
void print_element(const char *fmt, const char *val);
void print_element_u64(const char *fmt, uint64_t val);
void print_u64(const char *key, const char *fmt, uint64_t val);
void print_bool(const char *key, const char *fmt, bool val);
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_finish(void);

/*
 * -P: Prometheus' text format (prom.c). The numbers printed after
 * print_prom_scope("global"|"interface"|"rule") become samples of the
 * metrics named for their keys; print_prom_emit() writes them all.
 */
void print_init_prom(FILE *f);
bool print_is_prom(void);
void print_prom_scope(const char *scope);
void print_prom_emit(FILE *f);
void prom_element(void);
void prom_escape(char *out, size_t len, const char *s);
/* Bytes of the well-formed UTF-8 sequence at @s, 0 if it is not one. */
int print_utf8_len(const unsigned char *s);
void prom_label(const char *key, const char *val);
void prom_sample(const char *path, unsigned long long value);

#endif /* MMBCTL_PRINT_H */
