/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer report and tracer export (sinks/report.c): their options and
 * entry point are public, tracer/report.h.
 */
#ifndef TRACER_SINKS_REPORT_H
#define TRACER_SINKS_REPORT_H

#include <tracer/report.h>

#endif /* TRACER_SINKS_REPORT_H */
