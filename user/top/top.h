/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer top: what the machine does now, from the events record would
 * capture, without writing a trace first (perf top, lttngtop).  A
 * recording whose consumer also feeds its packets to a live trace reader;
 * its items are counted (top/model.h) into a snapshot per interval, which
 * the display (a screen, or batch text or JSON) reads without ever holding
 * the consumer up.  The options and tr_top() are public (tracer/top.h).
 */
#ifndef TRACER_TOP_TOP_H
#define TRACER_TOP_TOP_H

#include <tracer/top.h>

#include "record/recorder.h"

/* The events top records when none are given. */
extern const char *const tr_top_default_events[];
extern const unsigned int tr_top_ndefault_events;

#endif /* TRACER_TOP_TOP_H */
