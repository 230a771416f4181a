/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef TRACER_KMOD_KFUNCS_H
#define TRACER_KMOD_KFUNCS_H

/* Kfuncs stay registered until the module is unloaded. */
int tr_kfuncs_register(void);

#endif /* TRACER_KMOD_KFUNCS_H */
