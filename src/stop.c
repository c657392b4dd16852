// SPDX-License-Identifier: GPL-2.0
/* The stop flag: see include/scry/stop.h. */
#include <stdatomic.h>
#include <scry/stop.h>

static atomic_bool stop_flag;

bool stop_requested(void)
{
	return atomic_load_explicit(&stop_flag, memory_order_relaxed);
}

void stop_request(void)
{
	atomic_store_explicit(&stop_flag, true, memory_order_relaxed);
}

void stop_reset(void)
{
	atomic_store_explicit(&stop_flag, false, memory_order_relaxed);
}
