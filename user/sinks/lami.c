// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* LAMI 1.0 results and metadata (lami.h), as lttng-analyses' -mi commands write them. */
#include <math.h>
#include <string.h>
#include <tracer/version.h>

#include "sinks/json.h"
#include "sinks/lami.h"

/* Longer texts are cut: a task's comm is 16 bytes, a class name or title shorter than this. */
#define TEXT_MAX	256

static void text(FILE *out, const char *s)
{
	tr_json_string(out, s, TEXT_MAX);
}

static void column(FILE *out, const struct lami_column *c)
{
	fputs("{\"title\":", out);
	text(out, c->title);
	fputs(",\"class\":", out);
	text(out, c->class);
	if (c->unit) {
		fputs(",\"unit\":", out);
		text(out, c->unit);
	}
	fputc('}', out);
}

static void table_class(FILE *out, const struct lami_table_class *c)
{
	unsigned int i;

	text(out, c->name);
	fputs(":{\"title\":", out);
	text(out, c->title);
	fputs(",\"column-descriptions\":[", out);
	for (i = 0; c->columns[i].title; i++) {
		fputs(i ? "," : "", out);
		column(out, &c->columns[i]);
	}
	fputs("]}", out);
}

void lami_metadata(FILE *out, const struct lami_analysis *a)
{
	unsigned int i;

	fputs("{\"mi-version\":{\"major\":1,\"minor\":0},", out);
	fprintf(out, "\"version\":{\"major\":%d,\"minor\":%d,\"patch\":%d,\"extra\":\"\"},", TRACER_VERSION_MAJOR,
		TRACER_VERSION_MINOR, TRACER_VERSION_PATCH);
	fputs("\"title\":", out);
	text(out, a->title);
	fputs(",\"description\":", out);
	text(out, a->description);
	fputs(",\"tags\":[", out);
	for (i = 0; a->tags[i]; i++) {
		fputs(i ? "," : "", out);
		text(out, a->tags[i]);
	}
	fputs("],\"table-classes\":{", out);
	for (i = 0; a->classes[i].name; i++) {
		fputs(i ? "," : "", out);
		table_class(out, &a->classes[i]);
	}
	fputs("}}\n", out);
}

void lami_results_begin(struct lami *l, FILE *out, __s64 clock_offset)
{
	*l = (struct lami) { .out = out, .offset = clock_offset };
	fputs("{\"results\":[", out);
}

/* The end of the row and table open, if any. */
static void end_table(struct lami *l)
{
	if (l->rows)
		fputc(']', l->out);
	if (l->tables)
		fputs("]}", l->out);
}

static void timestamp_value(struct lami *l, __u64 ts)
{
	fprintf(l->out, "{\"class\":\"timestamp\",\"value\":%lld}", (long long)ts + (long long)l->offset);
}

void lami_table(struct lami *l, const struct lami_table_class *c, const char *subtitle, __u64 begin, __u64 end)
{
	end_table(l);
	fputs(l->tables++ ? ",{" : "{", l->out);
	fputs("\"time-range\":{\"class\":\"time-range\",\"begin\":", l->out);
	timestamp_value(l, begin);
	fputs(",\"end\":", l->out);
	timestamp_value(l, end);
	fputs("},\"class\":", l->out);
	if (subtitle) {
		char title[TEXT_MAX];

		snprintf(title, sizeof(title), "%s [%s]", c->title, subtitle);
		fputs("{\"inherit\":", l->out);
		text(l->out, c->name);
		fputs(",\"title\":", l->out);
		text(l->out, title);
		fputc('}', l->out);
	} else {
		text(l->out, c->name);
	}
	fputs(",\"data\":[", l->out);
	l->rows = 0;
}

void lami_row(struct lami *l)
{
	fputs(l->rows++ ? "],[" : "[", l->out);
	l->cells = 0;
}

/* The start of the next cell: {"class":"CLASS" (the caller adds its members and the brace). */
static void cell(struct lami *l, const char *class)
{
	fprintf(l->out, "%s{\"class\":\"%s\"", l->cells++ ? "," : "", class);
}

/*
 * A number cell of class: a whole v in full, else with fraction's
 * decimals; an empty cell for an infinity or NaN (a number object needs a
 * value).
 */
static void number(struct lami *l, const char *class, double v, int fraction)
{
	if (!isfinite(v)) {
		lami_empty(l);
		return;
	}
	cell(l, class);
	if (fabs(v) < 9e18 && v == (double)(long long)v)
		fprintf(l->out, ",\"value\":%lld}", (long long)v);
	else
		fprintf(l->out, ",\"value\":%.*f}", fraction, v);
}

void lami_duration(struct lami *l, double ns)
{
	number(l, "duration", ns, 1);
}

void lami_timestamp(struct lami *l, __u64 ts)
{
	fputs(l->cells++ ? "," : "", l->out);
	timestamp_value(l, ts);
}

void lami_number(struct lami *l, double v)
{
	number(l, "number", v, 3);
}

void lami_ratio(struct lami *l, double v)
{
	number(l, "ratio", v, 6);
}

void lami_process(struct lami *l, const char *comm, __u32 pid, __u32 tid)
{
	cell(l, "process");
	fputs(",\"name\":", l->out);
	text(l->out, comm);
	if (pid)
		fprintf(l->out, ",\"pid\":%u", pid);
	fprintf(l->out, ",\"tid\":%u}", tid);
}

void lami_cpu(struct lami *l, unsigned int cpu)
{
	cell(l, "cpu");
	fprintf(l->out, ",\"id\":%u}", cpu);
}

void lami_syscall(struct lami *l, const char *name)
{
	cell(l, "syscall");
	fputs(",\"name\":", l->out);
	text(l->out, name);
	fputc('}', l->out);
}

void lami_irq(struct lami *l, bool hard, unsigned int nr, const char *name)
{
	cell(l, "irq");
	fprintf(l->out, ",\"hard\":%s,\"nr\":%u", hard ? "true" : "false", nr);
	if (name) {
		fputs(",\"name\":", l->out);
		text(l->out, name);
	}
	fputc('}', l->out);
}

void lami_string(struct lami *l, const char *s)
{
	cell(l, "string");
	fputs(",\"value\":", l->out);
	text(l->out, s);
	fputc('}', l->out);
}

void lami_empty(struct lami *l)
{
	fputs(l->cells++ ? ",null" : "null", l->out);
}

void lami_results_end(struct lami *l)
{
	end_table(l);
	fputs("]}\n", l->out);
}
