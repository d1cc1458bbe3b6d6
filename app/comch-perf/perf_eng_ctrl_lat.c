/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * ctrl-lat: control-message round trips. The host sends one message per
 * stream (a connection) and waits for its echo; the DPU echoes every
 * message of the test back as it came, keeping up to DPU_ECHO_BACKLOG
 * for a host whose queue is full (an honest host has one in flight).
 *
 * wake-lat: the same round trips with both sides asleep in between (event
 * mode, --event on both sides): the host idles WAKE_GAP_US before each
 * message, so the DPU has gone to sleep in epoll when it arrives, then
 * sleeps itself until the echo wakes it. A round trip is two wake-ups.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf_dpu.h"
#include "perf_fwd.h"

static int
ctrl_lat_fwd(struct perf_fwd *f)
{
	struct perf_session *s = f->s;
	struct rte_comch_msg m;
	uint64_t t0, now;
	unsigned int i, spins;
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
			/* The echo, or the end: a signal, or a DPU that
			 * died (its client's poll sees the link close). */
			spins = 0;
			do {
				n = rte_comch_msg_recv_burst(st->pc->conn, &m, 1);
				if (n == 0 && (++spins & 4095) == 0)
					rte_comch_client_poll(st->pc->cli);
			} while (n == 0 && !s->stop && !perf_quit);
			if (n <= 0)
				return n;  /* 0: stopped before the echo */
			now = rte_rdtsc();
			st->sent++;
			fwd_sample(f, t0, now);
			if ((st->sent & 1023) == 0)
				rte_comch_client_poll(st->pc->cli);
		}
	} while (fwd_step(f, now, f->nb_streams, 0));
	return 0;
}

/* The sender's idle time before each wake-lat message. */
#define WAKE_GAP_US 100

/* Sleep until a message of @p st's connection: 1 (one), 0 (stopped), or
 * a negative errno. */
static int
wake_lat_wait(struct perf_fwd *f, int ep, struct perf_stream *st,
		struct rte_comch_msg *m)
{
	struct epoll_event out[4];
	int n, ret;

	for (;;) {
		n = rte_comch_msg_recv_burst(st->pc->conn, m, 1);
		if (n != 0 || f->s->stop)
			return n;
		/* arm, then (nothing came meanwhile) sleep; at least once
		 * a second, to see the end of a run ended elsewhere */
		ret = fwd_arm(f);
		if (ret < 0)
			return ret;
		if (ret == 0)
			(void)epoll_wait(ep, out, RTE_DIM(out), 1000);
		/* what woke us may be the client's (a loss is reported by
		 * its poll) */
		if (st->pc->cli != NULL)
			rte_comch_client_poll(st->pc->cli);
	}
}

static int
wake_lat_fwd(struct perf_fwd *f)
{
	const struct timespec gap = { 0, WAKE_GAP_US * 1000 };
	struct perf_session *s = f->s;
	struct rte_comch_msg m;
	uint64_t t0, now = 0;
	unsigned int i;
	int ep, n, ret = 0;

	ep = fwd_epoll_open(f);
	if (ep < 0)
		return ep;
	do {
		for (i = 0; i < f->nb_streams && ret == 0; i++) {
			struct perf_stream *st = f->streams[i];

			nanosleep(&gap, NULL);
			memcpy(s->src, &st->sent, sizeof(st->sent));
			t0 = rte_rdtsc();
			ret = rte_comch_msg_send(st->pc->conn, s->src, st->size);
			if (ret < 0)
				break;
			n = wake_lat_wait(f, ep, st, &m);
			now = rte_rdtsc();
			if (n <= 0) {
				ret = n;
				break;
			}
			st->sent++;
			fwd_sample(f, t0, now);
			if ((st->sent & 1023) == 0 && st->pc->cli != NULL)
				rte_comch_client_poll(st->pc->cli);
		}
	} while (ret == 0 && !s->stop && fwd_step(f, now, f->nb_streams, 0));
	close(ep);
	return ret;
}

/* The echo buffers, once per connection. */
static int
ctrl_lat_dpu_begin(struct dpu_ctx *x __rte_unused, struct dpu_conn *d)
{
	uint32_t max_msg = rte_comch_conn_max_msg_size(d->conn);
	unsigned int i;

	d->nb_echo = 0;
	if (d->echo[0].data != NULL)
		return 0;
	for (i = 0; i < DPU_ECHO_BACKLOG; i++) {
		d->echo[i].data = malloc(max_msg);
		if (d->echo[i].data == NULL)
			return -ENOMEM; /* no READY: the host gives up */
	}
	return 0;
}

/* Echoes kept for the host, in order, as far as it has room. */
static bool
ctrl_lat_dpu_flush(struct dpu_conn *d)
{
	while (d->nb_echo != 0) {
		struct dpu_echo *e = &d->echo[d->echo_first];

		if (rte_comch_msg_send(d->conn, e->data, e->len) == -EAGAIN)
			return false;
		d->echo_first = (d->echo_first + 1) % DPU_ECHO_BACKLOG;
		d->nb_echo--;
	}
	return true;
}

static void
ctrl_lat_dpu_msg(struct dpu_conn *d, const struct rte_comch_msg *m)
{
	struct dpu_echo *e;

	if (d->echo[0].data == NULL)
		return;
	if (d->nb_echo == 0 &&
	    rte_comch_msg_send(d->conn, m->data, m->len) != -EAGAIN)
		return;
	/* the host has no room: keep it (the room was made by taking no
	 * more than the backlog holds) */
	e = &d->echo[(d->echo_first + d->nb_echo) % DPU_ECHO_BACKLOG];
	e->len = m->len;
	memcpy(e->data, m->data, m->len);
	d->nb_echo++;
}

const struct perf_engine perf_eng_ctrl_lat = {
	.name = "ctrl-lat",
	.flags = PERF_E_LATENCY,
	.fwd = ctrl_lat_fwd,
	.dpu_begin = ctrl_lat_dpu_begin,
	.dpu_ctrl_flush = ctrl_lat_dpu_flush,
	.dpu_ctrl_msg = ctrl_lat_dpu_msg,
	.dpu_ctrl_room = DPU_ECHO_BACKLOG,
};

const struct perf_engine perf_eng_wake_lat = {
	.name = "wake-lat",
	.flags = PERF_E_LATENCY | PERF_E_EVENT,
	.fwd = wake_lat_fwd,
	.dpu_begin = ctrl_lat_dpu_begin,
	.dpu_ctrl_flush = ctrl_lat_dpu_flush,
	.dpu_ctrl_msg = ctrl_lat_dpu_msg,
	.dpu_ctrl_room = DPU_ECHO_BACKLOG,
};
