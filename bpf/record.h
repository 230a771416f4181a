/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What bpf/record.bpf.c and its loader (user/record.c) share: how the
 * generic tracepoint program finds the size of a raw tracepoint record.
 */
#ifndef TRACER_RECORD_H
#define TRACER_RECORD_H

/* Tracepoints one recording can enable; an event's id indexes tr_events. */
#define TR_MAX_EVENTS		4096
/* Dynamic (__data_loc / __rel_loc) fields per event the size walk visits. */
#define TR_MAX_DYN		8
/* dyn_offset flag: a __rel_loc field, offset counted from the field's end. */
#define TR_DYN_RELATIVE		0x8000

/*
 * A raw record is its fixed part, then the data of its dynamic fields,
 * each located by a u32 (length << 16 | offset) in the fixed part.
 */
struct tr_event_shape {
	__u32 kernel_id;		/* tracefs id, for common_type */
	__u32 fixed_size;
	__u32 ndyn;
	__u16 dyn_offset[TR_MAX_DYN];	/* of each locator, | TR_DYN_RELATIVE */
};

#endif /* TRACER_RECORD_H */
