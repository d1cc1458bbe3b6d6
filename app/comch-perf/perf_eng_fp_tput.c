/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * fp-tput: the fast path one way. Each host stream sends bursts to its
 * DPU consumer as far as it has buffers posted; the DPU counts and
 * reposts.
 */

#include "perf_fwd.h"

static int
fp_tput_fwd(struct perf_fwd *f)
{
	struct perf_session *s = f->s;
	struct rte_comch_send_op ops[1024];
	uint64_t sent;
	unsigned int i;
	int n;

	for (i = 0; i < s->burst; i++)
		ops[i] = (struct rte_comch_send_op){ .data = s->src,
			.len = s->size };
	do {
		sent = 0;
		for (i = 0; i < f->nb_streams; i++) {
			struct perf_stream *st = f->streams[i];

			n = rte_comch_producer_send_burst(st->prod,
					st->peer_consumer, ops, (uint16_t)s->burst);
			if (n < 0)
				return n;
			st->sent += (uint64_t)n;
			sent += (uint64_t)n;
		}
	} while (fwd_step(f, rte_rdtsc(), sent, 0));
	return 0;
}

const struct perf_engine perf_eng_fp_tput = {
	.name = "fp-tput",
	.flags = PERF_E_FP | PERF_E_SECONDARY,
	.fwd = fp_tput_fwd,
};
