/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* The table of tests (perf_engine.h), by enum perf_test. */

#include <stdio.h>
#include <string.h>

#include "perf_engine.h"

static const struct perf_engine *const perf_engines[PERF_TEST__MAX] = {
	[PERF_CTRL_LAT] = &perf_eng_ctrl_lat,
	[PERF_CTRL_TPUT] = &perf_eng_ctrl_tput,
	[PERF_FP_LAT] = &perf_eng_fp_lat,
	[PERF_FP_TPUT] = &perf_eng_fp_tput,
	[PERF_FP_BIDIR] = &perf_eng_fp_bidir,
	[PERF_CONN_RATE] = &perf_eng_conn_rate,
};

const struct perf_engine *
perf_engine(enum perf_test t)
{
	return (unsigned int)t < PERF_TEST__MAX ? perf_engines[t] : NULL;
}

const char *
perf_test_name(enum perf_test t)
{
	const struct perf_engine *e = perf_engine(t);

	return e != NULL ? e->name : "?";
}

int
perf_test_by_name(const char *name)
{
	unsigned int t;

	for (t = 0; t < PERF_TEST__MAX; t++)
		if (strcmp(name, perf_engines[t]->name) == 0)
			return (int)t;
	return -1;
}

void
perf_test_names(char *buf, size_t size, uint32_t flags)
{
	size_t n = 0;
	unsigned int t;

	buf[0] = '\0';
	for (t = 0; t < PERF_TEST__MAX && n < size; t++) {
		if ((perf_engines[t]->flags & flags) != flags)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
			n != 0 ? ", " : "", perf_engines[t]->name);
	}
}
