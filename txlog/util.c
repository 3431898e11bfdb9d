// SPDX-License-Identifier: GPL-2.0
/*
 * util.c: the 64-bit key map behind every object table, number and time
 * parsing, globs, JSON strings.  Library-like: nothing here prints.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "txlog.h"

/* === Map: linear probing, backward-shift deletion === */

static size_t map_slot(uint64_t key, size_t cap)
{
	/* Pointers and pfns have poor low bits: mix them (splitmix64 finish). */
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return key & (cap - 1);
}

void tx_map_init(struct tx_map *m)
{
	memset(m, 0, sizeof(*m));
}

void tx_map_free(struct tx_map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	tx_map_init(m);
}

static void map_grow(struct tx_map *m)
{
	struct tx_map bigger;
	size_t i;

	bigger.cap = m->cap ? m->cap * 2 : 1024;
	bigger.n = 0;
	bigger.keys = xmalloc(bigger.cap * sizeof(*bigger.keys));
	bigger.vals = xmalloc(bigger.cap * sizeof(*bigger.vals));
	bigger.used = xcalloc(bigger.cap, 1);
	for (i = 0; i < m->cap; i++)
		if (m->used[i])
			tx_map_put(&bigger, m->keys[i], m->vals[i]);
	tx_map_free(m);
	*m = bigger;
}

bool tx_map_get(const struct tx_map *m, uint64_t key, uint32_t *val)
{
	size_t i;

	if (!m->n)
		return false;
	for (i = map_slot(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return true;
		}
	}
	return false;
}

void tx_map_put(struct tx_map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if ((m->n + 1) * 4 > m->cap * 3)
		map_grow(m);
	for (i = map_slot(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return;
		}
	}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
}

bool tx_map_del(struct tx_map *m, uint64_t key)
{
	size_t mask = m->cap - 1, i, j, home;

	if (!m->n)
		return false;
	for (i = map_slot(key, m->cap); m->used[i]; i = (i + 1) & mask)
		if (m->keys[i] == key)
			break;
	if (!m->used[i])
		return false;
	/* Shift back the entries of the run that would no longer be found. */
	for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
		home = map_slot(m->keys[j], m->cap);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->n--;
	return true;
}

/* === Parsing === */

/* A decimal or 0x-hex number, or -1 (all ones).  0 on success, -1 with errno. */
int tx_parse_u64(const char *s, uint64_t *val)
{
	char *end;
	int neg = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (!isdigit((unsigned char)*s)) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	*val = strtoull(s, &end, 0);
	if (errno)
		return -1;
	if (*end) {
		errno = EINVAL;
		return -1;
	}
	if (neg)
		*val = -*val;
	return 0;
}

/* Seconds as trace-cmd prints them ("12.345678"), or with a unit: ns, us, ms, s. */
int tx_parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0 || v > 1.8e10) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			*ns = (uint64_t)(v * units[i].mult + 0.5);
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

bool tx_glob(const char *pat, const char *s)
{
	return fnmatch(pat, s, 0) == 0;
}

/* === Output helpers === */

void tx_json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	for (; *p; p++) {
		switch (*p) {
		case '"':  fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			/* Control bytes and anything not ASCII: as \u00XX. */
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void tx_fmt_ts(uint64_t ns, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRIu64 ".%06" PRIu64, ns / 1000000000, ns % 1000000000 / 1000);
}
