/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * idle: nothing is sent; each side measures its CPU use over the window
 * from /proc. The host's forwarding lcore waits for messages that do not
 * come: with --event it sleeps in epoll on its connections' and clients'
 * events (and wakes at the window's start and end only), without it polls
 * them as every other test does. Its CPU time is its thread's
 * (/proc/thread-self/stat). The DPU (with --event, asleep in its loop)
 * reports its whole process's CPU time and the wall time between READY
 * and END in RESULT (perf.h); the report shows both as a percentage of
 * one core. The goal: 0 % on both sides with --event.
 */

#include <errno.h>

#include "perf_dpu.h"
#include "perf_fwd.h"

static int
idle_fwd(struct perf_fwd *f)
{
	struct perf_session *s = f->s;
	struct epoll_event out[4];
	struct rte_comch_msg m[8];
	uint64_t now, until, cpu0 = 0;
	bool measuring = false;
	unsigned int i;
	int ep = -1, ret = 0, ms;

	if (s->o->event) {
		ep = fwd_epoll_open(f);
		if (ep < 0)
			return ep;
	}
	do {
		now = rte_rdtsc();
		if (!measuring && now >= s->warm_end) {
			cpu0 = perf_cpu_us(true);
			measuring = true;
		}
		for (i = 0; i < f->nb_streams; i++) {
			struct perf_stream *st = f->streams[i];

			if (st->pc->cli != NULL)
				rte_comch_client_poll(st->pc->cli);
			ret = rte_comch_msg_recv_burst(st->pc->conn, m,
					RTE_DIM(m));
			if (ret < 0)
				goto out;
		}
		if (ep < 0)
			continue;
		ret = fwd_arm(f);
		if (ret < 0)
			goto out;
		if (ret > 0)
			continue;
		/* Until the window starts or ends (a second at most: a run
		 * stopped elsewhere is seen within one). */
		until = now < s->warm_end ? s->warm_end : s->end;
		ms = until == 0 || until <= now ? 1000 :
			(int)RTE_MIN((until - now) * 1000 / s->tsc_hz + 1,
				(uint64_t)1000);
		(void)epoll_wait(ep, out, RTE_DIM(out), ms);
	} while (!s->stop && fwd_step(f, rte_rdtsc(), 0, 0));
	ret = 0;
out:
	f->cpu_us = measuring ? perf_cpu_us(true) - cpu0 : 0;
	if (ep >= 0)
		close(ep);
	return ret;
}

const struct perf_engine perf_eng_idle = {
	.name = "idle",
	.flags = PERF_E_IDLE,
	.fwd = idle_fwd,
};
