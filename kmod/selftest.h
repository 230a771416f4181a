/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef TRACER_KMOD_SELFTEST_H
#define TRACER_KMOD_SELFTEST_H

struct tr_session;

int tr_selftest_init(void);
void tr_selftest_exit(void);
/* Keep the ended session's per-CPU counts for debugfs tracer/last_session. */
void tr_selftest_session_ended(struct tr_session *s);

#endif /* TRACER_KMOD_SELFTEST_H */
