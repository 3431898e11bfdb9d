// SPDX-License-Identifier: GPL-2.0
/*
 * source-txrec.c: events from txrec text lines (stap-scripts and anything
 * that is not trace-cmd print them; the format is in txlog.1):
 *
 *   txrec ts=NS cpu=N pid=N comm=NAME event=SYSTEM:NAME key=value ...
 *
 * Lines not starting with "txrec " are skipped; a txrec line that does not
 * parse is an error naming the line.  Reading stdin, the records are also
 * written to a temporary file, so histories can be read again later.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "txlog.h"

#define TXREC_MAX_KEYS	64

struct txrec_line {
	char *buf;			/* the line, split in place */
	size_t cap;
	char *comm;
	char *key[TXREC_MAX_KEYS], *val[TXREC_MAX_KEYS];
	int nkeys;
	const char *field[F_NR];	/* value of each known field, NULL if absent */
	const char *sym[F_NR];		/* FIELD_sym values */
};

struct txrec {
	FILE *in;			/* the walk */
	FILE *again;			/* rereads: the file again, or the spool */
	bool spooled;
	uint64_t lineno;
	uint64_t records;
	struct txrec_line cur, other;
	char *raw;			/* getline buffer */
	size_t rawcap;
	/* comm of every pid seen */
	struct tx_map pids;
	char **comms;
	uint32_t ncomms, comms_cap;
};

static struct txrec *txrec_of(struct tx_source *src)
{
	return src->priv;
}

static bool is_txrec(const char *line)
{
	return !strncmp(line, "txrec ", 6);
}

static int field_index(const char *key)
{
	int i;

	for (i = 0; i < F_NR; i++)
		if (!strcmp(tx_field_names[i], key))
			return i;
	return -1;
}

/*
 * Split @text (one txrec line without its newline) into @l and fill @ev.
 * On error, a reason in @why and -1.
 */
static int txrec_parse(struct tx_source *src, const char *text, size_t len,
		       struct txrec_line *l, struct tx_event *ev, char *why, size_t whysize)
{
	char *p, *tok, *eq, *colon, *system = NULL, *event = NULL;
	bool have_ts = false;
	uint64_t v;
	int i;

	if (memchr(text, '\0', len)) {
		snprintf(why, whysize, "NUL byte in the record");
		return -1;
	}
	if (len + 1 > l->cap) {
		l->cap = len + 1;
		l->buf = xrealloc(l->buf, l->cap);
	}
	memcpy(l->buf, text, len);
	l->buf[len] = '\0';
	l->nkeys = 0;
	l->comm = NULL;
	memset(l->field, 0, sizeof(l->field));
	memset(l->sym, 0, sizeof(l->sym));
	memset(ev, 0, sizeof(*ev));
	ev->cpu = -1;
	ev->pid = -1;

	p = l->buf + 6;
	while ((tok = strsep(&p, " \t"))) {
		if (!*tok)
			continue;
		eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			snprintf(why, whysize, "'%.40s' is not key=value", tok);
			return -1;
		}
		*eq = '\0';
		if (!strcmp(tok, "ts")) {
			if (tx_parse_u64(eq + 1, &ev->ts) || (int64_t)ev->ts < 0) {
				snprintf(why, whysize, "bad ts '%.40s'", eq + 1);
				return -1;
			}
			have_ts = true;
		} else if (!strcmp(tok, "cpu") || !strcmp(tok, "pid")) {
			if (tx_parse_u64(eq + 1, &v) || v > INT32_MAX) {
				snprintf(why, whysize, "bad %s '%.40s'", tok, eq + 1);
				return -1;
			}
			*(tok[0] == 'c' ? &ev->cpu : &ev->pid) = (int)v;
		} else if (!strcmp(tok, "comm")) {
			l->comm = eq + 1;
		} else if (!strcmp(tok, "event")) {
			colon = strchr(eq + 1, ':');
			if (!colon || colon == eq + 1 || !colon[1]) {
				snprintf(why, whysize, "event '%.40s' is not SYSTEM:NAME", eq + 1);
				return -1;
			}
			*colon = '\0';
			system = eq + 1;
			event = colon + 1;
		} else {
			if (l->nkeys == TXREC_MAX_KEYS) {
				snprintf(why, whysize, "more than %d fields", TXREC_MAX_KEYS);
				return -1;
			}
			l->key[l->nkeys] = tok;
			l->val[l->nkeys++] = eq + 1;
		}
	}
	if (!have_ts || !event) {
		snprintf(why, whysize, "no %s", have_ts ? "event=" : "ts=");
		return -1;
	}
	ev->type = tx_type_get(system, event);
	for (i = 0; i < l->nkeys; i++) {
		size_t klen = strlen(l->key[i]);
		char *k = l->key[i];
		int f;

		if (klen > 4 && !strcmp(k + klen - 4, "_sym")) {
			k[klen - 4] = '\0';
			f = field_index(k);
			k[klen - 4] = '_';
			if (f >= 0)
				l->sym[f] = l->val[i];
			continue;
		}
		f = field_index(k);
		if (f < 0)
			continue;
		/* A number where txlog needs one, so that bad input is caught here. */
		if (f < F_FIRST_STRING && tx_parse_u64(l->val[i], &v)) {
			snprintf(why, whysize, "bad %s '%.40s'", k, l->val[i]);
			return -1;
		}
		l->field[f] = l->val[i];
	}
	if (ev->cpu >= src->ncpus)
		src->ncpus = ev->cpu + 1;
	return 0;
}

