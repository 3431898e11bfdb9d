// SPDX-License-Identifier: GPL-2.0
/*
 * svg.c: the timeline.  One lane per object life (the first --svg-lanes
 * selected lives, lives with anomalies first) or one lane per CPU (event
 * density); injected faults are red lines across every lane, trace_marker
 * text blue ones.  Hovering a mark shows the event (<title>).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "txlog.h"

#define NBINS		600
#define MAX_MARKS	512		/* per lane */
#define MAX_FAULTS	2000
#define MAX_MARKERS	200
#define MAX_CPUS	256

enum cat { C_ALLOC, C_FREE, C_REF, C_USE, C_PTR, C_OTHER, C_NR };

static const char *const cat_color[C_NR] = {
	"#2e9e44", "#d62728", "#1f77b4", "#9467bd", "#ff8c00", "#999999",
};
static const char *const cat_name[C_NR] = {
	"allocation", "free", "refcount", "LRU, page cache, reclaim", "vma, mm", "other",
};

struct mark {
	uint64_t ts;
	uint8_t cat;
	char *tip;
};

struct lane {
	char *label;
	uint64_t key;
	uint32_t nr;
	uint8_t kind;
	uint64_t start, end;
	bool live_at_end;
	uint32_t anomalies;
	struct mark *marks;
	int nmarks;
};

struct vline {
	uint64_t ts;
	char *tip;
};

struct tx_svg {
	const char *path;
	const struct tx_options *opt;
	struct lane *lanes;
	int nlanes, max_lanes;
	struct vline faults[MAX_FAULTS], markers[MAX_MARKERS];
	int nfaults, nmarkers;
	uint64_t faults_dropped;
	/* per-CPU density */
	uint32_t (*bins)[NBINS][C_NR];
	int ncpus;
	uint64_t bin0, width;		/* ns */
};

static enum cat role_cat(enum tx_role r)
{
	switch (r) {
	case R_PAGE_ALLOC: case R_SLAB_ALLOC:
		return C_ALLOC;
	case R_PAGE_FREE: case R_PAGE_FREE_NOTE: case R_SLAB_FREE:
		return C_FREE;
	case R_REF_SET: case R_REF_MOD: case R_REF_TRY: case R_REF_UNFREEZE:
		return C_REF;
	case R_PAGE_USE:
		return C_USE;
	case R_VMA_STORE: case R_MM_EXIT:
		return C_PTR;
	default:
		return C_OTHER;
	}
}

static void xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* XML 1.0 has no place for other control characters */
			fputc((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f ? '?' : *s, f);
		}
	}
}

struct tx_svg *tx_svg_new(const char *path, const struct tx_options *opt)
{
	struct tx_svg *s = xcalloc(1, sizeof(*s));

	s->path = path;
	s->opt = opt;
	s->max_lanes = opt->svg_lanes;
	s->lanes = xcalloc(s->max_lanes ? s->max_lanes : 1, sizeof(*s->lanes));
	s->width = 1000;	/* 1 us per bin to start with; doubles as needed */
	return s;
}

static char *event_tip(struct tx_source *src, const struct tx_event *ev)
{
	char t[32], info[400], *tip;
	size_t n;

	tx_fmt_ts(ev->ts, t, sizeof(t));
	src->ops->info(src, ev, info, sizeof(info));
	n = strlen(t) + strlen(ev->type->name) + strlen(info) + 80;
	tip = xmalloc(n);
	snprintf(tip, n, "%s cpu %d %s-%d %s %s", t, ev->cpu, src->ops->comm(src, ev->pid), ev->pid,
		 ev->type->name, info);
	return tip;
}

