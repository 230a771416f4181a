// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer analyze irq: per hard IRQ (irq:irq_handler_entry to its exit on
 * the same CPU) and per soft IRQ vector (irq:softirq_entry to its exit),
 * how many and how long: min, average, max, standard deviation; for soft
 * IRQs also the latency from the first raise on a CPU to the entry there,
 * as lttng-irqstats gives them.  An exit without its entry (begun before
 * the trace) counts nothing; a loss on a CPU drops what was pending on
 * it, counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <tracer/cpus.h>
#include <tracer/report.h>

#include "sinks/sink.h"
#include "sinks/analyze.h"
#include "sinks/by_class.h"
#include "sinks/json.h"
#include "sinks/lami.h"
#include "sinks/tasks.h"
#include "reader/trace.h"

enum kind { OTHER, HARD_ENTRY, HARD_EXIT, SOFT_ENTRY, SOFT_EXIT, SOFT_RAISE };

#define VECTORS		10	/* NR_SOFTIRQS */

static const char *const vector_names[VECTORS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

struct hard_irq {
	__u32 key;			/* the IRQ number */
	char name[32];			/* its handler's, from its last entry */
	struct an_durations duration;
};

struct irq_cpu {
	__u64 hard_since, soft_since;	/* 0: none pending */
	int hard_irq;
	unsigned int soft_vec;
	__u64 raised[VECTORS];		/* the first raise not yet entered, or 0 */
};

struct irqs {
	FILE *out;
	const struct tr_report_opts *o;
	struct an_table hard;
	struct an_durations soft[VECTORS], raise[VECTORS];
	struct irq_cpu cpus[TR_MAX_CPUS];
	struct tr_by_class kinds;	/* enum kind by class id, as __u8 (0xff: not worked out) */
	__u64 dropped;
	struct an_span span;
	__s64 clock_offset;		/* --output lami: the trace's (tr_trace_clock_offset()) */
	int err;
};

static int classify(const void *data, const struct tr_trace_class *c)
{
	static const char *const names[] = {
		[HARD_ENTRY] = "irq_handler_entry", [HARD_EXIT] = "irq_handler_exit",
		[SOFT_ENTRY] = "softirq_entry", [SOFT_EXIT] = "softirq_exit", [SOFT_RAISE] = "softirq_raise",
	};
	enum kind k;

	(void)data;
	for (k = HARD_ENTRY; k <= SOFT_RAISE && !strcmp(c->system, "irq"); k++)
		if (!strcmp(c->name, names[k]))
			return k;
	return OTHER;
}

static enum kind kind_of(struct irqs *s, const struct tr_item *it)
{
	return an_class_kind(&s->kinds, it, classify, NULL);
}

static void hard_exit(struct irqs *s, struct irq_cpu *cpu, const struct tr_item *it)
{
	struct hard_irq *h;

	if (!cpu->hard_since || cpu->hard_irq != (int)tr_item_number(it, "irq"))
		return;
	h = an_get(&s->hard, cpu->hard_irq);
	if (!h || an_durations_add(&h->duration, it->ts - cpu->hard_since, it->ts))
		s->err = -ENOMEM;
	cpu->hard_since = 0;
}

static void hard_entry(struct irqs *s, struct irq_cpu *cpu, const struct tr_item *it)
{
	struct hard_irq *h;
	const char *name;
	int len = 0;

	cpu->hard_irq = (int)tr_item_number(it, "irq");
	cpu->hard_since = it->ts;
	h = an_get(&s->hard, cpu->hard_irq);
	name = tr_item_field(it, "name", &len);
	if (h && name && len > 0)
		snprintf(h->name, sizeof(h->name), "%.*s", len, name);
	else if (!h)
		s->err = -ENOMEM;
}

static void irq_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct irqs *s = state;
	enum kind k = kind_of(s, it);
	struct irq_cpu *cpu = it->cpu < TR_MAX_CPUS ? &s->cpus[it->cpu] : NULL;
	__u64 vec = k >= SOFT_ENTRY ? tr_item_number(it, "vec") : 0;

	(void)tasks;
	an_span_add(&s->span, it, s->o);
	if (k == OTHER || !cpu || vec >= VECTORS)
		return;
	switch (k) {
	case HARD_ENTRY:
		hard_entry(s, cpu, it);
		break;
	case HARD_EXIT:
		hard_exit(s, cpu, it);
		break;
	case SOFT_RAISE:
		if (!cpu->raised[vec])
			cpu->raised[vec] = it->ts;
		break;
	case SOFT_ENTRY:
		if (cpu->raised[vec] && an_durations_add(&s->raise[vec], it->ts - cpu->raised[vec], it->ts))
			s->err = -ENOMEM;
		cpu->raised[vec] = 0;
		cpu->soft_vec = vec;
		cpu->soft_since = it->ts;
		break;
	case SOFT_EXIT:
		if (cpu->soft_since && cpu->soft_vec == vec &&
		    an_durations_add(&s->soft[vec], it->ts - cpu->soft_since, it->ts))
			s->err = -ENOMEM;
		cpu->soft_since = 0;
		break;
	default:
		break;
	}
}

