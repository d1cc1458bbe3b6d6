/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * Forwarding engines: what one forwarding lcore does with its streams for
 * each test, behind a table as testpmd's forward engines are. Every engine
 * loops over its streams until the session stops (or its share of --count
 * is measured), accounting through fwd_step().
 */

#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>

#include "perf_session.h"

/* Account @p n messages sent at @p now; false when this lcore is done. */
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
	if (unlikely(s->stop || (s->end != 0 && now >= s->end)))
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

static int
fwd_ctrl_lat(struct perf_fwd *f)
{
	struct perf_session *s = f->s;
	struct rte_comch_msg m;
	uint64_t t0, now;
	unsigned int i;
	int n, ret;

	do {
		now = rte_rdtsc();
		for (i = 0; i < f->nb_streams; i++) {
			struct perf_stream *st = f->streams[i];

			memcpy(s->src, &st->sent, sizeof(st->sent));
			t0 = rte_rdtsc();
			ret = rte_comch_msg_send(st->pc->conn, s->src, st->size);
			if (ret < 0)
				return ret;
			do {
				n = rte_comch_msg_recv_burst(st->pc->conn, &m, 1);
			} while (n == 0 && !s->stop);
			if (n < 0)
				return n;
			now = rte_rdtsc();
			st->sent++;
			if (now >= s->warm_end && f->t0 != 0)
				perf_hist_add(&f->hist, fwd_ns(s, now - t0));
			if ((st->sent & 1023) == 0)
				rte_comch_client_poll(st->pc->cli);
		}
	} while (fwd_step(f, now, f->nb_streams, 0));
	return 0;
}

static int
fwd_ctrl_tput(struct perf_fwd *f)
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

/* A burst of messages of the session's size from its payload source. */
static void
fwd_fill_ops(const struct perf_session *s, struct rte_comch_send_op *ops)
{
	unsigned int i;

	for (i = 0; i < s->burst; i++)
		ops[i] = (struct rte_comch_send_op){ .data = s->src,
			.len = s->size };
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

static int
fwd_fp_lat(struct perf_fwd *f)
{
	struct perf_session *s = f->s;
	struct rte_comch_send_op op = { .data = s->src, .len = s->size,
		.imm_len = sizeof(uint32_t) };
	uint64_t t0, now;
	unsigned int i;
	int n;

	do {
		now = rte_rdtsc();
		for (i = 0; i < f->nb_streams; i++) {
			struct perf_stream *st = f->streams[i];

			/* The DPU echoes to the consumer named in the
			 * immediate data. */
			op.imm = &st->own_consumer;
			t0 = rte_rdtsc();
			do {
				n = rte_comch_producer_send_burst(st->prod,
						st->peer_consumer, &op, 1);
			} while (n == 0 && !s->stop);
			if (n < 0)
				return n;
			do {
				n = fwd_fp_rx(st, 1);
			} while (n == 0 && !s->stop);
			if (n < 0)
				return n;
			now = rte_rdtsc();
			st->sent++;
			if (now >= s->warm_end && f->t0 != 0)
				perf_hist_add(&f->hist, fwd_ns(s, now - t0));
		}
	} while (fwd_step(f, now, f->nb_streams, f->nb_streams));
	return 0;
}

/* Streaming tests: send bursts on every stream; fp-bidir also takes in
 * and reposts what the peer streams back. */
static int
fwd_fp_stream(struct perf_fwd *f, bool bidir)
{
	struct perf_session *s = f->s;
	struct rte_comch_send_op ops[1024];
	uint64_t sent, rx;
	unsigned int i;
	int n;

	fwd_fill_ops(s, ops);
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
			if (!bidir)
				continue;
			n = fwd_fp_rx(st, (uint16_t)s->burst);
			if (n < 0)
				return n;
			rx += (uint64_t)n;
		}
	} while (fwd_step(f, rte_rdtsc(), sent, rx));
	return 0;
}

static int
fwd_fp_tput(struct perf_fwd *f)
{
	return fwd_fp_stream(f, false);
}

static int
fwd_fp_bidir(struct perf_fwd *f)
{
	return fwd_fp_stream(f, true);
}

typedef int (*fwd_engine_t)(struct perf_fwd *f);

static const fwd_engine_t fwd_engines[PERF_TEST__MAX] = {
	[PERF_CTRL_LAT] = fwd_ctrl_lat,
	[PERF_CTRL_TPUT] = fwd_ctrl_tput,
	[PERF_FP_LAT] = fwd_fp_lat,
	[PERF_FP_TPUT] = fwd_fp_tput,
	[PERF_FP_BIDIR] = fwd_fp_bidir,
};

int
perf_fwd_run(void *arg)
{
	struct perf_fwd *f = arg;

	f->err = fwd_engines[f->s->test](f);
	__atomic_store_n(&f->done, true, __ATOMIC_RELEASE);
	return 0;
}
