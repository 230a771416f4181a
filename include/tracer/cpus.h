/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* CPU lists, as -C and --cpu take them. */
#ifndef TRACER_CPUS_H
#define TRACER_CPUS_H

/* CPUs a report can filter on. */
#define TR_MAX_CPUS	4096

/*
 * Parse a CPU list such as "0,2-3" into set[0..ncpu) (1 = listed): CPU
 * numbers and ranges of them, decimal digits only, separated by commas.
 * 0, -EINVAL when malformed (empty, "0-", "1,", "3-1", signs, spaces),
 * -ERANGE when a CPU is >= ncpu.  A NULL set only checks the list.
 */
int tr_parse_cpu_list(const char *list, unsigned char *set, unsigned int ncpu);

#endif /* TRACER_CPUS_H */