/* A loss on a CPU: what was pending there is dropped. */
static void irq_lost(void *state, const struct tr_item *it)
{
	struct irqs *s = state;
	struct irq_cpu *cpu = it->cpu < TR_MAX_CPUS ? &s->cpus[it->cpu] : NULL;
	unsigned int v;

	if (!cpu)
		return;
	s->dropped += !!cpu->hard_since + !!cpu->soft_since;
	for (v = 0; v < VECTORS; v++)
		s->dropped += !!cpu->raised[v];
	*cpu = (struct irq_cpu) { 0 };
}

static int by_irq(const void *a, const void *b)
{
	__u32 x = an_key(*(const struct hard_irq *const *)a), y = an_key(*(const struct hard_irq *const *)b);

	return x < y ? -1 : x > y;
}

static void row_text(FILE *out, const char *what, const struct an_durations *d)
{
	double stdev = an_durations_stdev(d);

	fprintf(out, "%-28s %9llu %10.3f %10.3f %10.3f", what, (unsigned long long)d->count, an_us(d->min),
		an_us(an_durations_avg(d)), an_us(d->max));
	if (stdev >= 0)
		fprintf(out, " %10.3f\n", an_us(stdev));
	else
		fprintf(out, " %10s\n", "-");
}

static void print_text(struct irqs *s, struct hard_irq **hard, unsigned int nhard)
{
	static const char head[] = "%-28s %9s %10s %10s %10s %10s\n";
	char what[64];
	unsigned int i, nsoft = 0;

	if (nhard)
		fprintf(s->out, head, "HARD IRQ", "COUNT", "MIN us", "AVG us", "MAX us", "STDDEV us");
	for (i = 0; i < nhard; i++) {
		snprintf(what, sizeof(what), "%u %s", an_key(hard[i]), hard[i]->name);
		row_text(s->out, what, &hard[i]->duration);
	}
	for (i = 0; i < VECTORS; i++)
		nsoft += s->soft[i].count || s->raise[i].count;
	if (nsoft)
		fprintf(s->out, nhard ? "\n" : "");
	if (nsoft)
		fprintf(s->out, head, "SOFT IRQ", "COUNT", "MIN us", "AVG us", "MAX us", "STDDEV us");
	for (i = 0; i < VECTORS; i++) {
		if (s->soft[i].count) {
			snprintf(what, sizeof(what), "%u %s", i, vector_names[i]);
			row_text(s->out, what, &s->soft[i]);
		}
		if (s->raise[i].count) {
			snprintf(what, sizeof(what), "%u %s raise to entry", i, vector_names[i]);
			row_text(s->out, what, &s->raise[i]);
		}
	}
	if (s->dropped)
		fprintf(s->out, "\n%llu IRQs and raises whose end a loss may hide: not counted\n",
			(unsigned long long)s->dropped);
}

static void print_json(struct irqs *s, struct hard_irq **hard, unsigned int nhard)
{
	unsigned int i, n = 0;

	fprintf(s->out, "{\"analysis\":\"irq\",\"dropped_by_losses\":%llu,\"hard\":[", (unsigned long long)s->dropped);
	for (i = 0; i < nhard; i++) {
		fprintf(s->out, "%s{\"irq\":%u,\"name\":", i ? "," : "", an_key(hard[i]));
		tr_json_string(s->out, hard[i]->name, sizeof(hard[i]->name));
		fputc(',', s->out);
		an_durations_json(s->out, &hard[i]->duration);
		fputc('}', s->out);
	}
	fprintf(s->out, "],\"soft\":[");
	for (i = 0; i < VECTORS; i++) {
		if (!s->soft[i].count && !s->raise[i].count)
			continue;
		fprintf(s->out, "%s{\"vec\":%u,\"name\":\"%s\",", n++ ? "," : "", i, vector_names[i]);
		an_durations_json(s->out, &s->soft[i]);
		fprintf(s->out, ",\"raise_latency\":{");
		an_durations_json(s->out, &s->raise[i]);
		fprintf(s->out, "}}");
	}
	fprintf(s->out, "]}\n");
}

#define DURATIONS(what) \
	{ "Minimum " what, "duration", NULL }, { "Average " what, "duration", NULL }, { "Maximum " what, "duration", NULL }, \
	{ "Interrupt " what " standard deviation", "duration", NULL }