static void cpu_bin(struct tx_svg *s, const struct tx_event *ev, enum tx_role role)
{
	uint64_t b;
	int c, i, k;

	if (ev->cpu < 0 || ev->cpu >= MAX_CPUS)
		return;
	if (ev->cpu >= s->ncpus) {
		s->bins = xrealloc(s->bins, (ev->cpu + 1) * sizeof(*s->bins));
		memset(s->bins + s->ncpus, 0, (ev->cpu + 1 - s->ncpus) * sizeof(*s->bins));
		s->ncpus = ev->cpu + 1;
	}
	if (!s->bin0)
		s->bin0 = ev->ts ? ev->ts : 1;
	if (ev->ts < s->bin0)
		return;
	/* Out of range: merge pairs of bins until the event fits. */
	while ((b = (ev->ts - s->bin0) / s->width) >= NBINS) {
		for (c = 0; c < s->ncpus; c++)
			for (i = 0; i < NBINS; i++)
				for (k = 0; k < C_NR; k++)
					s->bins[c][i][k] = i < NBINS / 2 ?
						s->bins[c][2 * i][k] + s->bins[c][2 * i + 1][k] : 0;
		s->width *= 2;
	}
	s->bins[ev->cpu][b][role_cat(role)]++;
}

void tx_svg_event(struct tx_svg *s, struct tx_source *src, const struct tx_event *ev,
		  enum tx_role role)
{
	struct vline *v;

	if (s->opt->svg_by_cpu)
		cpu_bin(s, ev, role);
	if (role == R_FAULT) {
		if (s->nfaults == MAX_FAULTS) {
			s->faults_dropped++;
			return;
		}
		v = &s->faults[s->nfaults++];
	} else if (role == R_MARKER && s->nmarkers < MAX_MARKERS) {
		v = &s->markers[s->nmarkers++];
	} else {
		return;
	}
	v->ts = ev->ts;
	v->tip = event_tip(src, ev);
}

static void lane_clear(struct lane *ln)
{
	int i;

	for (i = 0; i < ln->nmarks; i++)
		free(ln->marks[i].tip);
	free(ln->marks);
	free(ln->label);
	memset(ln, 0, sizeof(*ln));
}

static void lane_fill(struct tx_svg *s, struct lane *ln, struct tx_source *src,
		      const struct tx_model *m, const struct tx_life *l, bool at_end)
{
	const struct tx_hist *h = &l->hist;
	bool ring = h->total > h->n;
	struct tx_event ev;
	char label[200];
	uint32_t i, j;
	size_t n;

	(void)s;
	lane_clear(ln);
	tx_life_label(m, l, label, sizeof(label));
	n = strlen(label);
	snprintf(label + n, sizeof(label) - n, ", life %u", l->nr);
	ln->label = xstrdup(label);
	ln->key = l->key;
	ln->nr = l->nr;
	ln->kind = l->kind;
	ln->start = l->first_ts;
	ln->end = l->last_ts;
	ln->live_at_end = at_end;
	ln->anomalies = l->anomalies;
	ln->marks = xcalloc(h->n ? h->n : 1, sizeof(*ln->marks));
	for (i = 0; i < h->n && ln->nmarks < MAX_MARKS; i++) {
		j = i;
		if (ring && i >= h->head)
			j = h->head + (h->next + (i - h->head)) % (h->n - h->head);
		if (src->ops->reread(src, h->ref[j], &ev))
			continue;
		ln->marks[ln->nmarks].ts = ev.ts;
		ln->marks[ln->nmarks].cat = role_cat(ev.type->role);
		ln->marks[ln->nmarks].tip = event_tip(src, &ev);
		ln->nmarks++;
		if (ev.ts < ln->start)
			ln->start = ev.ts;
		if (ev.ts > ln->end)
			ln->end = ev.ts;
		src->ops->release(src, &ev);
	}
}

static struct lane *lane_find(struct tx_svg *s, const struct tx_life *l)
{
	int i;

	for (i = 0; i < s->nlanes; i++)
		if (s->lanes[i].key == l->key && s->lanes[i].nr == l->nr && s->lanes[i].kind == l->kind)
			return &s->lanes[i];
	return NULL;
}

