/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * System call numbers by the names tracefs gives their events
 * (syscalls:sys_enter_NAME), for recording those events from the raw
 * sys_enter/sys_exit tracepoints (bpf/record.bpf.c); and their names by
 * number, for tracer top.
 */
#ifndef TRACER_SYSCALLS_H
#define TRACER_SYSCALLS_H

/*
 * The number of the system call whose entry point is NAME, or -1 when
 * this build does not know it (a system call newer than its headers:
 * its events stay on their own tracepoints).
 */
int tr_syscall_nr(const char *name);

/* The name of system call nr (its __NR_ constant's), or NULL. */
const char *tr_syscall_name(int nr);

#endif /* TRACER_SYSCALLS_H */