static const struct lami_column hard_columns[] = {
	{ "Interrupt", "irq", NULL }, { "Interrupt count", "number", "interrupts" }, DURATIONS("duration"), { 0 }
};
static const struct lami_column soft_columns[] = {
	{ "Interrupt", "irq", NULL }, { "Interrupt count", "number", "interrupts" }, DURATIONS("duration"),
	{ "Interrupt raise count", "number", "interrupt raises" }, DURATIONS("raise latency"), { 0 }
};
static const struct lami_table_class irq_classes[] = {
	{ "hard-stats", "Hardware interrupt statistics", hard_columns },
	{ "soft-stats", "Software interrupt statistics", soft_columns }, { 0 }
};
const struct lami_analysis an_lami_irq = {
	"Hardware and software interrupt statistics",
	"Per hard IRQ and soft IRQ vector: the count and durations, and soft IRQs' latency from raise to entry",
	(const char *const[]) { "linux-kernel", "tracer", "interrupt", "stats", NULL }, irq_classes,
};

static void print_lami(struct irqs *s, struct hard_irq **hard, unsigned int nhard)
{
	struct lami l;
	unsigned int i;

	lami_results_begin(&l, s->out, s->clock_offset);
	lami_table(&l, &irq_classes[0], NULL, s->span.first, s->span.last);
	for (i = 0; i < nhard; i++) {
		lami_row(&l);
		lami_irq(&l, true, an_key(hard[i]), hard[i]->name);
		lami_number(&l, hard[i]->duration.count);
		an_durations_lami(&l, &hard[i]->duration);
	}
	lami_table(&l, &irq_classes[1], NULL, s->span.first, s->span.last);
	for (i = 0; i < VECTORS; i++) {
		if (!s->soft[i].count && !s->raise[i].count)
			continue;
		lami_row(&l);
		lami_irq(&l, false, i, vector_names[i]);
		lami_number(&l, s->soft[i].count);
		an_durations_lami(&l, &s->soft[i]);
		lami_number(&l, s->raise[i].count);
		an_durations_lami(&l, &s->raise[i]);
	}
	lami_results_end(&l);
}

static void irqs_free(struct irqs *s)
{
	unsigned int i;

	for (i = 0; i < VECTORS; i++) {
		an_durations_free(&s->soft[i]);
		an_durations_free(&s->raise[i]);
	}
	an_table_free_durations(&s->hard, offsetof(struct hard_irq, duration));
	tr_by_class_free(&s->kinds);
	free(s);
}

static int irq_close(void *state, const struct tr_tasks *tasks)
{
	struct irqs *s = state;
	struct hard_irq **hard = calloc(s->hard.used + 1, sizeof(*hard)), *h;
	unsigned int i, nhard = 0, nsoft = 0;
	int err = s->err ? s->err : hard ? 0 : -ENOMEM;

	(void)tasks;
	for (i = 0; !err && i < s->hard.size; i++)
		if ((h = an_slot(&s->hard, i)) && h->duration.count)
			hard[nhard++] = h;
	for (i = 0; i < VECTORS; i++)
		nsoft += s->soft[i].count || s->raise[i].count;
	if (!err && nhard)
		qsort(hard, nhard, sizeof(*hard), by_irq);
	if (!err && !nhard && !nsoft) {
		fprintf(stderr, "tracer %s irq: no IRQ handled in the trace (an entry and its exit)\n", s->o->command);
		err = -ENODATA;
	} else if (!err && s->o->lami) {
		print_lami(s, hard, nhard);
	} else if (!err && s->o->json) {
		print_json(s, hard, nhard);
	} else if (!err) {
		print_text(s, hard, nhard);
	}
	free(hard);
	irqs_free(s);
	return err;
}

static int irq_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace, const struct tr_report_opts *o)
{
	static const char *const need[] = { "irq:irq_handler_entry", "irq:softirq_entry", NULL };
	int err;
	struct irqs *s = an_new(trace, o, "irq", need, "tracer record -e 'irq:*' ...", sizeof(*s), &err);

	if (!s)
		return err;
	s->out = out;
	s->o = o;
	s->hard.entry_size = sizeof(struct hard_irq);
	if (o->lami)
		tr_trace_clock_offset(trace, &s->clock_offset);
	s->kinds = (struct tr_by_class) { .size = 1, .fill = 0xff };
	*sink = (struct tr_sink) { .ops = &tr_analyze_irq_sink, .state = s };
	return 0;
}

/* keeps_state: the tasks' records are in the time it covers (an_span_add()), as in the others'. */
const struct tr_sink_ops tr_analyze_irq_sink = {
	.open = irq_open, .record = irq_record, .lost = irq_lost, .close = irq_close,
	.keeps_state = true, .every_task = true,
};
