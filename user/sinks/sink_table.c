// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sinks by the format that names them (include/tracer/report.h). */
#include "sinks/sink.h"

static const struct tr_sink_ops *const sinks[] = {
	[TR_REPORT_TEXT] = &tr_text_sink,
	[TR_REPORT_FOLDED] = &tr_folded_sink,
	[TR_REPORT_JSONL] = &tr_jsonl_sink,
	[TR_REPORT_STATS] = &tr_stats_sink,
	[TR_REPORT_CHROME] = &tr_chrome_sink,
	[TR_REPORT_PERFETTO] = &tr_perfetto_sink,
	[TR_REPORT_CTF] = &tr_ctf_copy_sink,
	[TR_REPORT_LTTNG] = &tr_lttng_sink,
	[TR_REPORT_TRACECMD] = &tr_tracecmd_sink,
	[TR_REPORT_ANALYZE_SCHED] = &tr_analyze_sched_sink,
	[TR_REPORT_ANALYZE_SYSCALLS] = &tr_analyze_syscalls_sink,
	[TR_REPORT_ANALYZE_IRQ] = &tr_analyze_irq_sink,
	[TR_REPORT_ANALYZE_CPU] = &tr_analyze_cpu_sink,
	[TR_REPORT_ANALYZE_OFFCPU] = &tr_analyze_offcpu_sink,
};

const struct tr_sink_ops *tr_sink_of(enum tr_report_format format)
{
	return sinks[format];
}