/* A lane for @l: a free one, or (for a life with an anomaly) one without. */
static void lane_add(struct tx_svg *s, struct tx_source *src, const struct tx_model *m,
		     const struct tx_life *l, bool at_end)
{
	struct lane *ln = lane_find(s, l);
	int i;

	if (s->opt->svg_by_cpu)
		return;
	if (!ln && s->nlanes < s->max_lanes)
		ln = &s->lanes[s->nlanes++];
	for (i = s->nlanes - 1; !ln && l->anomalies && i >= 0; i--)
		if (!s->lanes[i].anomalies)
			ln = &s->lanes[i];
	if (ln)
		lane_fill(s, ln, src, m, l, at_end);
}

void tx_svg_life(struct tx_svg *s, struct tx_source *src, const struct tx_model *m,
		 const struct tx_life *l, bool at_end)
{
	lane_add(s, src, m, l, at_end);
}

void tx_svg_anomaly(struct tx_svg *s, struct tx_source *src, const struct tx_model *m,
		    const struct tx_life *l, enum tx_anomaly a)
{
	if (a == A_UNKNOWN_ORIGIN || a == A_LEAK)
		return;
	/* The life may go on; its lane is filled again when it ends. */
	lane_add(s, src, m, l, false);
}

#define W		1400
#define LABEL_W		420
#define LANE_H		18
#define TOP		70

static double xpos(uint64_t ts, uint64_t t0, uint64_t t1)
{
	if (ts <= t0)
		return LABEL_W;
	if (ts >= t1)
		return W - 10;
	return LABEL_W + (double)(ts - t0) * (W - 10 - LABEL_W) / (double)(t1 - t0);
}

static void write_vlines(FILE *f, const struct vline *v, int n, uint64_t t0, uint64_t t1,
			 int height, const char *color, const char *dash)
{
	double x;
	int i;

	for (i = 0; i < n; i++) {
		if (v[i].ts < t0 || v[i].ts > t1)
			continue;
		x = xpos(v[i].ts, t0, t1);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\"%s><title>",
			x, TOP - 8, x, height - 30, color, dash);
		xml(f, v[i].tip);
		fputs("</title></line>\n", f);
	}
}

