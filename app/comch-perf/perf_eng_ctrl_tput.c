/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * ctrl-tput: control messages one way. The host sends bursts on every
 * stream (a connection) as far as the DPU's queue has room; the DPU
 * counts them.
 */

#include <errno.h>

#include "perf_fwd.h"

static int
ctrl_tput_fwd(struct perf_fwd *f)
{
	struct perf_session *s = f->s;
	uint64_t sent;
	unsigned int i, k;
	int ret;

	do {
		sent = 0;
		for (i = 0; i < f->nb_streams; i++) {
			struct perf_stream *st = f->streams[i];

			for (k = 0; k < s->burst; k++) {
				ret = rte_comch_msg_send(st->pc->conn, s->src,
						st->size);
				if (ret == -EAGAIN)
					break;
				if (ret < 0)
					return ret;
			}
			st->sent += k;
			sent += k;
			if (k < s->burst)
				rte_comch_client_poll(st->pc->cli);
		}
	} while (fwd_step(f, rte_rdtsc(), sent, 0));
	return 0;
}

const struct perf_engine perf_eng_ctrl_tput = {
	.name = "ctrl-tput",
	.flags = 0,
	.fwd = ctrl_tput_fwd,
};
