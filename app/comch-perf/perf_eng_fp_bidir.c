/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * fp-bidir: the fast path both ways at once. Each host stream sends
 * bursts to its DPU consumer and takes in what the DPU's queue of the
 * same number streams to the host's consumer of that number.
 */

#include <errno.h>
#include <stdlib.h>

#include "perf_dpu.h"
#include "perf_fwd.h"

static int
fp_bidir_fwd(struct perf_fwd *f)
{
	struct perf_session *s = f->s;
	struct rte_comch_send_op ops[1024];
	uint64_t sent, rx;
	unsigned int i;
	int n;

	for (i = 0; i < s->burst; i++)
		ops[i] = (struct rte_comch_send_op){ .data = s->src,
			.len = s->size };
	do {
		sent = 0;
		rx = 0;
		for (i = 0; i < f->nb_streams; i++) {
			struct perf_stream *st = f->streams[i];

			n = rte_comch_producer_send_burst(st->prod,
					st->peer_consumer, ops, (uint16_t)s->burst);
			if (n < 0)
				return n;
			st->sent += (uint64_t)n;
			sent += (uint64_t)n;
			n = fwd_fp_rx(st, (uint16_t)s->burst);
			if (n < 0)
				return n;
			rx += (uint64_t)n;
		}
	} while (fwd_step(f, rte_rdtsc(), sent, rx));
	return 0;
}

/* The payload the DPU streams: as large as the largest test's messages,
 * shared by every host's test. Grown only once the larger one exists: the
 * tests that run go on with the one they have if it cannot be. */
static int
fp_bidir_dpu_begin(struct dpu_ctx *x, struct dpu_conn *d)
{
	uint8_t *src;

	if (d->size <= x->src_size)
		return 0;
	src = calloc(1, d->size);
	if (src == NULL)
		return -ENOMEM;
	free(x->src);
	x->src = src;
	x->src_size = d->size;
	return 0;
}

/* Queue @p i streams to the host's @p i-th consumer. */
static void
fp_bidir_dpu_send(struct dpu_ctx *x, struct dpu_conn *d, uint32_t i)
{
	static struct rte_comch_send_op ops[1024];
	uint16_t max = dpu_turn_msgs(d, DPU_TX, d->burst);
	int n;

	if (i >= d->nb_peer_consumers || max == 0)
		return;
	if (ops[0].data != x->src || ops[0].len != d->size) {
		uint32_t k;

		for (k = 0; k < RTE_DIM(ops); k++)
			ops[k] = (struct rte_comch_send_op){ .data = x->src,
				.len = d->size };
	}
	n = rte_comch_producer_send_burst(d->q[i].prod, d->peer_consumers[i],
			ops, max);
	if (n > 0) {
		d->sent += (uint64_t)n;
		dpu_turn_spend(d, DPU_TX, (uint32_t)n);
	}
}

const struct perf_engine perf_eng_fp_bidir = {
	.name = "fp-bidir",
	.flags = PERF_E_FP | PERF_E_BOTH_WAYS | PERF_E_BIDIR |
		PERF_E_SECONDARY,
	.fwd = fp_bidir_fwd,
	.dpu_begin = fp_bidir_dpu_begin,
	.dpu_send = fp_bidir_dpu_send,
};
