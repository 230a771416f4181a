/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tracer list: what can be recorded, listed (tracepoints, kernel
 * functions, USDT probes), and tracefs, mounted for it.
 */
#ifndef TRACER_EVENTS_H
#define TRACER_EVENTS_H

#include <stddef.h>
#include <stdio.h>

/*
 * Print "system:event" for every tracepoint matching glob (all if NULL).
 * The count, or -errno with one line in why when tracefs cannot be read.
 */
int tr_events_list(const char *glob, FILE *out, char *why, size_t whylen);

/*
 * Make sure tracefs is mounted, mounting it if not.  It stays mounted, as
 * perf and trace-cmd leave it: unmounting could pull it from under another
 * recorder.  0 or -errno.
 */
int tr_tracefs_mount(void);

/*
 * tracer list --functions: the kernel functions matching glob (NULL: all)
 * and how this kernel can probe them, into out: how many, or -errno and why.
 */
int tr_kernel_functions_list(const char *glob, FILE *out, char *why, size_t whylen);

/*
 * tracer list --usdt: the USDT probes of the ELF file at path into out:
 * how many, or -errno and why.
 */
int tr_usdt_list(const char *path, FILE *out, char *why, size_t whylen);

#endif /* TRACER_EVENTS_H */
