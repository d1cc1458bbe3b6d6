/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* How a run is interrupted: SIGINT or SIGTERM set perf_quit, which every
 * loop reads. */

#include <signal.h>

#include <rte_common.h>

#include "perf.h"

volatile bool perf_quit;

static void
on_signal(int sig __rte_unused)
{
	perf_quit = true;
}

void
perf_signals_catch(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}