static void txrec_remember_comm(struct txrec *x, int pid, const char *comm)
{
	uint32_t i;

	if (!comm || pid < 0)
		return;
	if (tx_map_get(&x->pids, (uint64_t)pid, &i)) {
		if (strcmp(x->comms[i], comm)) {
			free(x->comms[i]);
			x->comms[i] = xstrdup(comm);
		}
		return;
	}
	if (x->ncomms == x->comms_cap) {
		x->comms_cap = x->comms_cap ? x->comms_cap * 2 : 256;
		x->comms = xrealloc(x->comms, x->comms_cap * sizeof(*x->comms));
	}
	x->comms[x->ncomms] = xstrdup(comm);
	tx_map_put(&x->pids, (uint64_t)pid, x->ncomms++);
}

static int txrec_walk(struct tx_source *src, tx_event_fn fn, void *data)
{
	struct txrec *x = txrec_of(src);
	struct tx_event ev;
	char why[160];
	ssize_t len;
	off_t off = 0;

	for (;;) {
		if (!x->spooled)
			off = ftello(x->in);
		len = getline(&x->raw, &x->rawcap, x->in);
		if (len < 0)
			break;
		x->lineno++;
		if (!is_txrec(x->raw))
			continue;
		while (len && (x->raw[len - 1] == '\n' || x->raw[len - 1] == '\r'))
			x->raw[--len] = '\0';
		if (txrec_parse(src, x->raw, len, &x->cur, &ev, why, sizeof(why))) {
			snprintf(src->error, sizeof(src->error), "%s:%" PRIu64 ": bad txrec record: %s",
				 src->path, x->lineno, why);
			return -1;
		}
		if (x->spooled) {
			off = ftello(x->again);
			if (fwrite(x->raw, 1, len, x->again) != (size_t)len || fputc('\n', x->again) == EOF) {
				snprintf(src->error, sizeof(src->error),
					 "writing the temporary copy of stdin: %s", strerror(errno));
				return -1;
			}
		}
		ev.ref = off;
		ev.priv = &x->cur;
		txrec_remember_comm(x, ev.pid, x->cur.comm);
		x->records++;
		if (fn(src, &ev, data))
			return 0;
	}
	if (ferror(x->in)) {
		snprintf(src->error, sizeof(src->error), "%s: %s", src->path, strerror(errno));
		return -1;
	}
	if (!x->records) {
		snprintf(src->error, sizeof(src->error),
			 "%s: not a trace: no trace-cmd header and no txrec lines", src->path);
		return -1;
	}
	if (x->spooled)
		fflush(x->again);
	return 0;
}

static bool txrec_num(struct tx_source *src, const struct tx_event *ev, enum tx_field f,
		      uint64_t *val)
{
	const struct txrec_line *l = ev->priv;

	(void)src;
	if (f >= F_FIRST_STRING || !l->field[f])
		return false;
	return tx_parse_u64(l->field[f], val) == 0;
}

static bool txrec_str(struct tx_source *src, const struct tx_event *ev, enum tx_field f,
		      char *buf, size_t size)
{
	const struct txrec_line *l = ev->priv;
	const char *s = f == F_COMM && !l->field[f] ? l->comm : l->field[f];

	(void)src;
	if (!s || !size)
		return false;
	snprintf(buf, size, "%s", s);
	return true;
}

static const char *txrec_comm(struct tx_source *src, int pid)
{
	struct txrec *x = txrec_of(src);
	uint32_t i;

	if (tx_map_get(&x->pids, (uint64_t)pid, &i))
		return x->comms[i];
	return "<...>";
}