int tx_svg_write(struct tx_svg *s, struct tx_source *src, const struct tx_model *m)
{
	const struct tx_stats *st = tx_model_stats(m);
	uint64_t t0 = st->first_ts, t1 = st->last_ts, pad;
	int lanes = s->opt->svg_by_cpu ? s->ncpus : s->nlanes;
	int height = TOP + lanes * LANE_H + 70, i, j, k;
	char a[32], b[32];
	uint32_t max = 1;
	FILE *f;

	/* Object lanes: the time their lives span, not the whole trace. */
	if (!s->opt->svg_by_cpu && s->nlanes) {
		t0 = UINT64_MAX;
		t1 = 0;
		for (i = 0; i < s->nlanes; i++) {
			if (s->lanes[i].start < t0)
				t0 = s->lanes[i].start;
			if (s->lanes[i].end > t1)
				t1 = s->lanes[i].end;
		}
		pad = (t1 - t0) / 50 + 1000;
		t0 = t0 > pad ? t0 - pad : 0;
		t1 += pad;
	}
	if (t1 <= t0)
		t1 = t0 + 1;
	f = fopen(s->path, "w");
	if (!f)
		return -1;
	tx_fmt_ts(t0, a, sizeof(a));
	tx_fmt_ts(t1, b, sizeof(b));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"monospace\" font-size=\"11\">\n<title>txlog ", W, height, W, height);
	xml(f, src->path);
	fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"8\" y=\"18\" font-size=\"13\">txlog ", f);
	xml(f, src->path);
	fprintf(f, ": %" PRIu64 " events, %s - %s s; %s; %d fault%s injected</text>\n", st->events, a, b,
		s->opt->svg_by_cpu ? "one lane per CPU" : "one lane per object life",
		s->nfaults, s->nfaults == 1 ? "" : "s");
	/* legend */
	for (k = 0; k < C_NR; k++) {
		fprintf(f, "<rect x=\"%d\" y=\"28\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"37\">%s</text>\n", 8 + k * 170, cat_color[k], 22 + k * 170, cat_name[k]);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"50\" x2=\"%d\" y2=\"50\" stroke=\"red\" stroke-width=\"2\"/>"
		"<text x=\"%d\" y=\"54\">injected fault</text>\n", 8, 28, 34);
	fprintf(f, "<line x1=\"%d\" y1=\"50\" x2=\"%d\" y2=\"50\" stroke=\"#1f77b4\" stroke-dasharray=\"3,2\"/>"
		"<text x=\"%d\" y=\"54\">trace_marker</text>\n", 178, 198, 204);
	fprintf(f, "<text x=\"%d\" y=\"54\" fill=\"#b00\">bold red label: anomaly</text>\n", 348);
	/* time axis */
	for (i = 0; i <= 10; i++) {
		double x = LABEL_W + i * (W - 10 - LABEL_W) / 10.0;

		tx_fmt_ts(t0 + (t1 - t0) / 10 * i, a, sizeof(a));
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, TOP - 4, x, height - 40, x, height - 26, a);
	}
	if (s->opt->svg_by_cpu) {
		for (i = 0; i < s->ncpus; i++)
			for (j = 0; j < NBINS; j++)
				for (k = 0; k < C_NR; k++)
					if (s->bins[i][j][k] > max)
						max = s->bins[i][j][k];
		for (i = 0; i < s->ncpus; i++) {
			int y = TOP + i * LANE_H;

			fprintf(f, "<text x=\"8\" y=\"%d\">CPU %d</text>\n", y + 12, i);
			for (j = 0; j < NBINS; j++) {
				uint64_t ts = s->bin0 + (uint64_t)j * s->width;
				uint32_t n = 0;
				int best = C_OTHER;

				for (k = 0; k < C_NR; k++) {
					n += s->bins[i][j][k];
					if (s->bins[i][j][k] > s->bins[i][j][best])
						best = k;
				}
				if (!n)
					continue;
				fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
					"fill-opacity=\"%.2f\"><title>%u events</title></rect>\n",
					xpos(ts, t0, t1), y + 2,
					xpos(ts + s->width, t0, t1) - xpos(ts, t0, t1) + 0.5, LANE_H - 4,
					cat_color[best], 0.25 + 0.75 * n / max, n);
			}
		}
	} else {
		for (i = 0; i < s->nlanes; i++) {
			struct lane *ln = &s->lanes[i];
			int y = TOP + i * LANE_H;
			double x0 = xpos(ln->start, t0, t1);
			double x1 = ln->live_at_end ? W - 10 : xpos(ln->end, t0, t1);

			fprintf(f, "<text x=\"8\" y=\"%d\"%s>", y + 12,
				ln->anomalies & ((1U << A_ERRORS) - 1) ? " fill=\"#b00\" font-weight=\"bold\"" : "");
			xml(f, ln->label);
			fputs("</text>\n", f);
			fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"4\" fill=\"%s\"/>\n",
				x0, y + 7, x1 - x0 + 1, ln->live_at_end ? "#f0b000" : "#ccc");
			for (j = 0; j < ln->nmarks; j++) {
				fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"3\" height=\"%d\" fill=\"%s\"><title>",
					xpos(ln->marks[j].ts, t0, t1) - 1, y + 2, LANE_H - 4,
					cat_color[ln->marks[j].cat]);
				xml(f, ln->marks[j].tip);
				fputs("</title></rect>\n", f);
			}
		}
	}
	write_vlines(f, s->markers, s->nmarkers, t0, t1, height, "#1f77b4", " stroke-dasharray=\"3,2\"");
	write_vlines(f, s->faults, s->nfaults, t0, t1, height, "red", "");
	if (!lanes)
		fprintf(f, "<text x=\"8\" y=\"%d\">no object selected</text>\n", TOP + 12);
	fputs("</svg>\n", f);
	return fclose(f) ? -1 : 0;
}

void tx_svg_free(struct tx_svg *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nlanes; i++)
		lane_clear(&s->lanes[i]);
	for (i = 0; i < s->nfaults; i++)
		free(s->faults[i].tip);
	for (i = 0; i < s->nmarkers; i++)
		free(s->markers[i].tip);
	free(s->lanes);
	free(s->bins);
	free(s);
}
