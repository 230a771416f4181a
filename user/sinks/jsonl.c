// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tracer export --format jsonl: one JSON object per line for each record
 * and each loss, for scripts and log pipelines.  A record:
 *	{"ts":NS,"cpu":N,"pid":P,"tid":T,"comm":"...","event":"system:name",
 *	 "fields":{...}[,"context":{...}][,"kernel_stack":[...],"user_stack":[...]]}
 * fields in the format's order (sinks/json.h); stack frames as "0x..."
 * strings.  A loss: {"ts":NS,"cpu":N,"lost":{...}[,"channel":"..."]}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/sink.h"
#include "sinks/json.h"
#include "sinks/tasks.h"
#include "common/context.h"

struct jsonl {
	FILE *out;
	const char *const *context;	/* the names of the trace's context fields */
	unsigned int ncontext;
};

static void json_context(FILE *out, const struct tr_item *it, const char *const *names,
			 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		fprintf(out, i ? ",\"%s\":" : ",\"context\":{\"%s\":", names[i]);
		tr_json_integer(out, (const unsigned char *)it->payload + it->context_at + 8 * i, 8,
			     tr_context_signed(names[i]));
	}
	fputc('}', out);
}

static void json_stack(FILE *out, const char *name, const struct tr_item *it,
		       unsigned int from, unsigned int n)
{
	unsigned int i;

	fprintf(out, ",\"%s\":[", name);
	for (i = 0; i < n; i++)
		fprintf(out, "%s\"0x%llx\"", i ? "," : "",
			(unsigned long long)tr_item_frame(it, from + i));
	fputc(']', out);
}

/* A record, with its context fields' names (record --context). */
static void json_record(FILE *out, const struct tr_item *it, const char *comm,
			const char *const *context, unsigned int ncontext)
{
	char event[512];

	fprintf(out, "{\"ts\":%llu,\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
		(unsigned long long)it->ts, it->cpu, it->record->pid, it->record->tid);
	tr_json_string(out, comm, strlen(comm));
	snprintf(event, sizeof(event), "%s:%s", it->class->system, it->class->name);
	fputs(",\"event\":", out);
	tr_json_string(out, event, strlen(event));
	fputs(",\"fields\":", out);
	tr_json_fields(out, it);
	if (it->context_at)
		json_context(out, it, context, ncontext);
	if (it->kernel_frames + it->user_frames) {
		json_stack(out, "kernel_stack", it, 0, it->kernel_frames);
		json_stack(out, "user_stack", it, it->kernel_frames, it->user_frames);
	}
	fputs("}\n", out);
}

static void jsonl_lost(void *state, const struct tr_item *it)
{
	struct jsonl *j = state;
	FILE *out = j->out;

	fprintf(out, "{\"ts\":%llu,\"cpu\":%u,\"lost\":{\"buffer_full\":%llu,\"not_committed\":%llu,\"too_big\":%llu,\"busy\":%llu,\"subbuffers_overwritten\":%llu}",
		(unsigned long long)it->ts, it->cpu, (unsigned long long)it->lost_full,
		(unsigned long long)it->lost_wrap, (unsigned long long)it->lost_big,
		(unsigned long long)it->lost_busy, (unsigned long long)it->lost_packets);
	if (it->channel) {
		fputs(",\"channel\":", out);
		tr_json_string(out, it->channel, strlen(it->channel));
	}
	fputs("}\n", out);
}

static void jsonl_record(void *state, const struct tr_item *it, struct tr_tasks *tasks)
{
	struct jsonl *j = state;

	json_record(j->out, it, tr_tasks_comm(tasks, it), j->context, j->ncontext);
}

static int jsonl_close(void *state, const struct tr_tasks *tasks)
{
	(void)tasks;
	free(state);
	return 0;
}

static int jsonl_open(struct tr_sink *sink, FILE *out, struct tr_trace *trace,
		      const struct tr_report_opts *o)
{
	struct jsonl *j = calloc(1, sizeof(*j));

	(void)o;
	if (!j)
		return -ENOMEM;
	j->out = out;
	j->ncontext = tr_trace_context(trace, &j->context);
	*sink = (struct tr_sink) { .ops = &tr_jsonl_sink, .state = j };
	return 0;
}

const struct tr_sink_ops tr_jsonl_sink = {
	.open = jsonl_open, .record = jsonl_record, .lost = jsonl_lost, .close = jsonl_close,
};
