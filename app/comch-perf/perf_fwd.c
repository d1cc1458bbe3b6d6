/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/* What the driving lcore does beside forwarding, which perf_fwd.h's loops
 * do themselves when it forwards: the progress line of a running test,
 * and polling the connections. */

#include <inttypes.h>
#include <stdio.h>

#include "perf_fwd.h"

void
perf_progress(struct perf_session *s, uint64_t now)
{
	uint64_t msgs = 0;
	double secs = (double)(now - s->warm_end) / (double)s->tsc_hz;
	unsigned int f;

	for (f = 0; f < s->nb_fwd; f++)
		msgs += __atomic_load_n(&s->fwd[f].msgs, __ATOMIC_RELAXED);
	if (now >= s->warm_end)
		printf("\r%-9s size %8u  %6.1f s  %12" PRIu64 " msgs  %9.3f Mmsg/s ",
			s->e->name, s->size, secs, msgs,
			secs > 0 ? (double)msgs / secs / 1e6 : 0);
	fflush(stdout);
	s->next_progress = now + s->tsc_hz;
}

void
perf_session_poll(struct perf_session *s)
{
	unsigned int i;

	/* Control tests own the connections on their forwarding lcores. */
	if (!(s->e->flags & PERF_E_FP))
		return;
	for (i = 0; i < s->nb_conns; i++)
		if (s->conns[i].cli != NULL)
			rte_comch_client_poll(s->conns[i].cli);
}
