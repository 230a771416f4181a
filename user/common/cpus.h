/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* CPU lists (common/cpus.c): public, tracer/cpus.h. */
#ifndef TRACER_COMMON_CPUS_H
#define TRACER_COMMON_CPUS_H

#include <tracer/cpus.h>

#endif /* TRACER_COMMON_CPUS_H */