static const char *txrec_symbol(struct tx_source *src, const struct tx_event *ev,
				enum tx_field f, uint64_t addr, char *buf, size_t size)
{
	const struct txrec_line *l = ev ? ev->priv : NULL;

	(void)src;
	(void)addr;
	if (!l || !l->sym[f])
		return NULL;
	snprintf(buf, size, "%s", l->sym[f]);
	return buf;
}

static int txrec_reread(struct tx_source *src, uint64_t ref, struct tx_event *ev)
{
	struct txrec *x = txrec_of(src);
	char why[160];
	ssize_t len;

	if (fseeko(x->again, (off_t)ref, SEEK_SET))
		return -1;
	len = getline(&x->raw, &x->rawcap, x->again);
	if (len < 0 || !is_txrec(x->raw))
		return -1;
	while (len && (x->raw[len - 1] == '\n' || x->raw[len - 1] == '\r'))
		x->raw[--len] = '\0';
	if (txrec_parse(src, x->raw, len, &x->other, ev, why, sizeof(why)))
		return -1;
	ev->ref = ref;
	ev->priv = &x->other;
	if (x->spooled)
		fseeko(x->again, 0, SEEK_END);
	return 0;
}

static void txrec_release(struct tx_source *src, struct tx_event *ev)
{
	(void)src;
	ev->priv = NULL;
}

static void txrec_info(struct tx_source *src, const struct tx_event *ev, char *buf, size_t size)
{
	const struct txrec_line *l = ev->priv;
	size_t n = 0;
	int i;

	(void)src;
	buf[0] = '\0';
	for (i = 0; i < l->nkeys && n < size; i++)
		n += snprintf(buf + n, size - n, "%s%s=%s", i ? " " : "", l->key[i], l->val[i]);
}

static void txrec_json_fields(struct tx_source *src, const struct tx_event *ev, FILE *out)
{
	const struct txrec_line *l = ev->priv;
	uint64_t v;
	int i;

	(void)src;
	for (i = 0; i < l->nkeys; i++) {
		if (i)
			fputs(", ", out);
		tx_json_str(out, l->key[i]);
		fputs(": ", out);
		/* Decimal stays a number; hex (addresses) and words stay strings. */
		if (strncmp(l->val[i], "0x", 2) && !tx_parse_u64(l->val[i], &v))
			fputs(l->val[i], out);
		else
			tx_json_str(out, l->val[i]);
	}
}

static void txrec_close(struct tx_source *src)
{
	struct txrec *x = txrec_of(src);
	uint32_t i;

	if (!x)
		return;
	if (x->in && x->in != stdin)
		fclose(x->in);
	if (x->again)
		fclose(x->again);
	free(x->raw);
	free(x->cur.buf);
	free(x->other.buf);
	for (i = 0; i < x->ncomms; i++)
		free(x->comms[i]);
	free(x->comms);
	tx_map_free(&x->pids);
	free(x);
	src->priv = NULL;
}

int tx_txrec_open(struct tx_source *src, char *err, size_t errsize)
{
	struct txrec *x = xcalloc(1, sizeof(*x));
	bool found = false;

	src->priv = x;
	tx_map_init(&x->pids);
	if (!strcmp(src->path, "-")) {
		x->in = stdin;
		x->again = tmpfile();
		x->spooled = true;
		if (!x->again) {
			snprintf(err, errsize, "a temporary copy of stdin: %s", strerror(errno));
			txrec_close(src);
			return -1;
		}
		src->path = "(stdin)";
		return 0;
	}
	x->in = fopen(src->path, "r");
	x->again = x->in ? fopen(src->path, "r") : NULL;
	if (!x->in || !x->again) {
		snprintf(err, errsize, "%s: %s", src->path, strerror(errno));
		txrec_close(src);
		return -1;
	}
	/* Say "not a trace" before any output, not after a scan that printed. */
	while (!found && getline(&x->raw, &x->rawcap, x->again) >= 0)
		found = is_txrec(x->raw);
	if (!found) {
		if (ferror(x->again))
			snprintf(err, errsize, "%s: %s", src->path, strerror(errno));
		else
			snprintf(err, errsize, "%s: not a trace: no trace-cmd header and no txrec lines",
				 src->path);
		txrec_close(src);
		return -1;
	}
	rewind(x->again);
	return 0;
}

const struct tx_source_ops tx_txrec_ops = {
	.walk		= txrec_walk,
	.num		= txrec_num,
	.str		= txrec_str,
	.comm		= txrec_comm,
	.reread		= txrec_reread,
	.release	= txrec_release,
	.info		= txrec_info,
	.json_fields	= txrec_json_fields,
	.symbol		= txrec_symbol,
	.close		= txrec_close,
};
