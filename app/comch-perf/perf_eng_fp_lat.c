/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * fp-lat: fast-path round trips. Each host stream sends one message to
 * its DPU consumer, naming its own consumer in the immediate data, and
 * waits for the echo; the DPU echoes each message to the consumer it
 * names, in order, keeping the buffer until the host has one posted.
 */

#include <string.h>

#include "perf_dpu.h"
#include "perf_fwd.h"

static int
fp_lat_fwd(struct perf_fwd *f)
{
	struct perf_session *s = f->s;
	struct rte_comch_send_op op = { .data = s->src, .len = s->size,
		.imm_len = sizeof(uint32_t) };
	uint64_t t0, now;
	unsigned int i, spins;
	int n;

	do {
		now = rte_rdtsc();
		for (i = 0; i < f->nb_streams; i++) {
			struct perf_stream *st = f->streams[i];

			/* The DPU echoes to the consumer named in the
			 * immediate data. */
			op.imm = &st->own_consumer;
			t0 = rte_rdtsc();
			spins = 0;
			do {
				n = rte_comch_producer_send_burst(st->prod,
						st->peer_consumer, &op, 1);
			} while (n == 0 && fwd_wait_more(f, &spins));
			if (n <= 0)
				return n;  /* 0: stopped */
			spins = 0;
			do {
				n = fwd_fp_rx(st, 1);
			} while (n == 0 && fwd_wait_more(f, &spins));
			if (n <= 0)
				return n;  /* 0: stopped before the echo */
			now = rte_rdtsc();
			st->sent++;
			fwd_sample(f, t0, now);
		}
	} while (fwd_step(f, now, f->nb_streams, f->nb_streams));
	return 0;
}

/* Send the held echoes, in order, as far as the host has buffers and the
 * turn allows; repost the buffers of those that went. True when none is
 * held any more. */
static bool
fp_lat_dpu_flush(struct dpu_conn *d, struct dpu_queue *q)
{
	void *bufs[DPU_BURST];
	uint32_t lens[DPU_BURST], reply_to;
	uint16_t n = 0;
	int k;

	while (q->nb_held != 0 && dpu_turn_msgs(d, DPU_TX, 1) != 0) {
		struct rte_comch_completion *c = &q->held[q->held_first];
		struct rte_comch_send_op op = { .data = c->buf, .len = c->len };

		/* reply_to: the immediate data, a private copy */
		memcpy(&reply_to, c->imm, sizeof(reply_to));
		k = rte_comch_producer_send_burst(q->prod, reply_to, &op, 1);
		if (k == 0)
			break;  /* no buffer posted by the host yet */
		/* sent, or it cannot go (the host's consumer is gone) */
		dpu_turn_spend(d, DPU_TX, 1);
		bufs[n] = c->buf;
		lens[n++] = d->size;
		q->held_first = (uint16_t)((q->held_first + 1) % DPU_BURST);
		q->nb_held--;
	}
	if (n != 0)
		rte_comch_consumer_post_burst(q->cons, bufs, lens, n);
	return q->nb_held == 0;
}

/* A message naming the consumer to echo to is held for the echo. */
static bool
fp_lat_dpu_cpl(struct dpu_conn *d __rte_unused, struct dpu_queue *q,
		const struct rte_comch_completion *c)
{
	if (c->imm_len != sizeof(uint32_t))
		return false;
	q->held[(q->held_first + q->nb_held) % DPU_BURST] = *c;
	q->nb_held++;
	return true;
}

const struct perf_engine perf_eng_fp_lat = {
	.name = "fp-lat",
	.flags = PERF_E_FP | PERF_E_BOTH_WAYS | PERF_E_LATENCY |
		PERF_E_SECONDARY,
	.fwd = fp_lat_fwd,
	.dpu_cpl = fp_lat_dpu_cpl,
	.dpu_fp_flush = fp_lat_dpu_flush,
};
