// SPDX-License-Identifier: GPL-2.0
/*
 * plan_env: the running system as plan.c sees it. plan.c itself does no
 * I/O; what it must know of the system (tracepoint formats) comes through
 * here, so its tests can put a fake in its place.
 */
#include <scry/plan.h>
#include <scry/tracefs.h>

const struct plan_env plan_env_system = {
	.tp_field = tracefs_field,
};
