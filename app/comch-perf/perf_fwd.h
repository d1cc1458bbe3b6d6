/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

#ifndef COMCH_PERF_FWD_H
#define COMCH_PERF_FWD_H

/*
 * What every host engine's loop uses (perf_eng_*.c): accounting a step of
 * the loop in the measurement window, and taking and reposting a
 * stream's own completions. Inline: they run on every turn.
 */

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

#include "perf_session.h"

/* Account @p n messages sent and @p rx received at @p now; false when
 * this lcore is done. */
static inline bool
fwd_step(struct perf_fwd *f, uint64_t now, uint64_t n, uint64_t rx)
{
	struct perf_session *s = f->s;

	f->sent += n;
	f->received += rx;
	if (now >= s->warm_end) {
		if (unlikely(f->t0 == 0)) {
			f->t0 = now;
		} else {
			f->msgs += n;
			f->rx_msgs += rx;
			f->t1 = now;
		}
	}
	/* perf_quit too: when the main lcore forwards, nobody else turns a
	 * signal into s->stop */
	if (unlikely(s->stop || perf_quit || (s->end != 0 && now >= s->end)))
		return false;
	if (unlikely(now >= s->next_progress) && f->is_main)
		perf_progress(s, now);
	if (f->count != 0)
		return f->msgs < f->count;
	return true;
}

static inline uint64_t
fwd_ns(const struct perf_session *s, uint64_t cycles)
{
	return cycles * 1000000000 / s->tsc_hz;
}

/* A round trip that started at @p t0 and ended at @p now, if measured. */
static inline void
fwd_sample(struct perf_fwd *f, uint64_t t0, uint64_t now)
{
	if (now >= f->s->warm_end && f->t0 != 0)
		perf_hist_add(&f->hist, fwd_ns(f->s, now - t0));
}

/* Take completions of a stream's own consumer and repost the buffers;
 * returns the messages received (buffers given back unfilled do not
 * count). */
static inline int
fwd_fp_rx(struct perf_stream *st, uint16_t max)
{
	struct rte_comch_completion cpl[64];
	void *bufs[64];
	uint32_t lens[64];
	int n, i, filled = 0;

	n = rte_comch_consumer_poll_burst(st->cons, cpl, RTE_MIN(max, 64));
	for (i = 0; i < n; i++) {
		bufs[i] = cpl[i].buf;
		lens[i] = st->size;
		filled += cpl[i].status == 0;
	}
	if (n > 0) {
		rte_comch_consumer_post_burst(st->cons, bufs, lens, (uint16_t)n);
		st->received += (uint64_t)filled;
	}
	return n < 0 ? n : filled;
}

#endif /* COMCH_PERF_FWD_H */
